"""A hand still in play when the game ends reads, on the pages, as card players say it (issue
25): the table page's last result line "Hand 1: not finished." with the reason "The game ended
when Ann had lost 3 lives.", and the hand's audit "Not finished: the game ended when Ann had
lost 3 lives." (never "abandoned: Ann reached
3 lives lost": the game was not abandoned). Checked at 1024×768 and 390×844."""

from __future__ import annotations

import pytest
import requests
from playwright.sync_api import expect

from tests.browser.conftest import PHONE
from tests.browser.table import open_table

REASON = "The game ended when Ann had lost 3 lives."


def cut_short(base: str) -> dict:
    """A Toepen game whose first hand is cut short: a ruling gives Ann her 3rd life lost."""
    made = requests.post(f"{base}/games", json={"game": "toepen", "players": ["Ann", "Bob", "Cas"],
                                                "options": {"limit": 3}}, timeout=30).json()
    for action in ({"type": "deal"}, {"type": "play", "player": "Bob", "card": "7H"},
                   {"type": "adjust", "player": "Ann", "amount": 3, "reason": "left for the last train"}):
        answer = requests.post(f"{base}/games/{made['id']}/events", json=action, timeout=30,
                               headers={"Authorization": f"Bearer {made['token']}"})
        assert answer.status_code == 201, answer.text
    return dict(made)


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["tablet", "phone"])
def test_a_hand_cut_short_by_the_games_end_reads_not_finished(server, new_context, viewport):
    game = cut_short(server.base)
    page = new_context(viewport).new_page()
    open_table(page, server, game)
    line = page.locator("#hand-result")
    expect(line).to_have_text(f"Hand 1: not finished. {REASON}")
    expect(page.locator("#hand-result .hint")).to_have_text(" " + REASON)

    page.goto(server.url(f"/watch/{game['id']}/hands/1"))
    result = page.locator("section[aria-labelledby='h-result']")
    expect(result.locator("p").first).to_have_text("Not finished: the game ended when Ann had lost 3 lives.")
    # the play cost nobody a life (the ruling listed below cost Ann 3): never "Ann loses 0 lives"
    expect(result).to_contain_text("Nobody lost a life in the play of this hand.")
    assert "loses 0" not in result.inner_text()
    for where in (page.locator("main"),):
        assert "abandoned" not in where.inner_text().lower()
