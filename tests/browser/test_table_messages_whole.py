"""Messages on the table page read whole (ui.md, "The table page": whose turn is the first thing on
the screen; refusals appear in space kept for them or over the board, never pushing; Undo and Redo
can each be read whole on a phone too).

A refusal, a "Recorded on another device" note and a fix's refusal are laid over the board just
under the status line: each is shown whole (nothing cut, nothing to scroll), the ``role="status"``
line stays uncovered, no control moves, and a tap on the message puts it away and records nothing.
Undo and Redo wrap their label in a room of fixed size (two lines, three in a phone's narrower
room) instead of cutting it.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, TABLET
from tests.browser.table import open_table, settle, tap, version

FOUR = ["Annabel", "Bartholomew", "Cassandra", "Desdemona"]

BOX = "e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }"

#: where every control above the deck and the deck's first cards are (page coordinates)
CONTROLS = """() => Array.from(document.querySelectorAll(
    '#toolbar button, #seats .seat, #seats button, #deck button[data-card]')).slice(0, 40).map(b => {
  const r = b.getBoundingClientRect(); return [b.id || b.textContent, r.left, r.top + window.scrollY, r.width, r.height]; })"""

#: the message `id`: whole (nothing cut off or scrolled away), on screen, under the status line,
#: and the status line's own middle not covered by anything
WHOLE = """id => {
  const m = document.getElementById(id); const box = document.getElementById('notices');
  const r = m.getBoundingClientRect(); const s = document.getElementById('turn').getBoundingClientRect();
  const hit = document.elementFromPoint(s.left + 10, (s.top + s.bottom) / 2);
  return {text: m.textContent, cut: m.scrollHeight > m.clientHeight + 1 || box.scrollHeight > box.clientHeight + 1,
          top: r.top, bottom: r.bottom, left: r.left, right: r.right, statusBottom: s.bottom,
          statusSeen: !!hit && (hit.id === 'turn' || !!hit.closest('#turn')), height: window.innerHeight,
          width: window.innerWidth}; }"""


TOOLBAR = """() => Array.from(document.querySelectorAll('#toolbar button')).map(b => {
  const r = b.getBoundingClientRect(); return [b.id, r.left, r.top, r.width, r.height]; })"""


def whole(page: Any, id_: str) -> dict[str, Any]:
    seen = dict(page.evaluate(WHOLE, id_))
    assert not seen["cut"], seen
    assert seen["top"] >= seen["statusBottom"] - 1 and seen["bottom"] <= seen["height"], seen
    assert seen["left"] >= 0 and seen["right"] <= seen["width"], seen
    assert seen["statusSeen"], seen  # the turn line is not covered
    return seen


def open_fix(page: Any) -> None:
    page.get_by_role("button", name="Menu", exact=True).click()
    page.get_by_role("button", name="Fix an entry", exact=True).click()


@pytest.mark.parametrize("viewport", [PHONE, TABLET], ids=["390x844", "1024x768"])
def test_a_long_refusal_is_read_whole_under_the_status_line_and_moves_nothing(server, new_context, viewport):
    game = server.create(game="toepen", players=FOUR, dealer="Desdemona")
    server.post(game, {"type": "deal"})
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, game, base=server.lan_base)
    tap(page, "7♣")
    tap(page, "8♣")
    tap(page, "9♣")
    page.evaluate("() => window.scrollTo(0, 0)")
    places = page.evaluate(CONTROLS)
    shown = version(page)
    # a fix that a later entry no longer fits: the service's longest kind of sentence
    open_fix(page)
    page.locator("#fix-list button.fix-entry").nth(2).click()  # event 3, the lead
    page.locator("#fix .fixing").get_by_role("button", name="8♣", exact=True).click()
    expect(page.get_by_role("alert")).to_have_text(re.compile(r"no longer fits: .+"))
    page.locator("#fix").get_by_role("button", name="Close", exact=True).click()
    page.evaluate("() => window.scrollTo(0, 0)")
    seen = whole(page, "alert")
    assert len(seen["text"]) > 60, seen
    assert page.evaluate(CONTROLS) == places  # nothing moved
    # a tap on the message puts it away and records nothing (it is not passed to a card under it)
    page.locator("#alert").click()
    expect(page.locator("#alert")).to_have_text("")
    assert version(page) == shown
    assert server.get(f"/games/{game['id']}")["version"] == shown


@pytest.mark.parametrize("viewport", [PHONE, TABLET], ids=["390x844", "1024x768"])
def test_moves_recorded_on_another_device_are_read_whole_with_the_turn_line_in_view(server, new_context, viewport):
    game = server.create(game="toepen", players=FOUR, dealer="Desdemona")
    server.post(game, {"type": "deal"})
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, game, base=server.lan_base)
    toolbar = page.evaluate(TOOLBAR)
    for card, player in (("7C", "Annabel"), ("8C", "Bartholomew"), ("9C", "Cassandra")):
        server.post(game, {"type": "play", "player": player, "card": card})
    expect(page.locator("#changes")).to_have_text(re.compile(r"^Recorded on another device: .*Cassandra"), timeout=30_000)
    settle(page)
    seen = whole(page, "changes")
    assert "Annabel" in seen["text"] and "Bartholomew" in seen["text"]
    expect(page.get_by_role("status")).to_contain_text("Desdemona")
    assert page.evaluate(TOOLBAR) == toolbar  # Undo, Redo's room and Menu never moved
    page.locator("#changes").click()
    expect(page.locator("#changes")).to_have_text("")


#: each of Undo and Redo: its label cut off (more text than its room shows) and its box
LABELS = """() => ['undo', 'redo'].map(id => { const b = document.getElementById(id);
  const l = b.querySelector('.label') || b; const r = b.getBoundingClientRect();
  return [id, b.hidden, l.scrollHeight > l.clientHeight + 1 || l.scrollWidth > l.clientWidth + 1 ||
          b.scrollWidth > b.clientWidth + 1, [r.left, r.top, r.width, r.height]]; })"""


@pytest.mark.parametrize("viewport", [PHONE, TABLET], ids=["390x844", "1024x768"])
def test_undo_and_redo_labels_are_read_whole_in_a_room_that_does_not_move(server, new_context, viewport):
    game = server.create(game="toepen", players=FOUR, dealer="Desdemona")
    server.post(game, {"type": "deal"})
    server.post(game, {"type": "play", "player": "Annabel", "card": "10C"})
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, game, base=server.lan_base)
    tap(page, "8♣")
    first = {id_: (hidden, cut, box) for id_, hidden, cut, box in page.evaluate(LABELS)}
    assert not first["undo"][1], first  # "Undo: Bartholomew played 8♣" whole
    shown = version(page)
    page.locator("#undo").click()
    settle(page, shown + 1)
    second = {id_: (hidden, cut, box) for id_, hidden, cut, box in page.evaluate(LABELS)}
    assert not second["redo"][0] and not second["redo"][1], second  # "Redo: Bartholomew played 8♣" whole
    assert not second["undo"][1], second  # "Undo: Annabel led 10♣" whole
    assert first["undo"][2] == second["undo"][2]  # Undo in the same place and size
    assert page.locator("#undo").evaluate("b => getComputedStyle(b).textOverflow") != "ellipsis"
