"""Typography of the audits in a real browser: no space shows between an event link or a card and
the bracket or comma after it ("(hand 1, trick 2)", "Cas 10♦, Dee 9♦", not "( hand 1, trick 2 )",
"Cas 10♦ , Dee 9♦"), at both of ui.md's sizes; the trick audit's badges read "led" and "won the
trick"."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser import recorded
from tests.browser.conftest import PHONE, TABLET

#: For each event link and card in running text: the gap in CSS pixels between its glyphs and the
#: character just before / after it (text nodes next to it only).
GAPS = """(selector) => {
  const rect = (node, start, end) => { const r = document.createRange();
    if (start === undefined) r.selectNodeContents(node); else { r.setStart(node, start); r.setEnd(node, end); }
    return r.getBoundingClientRect(); };
  const out = [];
  for (const el of document.querySelectorAll(selector)) {
    const inner = rect(el);
    const next = el.nextSibling, prev = el.previousSibling;
    if (next && next.nodeType === 3 && /^[),.;:]/.test(next.data))
      out.push({what: el.textContent + next.data[0], gap: rect(next, 0, 1).left - inner.right});
    if (prev && prev.nodeType === 3 && /[(]$/.test(prev.data))
      out.push({what: prev.data.slice(-1) + el.textContent, gap: inner.left - rect(prev, prev.data.length - 1, prev.data.length).right});
  }
  return out;
}"""


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_no_space_before_brackets_and_commas_in_the_audits(server: Any, new_context: Any, viewport: Any) -> None:
    game = recorded.toepen_table_game(server.base)
    page = new_context(viewport=viewport).new_page()
    page.goto(server.url(f"/watch/{game.id}/hands/1"))
    gaps = page.evaluate(GAPS, "main a.chip-link, main .audit-item .card")
    assert any(g["what"].endswith(")") for g in gaps) and any(g["what"].endswith(",") for g in gaps), gaps
    assert all(-1.5 <= g["gap"] <= 2.5 for g in gaps), gaps
    page.goto(server.url(f"/watch/{game.id}/hands/1/tricks/1"))
    row = page.locator(".plays-table tr.winner th")
    assert row.locator(".tag").all_inner_texts() in (["won the trick"], ["led", "won the trick"])
    assert page.locator(".plays-table tbody tr").first.locator(".tag").first.inner_text() == "led"
    page.goto(server.url(f"/watch/{game.id}/hands/1/tricks/2"))  # Bob's fold: "(in the replay)."
    gaps = page.evaluate(GAPS, "main a.chip-link")
    assert len(gaps) >= 2 and all(-1.5 <= g["gap"] <= 2.5 for g in gaps), gaps
