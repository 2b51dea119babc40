"""The table page, Fuji Flush, in a real browser: numbers 2–20, a whole game by tapping, an open deal."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.table import act, confirm, expect_status, open_table, pick, settle, tap, version


def test_a_whole_fuji_flush_game_recorded_by_tapping(server, page):
    game = server.create(game="fuji_flush", players=["Ann", "Bob", "Cas"], options={"hand_size": 1})
    open_table(page, server, game)
    expect_status(page, "Deal — Ann plays first")
    numbers = page.get_by_role("group", name="Deck", exact=True).get_by_role("button")
    expect(numbers).to_have_count(19)
    act(page, "Deal")
    expect_status(page, "Ann to play")
    tap(page, "5")
    expect_status(page, "Bob to play")
    tap(page, "5")
    expect(page.locator("#board")).to_contain_text("×2 = 10")
    tap(page, "3")
    expect_status(page, "Game over: Ann and Bob won.")
    assert server.get(f"/games/{game['id']}", game["token"])["state"]["winners"] == ["Ann", "Bob"]


def test_an_open_deal_with_copies_of_a_number(server, page):
    game = server.create(game="fuji_flush", players=["Ann", "Bob", "Cas"], visibility="open",
                         options={"hand_size": 2})
    open_table(page, server, game)
    page.get_by_role("button", name="Deal", exact=True).click()
    pick(page, "5", "5")
    expect(page.get_by_role("group", name="Deck", exact=True).get_by_role("button", name="5", exact=True)
           ).to_contain_text("×2")
    pick(page, "3", "7", "2", "2")
    confirm(page)
    deal = server.events(game)[-1]
    assert deal["type"] == "deal"
    assert deal["data"]["hands"] == {"Ann": [5, 5], "Bob": [3, 7], "Cas": [2, 2]}
    expect_status(page, "Ann to play")
    hand = page.get_by_role("group", name="Hand: Ann", exact=True)
    expect(hand.get_by_role("button", name="5", exact=True)).to_have_count(2)
    before = version(page)
    hand.get_by_role("button", name="5", exact=True).first.click()
    settle(page, before + 1)
    tap(page, "7")  # Bob's 7 flushes Ann's 5: Ann draws a card, which the open game may name
    page.get_by_role("button", name="Draw: Ann", exact=True).click()
    pick(page, "9")
    confirm(page)
    assert server.events(game)[-1]["data"] == {"player": "Ann", "card": 9}
    expect(page.get_by_role("group", name="Hand: Ann", exact=True)).to_contain_text("9")
