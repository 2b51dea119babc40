"""Every page, scanned by axe-core in a real browser (no serious or critical violation), and
the read-only pages at both of ui.md's sizes: no sideways scrolling, no tap target under 44×44.

One ``kibitz serve`` and one recorded club evening (``recorded.club_evening``) for the module.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.conftest import ACTION_MS, PHONE, TABLET, KibitzServer
from tests.browser.pages_checks import axe_violations, keep_token, sideways_overflow, small_tap_targets
from tests.browser.recorded import Recorder, club_evening
from tests.browser.screenshots import pages

#: The pages this module scans, by the screenshot script's names.
EVERY_PAGE = ["home", "new-game", "table", "game", "game-stop-the-bus", "replay", "audit-hand", "audit-trick",
              "audit-turn", "players", "player", "club"]
READ_PAGES = ["game", "game-stop-the-bus", "replay", "audit-hand", "audit-trick", "audit-turn", "players",
              "player", "club"]


@pytest.fixture(scope="module")
def evening(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[KibitzServer, dict[str, Recorder]]]:
    with KibitzServer(tmp_path_factory.mktemp("evening")) as server:
        yield server, club_evening(server.base)


@pytest.fixture(scope="module")
def devices(browser: Any, evening: tuple[KibitzServer, dict[str, Recorder]]) -> Iterator[dict[str, Any]]:
    """One page per size, on a device that keeps the scorekeepers' tokens of the audited games
    (so **What if…** and the full view are scanned too); JavaScript errors fail the module."""
    _server, games = evening
    errors: list[str] = []
    out, contexts = {}, []
    for size, viewport in (("tablet", TABLET), ("phone", PHONE)):
        context = browser.new_context(viewport=viewport)
        context.set_default_timeout(ACTION_MS)
        for _name, (_path, holder) in pages(games).items():
            if holder is not None:
                keep_token(context, holder.id, holder.token)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        out[size], contexts = page, [*contexts, context]
    yield out
    for context in contexts:
        context.close()
    assert errors == [], f"JavaScript errors on the pages: {errors}"


def open_page(devices: dict[str, Any], evening: tuple[KibitzServer, dict[str, Recorder]], name: str,
              size: str) -> Any:
    server, games = evening
    page = devices[size]
    page.goto(server.url(pages(games)[name][0]))
    page.wait_for_load_state("networkidle")
    return page


@pytest.mark.parametrize("name", EVERY_PAGE)
def test_no_serious_accessibility_violation(devices, evening, name):
    page = open_page(devices, evening, name, "tablet")
    assert axe_violations(page) == []


@pytest.mark.parametrize("size", ["tablet", "phone"])
@pytest.mark.parametrize("name", READ_PAGES)
def test_read_pages_fit_the_screen_with_big_tap_targets(devices, evening, name, size):
    page = open_page(devices, evening, name, size)
    assert sideways_overflow(page) == 0
    assert small_tap_targets(page) == []
    if size == "phone":
        assert axe_violations(page) == []
