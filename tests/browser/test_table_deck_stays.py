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

from tests.browser.conftest import PHONE, TABLET
from tests.browser.latency import Latency
from tests.browser.table import act, deck, open_table, settle, version

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
