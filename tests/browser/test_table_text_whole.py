"""Text on the table page is never cut off (ui.md, "The table page", "Where the page lives"; issue 25,
"Text cut off"), at a landscape tablet's and a portrait phone's size:

- a Toepen knock's status line names every seat that may fold ("… Ann, Cas and Dee may fold"),
  whole in its room (four seats and eight);
- Fuji Flush's sentence of the last turn is shown whole (after 20, 15, 12, 2, 2 and 3, two cards
  each), never sliced through a line;
- a refusal and the "Undone: …" line leave every seat's name in view;
- three taps waiting on the device are listed whole (nothing scrolled away in their box) without
  covering the deck, and a waiting card's clock is drawn without a font (no emoji needed).

"Whole" is measured: the element's content fits its box (scrollHeight against clientHeight) and the
text's own box (a DOM Range) lies inside the element's.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, TABLET
from tests.browser.table import deck, open_table, settle, tap, version

NAMES = ["Ann", "Bob", "Cas", "Dee", "Eve", "Fay", "Gus", "Hal"]

#: the element `id`: its text, and whether it is cut (more content than its box shows, or text
#: drawn outside the box)
WHOLE = """id => { const e = document.getElementById(id); const b = e.getBoundingClientRect();
  const range = document.createRange(); range.selectNodeContents(e); const t = range.getBoundingClientRect();
  return {text: e.textContent, cut: e.scrollHeight > e.clientHeight + 1 || e.scrollWidth > e.clientWidth + 1
          || t.top < b.top - 1 || t.bottom > b.bottom + 1 || t.left < b.left - 1 || t.right > b.right + 1,
          box: [b.top, b.bottom, b.height], text_box: [t.top, t.bottom], font: getComputedStyle(e).fontSize}; }"""


def whole(page: Any, id_: str) -> dict[str, Any]:
    seen = dict(page.evaluate(WHOLE, id_))
    assert not seen["cut"], seen
    return seen


@pytest.mark.parametrize("seats", [4, 8])
@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_a_knocks_status_line_names_every_seat_that_may_fold(server, new_context, viewport, seats):
    game = server.create(game="toepen", players=NAMES[:seats], dealer="Ann")
    server.post(game, {"type": "deal"})
    server.post(game, {"type": "play", "player": "Bob", "card": "7H"})
    server.post(game, {"type": "knock", "player": "Bob"})
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, game)
    others = [name for name in NAMES[:seats] if name != "Bob"]
    sentence = ", ".join(others[:-1]) + " and " + others[-1] + " may fold"
    expect(page.get_by_role("status")).to_have_text(f"Cas to play — Bob knocked (stake 2): {sentence}")
    whole(page, "turn")


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_fuji_flushs_last_turn_is_read_whole(server, new_context, viewport):
    players = NAMES[:6]
    game = server.create(game="fuji_flush", players=players, options={"hand_size": 2})
    server.post(game, {"type": "deal"})
    for player, card in zip(players, [20, 15, 12, 2, 2, 3], strict=True):
        server.post(game, {"type": "play", "player": player, "card": card})
    turns = server.get(f"/games/{game['id']}/hands/1", game["token"])["turns"]
    last = turns[-1]["explanation"]
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, game)
    expect(page.locator("#hand-result")).to_contain_text(last.rstrip("."))
    seen = whole(page, "hand-result")
    assert len(seen["text"]) > 80, seen  # the long sentence of the issue, three lines on a phone


#: every seat's name: whether the middle of its text is the name itself (nothing laid over it)
NAMES_SEEN = """() => Array.from(document.querySelectorAll('#seats .seat-name')).map(n => {
  const r = n.getBoundingClientRect(); const hit = document.elementFromPoint(r.left + Math.min(r.width / 2, 12), r.top + r.height / 2);
  return [n.textContent, !!hit && (hit === n || n.contains(hit))]; })"""


@pytest.mark.parametrize("seats", [4, 8])
@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_a_refusal_and_the_undone_line_leave_every_seats_name_in_view(server, new_context, viewport, seats):
    game = server.create(game="toepen", players=NAMES[:seats], dealer="Ann")
    server.post(game, {"type": "deal"})
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, game, base=server.lan_base)
    tap(page, "7♣")
    shown = version(page)
    page.locator("#undo").click()
    settle(page, shown + 1)
    expect(page.locator("#changes")).to_have_text("Undone: Bob played 7♣")
    # the seats are looked at from the top of the page, as after the refusal below: a tap low in a
    # phone's deck may have scrolled the seats under the sticky bar, which is not the message covering them
    page.evaluate("() => window.scrollTo(0, 0)")
    assert all(seen for _, seen in page.evaluate(NAMES_SEEN)), page.evaluate(NAMES_SEEN)
    whole(page, "changes")
    server.post(game, {"type": "play", "player": "Bob", "card": "9C"})  # another device: the page does not know
    deck(page, "8♣").click()
    expect(page.get_by_role("alert")).to_contain_text("moved on")
    expect(page.locator("#changes")).to_have_text("")  # one message at a time: the newest
    settle(page)
    page.evaluate("() => window.scrollTo(0, 0)")
    assert all(seen for _, seen in page.evaluate(NAMES_SEEN)), page.evaluate(NAMES_SEEN)
    whole(page, "alert")


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_three_waiting_taps_are_listed_whole_without_covering_the_deck(own_server, new_context, viewport):
    server = own_server
    game = server.create(game="toepen", players=NAMES[:4], dealer="Dee")
    server.post(game, {"type": "deal"})
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, game)
    tap(page, "9♣")
    server.stop()
    for name in ("8♣", "K♣", "7♣"):
        deck(page, name).click()
    expect(page.locator("#table")).to_have_attribute("data-pending", "3")
    page.evaluate("() => window.scrollTo(0, 0)")
    expect(page.locator("#queue-list li")).to_have_count(3)
    listed = page.locator("#queue").evaluate("""q => { const b = q.getBoundingClientRect();
      return {scrolled: q.scrollHeight > q.clientHeight + 1, box: [b.top, b.bottom],
              items: Array.from(q.querySelectorAll('li')).map(li => { const r = li.getBoundingClientRect(); return [r.top, r.bottom]; })}; }""")
    assert not listed["scrolled"], listed  # nothing scrolled away in the box
    assert all(listed["box"][0] <= top and bottom <= listed["box"][1] for top, bottom in listed["items"]), listed
    queue_bottom = page.locator("#queue").evaluate("e => e.getBoundingClientRect().bottom")
    first_card = page.evaluate("() => Math.min(...Array.from(document.querySelectorAll('#deck button[data-card]'))"
                               ".map(b => b.getBoundingClientRect().top))")
    assert queue_bottom <= first_card, (queue_bottom, first_card)  # the deck stays free to tap
    for card in ("8♣", "K♣", "7♣"):  # each waiting tap can be read, and its player changed
        expect(page.locator("#queue-list")).to_contain_text(card)
    expect(page.get_by_role("group", name="Who played 7♣", exact=True).get_by_role("button")).to_have_count(4)
    page.get_by_role("button", name="K♣ by Cas (guessed): change", exact=True).click()
    page.get_by_role("button", name="K♣ by Ann", exact=True).click()
    expect(page.get_by_role("button", name="K♣ by Ann: change", exact=True)).to_be_visible()
    # the clock on a waiting card is drawn, not a character some font may lack
    clock = deck(page, "K♣").evaluate("b => { const s = getComputedStyle(b, '::after'); return [s.content, s.backgroundImage]; }")
    assert all(ord(c) < 128 for c in clock[0]) and "svg" in clock[1], clock


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_a_long_name_is_cut_in_its_seat_and_held_whole_in_its_title(server, new_context, viewport):
    long_names = [chr(ord("A") + i) * 30 + str(i) for i in range(8)]
    game = server.create(game="toepen", players=long_names)
    server.post(game, {"type": "deal"})
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, game)
    seen = page.evaluate("""() => Array.from(document.querySelectorAll('#seats .seat-name')).map(n => {
      const seat = n.closest('.seat').getBoundingClientRect(); const r = n.getBoundingClientRect();
      return [n.title, n.textContent, r.right <= seat.right + 1]; })""")
    assert [(title, text) for title, text, _ in seen] == [(name, name) for name in long_names]
    assert all(inside for _, _, inside in seen), seen  # cut with "…" inside its tile
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
