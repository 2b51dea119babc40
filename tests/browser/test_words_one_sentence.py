"""One state, one sentence; one event, one wording (ui.md, "Words for card players"), in a real
browser: the table page's status line says what the game page's headline says for the same
state (a knock, a knock being answered, a deal due, a stop, an abandoned game), both showing the
state's status_sentence (docs/decisions.md, "The status sentence"); the Undo button
names a fix and an abandon in card players' words ("Undo: Fix: Cas played 9♥, not 8♥",
"Undo: Game abandoned"), never an event number; and after an abandon between rounds the seats
show the game as the service's state says (api.md, "Which hand is current"): no dealer, the
last round marked over, not the ended round's badges."""

from __future__ import annotations

import re
from typing import Any

import requests
from playwright.sync_api import expect

from tests.browser.table import expect_status, open_table


def headline(page: Any, server: Any, game: dict[str, Any]) -> str:
    page.goto(server.url(f"/watch/{game['id']}"))
    return str(page.locator("#headline").inner_text()).strip()


def same_words(table: Any, watch: Any, server: Any, game: dict[str, Any], words: str) -> None:
    """The game page's headline is ``words``, and the table page's status line too."""
    assert headline(watch, server, game) == words
    table.goto("about:blank")  # a real load: the same address again with its fragment would not reload it
    open_table(table, server, game)
    expect_status(table, words)


def undo_name(table: Any) -> str:
    button = table.get_by_role("button", name=re.compile(r"^Undo: "))
    expect(button).to_have_count(1)
    return str(button.get_attribute("aria-label") or button.inner_text()).strip()


def test_toepen_knock_fix_and_abandon_read_the_same_on_both_pages(server, page, new_context):
    watch = new_context().new_page()
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas", "Dee"], dealer="Ann")
    server.post(game, {"type": "deal"})
    server.post(game, {"type": "play", "player": "Bob", "card": "7H"})
    server.post(game, {"type": "play", "player": "Cas", "card": "8H"})
    server.post(game, {"type": "knock", "player": "Dee"})
    same_words(page, watch, server, game, "Dee to play — Dee knocked (stake 2): Ann, Bob and Cas may fold")
    fixed = requests.post(server.url(f"/games/{game['id']}/correct"), timeout=30,
                          json={"target": 4, "action": {"type": "play", "player": "Cas", "card": "9H"}},
                          headers={"Authorization": f"Bearer {game['token']}"})
    assert fixed.status_code == 201, fixed.text
    page.goto("about:blank")  # a real load: the same address again with its fragment would not reload it
    open_table(page, server, game)
    expect(page.get_by_role("button", name="Undo: Fix: Cas played 9♥, not 8♥", exact=True)).to_be_visible()
    server.post(game, {"type": "abandon", "reason": "the club closes"})
    same_words(page, watch, server, game, "The game was abandoned.")
    expect(page.get_by_role("button", name="Undo: Game abandoned", exact=True)).to_be_visible()
    assert not re.search(r"\bevent\b|\d+:", undo_name(page), re.I)
    expect(page.locator(".seat .badge", has_text="dealer")).to_have_count(0)


def test_an_answered_knock_reads_the_same_on_both_pages(server, page, new_context):
    watch = new_context().new_page()
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas", "Dee"], dealer="Ann",
                         options={"knock_responses": "explicit"})
    server.post(game, {"type": "deal"})
    server.post(game, {"type": "knock", "player": "Bob"})
    same_words(page, watch, server, game, "Bob knocked — Cas: stay or fold?")


def test_stop_the_bus_abandoned_between_rounds_shows_no_ended_round_badges(server, page, new_context):
    watch = new_context().new_page()
    game = server.create(game="stop_the_bus", players=["Ann", "Bob"], dealer="Ann")
    server.post(game, {"type": "deal", "centre": ["2H", "3H", "4H"]})
    same_words(page, watch, server, game, "Bob to swap or stop")
    server.post(game, {"type": "swap", "player": "Bob", "take": "2H", "give": "KS"})
    server.post(game, {"type": "stop", "player": "Bob"})
    same_words(page, watch, server, game, "Bob stopped the bus — Ann to swap")
    server.post(game, {"type": "swap", "player": "Ann", "take": "3H", "give": "8D"})
    same_words(page, watch, server, game, "Showdown: Ann and Bob to show")
    server.post(game, {"type": "show", "player": "Ann", "cards": ["3H", "9D", "9C"]})
    server.post(game, {"type": "show", "player": "Bob", "cards": ["2H", "AS", "AD"]})
    same_words(page, watch, server, game, "Deal round 2 — dealer Bob")
    expect(page.locator(".seat[data-player=Bob] .badge", has_text="dealer")).to_have_count(1)
    server.post(game, {"type": "abandon", "reason": "the club closes"})
    state = server.get(f"/games/{game['id']}", game["token"])["state"]
    assert state["next_dealer"] is None and state["round_number"] == 1
    same_words(page, watch, server, game, "The game was abandoned.")
    # nobody deals again: no seat is the dealer, and the round shown is the one that ended
    expect(page.locator(".seat .badge", has_text="dealer")).to_have_count(0)
    expect(page.locator(".seat .badge", has_text="stopped")).to_have_count(0)
    expect(page.locator("#board .facts, .facts").first).to_contain_text("Round 1 (over)")
    expect(page.get_by_role("button", name="Undo: Game abandoned", exact=True)).to_be_visible()
    for player in state["players"]:  # the final scores, as the state has them
        expect(page.locator(f".seat[data-player={player['name']}]")).to_contain_text(str(player["chips"]))
