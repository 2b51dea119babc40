"""The token on the device, Share scorekeeping, and recording under a non-local name (plain HTTP)."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.table import act, open_table, settle, tap


def test_share_scorekeeping_gives_a_link_and_qr_that_record_on_another_device(server, new_context):
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas"], options={"limit": 2})
    first = new_context().new_page()
    first.goto(f"{server.lan_base}/table/{game['id']}#token={game['token']}")
    settle(first)
    assert first.evaluate("window.isSecureContext") is False
    act(first, "Deal")  # recorded under kibitz.test: keys from crypto.getRandomValues
    first.get_by_role("button", name="Menu", exact=True).click()
    first.get_by_role("button", name="Share scorekeeping", exact=True).click()
    link = first.locator("#share-link")
    expect(link).to_have_text(f"{server.lan_base}/table/{game['id']}#token={game['token']}")
    expect(first.locator("#share-qr svg")).to_be_visible()
    other = new_context().new_page()
    other.goto(link.get_attribute("href"))
    settle(other)
    assert "#token" not in other.url
    tap(other, "7♥")
    assert [e["type"] for e in server.events(game)][-1] == "play"
    keys = server.events(game)
    assert len(keys) == 3


def test_the_device_keeps_the_token_across_reloads(server, page):
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas"], options={"limit": 2})
    open_table(page, server, game)
    page.goto(f"{server.base}/table/{game['id']}")  # no fragment: the token is on the device
    settle(page)
    act(page, "Deal")
    expect(page.locator("#no-token")).to_be_hidden()


def test_a_device_without_the_token_cannot_record(server, page):
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas"])
    page.goto(f"{server.base}/table/{game['id']}")
    settle(page)
    expect(page.locator("#no-token")).to_be_visible()
    expect(page.get_by_role("button", name="Deal", exact=True)).to_have_count(0)


def test_share_on_a_loopback_server_says_other_devices_cannot_reach_it_and_how_to_fix_it(server, page):
    # the test server is a plain ``kibitz serve``: it listens on 127.0.0.1 only (ui.md, "Sharing that works")
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas"])
    open_table(page, server, game)
    page.get_by_role("button", name="Menu", exact=True).click()
    page.get_by_role("button", name="Share scorekeeping", exact=True).click()
    warning = page.locator("#share-warning")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("other devices cannot reach this address")
    expect(warning).to_contain_text("kibitz serve --lan")
