"""What a score app has (issue 25), in Chromium against a real ``kibitz serve``:

- ``/new`` offers the club's known players (a ``<datalist>`` from the players already seated)
  and moves or removes a seat;
- the home page shows the winner and scores of a finished game, and tells apart the games a
  table made with **Play again** ("game 2 of 2 that night");
- a note says "Note saved." on the table page and is shown on the game page;
- the end of a Toepen or Stop the Bus game shows the winners' "won" badge and the last hand's
  result with its reason, as Fuji Flush's end does;
- the hand audit lists Toepen's stays with the knocks and folds.
"""

from __future__ import annotations

import re
import uuid

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, TABLET
from tests.browser.pages_checks import keep_token, sideways_overflow, small_tap_targets
from tests.browser.recorded import create, toepen_open_game
from tests.browser.table import open_table, settle


def unique(name: str) -> str:
    return f"{name} {uuid.uuid4().hex[:5]}"


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["tablet", "phone"])
def test_new_game_offers_the_clubs_players_and_moves_and_removes_seats(server, new_context, viewport):
    regulars = [unique("Ann"), unique("Bob"), unique("Cas"), unique("Dee")]
    create(server.base, game="toepen", players=regulars, dealer=regulars[0])
    page = new_context(viewport).new_page()
    page.goto(server.url("/new"))
    offered = page.locator("datalist#known-players option").evaluate_all("os => os.map(o => o.value)")
    assert set(regulars) <= set(offered)
    seat1 = page.get_by_label("Seat 1", exact=True)
    expect(seat1).to_have_attribute("list", "known-players")
    for n, name in enumerate(regulars[:3], start=1):
        page.get_by_label(f"Seat {n}", exact=True).fill(name)
    page.get_by_role("button", name="Add seat", exact=True).click()
    page.get_by_label("Seat 4", exact=True).fill(regulars[3])
    assert small_tap_targets(page, "#seats") == []
    assert sideways_overflow(page) == 0

    page.get_by_role("button", name="Move Seat 3 up", exact=True).click()  # Cas sits before Bob
    expect(page.get_by_label("Seat 2", exact=True)).to_have_value(regulars[2])
    expect(page.get_by_label("Seat 3", exact=True)).to_have_value(regulars[1])
    expect(page.get_by_role("button", name="Move Seat 1 up", exact=True)).to_be_disabled()
    expect(page.get_by_role("button", name="Move Seat 4 down", exact=True)).to_be_disabled()
    page.get_by_role("button", name="Move Seat 1 down", exact=True).click()  # Cas, Ann, Bob, Dee
    page.get_by_role("button", name="Remove Seat 3", exact=True).click()  # Bob goes home
    expect(page.get_by_label("Seat 4", exact=True)).to_have_count(0)
    expect(page.get_by_role("button", name="Remove Seat 1", exact=True)).to_be_disabled()  # Toepen's fewest: 3 seats
    page.get_by_label("Dealer", exact=True).select_option(regulars[0])
    page.get_by_role("button", name="Start game", exact=True).click()
    page.wait_for_url("**/table/*")
    game = server.get(f"/games/{page.url.rsplit('/', 1)[1]}")
    assert game["players"] == [regulars[2], regulars[0], regulars[3]]


def finished_toepen(server, players):
    """An open Toepen game to its end (seed 40: a knock or two, nobody folds)."""
    return toepen_open_game(server.base, players, seed=40, title="Score app night")


def test_home_shows_results_and_tells_play_again_games_apart(server, new_context):
    players = [unique("Eve"), unique("Fay"), unique("Gus")]
    first = finished_toepen(server, players)
    final = first.read()
    winners = final["state"]["winners"]
    context = new_context()
    keep_token(context, first.id, first.token)
    page = context.new_page()
    page.goto(server.url(f"/table/{first.id}"))
    page.get_by_role("button", name="Play again", exact=True).click()
    page.wait_for_url(re.compile(r".*/table/(?!" + first.id + r")[A-Za-z0-9]+$"))
    again = page.url.rsplit("/", 1)[1]
    page.goto(server.url("/"))
    done = page.locator(f"li[data-game-id='{first.id}']")
    lives = {name: entry for name, entry in ((p["name"], p["lives_lost"]) for p in final["state"]["players"])}
    expect(done.locator(".game-result")).to_have_text(
        "Won by " + (" and ".join(winners) if len(winners) < 3 else ", ".join(winners[:-1]) + " and " + winners[-1])
        + " · " + ", ".join(f"{name} {lives[name]}" for name in players) + " lives lost")
    expect(done.locator(".night")).to_have_text("game 1 of 2 that night")
    expect(page.locator(f"li[data-game-id='{again}'] .night")).to_have_text("game 2 of 2 that night")


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["tablet", "phone"])
def test_a_note_says_saved_and_shows_on_the_game_page(server, new_context, viewport):
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas"], dealer="Ann")
    server.post(game, {"type": "deal"})
    page = new_context(viewport).new_page()
    open_table(page, server, game)
    page.get_by_role("button", name="Menu", exact=True).click()
    page.get_by_role("button", name="Note", exact=True).click()
    page.get_by_label("Note text", exact=True).fill("Bob's phone rang during trick 1")
    page.get_by_label("About (optional)", exact=True).select_option("Bob")
    page.get_by_role("button", name="Save note", exact=True).click()
    expect(page.locator("#changes")).to_have_text("Note saved.")
    settle(page)
    assert [e["data"]["text"] for e in server.events(game) if e["type"] == "note"] == ["Bob's phone rang during trick 1"]
    watch = new_context(viewport).new_page()
    watch.goto(server.url(f"/watch/{game['id']}"))
    notes = watch.get_by_role("region", name="Notes")
    expect(notes).to_contain_text("“Bob's phone rang during trick 1” about Bob (hand 1")


def test_the_end_of_a_toepen_game_shows_the_winners_and_the_last_hands_reason(server, new_context):
    players = [unique("Hal"), unique("Ivy"), unique("Jo")]
    game = finished_toepen(server, players)
    state = game.read()["state"]
    last = game.read(f"/hands/{state['hand_number']}")["result"]
    context = new_context()
    keep_token(context, game.id, game.token)
    page = context.new_page()
    page.goto(server.url(f"/table/{game.id}"))
    for name in players:
        badge = page.locator(f".seat[data-player='{name}'] .badge", has_text=re.compile(r"^won$"))
        expect(badge).to_have_count(1 if name in state["winners"] else 0)
    result = page.locator("#hand-result")
    expect(result).to_be_visible()
    expect(result).to_contain_text(f"Hand {state['hand_number']}: ")
    expect(result).to_contain_text(last["reason"].rstrip("."))
    watch = new_context().new_page()
    watch.goto(server.url(f"/watch/{game.id}"))
    for name in state["winners"]:
        expect(watch.locator(".seats-table tbody tr", has_text=name)).to_contain_text("won")


def test_the_end_of_a_stop_the_bus_game_shows_the_winner_and_the_reason(server, new_context):
    game = create(server.base, game="stop_the_bus", players=["Ann", "Bob"], dealer="Bob", options={"chips": 1})
    for action in ({"type": "deal", "centre": ["QS", "4H", "9D"]},
                   {"type": "swap", "player": "Ann", "take": "QS", "give": "2C"},
                   {"type": "swap", "player": "Bob", "take": "9D", "give": "5S"},
                   {"type": "swap", "player": "Ann", "take": "5S", "give": "3H"},
                   {"type": "stop", "player": "Ann"},
                   {"type": "swap", "player": "Bob", "take": "2C", "give": "7C"},
                   {"type": "show", "player": "Ann", "cards": ["QS", "5S", "JS"]},
                   {"type": "show", "player": "Bob", "cards": ["9D", "2C", "9C"]}):
        game.post(action)
    state = game.read()["state"]
    assert state["status"] == "finished", state
    (winner,) = state["winners"]
    reason = game.read("/hands/1")["result"]["reason"]
    context = new_context(PHONE)
    keep_token(context, game.id, game.token)
    page = context.new_page()
    page.goto(server.url(f"/table/{game.id}"))
    expect(page.locator(f".seat[data-player='{winner}'] .badge", has_text=re.compile(r"^won$"))).to_have_count(1)
    result = page.locator("#hand-result")
    expect(result).to_be_visible()
    expect(result).to_contain_text("Round 1: ")
    expect(result).to_contain_text(reason.rstrip("."))


def test_the_hand_audit_lists_toepens_stays(server, page):
    game = create(server.base, game="toepen", players=["Ann", "Bob", "Cas", "Dee"], dealer="Ann",
                  options={"knock_responses": "explicit"})
    game.post({"type": "deal"})
    game.post({"type": "knock", "player": "Bob"})
    game.post({"type": "stay", "player": "Cas"})
    game.post({"type": "fold", "player": "Dee"})
    game.post({"type": "stay", "player": "Ann"})
    page.goto(server.url(f"/watch/{game.id}/hands/1"))
    section = page.get_by_role("region", name="Knocks, stays and folds")
    items = section.get_by_role("listitem")
    expect(items.filter(has_text="stayed")).to_have_count(2)
    expect(section).to_contain_text("Cas stayed")
    expect(section).to_contain_text("Ann stayed")
    expect(section).to_contain_text("Bob knocked")
    expect(section).to_contain_text("Dee folded")
