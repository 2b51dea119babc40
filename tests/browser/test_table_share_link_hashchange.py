"""A share link opened in a tab that already shows the game's table page (only the #token= fragment
changes, no reload): the page takes the token, keeps it, clears the fragment and records."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.table import act, settle, version


def test_a_share_link_in_an_open_tab_is_taken_at_once(server, new_context):
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas"])
    page = new_context().new_page()
    page.goto(server.lan_base + f"/table/{game['id']}")
    settle(page)
    expect(page.locator("#no-token")).to_be_visible()
    expect(page.get_by_role("button", name="Deal", exact=True)).to_have_count(0)

    page.evaluate("token => { window.location.hash = 'token=' + token; }", game["token"])
    expect(page.locator("#no-token")).to_be_hidden()
    expect(page.get_by_role("button", name="Deal", exact=True)).to_be_enabled()
    assert "#" not in page.url
    assert page.evaluate(f"window.localStorage.getItem('kibitz.token.{game['id']}')") == game["token"]

    act(page, "Deal")
    assert version(page) == 2
    assert server.get(f"/games/{game['id']}")["version"] == 2
    page.reload()  # kept on the device
    settle(page, 2)
    expect(page.get_by_role("button", name="Undo: Ann dealt", exact=False)).to_be_enabled()
