"""Messages go away once read (issue 25): a fresh user found "Undone …", "Fixed …", refusals and
Fool!'s irregularity message lying over the current trick and the result line, and staying there
until tapped. A message is laid over the board (docs/table-page.md, "Nothing moves under a
finger"); it now puts itself away after its reading time (docs/table-page.md, "Messages go away"):
"Undone …" within 3 s plus 60 ms a letter, a refusal within 5 s plus 60 ms a letter, and the current
trick under it is in view again (the point at its middle is the trick's, not the message's).
"""

from __future__ import annotations

from typing import Any

import pytest
import requests
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, TABLET
from tests.browser.table import open_table, settle, tap, version

FOUR = ["Ann", "Bob", "Cas", "Dee"]

#: the element at the middle of the current trick's first play (or its label): a message over it hides it
TRICK_SEEN = """() => { const t = document.querySelector('#board .trick.current');
  const p = t.querySelector('.play') || t.querySelector('.trick-label'); const r = p.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return !!hit && !!hit.closest('#board .trick.current'); }"""


def reading_time(sentence: str, alert: bool) -> float:
    """The longest a message may stay, in seconds (as board.js's readingTime), with 2 s to spare."""
    return min(15.0, (5.0 if alert else 3.0) + 0.06 * len(sentence)) + 2.0


def gone_in_time(page: Any, id_: str, alert: bool) -> None:
    message = page.locator(f"#{id_}")
    expect(message).not_to_have_text("")
    sentence = message.inner_text()
    expect(message).to_have_text("", timeout=int(reading_time(sentence, alert) * 1000))
    page.evaluate("() => window.scrollTo(0, 0)")
    assert page.evaluate(TRICK_SEEN), sentence


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_undone_goes_away_and_the_current_trick_is_seen_again(server, new_context, viewport):
    game = server.create(game="toepen", players=FOUR, dealer="Ann")
    server.post(game, {"type": "deal"})
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, game, base=server.lan_base)
    tap(page, "7♣")
    tap(page, "8♣")
    shown = version(page)
    page.locator("#undo").click()
    settle(page, shown + 1)
    expect(page.locator("#changes")).to_contain_text("Undone: Cas played 8♣")
    gone_in_time(page, "changes", alert=False)


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_a_refusal_goes_away_and_the_current_trick_is_seen_again(server, new_context, viewport):
    game = server.create(game="toepen", players=FOUR, dealer="Ann")
    server.post(game, {"type": "deal"})
    server.post(game, {"type": "play", "player": "Bob", "card": "7C"})
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, game, base=server.lan_base)
    requests.post(f"{server.base}/games/{game['id']}/events", json={"type": "play", "player": "Cas", "card": "8C"},
                  headers={"Authorization": f"Bearer {game['token']}"}, timeout=30)  # another device plays first
    page.get_by_role("group", name="Deck", exact=True).get_by_role("button", name="9♣", exact=True).click()
    page.get_by_role("alert").filter(has_text="moved on").wait_for()
    settle(page)
    gone_in_time(page, "alert", alert=True)
