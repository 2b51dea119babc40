"""Helpers for the table page's browser tests: open a game, tap cards and actions, wait for answers."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect


def open_table(page: Any, server: Any, game: dict[str, Any], base: str | None = None) -> None:
    """Open the table page of ``game`` with its token in the fragment, and wait for the board."""
    page.goto(f"{base or server.base}/table/{game['id']}#token={game['token']}")
    settle(page)


def settle(page: Any, version: int | None = None) -> None:
    """Wait until no tap is waiting for an answer and the buttons are those of the version
    shown (``version``, if given)."""
    page.wait_for_function(
        "v => { const t = document.getElementById('table');"
        " return t.dataset.pending === '0' && t.dataset.version !== undefined && t.dataset.fresh === 'true'"
        " && (v === null || t.dataset.version === String(v)); }", arg=version)


def version(page: Any) -> int:
    return int(page.locator("#table").get_attribute("data-version"))


def deck(page: Any, name: str) -> Any:
    return page.get_by_role("group", name="Deck", exact=True).get_by_role("button", name=name, exact=True)


def tap(page: Any, name: str) -> None:
    """Tap a card of the deck and wait until the service has answered (one event more)."""
    before = version(page)
    deck(page, name).click()
    settle(page, before + 1)


def act(page: Any, name: str, events: int = 1) -> None:
    """Tap an action button named ``name`` (e.g. ``Knock: Ann``) and wait for its answer."""
    before = version(page)
    page.get_by_role("button", name=name, exact=True).click()
    settle(page, before + events)


def pick(page: Any, *names: str, group: str = "Deck") -> None:
    """Select cards for a multi-card action (no write yet)."""
    for name in names:
        page.get_by_role("group", name=group, exact=True).get_by_role("button", name=name, exact=True).click()


def confirm(page: Any) -> None:
    before = version(page)
    page.get_by_role("button", name="Confirm", exact=True).click()
    settle(page, before + 1)


def status(page: Any) -> Any:
    return page.get_by_role("status")


def expect_status(page: Any, text: str) -> None:
    expect(status(page)).to_have_text(text)
