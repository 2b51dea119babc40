"""The table page says what happened: the result of the hand just ended (kept on the board until
the next deal), a what-if fork marked as one, Stay/Fold buttons with their word visible, undo
and redo confirmed in the polite changes line, summaries joined without doubled full stops, a
tap beyond a full selection explained."""

from __future__ import annotations

import requests
from playwright.sync_api import expect

from tests.browser.table import act, expect_status, open_table, pick, settle, tap

PLAYERS = ["Ann", "Bob", "Cas"]
HAND_1 = ["7♥", "8♥", "9♥", "10♠", "7♠", "8♠", "10♦", "7♦", "8♦", "10♣", "7♣", "8♣"]


def test_between_hands_the_result_of_the_hand_just_ended_is_shown(server, page):
    game = server.create(game="toepen", players=PLAYERS, options={"limit": 3})
    open_table(page, server, game)
    expect(page.locator("#hand-result")).to_be_hidden()
    act(page, "Deal")
    for card in HAND_1:
        tap(page, card)
    expect_status(page, "Deal hand 2 — dealer Ann")
    result = page.locator("#hand-result")
    expect(result).to_be_visible()
    expect(result.locator("strong")).to_have_text("Hand 1: Ann won; Bob lost 1 life, Cas lost 1 life.")
    # the ended hand's board stays: its number marked over, its last trick still shown (in the head,
    # as the last trick during a hand: the result stands in the current trick's room)
    expect(page.locator(".facts")).to_contain_text("Hand 1 (over)")
    expect(page.locator("#board .trick.previous")).to_contain_text("8♣")
    act(page, "Deal")
    expect(result).to_be_hidden()
    expect(page.locator(".facts")).to_contain_text("Hand 2")


def test_stay_and_fold_show_their_word_and_differ(server, page):
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas", "Dee"],
                         options={"limit": 3, "knock_responses": "explicit"})
    open_table(page, server, game)
    act(page, "Deal")
    tap(page, "7♥")
    act(page, "Knock: Cas")
    stay = page.get_by_role("button", name="Stay: Dee", exact=True)
    fold = page.get_by_role("button", name="Fold: Dee", exact=True)
    expect(stay).to_have_text("Stay: Dee")
    expect(fold).to_have_text("Fold: Dee")
    look = "b => [getComputedStyle(b).backgroundColor, getComputedStyle(b).color]"
    assert stay.evaluate(look) != fold.evaluate(look)


def test_undo_and_redo_are_confirmed_in_the_changes_line(server, page):
    game = server.create(game="toepen", players=PLAYERS, options={"limit": 2})
    open_table(page, server, game)
    act(page, "Deal")
    tap(page, "7♥")
    tap(page, "10♣")
    changes = page.locator("#changes")
    act(page, "Undo: Cas played 10♣")
    expect(changes).to_have_text("Undone: Cas played 10♣")
    expect(page.locator("#alert")).to_have_text("")
    act(page, "Redo: Cas played 10♣")
    expect(changes).to_have_text("Redone: Cas played 10♣")
    tap(page, "8♥")
    expect(changes).to_have_text("")


def test_a_move_from_another_device_is_told_without_a_doubled_full_stop(server, page):
    game = server.create(game="toepen", players=PLAYERS, options={"limit": 2})
    open_table(page, server, game)
    act(page, "Deal")
    before = int(page.locator("#table").get_attribute("data-version"))
    server.post(game, {"type": "play", "player": "Bob", "card": "7H"})
    # a tap on the stale board is refused with 412: the page reloads and says what changed
    settle(page)
    page.wait_for_function("v => document.getElementById('table').dataset.version === String(v)",
                           arg=before + 1, timeout=15000)
    expect(page.locator("#changes")).to_contain_text("Recorded on another device: ")
    text = page.locator("#changes").inner_text()
    assert ".." not in text and text.endswith(".")


def test_a_what_if_fork_says_so_and_links_to_the_original(server, page):
    game = server.create(game="toepen", players=PLAYERS, options={"limit": 2})
    server.post(game, {"type": "deal"})
    server.post(game, {"type": "play", "player": "Bob", "card": "7H"})
    answer = requests.post(f"{server.base}/games/{game['id']}/fork", json={"seq": 1},
                           headers={"Authorization": f"Bearer {game['token']}"}, timeout=30)
    assert answer.status_code == 201, answer.text
    fork = answer.json()
    open_table(page, server, fork)
    note = page.locator("#fork-note")
    # the original named by its players and start, the moment in words: no game id, no event number (issue 25)
    expect(note).to_contain_text("A what-if game from the game of Ann, Bob and Cas (started ")
    expect(note).to_contain_text("), at the start: moves recorded here do not change the real game.")
    assert game["id"] not in note.inner_text() and "event" not in note.inner_text()
    link = note.get_by_role("link", name="the game of Ann, Bob and Cas", exact=True)
    link.click()
    page.wait_for_url(f"**/table/{game['id']}")
    expect(page.locator("#fork-note")).to_have_count(0)


def test_a_tap_beyond_a_full_selection_says_why(server, page):
    game = server.create(game="stop_the_bus", players=PLAYERS)
    open_table(page, server, game)
    page.get_by_role("button", name="Deal", exact=True).click()
    expect(page.locator("#compose h3.slot-name")).to_have_text("Centre (0/3)")
    pick(page, "2♥", "3♥", "4♥", "5♥")
    expect(page.locator("#compose h3.slot-name")).to_have_text("Centre (3/3)")
    expect(page.locator("#compose-note")).to_have_text("Centre: 3 of 3 chosen: tap a chosen card to remove it.")
    pick(page, "4♥")
    expect(page.locator("#compose-note")).to_have_text("")
    expect(page.locator("#compose h3.slot-name")).to_have_text("Centre (2/3)")
