"""The deck in view after the deal (ui.md, "Where the page lives", "One tap per card"; issue 25): in
every game, at its largest seat count and at three seats (Fool!: four, its fewest):

- on a landscape tablet (1024×768) the whole deck is on screen without scrolling, Fool!'s 88 cards
  (83 buttons) included, every card a tap target of at least 44×44 CSS pixels;
- on a portrait phone (390×844) Toepen's whole deck at three seats, and in the other games the
  deck's first two rows; on both, every button of the seats and of the action row;
- the room kept for the folds a knock brings and for messages is there, but never as an empty
  band: between the seats and the deck no run of empty screen is taller than one row of buttons.

Stop the Bus shows its deck while a swap's cards are chosen: its seats, actions and Centre are on
screen after the deal, and the deck once a Centre card is tapped for a swap (a 1024×768 tablet:
without any scrolling; a phone: the page brings the deck's first rows up itself, Confirm in view).
The deck is measured after that tap, as in the other games: the whole deck (tablet) or its first
two rows (phone), the seats' buttons on screen, and no empty band above the deck (the swap's panel,
which lies over the seats and the actions' room on a phone, counts as shown).
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, TABLET
from tests.browser.table import open_table

NAMES = ["Ann", "Bob", "Cas", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jon"]
#: (game, seats): each game at its largest seat count and at three seats (Fool!: four, its fewest)
CASES = [("toepen", 3), ("toepen", 8), ("fool", 4), ("fool", 8), ("fuji_flush", 3), ("fuji_flush", 8),
         ("stop_the_bus", 3), ("stop_the_bus", 10)]
#: the largest run of empty screen allowed between the seats and the deck: one row of buttons
ONE_ROW = 56

#: the deck's visible card buttons, their rows (distinct tops) and sizes, and the page's scroll
DECK = """() => {
  const boxes = Array.from(document.querySelectorAll('#deck button[data-card]'))
    .filter(b => b.offsetParent !== null).map(b => b.getBoundingClientRect());
  const tops = [...new Set(boxes.map(r => Math.round(r.top)))].sort((a, b) => a - b);
  const rowBottom = t => Math.max(...boxes.filter(r => Math.abs(r.top - t) < 1.5).map(r => r.bottom));
  return {cards: boxes.length, rows: tops.map(rowBottom), top: Math.min(...boxes.map(r => r.top)),
          bottom: Math.max(...boxes.map(r => r.bottom)),
          smallest: [Math.min(...boxes.map(r => r.width)), Math.min(...boxes.map(r => r.height))],
          scrollY: window.scrollY}; }"""

#: every button of the seats and of the action row (those a person can see): name and box
BUTTONS = """() => Array.from(document.querySelectorAll('#seats button, #actions button, #board button'))
  .filter(b => b.offsetParent !== null && getComputedStyle(b).visibility !== 'hidden')
  .map(b => { const r = b.getBoundingClientRect();
              return [b.getAttribute('aria-label') || b.textContent.trim(), r.top, r.bottom, r.width, r.height]; })"""

#: the boxes of what is shown between the seats' top and the deck's first card (seats, the board's
#: lines, the result, the action buttons, the panel a swap's cards are chosen in): the largest
#: vertical run that none of them covers
EMPTY_RUN = """() => {
  const seen = e => e.offsetParent !== null && getComputedStyle(e).visibility !== 'hidden';
  const deckTop = Math.min(...Array.from(document.querySelectorAll('#deck button[data-card]')).filter(seen)
    .map(b => b.getBoundingClientRect().top));
  const parts = Array.from(document.querySelectorAll(
      '#seats .seat, #board .facts, #board .trick, #board .group, #board .centre, #hand-result, #actions button, #compose'))
    .filter(e => seen(e) && e.textContent.trim() !== '').map(e => e.getBoundingClientRect())
    .map(r => [r.top, r.bottom]).sort((a, b) => a[0] - b[0]);
  let reach = parts.length ? parts[0][0] : deckTop, run = 0;
  for (const [top, bottom] of parts.concat([[deckTop, deckTop]])) {
    if (top > reach) run = Math.max(run, top - reach);
    reach = Math.max(reach, bottom);
  }
  return run; }"""


def dealt(server: Any, game: str, seats: int) -> dict[str, Any]:
    created = server.create(game=game, players=NAMES[:seats])
    server.post(created, {"type": "deal", "centre": ["QS", "4H", "9D"]} if game == "stop_the_bus" else {"type": "deal"})
    return created


def buttons_on_screen(page: Any, viewport: dict[str, int]) -> None:
    for name, top, bottom, width, height in page.evaluate(BUTTONS):
        assert top >= 0 and bottom <= viewport["height"], (name, top, bottom)
        assert width >= 44 and height >= 44, (name, width, height)


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
@pytest.mark.parametrize(("game", "seats"), CASES, ids=[f"{g}-{n}" for g, n in CASES])
def test_after_the_deal_the_deck_and_every_seats_button_are_on_screen(server, new_context, game, seats, viewport):
    created = dealt(server, game, seats)
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, created)
    assert page.evaluate("() => window.scrollY") == 0
    buttons_on_screen(page, viewport)
    if game in ("toepen", "fool", "stop_the_bus"):  # Fuji Flush's seats have no actions of their own
        assert page.evaluate(BUTTONS), "no button in the seats or the action row"
    if game == "stop_the_bus":  # the deck is shown once a swap's cards are chosen
        expect(page.get_by_role("group", name="Centre", exact=True)).to_be_in_viewport(ratio=1)
        assert page.locator("#deck button[data-card]:visible").count() == 0  # no deck yet: nothing to measure
        page.get_by_role("group", name="Centre", exact=True).get_by_role("button", name="Q♠", exact=True).click()
        expect(page.locator("#deck button[data-card]:visible").first).to_be_visible()
        expect(page.get_by_role("button", name="Confirm", exact=True)).to_be_in_viewport(ratio=1)
        if viewport is TABLET:
            assert page.evaluate("() => window.scrollY") == 0
        buttons_on_screen(page, viewport)  # the seats' buttons with the deck, after the tap that shows it
    run = page.evaluate(EMPTY_RUN)
    assert run <= ONE_ROW, f"an empty band of {run:.0f} px between the seats and the deck"
    seen = page.evaluate(DECK)
    assert seen["smallest"][0] >= 44 and seen["smallest"][1] >= 44, seen  # a finger's tap target
    if viewport is TABLET or (game == "toepen" and seats == 3):
        assert seen["bottom"] <= viewport["height"], seen  # the whole deck
    else:
        assert len(seen["rows"]) >= 2 and seen["rows"][1] <= viewport["height"], seen  # its first two rows
    if game == "fool":
        assert seen["cards"] == 83  # 88 cards: the six wild 1s are one button


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_a_knock_brings_the_folds_into_room_kept_for_them_and_the_deck_stays(server, new_context, viewport):
    """Eight seats: the knock's seven folds fit in the room kept since the deal (a phone: one row,
    the word once and a button per player, each named "Fold: Bob"), and the deck does not move."""
    created = dealt(server, "toepen", 8)
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, created)
    deck_top = page.evaluate("() => document.getElementById('deck').getBoundingClientRect().top")
    # the stock is empty with eight seats: no laundry this hand, so each seat keeps two places, not three
    expect(page.locator("#seats .seat-actions.slots-2")).to_have_count(8)
    page.get_by_role("button", name="Knock: Bob", exact=True).click()
    folds = page.locator("#actions button[data-action=fold]")
    expect(folds).to_have_count(7)
    for name in NAMES[:8]:
        if name != "Bob":
            expect(page.get_by_role("button", name=f"Fold: {name}", exact=True)).to_be_in_viewport(ratio=1)
    assert page.evaluate("() => document.getElementById('deck').getBoundingClientRect().top") == deck_top
    buttons_on_screen(page, viewport)
