"""The table page, Toepen, in a real browser against a real ``kibitz serve``: recorded only by tapping."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.table import act, expect_status, open_table, tap

PLAYERS = ["Ann", "Bob", "Cas"]


def test_a_whole_toepen_game_recorded_by_tapping(server, page):
    game = server.create(game="toepen", players=PLAYERS, options={"limit": 1})
    open_table(page, server, game)
    expect_status(page, "Deal hand 1 — dealer Ann")
    expect(page.locator(".seat.to-act")).to_have_count(0)
    act(page, "Deal")
    expect_status(page, "Bob to play")
    expect(page.locator(".seat.to-act")).to_have_attribute("data-player", "Bob")
    for card, after in [("7♥", "Cas to play"), ("8♥", "Ann to play"), ("9♥", "Ann to play"),
                        ("10♠", "Bob to play"), ("7♠", "Cas to play"), ("8♠", "Ann to play"),
                        ("10♦", "Bob to play"), ("7♦", "Cas to play"), ("8♦", "Ann to play"),
                        ("10♣", "Bob to play"), ("7♣", "Cas to play")]:
        tap(page, card)
        expect_status(page, after)
    expect(page.locator(".trick.current")).to_contain_text("Ann")
    tap(page, "8♣")
    expect_status(page, "Game over: Ann won.")
    final = server.get(f"/games/{game['id']}", game["token"])
    assert final["status"] == "finished"
    assert final["state"]["losers"] == ["Bob", "Cas"]
    plays = [e["data"]["card"] for e in server.events(game) if e["type"] == "play"]
    assert plays == ["7H", "8H", "9H", "TS", "7S", "8S", "TD", "7D", "8D", "TC", "7C", "8C"]
    expect(page.locator("#sheet table")).to_contain_text("Bob")


def test_undo_and_redo_say_what_they_do(server, page):
    game = server.create(game="toepen", players=PLAYERS, options={"limit": 2})
    open_table(page, server, game)
    act(page, "Deal")
    tap(page, "7♥")
    tap(page, "10♣")
    undo = page.locator("#undo")
    expect(undo).to_have_accessible_name("Undo: Cas played 10♣")
    act(page, "Undo: Cas played 10♣")
    expect_status(page, "Cas to play")
    expect(page.locator("#redo")).to_have_accessible_name("Redo: Cas played 10♣")
    act(page, "Redo: Cas played 10♣")
    expect_status(page, "Ann to play")
    act(page, "Undo: Cas played 10♣")
    tap(page, "8♥")
    expect(page.locator("#redo")).to_be_hidden()
    types = [(e["type"], e["undone"]) for e in server.events(game)]
    assert types[-4:] == [("undo", False), ("redo", False), ("undo", False), ("play", False)]


def test_a_knock_answered_with_fold_and_stay(server, page):
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas", "Dee"],
                         options={"limit": 3, "knock_responses": "explicit"})
    open_table(page, server, game)
    act(page, "Deal")
    tap(page, "7♥")
    act(page, "Knock: Cas")
    expect_status(page, "Cas knocked — Dee: stay or fold?")
    expect(page.locator(".seat.to-act")).to_have_attribute("data-player", "Dee")
    act(page, "Fold: Dee")
    expect_status(page, "Cas knocked — Ann: stay or fold?")
    act(page, "Stay: Ann")
    expect_status(page, "Cas knocked — Bob: stay or fold?")
    act(page, "Stay: Bob")
    expect_status(page, "Cas to play")
    dee = server.get(f"/games/{game['id']}", game["token"])["state"]["players"][3]
    assert dee["in_hand"] is False and dee["lives_lost"] == 1
    assert [e["type"] for e in server.events(game)][-4:] == ["knock", "fold", "stay", "stay"]
    expect(page.locator(".seat[data-player=Dee]")).to_contain_text("folded")


def test_an_implicit_knock_and_a_fold(server, page):
    game = server.create(game="toepen", players=PLAYERS, options={"limit": 3})
    open_table(page, server, game)
    act(page, "Deal")
    act(page, "Knock: Ann")
    expect_status(page, "Bob to play — Ann knocked (stake 2): Bob and Cas may fold")
    act(page, "Fold: Cas")
    tap(page, "7♥")
    expect_status(page, "Ann to play")
