"""The table page, Stop the Bus, in a real browser: deal's centre, swaps, a stop and the showdown."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, TABLET
from tests.browser.pages_checks import keep_token
from tests.browser.recorded import bus_game
from tests.browser.table import act, confirm, expect_status, open_table, pick, settle, version


def deal_centre(page, *cards):
    page.get_by_role("button", name="Deal", exact=True).click()
    pick(page, *cards)
    confirm(page)


def test_a_whole_stop_the_bus_game_with_swap_stop_and_showdown(server, page):
    game = server.create(game="stop_the_bus", players=["Ann", "Bob"], options={"chips": 1})
    open_table(page, server, game)
    expect_status(page, "Deal round 1 — dealer Ann")
    deal_centre(page, "2♥", "3♥", "4♥")
    expect_status(page, "Bob to swap or stop")
    centre = page.get_by_role("group", name="Centre", exact=True)
    expect(centre.get_by_role("button")).to_have_count(3)
    # a swap: the card taken from the centre, the card given from the deck
    page.get_by_role("button", name="Swap: Bob", exact=True).click()
    pick(page, "2♥", group="Centre")
    pick(page, "K♠")
    confirm(page)
    expect(centre).to_contain_text("K♠")
    act(page, "Stop: Bob")
    expect_status(page, "Bob stopped the bus — Ann to swap")
    # tapping a centre card starts the swap with that card taken
    pick(page, "3♥", group="Centre")
    pick(page, "8♦")
    confirm(page)
    expect_status(page, "Showdown: Ann and Bob to show")
    page.get_by_role("button", name="Show: Ann", exact=True).click()
    pick(page, "9♦", "9♣")  # 3♥ is known to be Ann's: it is chosen already
    confirm(page)
    page.get_by_role("button", name="Show: Bob", exact=True).click()
    pick(page, "A♠", "A♦")
    confirm(page)
    expect_status(page, "Game over: Bob won.")
    state = server.get(f"/games/{game['id']}", game["token"])["state"]
    assert state["winners"] == ["Bob"]
    shows = {e["data"]["player"]: sorted(e["data"]["cards"]) for e in server.events(game) if e["type"] == "show"}
    assert shows == {"Ann": ["3H", "9C", "9D"], "Bob": ["2H", "AD", "AS"]}


def test_swap_all_and_a_refused_show(server, page):
    game = server.create(game="stop_the_bus", players=["Ann", "Bob"], options={"chips": 2, "swap_all": True})
    open_table(page, server, game)
    deal_centre(page, "2♥", "3♥", "4♥")
    page.get_by_role("button", name="Swap all: Bob", exact=True).click()
    pick(page, "5♣", "6♣", "7♣")
    confirm(page)
    swap = server.events(game)[-1]["data"]
    assert swap == {"player": "Bob", "take_all": True, "give": ["5C", "6C", "7C"]}
    act(page, "Stop: Bob")
    pick(page, "5♣", group="Centre")
    pick(page, "8♦")
    confirm(page)
    # Ann took 5♣ from the centre: a show without it is refused with the service's sentence
    page.get_by_role("button", name="Show: Ann", exact=True).click()
    chosen = page.locator("#compose .chip-button")
    expect(chosen).to_have_count(1)
    chosen.first.click()  # take 5♣ back out of the selection
    pick(page, "9♦", "9♣", "9♠")
    shown = version(page)
    board = page.locator("#board").inner_text()
    page.get_by_role("button", name="Confirm", exact=True).click()
    expect(page.get_by_role("alert")).to_contain_text("must include")
    settle(page, shown)
    assert page.locator("#board").inner_text() == board
    assert len(server.events(game)) == shown
    expect(page.locator("#compose")).to_be_visible()


def test_an_open_deal_gives_the_centre_then_every_hand(server, page):
    game = server.create(game="stop_the_bus", players=["Ann", "Bob"], visibility="open")
    open_table(page, server, game)
    page.get_by_role("button", name="Deal", exact=True).click()
    pick(page, "2♥", "3♥", "4♥", "A♠", "A♦", "A♣", "K♠", "K♦", "K♣")
    confirm(page)
    deal = server.events(game)[-1]["data"]
    assert deal["centre"] == ["2H", "3H", "4H"]
    assert deal["hands"] == {"Ann": ["AS", "AD", "AC"], "Bob": ["KS", "KD", "KC"]}
    expect(page.get_by_role("group", name="Hand: Bob", exact=True)).to_contain_text("K♠")


#: the seats on screen, the sticky bar's foot and the scroll position
SEATS_IN_VIEW = """() => { const s = document.getElementById('seats').getBoundingClientRect();
  const bar = document.querySelector('.topbar').getBoundingClientRect();
  return {seatsTop: s.top, barBottom: bar.bottom, height: window.innerHeight, scrollY: window.scrollY}; }"""


@pytest.mark.parametrize("viewport", [PHONE, TABLET], ids=["390x844", "1024x768"])
@pytest.mark.parametrize("how", ["Confirm", "Cancel"])
def test_after_a_swap_whose_card_needed_scrolling_the_status_line_and_the_seats_are_in_view(
        server, new_context, viewport, how):
    game = bus_game(server.base)
    context = new_context(viewport=viewport)
    keep_token(context, game.id, game.token)
    page = context.new_page()
    open_table(page, server, {"id": game.id, "token": game.token})
    page.get_by_role("button", name="Swap: Cas", exact=True).click()
    pick(page, "7♠", group="Centre")
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")  # the deck's last row: scrolled to
    pick(page, "2♣")
    # scrolled to the card (a page taller than the screen: since issue 25 a tablet's fits it whole)
    assert page.evaluate("() => window.scrollY > 0 || document.documentElement.scrollHeight <= window.innerHeight")
    shown = version(page)
    page.get_by_role("button", name=how, exact=True).click()
    settle(page, shown + (1 if how == "Confirm" else 0))
    expect(page.locator("#compose")).to_be_hidden()
    seen = page.evaluate(SEATS_IN_VIEW)
    assert seen["barBottom"] - 1 <= seen["seatsTop"] <= seen["height"] / 2, seen  # not under the sticky bar
    expect(page.get_by_role("status")).to_be_in_viewport()
