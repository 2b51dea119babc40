"""Every page, scanned by axe-core in a real browser (no serious or critical violation), and
the read-only pages at both of ui.md's sizes: no sideways scrolling, no tap target under 44×44.

One ``kibitz serve`` and one recorded club evening (``recorded.club_evening``) for the module.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.conftest import PHONE, TABLET, KibitzServer
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
    server = KibitzServer(tmp_path_factory.mktemp("evening"))
    server.start()
    try:
        yield server, club_evening(server.base)
    finally:
        server.stop()


def open_page(new_context: Any, evening: tuple[KibitzServer, dict[str, Recorder]], name: str,
              viewport: dict[str, int]) -> Any:
    server, games = evening
    path, holder = pages(games)[name]
    context = new_context(viewport)
    if holder is not None:  # the scorekeeper's device: the token kept in localStorage
        keep_token(context, holder.id, holder.token)
    page = context.new_page()
    page.goto(server.url(path))
    page.wait_for_load_state("networkidle")
    return page


@pytest.mark.parametrize("name", EVERY_PAGE)
def test_no_serious_accessibility_violation(new_context, evening, name):
    page = open_page(new_context, evening, name, TABLET)
    assert axe_violations(page) == []


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
@pytest.mark.parametrize("name", READ_PAGES)
def test_read_pages_fit_the_screen_with_big_tap_targets(new_context, evening, name, viewport):
    page = open_page(new_context, evening, name, viewport)
    assert sideways_overflow(page) == 0
    assert small_tap_targets(page) == []
    if viewport is PHONE:
        assert axe_violations(page) == []
