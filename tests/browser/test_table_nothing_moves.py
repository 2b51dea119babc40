"""Nothing moves under a finger (ui.md): with latency on the writes, a second tap made 150 ms after
the first, where the scorekeeper saw the card, records that card for the player ``actions`` names
once the first answer is in; and while a tap is pending no control changes place or size, on a
landscape tablet and a portrait phone, in all four games.

The taps are real mouse clicks at screen positions measured before the first tap (a finger does
not wait for the page); the stored events are read back through the API.
"""

from __future__ import annotations

from typing import Any

import pytest
import requests

from tests.browser.conftest import PHONE, TABLET
from tests.browser.latency import Latency
from tests.browser.table import open_table

SETUPS: dict[str, dict[str, Any]] = {
    "toepen": {"create": {"game": "toepen", "players": ["Ann", "Bob", "Cas", "Dee"]}, "deal": {"type": "deal"}},
    "fool": {"create": {"game": "fool", "players": ["Anja", "Bettina", "Uwe", "Ilja"], "dealer": "Ilja"},
             "deal": {"type": "deal"}},
    "fuji_flush": {"create": {"game": "fuji_flush", "players": ["Yeonsu", "Jisu", "Nami", "Gahee"]},
                   "deal": {"type": "deal"}},
    "stop_the_bus": {"create": {"game": "stop_the_bus", "players": ["Ann", "Bob", "Cas"], "dealer": "Cas"},
                     "deal": {"type": "deal", "centre": ["QS", "4H", "9D"]}},
}

BOXES = """() => Array.from(document.querySelectorAll('#table button, #table a, #table select, #table input'))
  .filter(b => b.offsetParent !== null)
  .map(b => { const r = b.getBoundingClientRect();
    const key = b.id || (b.dataset.card ? 'card ' + b.dataset.card + ' ' + (b.dataset.owner || b.dataset.place || 'deck')
                                        : b.getAttribute('aria-label') || b.textContent.trim());
    return [key, Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height)]; })"""


def actions(server: Any, game: dict[str, Any]) -> list[dict[str, Any]]:
    return list(server.get(f"/games/{game['id']}/actions", game["token"])["actions"])


def first_play(server: Any, game: dict[str, Any]) -> tuple[str, list[Any]]:
    play = next(a for a in actions(server, game) if a["type"] == "play")
    return play["player"], list(play.get("cards") or play.get("possible") or [])


def new_game(server: Any, name: str) -> dict[str, Any]:
    setup = SETUPS[name]
    game = server.create(**setup["create"])
    server.post(game, setup["deal"])
    return game


def two_plays(server: Any, name: str) -> tuple[str, Any, str, Any]:
    """(first player, first card, second player, second card) for a fresh game of ``name``: found on a
    twin game through the API, so the page's game itself is only played through the page."""
    twin = new_game(server, name)
    p1, cards1 = first_play(server, twin)
    a = cards1[0]
    server.post(twin, {"type": "play", "player": p1, "card": a})
    p2, cards2 = first_play(server, twin)
    b = next(c for c in cards2 if str(c) != str(a))
    return p1, a, p2, b


def card_button(page: Any, code: Any) -> Any:
    return page.locator(f'#deck button[data-card="{code}"]')


def centre(page: Any, locator: Any) -> tuple[float, float]:
    locator.scroll_into_view_if_needed()
    box = locator.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


@pytest.mark.parametrize("delay", [0, 100, 250])
@pytest.mark.parametrize("name", ["toepen", "fool", "fuji_flush"])
def test_a_second_tap_150_ms_after_the_first_records_the_card_under_the_finger(server, new_context, name, delay):
    p1, a, p2, b = two_plays(server, name)
    game = new_game(server, name)
    page = new_context(viewport=TABLET).new_page()
    open_table(page, server, game, base=server.lan_base)
    latency = Latency(page, delay)
    first = centre(page, card_button(page, a))
    second = centre(page, card_button(page, b))  # where the scorekeeper sees the next card now
    page.mouse.click(*first)
    latency.wait(150)
    page.mouse.click(*second)
    latency.settled(4)
    plays = [(e["data"]["player"], str(e["data"]["card"])) for e in server.events(game) if e["type"] == "play"]
    assert plays == [(p1, str(a)), (p2, str(b))]
    assert latency.sent == 2  # each tap sent once, the second only after the first was answered


def _target(page: Any, server: Any, game: dict[str, Any], name: str) -> Any:
    """The control whose tap is left pending: a card of the deck, or Confirm of a chosen swap (Stop
    the Bus, whose deck shows only while cards are chosen)."""
    if name == "stop_the_bus":
        swap = next(x for x in actions(server, game) if x["type"] == "swap")
        page.locator('#board button[data-place="centre"][data-card="QS"]').click()
        give = next(str(c) for c in (swap.get("cards") or swap.get("possible") or []) if str(c) not in ("QS", "4H", "9D"))
        card_button(page, give).click()
        return page.get_by_role("button", name="Confirm", exact=True)
    _, cards = first_play(server, game)
    return card_button(page, cards[0])


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
@pytest.mark.parametrize("name", ["toepen", "fool", "fuji_flush", "stop_the_bus"])
def test_no_control_moves_or_changes_size_while_a_tap_is_pending(server, new_context, name, viewport):
    game = new_game(server, name)
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, game, base=server.lan_base)
    latency = Latency(page, 800)
    target = _target(page, server, game, name)
    where = centre(page, target)  # scrolled to where the finger is, before anything is measured
    before = page.evaluate(BOXES)
    deck_before = page.evaluate("() => document.getElementById('deck').getBoundingClientRect().top")
    page.mouse.click(*where)
    latency.wait(200)
    assert page.locator("#table").get_attribute("data-pending") == "1"
    assert "Sending" in page.locator("#sending").inner_text()
    during = page.evaluate(BOXES)
    moved = [(x, y) for x, y in zip(before, during, strict=False) if x != y]
    assert moved == [] and len(before) == len(during), f"moved while pending: {moved}"
    latency.settled(3)
    if name != "stop_the_bus":  # the deck stays where it is for the whole hand
        assert page.evaluate("() => document.getElementById('deck').getBoundingClientRect().top") == deck_before


def test_a_refusal_does_not_push_the_deck(server, new_context):
    game = new_game(server, "toepen")
    page = new_context(viewport=PHONE).new_page()
    open_table(page, server, game, base=server.lan_base)
    p1, cards = first_play(server, game)
    requests.post(f"{server.base}/games/{game['id']}/events", json={"type": "play", "player": p1, "card": cards[0]},
                  headers={"Authorization": f"Bearer {game['token']}"}, timeout=30)  # another device plays first
    where = centre(page, card_button(page, cards[1]))
    deck_top = page.evaluate("() => document.getElementById('deck').getBoundingClientRect().top")
    page.mouse.click(*where)
    page.get_by_role("alert").filter(has_text="moved on").wait_for()
    assert page.evaluate("() => document.getElementById('deck').getBoundingClientRect().top") == deck_top
