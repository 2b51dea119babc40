"""Nothing moves under a finger (ui.md; issue 25, "Things that still move under a finger"): after a
tap is answered, no other control slides into the place just tapped, and the controls around it
stay where they were. Each case taps, then taps the same place again 150 ms later (a finger's
double tap, with the first answer already in), checks through the API that nothing was recorded
for a control that came there, and measures that the controls did not move:

- Toepen, four seats, after a knock: after **Fold: Cas**, **Fold: Dee** stays in its own place;
- Stop the Bus: after the first swap (confirmed in its panel), **Swap** (now Bob's) and **Stop** stay
  where they were, and the second tap on Confirm's place records no stop nor opens a swap;
- Toepen, open hands: the **Laundry** panel opens over the band and the seats, not pushing the deck;
- the last card of a hand: **Undo** stays where it was when the hand ends.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, TABLET
from tests.browser.latency import Latency
from tests.browser.table import open_table, version

FOUR = ["Ann", "Bob", "Cas", "Dee"]
BOX = "e => { const r = e.getBoundingClientRect(); return [r.left, r.top + window.scrollY, r.width, r.height]; }"


def box(page: Any, name: str) -> list[float]:
    return list(page.get_by_role("button", name=name, exact=True).evaluate(BOX))


def middle(page: Any, locator: Any) -> tuple[float, float]:
    locator.scroll_into_view_if_needed()
    found = locator.bounding_box()
    assert found is not None
    return found["x"] + found["width"] / 2, found["y"] + found["height"] / 2


def twice(page: Any, latency: Any, where: tuple[float, float]) -> None:
    """A tap, and another at the same place 150 ms later; then wait until the page shows the version
    the first one made, with nothing pending."""
    shown = version(page)
    page.mouse.click(*where)
    latency.wait(150)
    page.mouse.click(*where)
    latency.wait(400)
    latency.settled(shown + 1)


def recorded(server: Any, game: dict[str, Any]) -> list[tuple[str, Any]]:
    return [(e["type"], e["data"].get("player")) for e in server.events(game)]


@pytest.mark.parametrize("delay", [0, 250])
@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_after_fold_cas_the_next_fold_keeps_its_own_place(server, new_context, viewport, delay):
    game = server.create(game="toepen", players=FOUR, dealer="Ann")
    server.post(game, {"type": "deal"})
    server.post(game, {"type": "knock", "player": "Bob"})  # Ann, Cas and Dee may fold
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, game, base=server.lan_base)
    latency = Latency(page, delay)
    where = middle(page, page.get_by_role("button", name="Fold: Cas", exact=True))
    before = {name: box(page, name) for name in ("Fold: Ann", "Fold: Dee")}
    twice(page, latency, where)
    assert recorded(server, game)[-1] == ("fold", "Cas")
    assert ("fold", "Dee") not in recorded(server, game) and ("fold", "Ann") not in recorded(server, game)
    expect(page.get_by_role("button", name="Fold: Cas", exact=True)).to_have_count(0)
    for name, place in before.items():
        assert box(page, name) == place, name


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_after_the_first_swap_swap_and_stop_stay_where_they_were(server, new_context, viewport):
    game = server.create(game="stop_the_bus", players=["Ann", "Bob", "Cas"], dealer="Cas")
    server.post(game, {"type": "deal", "centre": ["QS", "4H", "9D"]})
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, game, base=server.lan_base)
    latency = Latency(page, 0)
    swap, stop = box(page, "Swap: Ann"), box(page, "Stop: Ann")
    page.get_by_role("group", name="Centre", exact=True).get_by_role("button", name="Q♠", exact=True).click()
    page.locator('#deck button[data-card]:not([disabled]):not([aria-disabled="true"])').first.click()
    twice(page, latency, middle(page, page.get_by_role("button", name="Confirm", exact=True)))
    after = recorded(server, game)
    assert after[after.index(("deal", None)) + 1:] == [("swap", "Ann")]  # nothing for what came under Confirm
    expect(page.locator("#compose")).to_be_hidden()  # nor a swap's panel opened for Bob
    page.evaluate("() => window.scrollTo(0, 0)")
    left, top, _, height = box(page, "Swap: Bob")
    assert [left, top, height] == [swap[0], swap[1], swap[3]]  # the turn passed: the same place, Bob's now
    assert box(page, "Stop: Ann") == stop


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_the_laundry_panel_opens_without_pushing_the_deck(server, new_context, viewport):
    game = server.create(game="toepen", players=FOUR, dealer="Ann", visibility="open")
    server.post(game, {"type": "deal", "hands": {"Ann": ["7H", "8H", "9H", "TH"], "Bob": ["7S", "8S", "9S", "TS"],
                                                 "Cas": ["7D", "8D", "9D", "TD"], "Dee": ["7C", "8C", "9C", "TC"]}})
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, game, base=server.lan_base)
    latency = Latency(page, 0)
    deck = "() => document.getElementById('deck').getBoundingClientRect().top + window.scrollY"
    cards = "() => Array.from(document.querySelectorAll('#deck button[data-card]')).slice(0, 8).map(b => b.getBoundingClientRect().top + window.scrollY)"
    top, row = page.evaluate(deck), page.evaluate(cards)
    where = middle(page, page.get_by_role("button", name="Laundry: Bob", exact=True))
    page.mouse.click(*where)
    latency.wait(150)
    page.mouse.click(*where)  # on the panel: it records nothing
    expect(page.locator("#compose")).to_be_visible()
    assert page.evaluate(deck) == top and page.evaluate(cards) == row
    assert recorded(server, game)[-1] == ("deal", None)
    expect(page.get_by_role("button", name="Confirm", exact=True)).to_be_in_viewport(ratio=1)


HAND = [("Bob", "7H"), ("Cas", "8H"), ("Ann", "9H"), ("Ann", "TS"), ("Bob", "7S"), ("Cas", "8S"),
        ("Ann", "TD"), ("Bob", "7D"), ("Cas", "8D"), ("Ann", "TC"), ("Bob", "7C")]


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_undo_stays_where_it_was_when_a_hand_ends(server, new_context, viewport):
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas"], dealer="Ann", options={"limit": 3})
    server.post(game, {"type": "deal"})
    for player, card in HAND:
        server.post(game, {"type": "play", "player": player, "card": card})
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, game, base=server.lan_base)
    latency = Latency(page, 0)
    page.evaluate("() => window.scrollTo(0, 0)")
    undo = page.locator("#undo").evaluate(BOX)
    count = len(recorded(server, game))
    twice(page, latency, middle(page, page.get_by_role("group", name="Deck", exact=True).get_by_role(
        "button", name="8♣", exact=True)))  # the hand's last card: Cas's 8♣
    assert recorded(server, game)[-1] == ("play", "Cas") and len(recorded(server, game)) == count + 1
    expect(page.locator("#hand-result")).to_contain_text("Hand 1")
    page.evaluate("() => window.scrollTo(0, 0)")
    assert page.locator("#undo").evaluate(BOX) == undo
