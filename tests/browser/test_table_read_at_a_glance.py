"""The table page read at a glance by a scorekeeper at a noisy table (ui.md, "The table page", "Where
the page lives"; issue 25), found by looking at the screenshots at both sizes:

- a message laid over the board (a refusal, "Undone: …") covers whole lines of the board, never
  half a line (the facts cut through their middle);
- the Undo button's two lines never break a card's name ("Undo: Anja played Yellow / 2");
- a Reveal that is not due (a dispute's) is drawn quieter than the actions of play (Knock), but
  never like a disabled button: its word in the same ink as Knock's, on a tinted face, its border
  solid (a grey word read as "not available" at a glance); once due (Fool!'s reveals at a round's
  end) it is the primary one;
- Fuji Flush's seat facts (cards held, pushed through) are read at their size on a tablet too, in
  two lines, not set smaller to share one;
- only a message takes taps: "Sending: …" and the room around a message let a tap through to what
  is under them;
- on a phone a seat's actions keep their columns when one of them is no longer offered (Laundry
  after the first play): Knock and Reveal stay where they were.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, TABLET
from tests.browser.latency import Latency
from tests.browser.pages_checks import keep_token
from tests.browser.recorded import fool_game
from tests.browser.table import deck, open_table, settle, tap, version
from tests.browser.test_table_deck_readable import contrast

FOUR = ["Ann", "Bob", "Cas", "Dee"]

#: each line of the board (facts, tricks, groups, centre, result) against the message shown
#: (`id`): the part of the line's height under the message (0: clear, 1: all of it)
UNDER = """id => { const m = document.getElementById(id).getBoundingClientRect();
  return Array.from(document.querySelectorAll('#board .facts, #board .trick, #board .group, #board .centre, #hand-result'))
    .filter(e => e.offsetParent !== null && getComputedStyle(e).visibility !== 'hidden' && e.textContent.trim())
    .map(e => { const t = document.createRange(); t.selectNodeContents(e); const r = t.getBoundingClientRect();
                const x = Math.max(0, Math.min(r.right, m.right) - Math.max(r.left, m.left));
                const y = Math.max(0, Math.min(r.bottom, m.bottom) - Math.max(r.top, m.top));
                return [e.textContent.trim().slice(0, 40), x > 0 ? y / r.height : 0]; }); }"""


def whole_lines(page: Any, id_: str) -> None:
    lines = page.evaluate(UNDER, id_)
    assert lines, "no line on the board"
    for text, share in lines:
        assert share < 0.02 or share > 0.98, (text, round(share, 2), lines)  # clear of it, or all under it


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_a_message_over_the_board_covers_whole_lines(server, new_context, viewport):
    game = server.create(game="toepen", players=FOUR, dealer="Ann")
    server.post(game, {"type": "deal"})
    server.post(game, {"type": "play", "player": "Bob", "card": "7H"})
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, game, base=server.lan_base)
    deck(page, "7♥").click(force=True)  # greyed out: the service says why
    expect(page.get_by_role("alert")).to_contain_text("Bob played it")
    whole_lines(page, "alert")
    page.locator("#alert").click()  # put away
    expect(page.locator("#alert")).to_have_text("")
    tap(page, "8♥")
    shown = version(page)
    page.locator("#undo").click()
    settle(page, shown + 1)
    expect(page.locator("#changes")).to_have_text("Undone: Cas played 8♥")
    whole_lines(page, "changes")


#: the client rectangles of each card name of more than one word in the Undo button's label
BROKEN = """() => { const label = document.querySelector('#undo .label'); const text = label.textContent;
  const names = JSON.parse(document.getElementById('deck-data').textContent);
  const lines = r => new Set(Array.from(r.getClientRects()).filter(c => c.width > 0).map(c => Math.round(c.top))).size;
  const whole = document.createRange(); whole.selectNodeContents(label);
  const found = [];
  for (const name of Object.values(names).filter(n => n.includes(' '))) {
    const at = text.indexOf(name);
    if (at < 0 || /[0-9]/.test(text.charAt(at + name.length))) continue;
    const walker = document.createTreeWalker(label, NodeFilter.SHOW_TEXT); let node, seen = 0, range = document.createRange();
    let started = false;
    while ((node = walker.nextNode())) {
      const end = seen + node.length;
      if (!started && at < end) { range.setStart(node, at - seen); started = true; }
      if (started && at + name.length <= end) { range.setEnd(node, at + name.length - seen); break; }
      seen = end;
    }
    found.push([name, lines(range)]);
  }
  return {text: text, lines: lines(whole), names: found}; }"""


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_undo_never_breaks_a_cards_name(server, new_context, viewport):
    recorded = fool_game(server.base)  # its last play: Anja's Yellow 2
    context = new_context(viewport=viewport)
    keep_token(context, recorded.id, recorded.token)
    page = context.new_page()
    open_table(page, server, {"id": recorded.id, "token": recorded.token})
    expect(page.locator("#undo")).to_have_text("Undo: Anja played Yellow 2")
    seen = page.evaluate(BROKEN)
    assert seen["lines"] == 2, seen  # the label wraps: the case where a name could be broken
    assert seen["names"] == [["Yellow 2", 1]], seen


#: a seat button's word colour and border colour, and the seat's background behind it
LOOK = """b => { const s = getComputedStyle(b); const rgb = c => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
  return {text: rgb(s.color), border: rgb(s.borderTopColor), back: rgb(s.backgroundColor),
          width: s.borderTopWidth, style: s.borderTopStyle, opacity: s.opacity,
          primary: b.classList.contains('primary')}; }"""


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_a_reveal_not_due_is_quieter_than_a_knock(server, new_context, viewport):
    game = server.create(game="toepen", players=FOUR, dealer="Ann")
    server.post(game, {"type": "deal"})
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, game)
    knock = page.get_by_role("button", name="Knock: Cas", exact=True).evaluate(LOOK)
    reveal = page.get_by_role("button", name="Reveal: Cas", exact=True).evaluate(LOOK)
    assert reveal["width"] == knock["width"]  # the same size: only the look differs
    assert contrast(reveal["border"], reveal["back"]) < contrast(knock["border"], knock["back"]) - 2, (reveal, knock)
    assert contrast(reveal["border"], reveal["back"]) >= 3, reveal  # still seen as a button (WCAG 1.4.11)
    assert contrast(reveal["text"], reveal["back"]) >= 4.5, reveal  # its word at AA
    # available, so not drawn as a disabled button is (faded, dashed, a grey word): its word in the
    # ink of Knock's, its border solid, its face tinted apart from a disabled button's white
    assert reveal["text"] == knock["text"], (reveal, knock)
    assert reveal["style"] == "solid" and reveal["opacity"] == "1", reveal
    assert reveal["back"] != knock["back"], (reveal, knock)


def test_a_fool_reveal_once_due_is_the_primary_one(server, new_context):
    game = server.create(game="fool", players=FOUR, dealer="Ann", options={"hand_size": 2})
    server.post(game, {"type": "deal"})
    page = new_context(viewport=TABLET).new_page()
    open_table(page, server, game)
    reveals = page.locator("#seats button.action-reveal")
    expect(reveals).to_have_count(4)
    assert not any(reveals.nth(i).evaluate(LOOK)["primary"] for i in range(4))  # mid-round: a dispute's
    # the round played to its end (as test_table_fool.py plays it): Ann, the Fool, must reveal
    cards = {"Ann": ["G2"], "Bob": ["G11", "R2"], "Cas": ["G15", "R6"], "Dee": ["G19", "R11"]}
    for _ in range(7):
        listed = server.get(f"/games/{game['id']}/actions", game["token"])["actions"]
        player = next(a["player"] for a in listed if a["type"] == "play")
        server.post(game, {"type": "play", "player": player, "card": cards[player].pop(0)})
    page.reload()
    settle(page)
    expect(page.get_by_role("status")).to_have_text("Round over: reveal Ann's cards")
    due = page.get_by_role("button", name="Reveal: Ann", exact=True).evaluate(LOOK)
    assert due["primary"], due


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_fuji_flushs_seat_facts_are_read_at_their_size(server, new_context, viewport):
    players = ["Ann", "Bob", "Cas", "Dee", "Eve", "Fay", "Gus", "Hal"]
    game = server.create(game="fuji_flush", players=players)
    server.post(game, {"type": "deal"})
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, game)
    facts = page.evaluate("""() => Array.from(document.querySelectorAll('#seats .seat-info')).map(e => {
      const f = Array.from(e.querySelectorAll('.fact')).map(x => Math.round(x.getBoundingClientRect().top));
      return {text: e.textContent, size: parseFloat(getComputedStyle(e).fontSize), lines: new Set(f).size,
              cut: e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1}; })""")
    assert len(facts) == 8
    for seen in facts:
        assert not seen["cut"] and seen["lines"] == 2, seen  # cards held, then pushed through
        if viewport is TABLET:
            assert seen["size"] >= 14, seen  # never set smaller on a tablet


#: what a tap at (x, y) reaches: the element's id (or its first class), and whether it lies in #notices
REACHES = """([x, y]) => { const e = document.elementFromPoint(x, y);
  return e ? [e.id || e.className, !!e.closest('#notices')] : null; }"""


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_only_a_message_takes_taps(server, new_context, viewport):
    game = server.create(game="toepen", players=FOUR, dealer="Ann")
    server.post(game, {"type": "deal"})
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, game, base=server.lan_base)
    latency = Latency(page, 1500)
    shown = version(page)
    deck(page, "7♣").click()
    latency.wait_until("document.getElementById('sending').classList.contains('shown')")
    box = page.locator("#sending").bounding_box()
    assert box is not None and box["height"] > 0
    reached = page.evaluate(REACHES, [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2])
    assert reached is not None and not reached[1], reached  # "Sending: …" lets the tap through
    latency.settled(shown + 1)
    deck(page, "7♣").click(force=True)  # played already, greyed out: a refusal over the board
    latency.wait_until("document.getElementById('alert').textContent !== ''")  # the dry run is held too
    alert = page.locator("#alert").bounding_box()
    room = page.locator("#notices").bounding_box()
    assert alert is not None and room is not None
    assert page.evaluate(REACHES, [alert["x"] + alert["width"] / 2, alert["y"] + alert["height"] / 2])[1]
    above = alert["y"] - 2  # the notices' own room above the message (its top padding)
    assert above > room["y"], (alert, room)
    reached = page.evaluate(REACHES, [alert["x"] + alert["width"] / 2, above])
    assert reached is not None and not reached[1], reached


@pytest.mark.parametrize("seats", [4, 8])
def test_a_phones_seat_actions_stay_when_one_is_no_longer_offered(server, new_context, seats):
    players = ["Ann", "Bob", "Cas", "Dee", "Eve", "Fay", "Gus", "Hal"][:seats]
    game = server.create(game="toepen", players=players, dealer="Ann")
    server.post(game, {"type": "deal"})
    page = new_context(viewport=PHONE).new_page()
    open_table(page, server, game)
    where = "b => { const r = b.getBoundingClientRect(); return [r.left, r.top + window.scrollY, r.width, r.height]; }"
    laundry = page.get_by_role("button", name="Laundry: Dee", exact=True)
    if seats == 8:  # no stock with eight seats: no place kept for Laundry at all
        expect(laundry).to_have_count(0)
    else:
        expect(laundry).to_be_visible()
    before = {name: page.get_by_role("button", name=name, exact=True).evaluate(where)
              for name in ("Knock: Dee", "Reveal: Dee", "Knock: Cas", "Reveal: Cas")}
    tap(page, "7♣")  # Bob leads: laundry is over
    expect(page.get_by_role("button", name="Laundry: Dee", exact=True)).to_have_count(0)
    for name, place in before.items():
        assert page.get_by_role("button", name=name, exact=True).evaluate(where) == place, name


#: the opacity a button is drawn with: its own times every box's around it
SEEN_OPACITY = """b => { let o = 1; for (let e = b; e; e = e.parentElement) o *= parseFloat(getComputedStyle(e).opacity); return o; }"""


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_a_seat_sitting_out_keeps_its_reveal_looking_available(server, new_context, viewport):
    """Fool!: Ilja sits out trick 4, so his seat is greyed; his Reveal (a dispute's) is still
    offered and must not look disabled: the seat's greying faded the button with it (seen in
    the screenshots, issue 25)."""
    recorded = fool_game(server.base)
    context = new_context(viewport=viewport)
    keep_token(context, recorded.id, recorded.token)
    page = context.new_page()
    open_table(page, server, {"id": recorded.id, "token": recorded.token})
    expect(page.locator("#seats .seat.sitting-out")).to_have_count(1)
    out = page.get_by_role("button", name="Reveal: Ilja", exact=True)
    expect(out).to_be_enabled()
    assert out.evaluate(SEEN_OPACITY) == 1
    assert out.evaluate(LOOK) == page.get_by_role("button", name="Reveal: Anja", exact=True).evaluate(LOOK)
