"""Long unbroken names (40 characters, eight players) and a 200-character ruling reason at 1024×768
and 390×844: no sideways scrolling on the table page, home and new game; Undo and Redo stay small
(their long labels are cut with an ellipsis, the accessible name stays whole); tap targets >= 44×44."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, TABLET
from tests.browser.table import open_table, settle

NAMES = [chr(ord("A") + i) * 39 + str(i) for i in range(8)]
REASON = "R" * 200

# A radio button or checkbox is tapped through its label, which is the target measured.
SMALL_TARGETS = """() => [...document.querySelectorAll('button, a, input, select, [role=button]')]
  .map(e => (e.type === 'radio' || e.type === 'checkbox') && e.labels && e.labels.length ? e.labels[0] : e)
  .filter(e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0
                 && getComputedStyle(e).visibility !== 'hidden' && (r.width < 44 || r.height < 44); })
    .map(e => e.tagName + ' ' + (e.type || '') + ' ' + (e.getAttribute('aria-label') || e.textContent).slice(0, 30))"""


def no_sideways_scrolling(page, viewport) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    wide = page.evaluate(f"""() => [...document.querySelectorAll('body *')]
      .filter(e => e.getBoundingClientRect().right > {viewport['width']} + 1)
      .slice(0, 5).map(e => e.tagName + '.' + e.className)""")
    assert width <= viewport["width"], (width, wide)
    assert page.evaluate(SMALL_TARGETS) == []


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["tablet", "phone"])
def test_long_names_and_reasons_do_not_overflow(server, new_context, viewport, tmp_path):
    game = server.create(game="toepen", players=NAMES)
    server.post(game, {"type": "deal"})
    server.post(game, {"type": "play", "player": NAMES[1], "card": "7H"})
    server.post(game, {"type": "adjust", "player": NAMES[3], "amount": 1, "reason": REASON})
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, game)

    undo = page.get_by_role("button", name=re.compile("^Undo: .*" + REASON))
    expect(undo).to_be_visible()
    assert undo.bounding_box()["height"] < 100
    assert undo.bounding_box()["width"] <= viewport["width"]
    no_sideways_scrolling(page, viewport)
    page.screenshot(path=str(tmp_path / f"long-undo-{viewport['width']}.png"))

    undo.click()
    settle(page, 5)
    redo = page.get_by_role("button", name=re.compile("^Redo: .*" + REASON))
    expect(redo).to_be_visible()
    assert redo.bounding_box()["height"] < 100
    undo = page.get_by_role("button", name=re.compile("^Undo: "))
    assert undo.bounding_box()["height"] < 100
    expect(page.locator(".play", has_text=NAMES[1])).to_be_visible()
    no_sideways_scrolling(page, viewport)
    page.screenshot(path=str(tmp_path / f"long-redo-{viewport['width']}.png"))

    page.goto(server.url("/"))
    expect(page.get_by_text(NAMES[0], exact=False).first).to_be_visible()
    no_sideways_scrolling(page, viewport)

    page.goto(server.url("/new"))
    page.get_by_role("button", name="Add seat", exact=True).click()
    for i in range(4):
        page.get_by_label(f"Seat {i + 1}", exact=True).fill(NAMES[i])
    no_sideways_scrolling(page, viewport)
