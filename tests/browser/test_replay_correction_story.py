"""The replay on a phone: a step undone, redone and undone again carries its whole story
("undone, redone, then undone again", no event numbers) and the long tag wraps inside the 390 px
screen instead of pushing the page sideways."""

from __future__ import annotations

from typing import Any

from tests.browser import recorded
from tests.browser.conftest import PHONE
from tests.browser.pages_checks import sideways_overflow


def test_a_long_undo_story_wraps_on_a_phone(server: Any, new_context: Any) -> None:
    game = recorded.toepen_table_game(server.base)  # 11 events
    game.post({"type": "play", "player": "Dee", "card": "9D"})  # 12
    game.undo()  # 13
    assert game.session.post(f"{server.base}/games/{game.id}/redo", json={}, timeout=30).status_code == 201  # 14
    game.undo()  # 15
    page = new_context(viewport=PHONE).new_page()
    page.goto(server.url(f"/watch/{game.id}/replay?step=12"))
    tag = page.locator("#steps-list li.undone .undone-tag").last
    assert tag.inner_text() == "undone, redone, then undone again"
    assert "was undone, redone, then undone again later" in page.locator(".undone-note").inner_text()
    assert sideways_overflow(page) == 0
