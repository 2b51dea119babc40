"""The device keeps the token (ui.md): a share link's token replaces the stored one only once the
service has accepted it as this game's; a link with a wrong token leaves the stored one in place,
and a fragment that cannot be decoded is ignored (no script error: the ``new_context`` fixture
fails the test on any)."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.table import act, open_table, settle
from tests.browser.test_token_link import new_link


def stored(page, game) -> str | None:
    return page.evaluate(f"window.localStorage.getItem('kibitz.token.{game['id']}')")


def test_a_wrong_token_in_a_link_keeps_the_stored_one(server, new_context):
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas"])
    page = new_context().new_page()
    open_table(page, server, game, base=server.lan_base)
    page.goto(f"{server.lan_base}/table/{game['id']}#token=bogus")
    settle(page)
    expect(page.get_by_role("alert")).to_have_text(re.compile(r"^The link's token was not taken: .*"
                                                              r"This device keeps the token it holds\.$"))
    page.goto(server.lan_base + "/")  # a fresh load of the link, not only a changed fragment
    page.goto(f"{server.lan_base}/table/{game['id']}#token=bogus")
    settle(page)
    expect(page.get_by_role("alert")).to_have_text(re.compile(r"^The link's token was not taken: "))
    assert stored(page, game) == game["token"]
    assert "#" not in page.url
    act(page, "Deal")  # still records with the kept token
    assert server.get(f"/games/{game['id']}")["version"] == 2


def test_a_malformed_fragment_is_ignored(server, new_context):
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas"])
    page = new_context().new_page()
    open_table(page, server, game, base=server.lan_base)
    page.goto(server.lan_base + "/")
    page.goto(f"{server.lan_base}/table/{game['id']}#token=%E0%A4%A")
    settle(page)
    expect(page.get_by_role("alert")).to_have_text("The link's token could not be read, so it was ignored. "
                                                   "This device keeps the token it holds.")
    assert stored(page, game) == game["token"]
    expect(page.get_by_role("button", name="Deal", exact=True)).to_be_enabled()


def test_a_wrong_token_on_a_device_without_one_stores_nothing(server, new_context):
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas"])
    page = new_context().new_page()
    page.goto(f"{server.lan_base}/table/{game['id']}#token=bogus")
    settle(page)
    expect(page.locator("#no-token")).to_be_visible()
    assert stored(page, game) is None


def test_a_new_link_replaces_the_stored_token_once_accepted(server, new_context):
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas"])
    page = new_context().new_page()
    open_table(page, server, game, base=server.lan_base)
    link = new_link(server, game["id"])  # a second live token for the same game
    new_token = link.split("#token=", 1)[1]
    page.goto(link)  # the same page with a new fragment (no reload): the hashchange path
    page.wait_for_function(f"t => window.localStorage.getItem('kibitz.token.{game['id']}') === t", arg=new_token)
    settle(page)
    page.reload()  # and the same link opened afresh (a reload of the page the link opened)
    settle(page)
    assert stored(page, game) == new_token
    expect(page.locator("#alert")).to_have_text("")  # nothing to say: the new token was taken
    act(page, "Deal")
