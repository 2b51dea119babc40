"""The table page shows typed text isolated (api.md, "Text people type"): the title in the
heading, each player's name in the action buttons, and the summary in Undo/Redo, each in a
``<bdi>``, while the buttons keep their names ("Knock: אבי", "Undo: Ann dealt"); the seat and
play names it sets as text are isolated by the style sheet (``unicode-bidi: isolate``)."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.table import act, open_table

RTL = "\u05d0\u05d1\u05d9"


def _bdi(locator) -> list[str]:
    return locator.evaluate("node => Array.from(node.querySelectorAll('bdi')).map(b => b.textContent)")


def test_names_and_summaries_are_isolated_on_the_table_page(server, new_context):
    game = server.create(game="toepen", players=["Ann", RTL, "Cas"], title="Shabbat " + RTL)
    page = new_context().new_page()
    open_table(page, server, game)
    assert _bdi(page.locator("h1.table-title")) == ["Shabbat " + RTL]
    act(page, "Deal")
    undo = page.locator("#undo")
    expect(undo).to_have_accessible_name("Undo: Ann dealt")
    assert _bdi(undo) == ["Ann dealt"]
    seat = page.locator(".seat-name", has_text=RTL)
    assert seat.evaluate("node => getComputedStyle(node).unicodeBidi") == "isolate"
    knock = page.get_by_role("button", name=f"Knock: {RTL}", exact=True)
    assert _bdi(knock) == [RTL]
    act(page, f"Knock: {RTL}")
    summary = _bdi(page.locator("#undo"))
    assert len(summary) == 1 and RTL in summary[0], summary
