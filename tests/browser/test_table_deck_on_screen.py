"""The deck on screen without scrolling (ui.md, "Where the page lives", "One tap per card"): the
deck is the scorekeeper's main target, so a hand in progress shows its first row of cards before
any scrolling on a portrait phone (390×844) in all four games, and on a landscape tablet
(1024×768) the whole deck of Toepen and Fuji Flush, and of Stop the Bus while a deal's, a swap's
or a show's cards are chosen (Fool!'s 83 cards start on screen there); the seats' own actions
above the deck stay whole (every label readable, at least 44×44 CSS pixels), and so does the
status line saying whose turn it is (no sentence cut with an ellipsis).

The games are the club evening's (``tests/browser/recorded.py``, the state of the screenshots):
Toepen with four players and Dee's knock pending, Fool! in its third trick, Stop the Bus with a
swap being chosen, Fuji Flush mid-round; and a Toepen hand just dealt, when every seat offers
Knock, Laundry and Reveal.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, TABLET
from tests.browser.pages_checks import keep_token
from tests.browser.recorded import Recorder, bus_game, create, fool_game, fuji_game, toepen_table_game
from tests.browser.table import open_table, pick, settle, version

#: the deck's card buttons on screen: how many, the bottom of the first row of them (those at the
#: smallest top) and of the last, in the viewport's coordinates
DECK = """() => {
  const boxes = Array.from(document.querySelectorAll('#deck button[data-card]'))
    .filter(b => b.offsetParent !== null).map(b => b.getBoundingClientRect());
  const top = Math.min(...boxes.map(r => r.top));
  return {cards: boxes.length, top: top,
          firstRowBottom: Math.max(...boxes.filter(r => r.top < top + 1).map(r => r.bottom)),
          bottom: Math.max(...boxes.map(r => r.bottom)),
          scrollY: window.scrollY, innerHeight: window.innerHeight}; }"""

#: every seat action: its accessible name's word, its size, and whether its label is cut off
SEAT_ACTIONS = """() => Array.from(document.querySelectorAll('#seats .seat-action')).map(b => {
  const r = b.getBoundingClientRect(); const word = b.querySelector('.word');
  return [b.getAttribute('data-action') + ':' + b.getAttribute('data-player'), r.width, r.height,
          b.scrollWidth > b.clientWidth || word.getBoundingClientRect().right > r.right - 2
          || word.getBoundingClientRect().left < r.left + 2]; })"""

GAMES = {"toepen": toepen_table_game, "fool": fool_game, "stop_the_bus": bus_game, "fuji_flush": fuji_game}
#: the games whose whole deck fits on a landscape tablet's screen (Stop the Bus's while a deal's,
#: a swap's or a show's cards are chosen)
WHOLE_ON_TABLET = ("toepen", "fuji_flush", "stop_the_bus")


def opened(server: Any, new_context: Any, viewport: dict[str, int], game: Recorder) -> Any:
    context = new_context(viewport=viewport)
    keep_token(context, game.id, game.token)
    page = context.new_page()
    open_table(page, server, {"id": game.id, "token": game.token})
    return page


def deck_on_screen(page: Any, viewport: dict[str, int], whole: bool) -> dict[str, Any]:
    """Assert the deck's first row of cards (``whole``: every card) is on screen, unscrolled."""
    seen = dict(page.evaluate(DECK))
    assert seen["scrollY"] == 0 and seen["innerHeight"] == viewport["height"], seen
    assert seen["cards"] > 0, seen
    assert seen["firstRowBottom"] <= viewport["height"], seen  # tappable without scrolling
    if whole:
        assert seen["bottom"] <= viewport["height"], seen
    return seen


@pytest.mark.parametrize("viewport", [PHONE, TABLET], ids=["390x844", "1024x768"])
@pytest.mark.parametrize("name", list(GAMES))
def test_a_hand_in_progress_shows_the_deck_without_scrolling(server, new_context, name, viewport):
    game = GAMES[name](server.base)
    page = opened(server, new_context, viewport, game)
    if name == "stop_the_bus":  # the deck is there to choose a swap's give: the take from the centre first
        page.get_by_role("button", name="Swap: Cas", exact=True).click()
        pick(page, "7♠", group="Centre")
        expect(page.locator("#deck")).to_be_visible()
        page.evaluate("() => window.scrollTo(0, 0)")
    if name == "toepen":  # the screenshot's state: Dee's knock pending, Ann and Cas to answer it
        expect(page.get_by_role("button", name="Fold: Ann", exact=True)).to_be_enabled()
        expect(page.get_by_role("button", name="Knock: Cas", exact=True)).to_be_enabled()
    deck_on_screen(page, viewport, whole=viewport is TABLET and name in WHOLE_ON_TABLET)
    for action, width, height, cut in page.evaluate(SEAT_ACTIONS):
        assert width >= 44 and height >= 44 and not cut, (action, width, height)
    # whose turn, whole on screen (no ellipsis): a knock's sentence names every seat that may fold
    turn = page.evaluate("() => { const t = document.querySelector('[role=status]');"
                         " return [t.textContent, t.scrollHeight, t.clientHeight]; }")
    assert turn[1] <= turn[2] + 1, turn


@pytest.mark.parametrize("viewport", [PHONE, TABLET], ids=["390x844", "1024x768"])
def test_a_toepen_hand_just_dealt_every_seat_action_whole_and_the_deck_on_screen(server, new_context, viewport):
    game = create(server.base, game="toepen", players=["Ann", "Bob", "Cas", "Dee"], dealer="Ann")
    game.post({"type": "deal"})
    page = opened(server, new_context, viewport, game)
    seen = page.evaluate(SEAT_ACTIONS)
    assert len(seen) == 12  # Knock, Laundry and Reveal in each of the four seats
    for action, width, height, cut in seen:
        assert width >= 44 and height >= 44 and not cut, (action, width, height)
        assert action.split(":")[0] in ("knock", "laundry", "reveal")
    deck_on_screen(page, viewport, whole=viewport is TABLET)


#: where each seat action is: name -> [left, top, width, height]
PLACES = """() => Object.fromEntries(Array.from(document.querySelectorAll('#seats .seat-action')).map(b => {
  const r = b.getBoundingClientRect();
  return [b.getAttribute('data-action') + ':' + b.getAttribute('data-player'), [r.left, r.top, r.width, r.height]]; }))"""


@pytest.mark.parametrize("viewport", [PHONE, TABLET], ids=["390x844", "1024x768"])
def test_a_seat_action_that_goes_away_moves_no_other(server, new_context, viewport):
    """Laundry is offered only before the hand's first card (rules/toepen.md): once it is gone,
    Knock and Reveal are where they were, on a phone's one row too."""
    game = create(server.base, game="toepen", players=["Ann", "Bob", "Cas", "Dee"], dealer="Ann")
    game.post({"type": "deal"})
    page = opened(server, new_context, viewport, game)
    before = page.evaluate(PLACES)
    assert sorted({name.split(":")[0] for name in before}) == ["knock", "laundry", "reveal"]
    shown = version(page)
    page.locator('#deck button[data-card][aria-disabled="false"]').first.click()
    settle(page, shown + 1)
    after = page.evaluate(PLACES)
    assert not any(name.startswith("laundry:") for name in after), after
    assert {name for name in after if name.split(":")[0] in ("knock", "reveal")} == \
           {name for name in before if name.split(":")[0] in ("knock", "reveal")}
    for name, box in after.items():
        assert box == before[name], (name, before[name], box)


def test_stop_the_bus_on_a_tablet_the_whole_deck_is_on_screen_in_the_deal_swap_and_show_panels(server, new_context):
    """A 1024×768 tablet: the 52-card deck, clubs' row included, is on screen without scrolling
    while a deal's centre, a swap's give and a show's cards are chosen."""
    game = create(server.base, game="stop_the_bus", players=["Ann", "Bob"], dealer="Ann", options={"chips": 1})
    page = opened(server, new_context, TABLET, game)
    page.get_by_role("button", name="Deal", exact=True).click()  # the deal's three centre cards
    expect(page.locator("#deck")).to_be_visible()
    deck_on_screen(page, TABLET, whole=True)
    pick(page, "2♥", "3♥", "4♥")
    shown = version(page)
    page.get_by_role("button", name="Confirm", exact=True).click()
    settle(page, shown + 1)
    page.get_by_role("button", name="Swap: Bob", exact=True).click()  # a swap's give
    pick(page, "2♥", group="Centre")
    deck_on_screen(page, TABLET, whole=True)
    page.get_by_role("button", name="Cancel", exact=True).click()
    shown = version(page)
    page.get_by_role("button", name="Stop: Bob", exact=True).click()
    settle(page, shown + 1)
    pick(page, "3♥", group="Centre")
    pick(page, "8♦")
    shown = version(page)
    page.get_by_role("button", name="Confirm", exact=True).click()
    settle(page, shown + 1)
    page.get_by_role("button", name="Show: Ann", exact=True).click()  # a show's cards
    expect(page.locator("#deck")).to_be_visible()
    deck_on_screen(page, TABLET, whole=True)
