"""A tap refused with 403 token_invalid (the token was revoked): the page shows the service's
sentence, forgets the token at once (no reload needed) and shows its no-token state."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.table import open_table, tap
from tests.browser.test_token_link import new_link


def test_a_tap_with_a_revoked_token_forgets_it(server, new_context):
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas"])
    server.post(game, {"type": "deal"})
    page = new_context().new_page()
    open_table(page, server, game, base=server.lan_base)
    tap(page, "7♥")
    assert page.evaluate(f"window.localStorage.getItem('kibitz.token.{game['id']}')") == game["token"]

    link = new_link(server, game["id"], "--revoke")
    page.get_by_role("group", name="Deck", exact=True).get_by_role("button", name="8♥", exact=True).click()
    expect(page.get_by_role("alert")).to_have_text(re.compile("or it was revoked"))
    expect(page.locator("#no-token")).to_be_visible()
    assert page.evaluate(f"window.localStorage.getItem('kibitz.token.{game['id']}')") is None
    expect(page.get_by_role("group", name="Deck", exact=True).get_by_role("button", name="8♥", exact=True)).to_be_disabled()
    expect(page.get_by_role("button", name=re.compile("^Undo: ")).first).to_be_disabled()
    assert server.get(f"/games/{game['id']}")["version"] == 3
    assert page.get_by_role("alert").inner_text().count("revoked") == 1

    page.goto(link)  # the new link in the same tab: records again
    page.wait_for_function("() => !window.location.hash")
    expect(page.locator("#no-token")).to_be_hidden()
