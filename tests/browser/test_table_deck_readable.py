"""The deck read and tapped on a phone (ui.md, "Where the page lives": text readable at arm's
length, Fool!'s colours with their word; issue 25):

- every Fool! colour word fits inside its card (a margin on both sides: "Yellow" no longer touches
  the edges) and reads at WCAG AA contrast (4.5:1) against the card, computed from the page's own
  computed styles (colour, background, the opacity of the card and its parents over the page),
  for cards that can be played and for greyed-out ones alike, at both sizes;
- a deck row scrolled into view (from below or from above, as a browser does for a focus or a tap)
  is never left under the sticky status bar: the middle of each of its cards is the card itself.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import PHONE, TABLET
from tests.browser.pages_checks import keep_token
from tests.browser.recorded import fool_game
from tests.browser.table import open_table

#: for each Fool! card of the deck: its name, whether it can be played now, the room left on each
#: side of its colour word, and the word's colour and the card's background as the eye sees them
#: (each blended over what is under it by the opacities of the card and its parents)
WORDS = """() => {
  const rgba = s => { const m = s.match(/[\\d.]+/g).map(Number); return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
  const over = (top, under) => top.slice(0, 3).map((c, i) => c * top[3] + under[i] * (1 - top[3]));
  const opacity = e => { let o = 1; for (let n = e; n; n = n.parentElement) o *= Number(getComputedStyle(n).opacity); return o; };
  const page = rgba(getComputedStyle(document.body).backgroundColor);
  return Array.from(document.querySelectorAll('#deck button[data-card]')).filter(b => b.offsetParent !== null)
    .filter(b => b.dataset.card !== '1').map(b => {
      const word = b.querySelector('.cw'); const r = b.getBoundingClientRect();
      const range = document.createRange(); range.selectNodeContents(word); const w = range.getBoundingClientRect();  // the text's own box
      const style = getComputedStyle(b); const border = parseFloat(style.borderLeftWidth);
      const alpha = opacity(b);
      const card = over([...rgba(style.backgroundColor).slice(0, 3), rgba(style.backgroundColor)[3] * alpha], page);
      const ink = rgba(getComputedStyle(word).color);
      const text = over([...ink.slice(0, 3), ink[3] * alpha], card);
      return {name: b.textContent.replace(/\\s+/g, ' ').trim(), playable: b.getAttribute('aria-disabled') !== 'true',
              left: w.left - (r.left + border), right: (r.right - border) - w.right, text: text, card: card,
              image: style.backgroundImage}; }); }"""


def luminance(rgb: list[float]) -> float:
    def channel(c: float) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: list[float], b: list[float]) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def opened(server: Any, new_context: Any, viewport: dict[str, int]) -> Any:
    game = fool_game(server.base)  # three tricks and a bit: cards played are greyed out in the deck
    context = new_context(viewport=viewport)
    keep_token(context, game.id, game.token)
    page = context.new_page()
    open_table(page, server, {"id": game.id, "token": game.token})
    return page


@pytest.mark.parametrize("viewport", [PHONE, TABLET], ids=["390x844", "1024x768"])
def test_fool_colour_words_fit_their_cards_and_read_at_aa_contrast(server, new_context, viewport):
    page = opened(server, new_context, viewport)
    cards = page.evaluate(WORDS)
    assert len(cards) == 82  # every coloured card (the wild 1 has its own pattern)
    assert {c["playable"] for c in cards} == {True, False}  # both looks are checked
    for card in cards:
        assert card["left"] >= 2 and card["right"] >= 2, card  # the word inside its card, not touching an edge
        assert card["image"] == "none", card  # a plain background, so the contrast below is the one seen
        ratio = contrast(card["text"], card["card"])
        assert ratio >= 4.5, (card["name"], card["playable"], round(ratio, 2), card)


#: is the card under the sticky bar? the bar's bottom, the card's box, and what the middle of the card hits
COVERED = """b => { const r = b.getBoundingClientRect(); const bar = document.querySelector('.topbar').getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return {barBottom: bar.bottom, top: r.top, bottom: r.bottom, height: window.innerHeight,
          mine: !!hit && (hit === b || b.contains(hit))}; }"""


def test_a_deck_row_scrolled_to_is_never_under_the_sticky_bar(server, new_context):
    page = opened(server, new_context, PHONE)
    rows = page.locator("#deck .deck-row")
    assert rows.count() == 5
    for direction in ("up", "down"):
        for n in range(rows.count()):
            page.evaluate("d => window.scrollTo(0, d === 'up' ? document.documentElement.scrollHeight : 0)", direction)
            card = rows.nth(n).locator("button[data-card]").last
            card.scroll_into_view_if_needed()
            seen = card.evaluate(COVERED)
            assert seen["top"] >= seen["barBottom"] and seen["bottom"] <= seen["height"], (direction, n, seen)
            assert seen["mine"], (direction, n, seen)
