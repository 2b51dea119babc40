"""Flaky Wi-Fi: the server stopped mid-game, taps wait on the device, nothing is lost or doubled."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.table import act, deck, open_table, settle, tap

PLAYERS = ["Ann", "Bob", "Cas"]


def pending(page) -> int:
    return int(page.locator("#table").get_attribute("data-pending"))


def test_taps_made_while_the_server_is_down_are_stored_once_in_order(own_server, page):
    server = own_server
    game = server.create(game="toepen", players=PLAYERS, options={"limit": 3})
    open_table(page, server, game)
    act(page, "Deal")
    tap(page, "7♥")
    server.stop()
    deck(page, "8♥").click()
    expect(page.locator("#table")).to_have_attribute("data-offline", "true")
    deck(page, "9♥").click()
    deck(page, "10♠").click()
    expect(page.locator("#table")).to_have_attribute("data-pending", "3")
    waiting = page.locator("#queue-list li")
    expect(waiting).to_have_count(3)
    # the page guesses the next seats clockwise (Ann, then Bob); Ann won the trick, so she leads:
    # one tap on her name fixes the guess
    expect(page.get_by_role("button", name="10♠ by Bob", exact=True)).to_have_attribute("aria-pressed", "true")
    page.get_by_role("button", name="10♠ by Ann", exact=True).click()
    expect(page.get_by_role("button", name="10♠ by Ann", exact=True)).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_role("status")).to_contain_text("Offline")
    saved = page.evaluate(f"JSON.parse(localStorage.getItem('kibitz.queue.{game['id']}'))")
    assert [item["body"]["card"] for item in saved["items"]] == ["8H", "9H", "TS"]
    assert saved["base"] == 3
    server.start()
    settle(page)
    plays = [(e["data"]["player"], e["data"]["card"], e["seq"]) for e in server.events(game) if e["type"] == "play"]
    assert [(p, c) for p, c, _ in plays] == [("Bob", "7H"), ("Cas", "8H"), ("Ann", "9H"), ("Ann", "TS")]
    events = server.events(game)
    assert all(e["at"] for e in events[2:])
    expect(page.get_by_role("status")).to_have_text("Bob to play")
    expect(page.locator("#queue")).to_be_hidden()


def test_the_waiting_taps_survive_closing_the_page(own_server, new_context):
    context = new_context()
    page = context.new_page()
    server = own_server
    game = server.create(game="toepen", players=PLAYERS, options={"limit": 3})
    open_table(page, server, game)
    act(page, "Deal")
    server.stop()
    deck(page, "7♥").click()
    deck(page, "8♥").click()
    expect(page.locator("#table")).to_have_attribute("data-pending", "2")
    page.close()
    server.start()
    again = context.new_page()
    again.goto(f"{server.base}/table/{game['id']}")
    settle(again)
    plays = [(e["data"]["player"], e["data"]["card"]) for e in server.events(game) if e["type"] == "play"]
    assert plays == [("Bob", "7H"), ("Cas", "8H")]
    expect(again.get_by_role("status")).to_have_text("Ann to play")


def test_a_refused_waiting_tap_stops_the_queue_with_its_sentence(own_server, page):
    server = own_server
    game = server.create(game="toepen", players=PLAYERS, options={"limit": 3})
    open_table(page, server, game)
    act(page, "Deal")
    server.stop()
    deck(page, "7♥").click()
    expect(page.locator("#table")).to_have_attribute("data-offline", "true")
    deck(page, "7♥").click()  # a mis-tap: the same card again (guessed for Cas)
    deck(page, "8♥").click()
    server.start()
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("Cas plays 7♥")
    expect(alert).to_contain_text("7♥")
    expect(page.locator("#table")).to_have_attribute("data-pending", "2")
    expect(page.locator("#queue-list li.refused")).to_have_count(1)
    page.get_by_role("button", name="Drop this tap", exact=True).click()
    settle(page)
    plays = [(e["data"]["player"], e["data"]["card"]) for e in server.events(game) if e["type"] == "play"]
    assert plays == [("Bob", "7H"), ("Cas", "8H")]
