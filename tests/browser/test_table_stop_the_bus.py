"""The table page, Stop the Bus, in a real browser: deal's centre, swaps, a stop and the showdown."""

from __future__ import annotations

from playwright.sync_api import expect

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
