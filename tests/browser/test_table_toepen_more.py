"""More of Toepen on the table page: laundry and its challenge, an open deal's hands, a revoke
announced as it is proven, and the menu's note, ruling and abandon (undone again)."""

from __future__ import annotations

import re

import requests
from playwright.sync_api import expect

from tests.browser.table import act, confirm, expect_status, open_table, pick, settle, tap, version

PLAYERS = ["Ann", "Bob", "Cas"]


def state(server, game):
    return server.get(f"/games/{game['id']}", game["token"])["state"]


def test_laundry_and_a_challenge_with_the_four_cards_turned_up(server, page):
    game = server.create(game="toepen", players=PLAYERS, options={"limit": 3})
    open_table(page, server, game)
    act(page, "Deal")
    act(page, "Laundry: Bob")
    page.get_by_role("button", name="Challenge: Cas", exact=True).click()
    confirm_button = page.get_by_role("button", name="Confirm", exact=True)
    pick(page, "7♥", "8♥", "J♣")
    expect(confirm_button).to_be_disabled()
    pick(page, "Q♣")
    confirm(page)
    challenge = server.events(game)[-1]
    assert challenge["type"] == "challenge"
    assert challenge["data"] == {"player": "Cas", "target": "Bob", "cards": ["7H", "8H", "JC", "QC"]}
    assert [p["lives_lost"] for p in state(server, game)["players"]] == [0, 1, 0]


def test_an_open_deal_lists_every_hand_and_known_cards_are_played_from_the_hand(server, page):
    game = server.create(game="toepen", players=PLAYERS, visibility="open", options={"limit": 3})
    open_table(page, server, game)
    page.get_by_role("button", name="Deal", exact=True).click()
    expect(page.locator("#compose")).to_contain_text("Hand: Ann (0/4)")
    pick(page, "10♥", "9♣", "J♦", "Q♠")      # Ann's four: the next taps go to Bob
    expect(page.locator("#compose")).to_contain_text("Hand: Ann (4/4)")
    pick(page, "7♥", "8♣", "A♦", "K♠", "8♥", "10♣", "9♠", "7♣")
    confirm(page)
    deal = server.events(game)[-1]["data"]
    assert deal["hands"] == {"Ann": ["TH", "9C", "JD", "QS"], "Bob": ["7H", "8C", "AD", "KS"],
                             "Cas": ["8H", "TC", "9S", "7C"]}
    expect_status(page, "Bob to play")
    bob = page.get_by_role("group", name="Hand: Bob", exact=True)
    expect(bob.get_by_role("button")).to_have_count(4)
    before = version(page)
    bob.get_by_role("button", name="7♥", exact=True).click()
    settle(page, before + 1)
    # Cas holds 8♥ and must follow hearts: the page offers only that card (actions' cards)
    cas = page.get_by_role("group", name="Hand: Cas", exact=True)
    expect(cas.get_by_role("button")).to_have_count(1)
    deck = page.get_by_role("group", name="Deck", exact=True)
    expect(deck.get_by_role("button", name="10♣", exact=True)).to_be_disabled()
    expect(deck.get_by_role("button", name="8♥", exact=True)).to_be_enabled()


def test_a_revoke_is_announced_when_it_is_proven(server, page):
    game = server.create(game="toepen", players=PLAYERS, options={"limit": 3})
    open_table(page, server, game)
    act(page, "Deal")
    for card in ("7♥", "8♣", "9♥", "10♠", "7♠"):
        tap(page, card)
    tap(page, "8♥")  # Cas showed out of hearts in trick 1
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("Irregularity: Cas did not follow hearts in trick 1")


def test_note_and_ruling_from_the_menu(server, page):
    game = server.create(game="toepen", players=PLAYERS, options={"limit": 3})
    open_table(page, server, game)
    act(page, "Deal")
    page.get_by_role("button", name="Menu", exact=True).click()
    page.get_by_role("button", name="Note", exact=True).click()
    page.get_by_label("Note text", exact=True).fill("Bob says he misdealt")
    page.get_by_label("About (optional)", exact=True).select_option("Bob")
    before = version(page)
    page.get_by_role("button", name="Save note", exact=True).click()
    settle(page, before + 1)
    note = server.events(game)[-1]
    assert (note["type"], note["data"]) == ("note", {"text": "Bob says he misdealt", "player": "Bob"})
    page.get_by_role("button", name="Menu", exact=True).click()
    page.get_by_role("button", name="Ruling", exact=True).click()
    page.get_by_label("Player", exact=True).select_option("Cas")
    page.get_by_label("Amount", exact=True).fill("1")
    page.get_by_label("Reason for the ruling", exact=True).fill("talking across the table")
    page.get_by_role("button", name="Record ruling", exact=True).click()
    settle(page, before + 2)
    assert [p["lives_lost"] for p in state(server, game)["players"]] == [0, 0, 1]
    expect(page.locator(".seat[data-player=Cas]")).to_contain_text("Lives lost 1/3")


def test_abandon_from_the_menu_and_undo_reopens(server, page):
    game = server.create(game="toepen", players=PLAYERS, options={"limit": 3})
    open_table(page, server, game)
    act(page, "Deal")
    before = version(page)
    page.get_by_role("button", name="Menu", exact=True).click()
    page.get_by_role("button", name="Abandon game", exact=True).click()
    page.get_by_label("Why the game stops", exact=True).fill("the café closes")
    page.get_by_role("button", name="Abandon the game", exact=True).click()
    settle(page, before + 1)
    expect_status(page, "The game was abandoned.")
    assert requests.get(server.url(f"/games/{game['id']}"), timeout=30).json()["status"] == "abandoned"
    undo = page.locator("#undo")
    expect(undo).to_have_accessible_name(re.compile(r"^Undo: .*abandon", re.I))
    undo.click()
    settle(page, before + 2)
    expect_status(page, "Bob to play")
