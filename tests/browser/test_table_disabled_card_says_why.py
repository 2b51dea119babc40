"""A tap on a disabled card says why (ui.md): the page sends the play as a dry run
(``POST …/events?dry_run=true``, api.md) and shows the service's sentence in the role="alert"
element; nothing is recorded. The tap is a real mouse click where the card is on the screen."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.table import open_table, tap


def test_a_tap_on_a_card_already_played_shows_the_services_sentence(server, new_context):
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas"])
    server.post(game, {"type": "deal"})
    page = new_context().new_page()
    open_table(page, server, game, base=server.lan_base)
    tap(page, "7♣")  # Bob leads 7♣
    card = page.get_by_role("group", name="Deck", exact=True).get_by_role("button", name="7♣", exact=True)
    expect(card).to_be_disabled()  # aria-disabled: it can still be tapped, to hear why
    writes: list[str] = []
    page.on("request", lambda request: writes.append(request.url) if request.method == "POST" else None)
    box = card.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(page.get_by_role("alert")).to_have_text(re.compile(r"^Cas cannot have 7♣: Bob played it in trick 1"))
    assert len(writes) == 1 and writes[0].endswith(f"/games/{game['id']}/events?dry_run=true")
    assert server.get(f"/games/{game['id']}")["version"] == 3  # nothing recorded
    assert page.locator("#table").get_attribute("data-pending") == "0"
