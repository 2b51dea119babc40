"""Smaller page defects of issue 25, each as a new user met it:

- the table page's header lacks **Players** and **Club table** (the game page has them), and so
  do the home page's and the new-game form's;
- **What if…** on a trick audit, with script on the token's device, forked at once without the
  confirmation the no-script page asks for, and two taps made two forks;
- the trick audit's plays table was wider than a 390 px phone (the correction badge and the
  time column cut off).
"""

from __future__ import annotations

import re

import pytest
import requests
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, TABLET
from tests.browser.pages_checks import keep_token, sideways_overflow
from tests.browser.recorded import create, fool_game, toepen_open_game


def forks_of(server, game_id: str) -> list[dict]:
    return [g for g in server.get("/games?fork=true&limit=500")["games"] if (g.get("forked_from") or {}).get("game") == game_id]


@pytest.mark.parametrize("where", ["table", "home", "new"])
@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["tablet", "phone"])
def test_every_page_header_links_players_and_the_club_table(server, new_context, viewport, where):
    # the home page and the new-game form too (a fresh user found them only on the other pages)
    game = create(server.base, game="toepen", players=["Ann", "Bob", "Cas", "Dee"], dealer="Ann")
    context = new_context(viewport)
    keep_token(context, game.id, game.token)
    page = context.new_page()
    page.goto(server.url({"table": f"/table/{game.id}", "home": "/", "new": "/new"}[where]))
    site = page.get_by_role("navigation", name="Site")
    for name, path in (("Players", "/people"), ("Club table", "/club")):
        link = site.get_by_role("link", name=name, exact=True)
        expect(link).to_be_visible()
        expect(link).to_have_attribute("href", path)
        box = link.bounding_box()
        assert box is not None and box["x"] + box["width"] <= viewport["width"] and box["y"] + box["height"] <= 60
    assert sideways_overflow(page) == 0
    site.get_by_role("link", name="Club table", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Club table")


def test_what_if_asks_first_and_one_confirmation_makes_one_fork(server, new_context):
    game = fool_game(server.base)
    scorekeeper = new_context()
    keep_token(scorekeeper, game.id, game.token)
    page = scorekeeper.new_page()
    page.goto(server.url(f"/watch/{game.id}/hands/1/tricks/1"))
    expect(page.locator("#view")).to_have_attribute("data-view", "full")
    page.get_by_label("Branch off", exact=True).select_option(label="After \u2068Uwe\u2069's Green 11")
    page.get_by_role("link", name="What if…", exact=True).dblclick()  # two quick taps
    page.wait_for_url(re.compile(rf".*/watch/{game.id}/fork\?seq=5$"))
    start = page.get_by_role("button", name="Start the what-if game", exact=True)
    expect(start).to_be_enabled()
    assert forks_of(server, game.id) == []  # nothing forked before the confirmation
    start.dblclick()  # the confirmation tapped twice
    page.wait_for_url(re.compile(r".*/table/[A-Za-z0-9]+$"))
    fork_id = page.url.rsplit("/", 1)[1]
    expect(page.locator("#turn")).not_to_have_text("Loading…")
    made = forks_of(server, game.id)
    assert [g["id"] for g in made] == [fork_id]
    assert made[0]["forked_from"] == {"game": game.id, "seq": 5}


def test_the_trick_audit_plays_fit_a_phone(server, new_context):
    game = fool_game(server.base)
    fixed = requests.post(f"{server.base}/games/{game.id}/correct", timeout=30,
                          headers={"Authorization": f"Bearer {game.token}"},
                          json={"target": 4, "action": {"type": "play", "player": "Bettina", "card": "G3"},
                                "reason": "it was the green three"})
    assert fixed.status_code == 201, fixed.text
    for viewport in (PHONE, TABLET):
        page = new_context(viewport).new_page()
        page.goto(server.url(f"/watch/{game.id}/hands/1/tricks/1"))
        table = page.locator(".plays-table")
        expect(table.locator(".tag.warn").first).to_contain_text("corrected")
        sizes = table.evaluate("t => ({table: t.scrollWidth, wrap: t.parentElement.clientWidth,"
                               " right: Math.max(...[...t.querySelectorAll('th, td, .tag, time')]"
                               ".map(e => e.getBoundingClientRect().right))})")
        assert sizes["table"] <= sizes["wrap"], sizes  # nothing to scroll to inside the table's frame
        assert sizes["right"] <= viewport["width"], sizes  # the badge and the time column on screen
        for cell in table.locator("tbody time").all():
            box = cell.bounding_box()
            assert box is not None and box["x"] + box["width"] <= viewport["width"]
        assert sideways_overflow(page) == 0


def test_a_finished_games_page_names_no_dealer_and_says_it_is_over(server, new_context):
    # a fresh user: the game page of a finished game still marked a seat "dealer" (the table
    # page did not) and still said "Live: this page follows the game as it is recorded."
    finished = toepen_open_game(server.base, ["Ann", "Bob", "Cas"], seed=40)
    assert finished.read()["status"] == "finished"
    page = new_context(TABLET).new_page()
    page.goto(server.url(f"/watch/{finished.id}"))
    expect(page.locator("#live-note")).to_have_text(
        "The game is over: this page still follows it, should an entry be undone or fixed.")
    seats = page.locator("#live-board table").first
    expect(seats).to_be_visible()
    assert "dealer" not in seats.inner_text()
    running = create(server.base, game="toepen", players=["Ann", "Bob", "Cas"], dealer="Bob")
    page.goto(server.url(f"/watch/{running.id}"))
    expect(page.locator("#live-note")).to_have_text("Live: this page follows the game as it is recorded.")
    assert "dealer" in page.locator("#live-board table").first.inner_text()
