"""No line of the table page is wider than the screen (ui.md, "Where the page lives": landscape
tablet and portrait phone without sideways scrolling; issue 25).

A scorekeeper's report: on a 390×844 phone with four seats the last trick's line ran past the
right edge, its fourth card out of view (faded out under a mask); with eight seats the current
trick scrolled its first plays and its "Trick 2:" out of view. Every game, at its largest seat
count (and Toepen at four, the report's), at both sizes, after a whole trick and most of the next
(a turn of every seat in Fuji Flush and Stop the Bus): every piece of text of the band (the board,
the tricks, the result, the action row), and of the whole page, lies whole on the screen, never cut by the edge of a box it overflows, never faded out, and the page does not
scroll sideways; and the deck is where it was after the deal. The cases that still fail are listed
in ``LEFT`` (strict xfail: each fix must take its case out).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import PHONE, TABLET
from tests.browser.table import open_table

NAMES = ["Annabel", "Bettina", "Cas", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jon"]
#: (game, seats): each game at its largest seat count, and Toepen at four (the report's)
CASES = [("toepen", 4), ("toepen", 8), ("fool", 8), ("fuji_flush", 8), ("stop_the_bus", 10)]

#: Every visible piece of text that is not whole on the screen: past the viewport's sides, cut
#: by a box that clips it (overflow hidden, auto or clip), cut with an ellipsis (its box holds more
#: than it shows: a tablet's "Annab…" beside two badges, missed while only the text's own box was
#: measured), or faded by a mask.
#: Text meant for screen readers alone (a box of 1 px) is skipped.
CUT = """where => {
  const W = document.documentElement.clientWidth, out = [];
  const walker = document.createTreeWalker(document.querySelector(where), NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!n.textContent.trim() || !el || el.closest('[hidden], script, style, title')) continue;
    if (getComputedStyle(el).visibility === 'hidden') continue;
    let reader = false, left = 0, right = W, masked = null, ellipsis = null;
    for (let a = el; a && a !== document.documentElement; a = a.parentElement) {
      const s = getComputedStyle(a), r = a.getBoundingClientRect();
      if ((r.width <= 1 || r.height <= 1) && (s.overflow !== 'visible' || s.clip !== 'auto')) { reader = true; break; }
      if (s.overflowX !== 'visible') { left = Math.max(left, r.left); right = Math.min(right, r.right); }
      // cut with "…": a box that ends its text with an ellipsis and holds more than it shows
      // (measured to a fraction of a pixel: scrollWidth is rounded, and 0.3 px too many shows "…")
      if (s.textOverflow === 'ellipsis' && s.overflowX !== 'visible' && !ellipsis)
        ellipsis = [a, r.right - parseFloat(s.borderRightWidth) - parseFloat(s.paddingRight)];
      const mask = s.maskImage || s.webkitMaskImage;
      if (mask && mask !== 'none' && !masked) masked = a;
    }
    if (reader) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    const text = n.textContent.trim().slice(0, 40);
    for (const r of range.getClientRects()) {
      if (!r.width) continue;
      if (ellipsis && r.right > ellipsis[1] + 0.05) {
        out.push(`"${text}" cut with an ellipsis (${ellipsis[0].className || ellipsis[0].tagName})`);
        break;
      }
      if (r.left < left - 1 || r.right > right + 1) {
        out.push(`"${text}" at ${Math.round(r.left)}..${Math.round(r.right)}, seen ${Math.round(left)}..${Math.round(right)} (${el.className || el.tagName})`);
        break;
      }
      if (masked) { out.push(`"${text}" faded by a mask (${masked.className})`); break; }
    }
  }
  return {cut: out, scroll: document.documentElement.scrollWidth, width: W};
}"""

DECK_TOP = "() => document.getElementById('deck').getBoundingClientRect().top + window.scrollY"


def _move(server: Any, game: dict[str, Any]) -> None:
    """One move of the player ``actions`` names: a card (the first possible), or a swap in Stop
    the Bus (the first centre card for the first possible one)."""
    listed = server.get(f"/games/{game['id']}/actions", game["token"])["actions"]
    for entry in listed:
        if entry["type"] == "play":
            card = (entry.get("cards") or entry.get("possible"))[0]
            server.post(game, {"type": "play", "player": entry["player"], "card": card})
            return
        if entry["type"] == "swap":
            take = (entry.get("take") or server.get(f"/games/{game['id']}")["state"]["centre"])[0]
            give = (entry.get("give") or entry.get("cards") or entry.get("possible"))[0]
            server.post(game, {"type": "swap", "player": entry["player"], "take": take, "give": give})
            return
    raise AssertionError(f"no play or swap offered: {listed}")


#: Cases that still fail on main (strict: a fix that makes one pass must take it out of here).
#: Seen: the last trick's line faded out at a phone's right edge (Toepen, four seats: its fourth
#: card; wrapping it in room kept from the deal put the deck's clubs below a phone's screen, so a
#: tap there scrolled the page). Fixed: the deck's 1.5 px move on a tablet (four seats: the last
#: trick's cards were higher than the facts' line), Stop the Bus's "3 cards" beside known cards on a
#: tablet (the facts take a second line of the seat's kept line), the last trick cut at a tablet's
#: edge with eight seats (now in a line of its own under the facts, kept from the deal; Fool!'s: its
#: winning card and Fools); on a phone with eight seats, the last trick faded out, the current
#: trick's first plays and "Trick 2:" scrolled out of view, Fool!'s facts 504 px wide, Fuji Flush's
#: groups growing a line and moving the deck 21 px: the facts and tricks now wrap, in room kept
#: from the deal (board.js, keepTrickRoom), the groups in two lines' room, set smaller when longer;
#: a seat's name cut with "…" beside its badges (phone; a tablet's "Annab…"): the badges on the
#: tile's top edge; the score sheet's columns scrolled sideways (phone, many seats) and Fuji Flush's
#: caption past the edge: each row a grid of named cells.
LEFT = {("toepen", 4, "390x844", "tricks"), ("toepen", 4, "390x844", "page")}


@pytest.mark.parametrize("where", ["#band", "body"], ids=["tricks", "page"])
@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
@pytest.mark.parametrize(("game", "seats"), CASES, ids=[f"{g}-{n}" for g, n in CASES])
def test_every_line_of_the_table_page_fits_the_screen(server, new_context, game, seats, viewport, where, request):
    size = f"{viewport['width']}x{viewport['height']}"
    if (game, seats, size, "tricks" if where == "#band" else "page") in LEFT:
        request.applymarker(pytest.mark.xfail(strict=True, reason="a line cut or the deck moved: left (see LEFT)"))
    first = {"first_player" if game == "fuji_flush" else "dealer": NAMES[0]}
    created = server.create(game=game, players=NAMES[:seats], **first)
    server.post(created, {"type": "deal", "centre": ["QS", "4H", "9D"]} if game == "stop_the_bus" else {"type": "deal"})
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, created)
    dealt_at = page.evaluate(DECK_TOP) if game != "stop_the_bus" else None
    for _ in range(2 * seats - 1):  # a whole trick and all but one card of the next
        _move(server, created)
    page.reload()
    open_table(page, server, created)
    page.wait_for_selector("#sheet-body .score-sheet", state="attached")  # the score sheet read, as measured
    seen = page.evaluate(CUT, where)
    assert seen["cut"] == [], "\n".join(seen["cut"])
    assert seen["scroll"] <= seen["width"], seen
    if dealt_at is not None:  # the tricks' room was kept from the deal: the deck has not moved
        assert abs(page.evaluate(DECK_TOP) - dealt_at) < 1, (page.evaluate(DECK_TOP), dealt_at)
