"""The deck stays where it is (ui.md, "Nothing moves under a finger"; issue 25): a fresh user's
report. On a 390×844 phone with four Toepen seats a knock added a row of **Fold** buttons that
pushed the deck down 46 px, so a card tapped just after the knock landed on a Fold button and
recorded a fold that ended the game (on the 1024×768 tablet the hearts row moved 378 → 422).

Each case taps as a scorekeeper does, then taps again 150 ms later where a card was seen, and
checks through the API that nothing was recorded for a control that came there; the deck's top is
measured in page coordinates.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, TABLET
from tests.browser.latency import Latency
from tests.browser.table import act, confirm, deck, open_table, pick, settle, tap, version

FOUR = ["Ann", "Bob", "Cas", "Dee"]
DECK_TOP = "() => Math.round(document.getElementById('deck').getBoundingClientRect().top + window.scrollY)"


def recorded(server: Any, game: dict[str, Any]) -> list[tuple[str, Any]]:
    return [(e["type"], e["data"].get("player")) for e in server.events(game)]


def middle(locator: Any) -> tuple[float, float]:
    found = locator.bounding_box()
    assert found is not None
    return found["x"] + found["width"] / 2, found["y"] + found["height"] / 2


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_a_knock_keeps_the_deck_where_it_is_and_a_card_tapped_after_it_records_no_fold(server, new_context, viewport):
    game = server.create(game="toepen", players=FOUR, dealer="Ann")
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, game, base=server.lan_base)
    latency = Latency(page, 0)
    act(page, "Deal")  # through the page, as at the table
    page.evaluate("() => window.scrollTo(0, 0)")
    top = page.evaluate(DECK_TOP)
    knock = middle(page.get_by_role("button", name="Knock: Bob", exact=True))
    card = middle(deck(page, "10♥"))  # the first row of the deck, where the scorekeeper sees it
    shown = version(page)
    page.mouse.click(*knock)
    latency.wait(150)
    page.mouse.click(*card)
    latency.wait(400)
    latency.settled(shown + 2)
    settle(page)
    after = recorded(server, game)
    assert ("knock", "Bob") in after
    assert [e for e in after if e[0] == "fold"] == [], after  # no Fold came under the finger
    assert page.evaluate(DECK_TOP) == top


# ------------------------------------------------------------------ a game walked through its states

TOOLBAR = """() => Array.from(document.querySelectorAll('#toolbar button')).map(b => {
  const r = b.getBoundingClientRect(); return [b.id, Math.round(r.left), Math.round(r.top + window.scrollY)]; })"""


def actions(server: Any, game: dict[str, Any]) -> list[dict[str, Any]]:
    return list(server.get(f"/games/{game['id']}/actions", game["token"])["actions"])


def card_name(code: Any) -> str:
    """A Toepen card's button name from its code ("TH" -> "10♥")."""
    code = str(code)
    return ("10" if code[0] == "T" else code[0]) + {"H": "♥", "S": "♠", "D": "♦", "C": "♣"}[code[1]]


class Walk:
    """The deck's top and the toolbar's buttons measured in each state a scorekeeper taps through."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.seen: list[tuple[str, int, Any]] = []

    def mark(self, state: str) -> None:
        self.page.evaluate("() => window.scrollTo(0, 0)")
        self.seen.append((state, self.page.evaluate(DECK_TOP), self.page.evaluate(TOOLBAR)))

    def moved(self) -> list[tuple[str, int, Any]]:
        first = self.seen[0]
        return [s for s in self.seen if s[1:] != first[1:]]


def play_first(page: Any, server: Any, game: dict[str, Any]) -> None:
    entry = next(a for a in actions(server, game) if a["type"] == "play")
    tap(page, card_name((entry.get("cards") or entry["possible"])[0]))


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_toepen_the_deck_stays_put_from_the_deal_to_the_next_deal(server, new_context, viewport):
    """Four seats: before the first deal, dealt, a card played, a knock, a fold, the hand's end (its
    result and Deal), the next deal: the deck's top and Undo, Redo and Menu never move."""
    game = server.create(game="toepen", players=FOUR, dealer="Ann")
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, game, base=server.lan_base)
    walk = Walk(page)
    walk.mark("before the first deal")
    act(page, "Deal")
    walk.mark("dealt")
    play_first(page, server, game)
    walk.mark("a card played")
    knocker = next(a["player"] for a in actions(server, game) if a["type"] == "knock")
    act(page, f"Knock: {knocker}")
    walk.mark("knocked")
    folder = next(a["player"] for a in actions(server, game) if a["type"] == "fold")
    act(page, f"Fold: {folder}")
    walk.mark("folded")
    while any(a["type"] == "play" for a in actions(server, game)):
        play_first(page, server, game)
        walk.mark("a card played")
    expect(page.locator("#hand-result")).to_contain_text("Hand 1")
    walk.mark("the hand's end")
    act(page, "Deal")
    walk.mark("the next deal")
    assert walk.moved() == [], [(state, top) for state, top, _ in walk.seen]


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_fool_the_deck_stays_put_from_the_deal_to_the_next_deal(server, new_context, viewport):
    """Four seats, two cards each: dealt, the tricks, the round's end (Reveal due), the reveal (the
    round's result and Deal), the next deal."""
    game = server.create(game="fool", players=FOUR, options={"hand_size": 2})
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, game, base=server.lan_base)
    walk = Walk(page)
    walk.mark("before the first deal")
    act(page, "Deal")
    walk.mark("dealt")
    first = {"Ann": "Green 2", "Bob": "Green 11", "Cas": "Green 15", "Dee": "Green 19"}
    second = {"Bob": "Red 2", "Cas": "Red 6", "Dee": "Red 11"}
    for cards in (first, second):
        for _ in cards:
            player = next(a["player"] for a in actions(server, game) if a["type"] == "play")
            tap(page, cards[player])
            walk.mark(f"{player} played")
    expect(page.get_by_role("status")).to_have_text("Round over: reveal Ann's cards")
    walk.mark("the round's end")
    page.get_by_role("button", name="Reveal: Ann", exact=True).click()
    pick(page, "Green 27")
    confirm(page)
    expect(page.locator("#hand-result")).to_contain_text("Round 1")
    walk.mark("revealed: the round's result")
    page.wait_for_timeout(500)  # Deal is where Confirm was: not taken for a moment after the panel closed
    act(page, "Deal")
    walk.mark("the next deal")
    assert walk.moved() == [], [(state, top) for state, top, _ in walk.seen]


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_a_second_tap_on_deal_150_ms_later_records_nothing_that_came_under_it(server, new_context, viewport):
    """Deal tapped twice (a finger's double tap): the deal is recorded once, and nothing that came to
    Deal's place (a seat's Knock, a card) is recorded."""
    game = server.create(game="toepen", players=FOUR, dealer="Ann")
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, game, base=server.lan_base)
    latency = Latency(page, 0)
    page.evaluate("() => window.scrollTo(0, 0)")
    where = middle(page.get_by_role("button", name="Deal", exact=True))
    top = page.evaluate(DECK_TOP)
    shown = version(page)
    page.mouse.click(*where)
    latency.wait(150)
    page.mouse.click(*where)
    latency.wait(400)
    latency.wait_until("document.getElementById('table').dataset.pending === '0'")
    settle(page)
    assert recorded(server, game)[1:] == [("deal", None)]
    assert version(page) == shown + 1
    assert page.evaluate(DECK_TOP) == top
