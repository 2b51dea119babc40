"""Flaky Wi-Fi: the server stopped mid-game, taps wait on the device, nothing is lost or doubled."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, TABLET
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
    deck(page, "8♥").click()  # guessed for Cas
    page.get_by_role("button", name="8♥ by Bob", exact=True).click()  # a mis-tap: Bob again
    deck(page, "9♥").click()
    server.start()
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("Bob plays 8♥")
    expect(alert).to_contain_text("8♥")
    expect(page.locator("#table")).to_have_attribute("data-pending", "2")
    expect(page.locator("#queue-list li.refused")).to_have_count(1)
    page.get_by_role("button", name="Drop this tap", exact=True).click()
    settle(page)
    plays = [(e["data"]["player"], e["data"]["card"]) for e in server.events(game) if e["type"] == "play"]
    assert plays == [("Bob", "7H"), ("Cas", "9H")]


@pytest.mark.parametrize("viewport", [PHONE, TABLET], ids=["390x844", "1024x768"])
def test_offline_the_seats_stay_in_view_queued_cards_look_waiting_and_the_chooser_reads_apart(
        own_server, new_context, viewport):
    server = own_server
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas", "Dee"], dealer="Dee")
    server.post(game, {"type": "deal"})
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, game)
    tap(page, "9♣")
    server.stop()
    deck(page, "8♣").click()
    expect(page.locator("#table")).to_have_attribute("data-offline", "true")
    deck(page, "K♣").click()
    expect(page.locator("#table")).to_have_attribute("data-pending", "2")
    page.evaluate("() => window.scrollTo(0, 0)")
    # the waiting taps lie in the band's empty foot, under the board and above the deck (else over
    # the seats' foot, under their names): never over the board, which is the confirmed board plus
    # the waiting taps, nor over a seat's name or the deck (issue 25)
    queue = page.locator("#queue").evaluate("e => { const r = e.getBoundingClientRect(); return [r.top, r.bottom]; }")
    names = page.evaluate("() => Math.max(...Array.from(document.querySelectorAll('#seats .seat-head'))"
                          ".map(h => h.getBoundingClientRect().bottom))")
    band = page.locator("#band").evaluate("e => e.getBoundingClientRect().top")
    board = page.locator("#board").evaluate("e => e.getBoundingClientRect().bottom")
    deck_top = page.locator("#deck").evaluate("e => e.getBoundingClientRect().top")
    under_names = queue[0] >= names - 1 and queue[1] <= band + 1
    under_board = queue[0] >= board - 1 and queue[1] <= deck_top + 1
    assert under_names or under_board, (queue, names, band, board, deck_top)
    expect(page.locator("#seats .seat.to-act")).to_be_in_viewport()
    to_act = page.locator("#seats .seat.to-act").evaluate(
        "e => { const r = e.getBoundingClientRect(); const hit = document.elementFromPoint(r.left + r.width / 2, r.top + 8);"
        " return !!hit && !!hit.closest('.seat.to-act'); }")
    assert to_act  # nothing over it
    # the queued cards do not look playable, and a tap on one queues nothing more
    for name in ("8♣", "K♣"):
        expect(deck(page, name)).to_have_attribute("aria-disabled", "true")
        expect(deck(page, name)).to_have_class(re.compile(r"\bqueued\b"))
    deck(page, "K♣").click(force=True)  # a finger's tap: aria-disabled buttons still take it
    expect(page.get_by_role("alert")).to_contain_text("K♣")
    expect(page.locator("#table")).to_have_attribute("data-pending", "2")
    # the player chooser reads as separate names: "K♣ by Ann, Bob, Cas or Dee (guessed)"
    second = page.locator("#queue-list li").nth(1)
    assert re.search(r"K♣ by Ann, Bob, Cas or Dee", second.text_content() or ""), second.text_content()
    expect(second.get_by_role("group", name="Who played K♣", exact=True).get_by_role("button")).to_have_count(4)
