"""The public game page in a real browser: a move recorded elsewhere (through the API)
appears without a reload, and the page says whose turn it is."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.recorded import create


def test_a_move_recorded_through_the_api_appears_without_reload(server, page):
    game = create(server.base, game="toepen", players=["Ann", "Bob", "Cas", "Dee"], dealer="Ann", title="Live")
    game.post({"type": "deal"})
    page.goto(server.url(f"/watch/{game.id}"))
    expect(page.locator("#headline")).to_have_text("Bob to play")
    expect(page.get_by_role("row", name="Bob to act")).to_be_visible()
    page.evaluate("window.notReloaded = true")

    game.post({"type": "play", "player": "Bob", "card": "7H"})
    board = page.locator("#live-board")
    expect(board.locator(".plays")).to_contain_text("Bob 7♥")
    expect(page.locator("#headline")).to_have_text("Cas to play")
    expect(page.get_by_role("row", name="Cas to act")).to_be_visible()

    game.post({"type": "play", "player": "Cas", "card": "8H"})
    game.post({"type": "knock", "player": "Dee"})
    expect(page.locator("#headline")).to_have_text("Dee to play — Dee knocked (stake 2): Ann, Bob and Cas may fold")
    expect(board).to_contain_text("Stake: 2")
    assert page.evaluate("window.notReloaded") is True


def test_the_page_is_reachable_from_home_and_links_to_replay_and_audits(server, page):
    game = create(server.base, game="fool", players=["Anja", "Bettina", "Uwe", "Ilja"], dealer="Ilja")
    game.post({"type": "deal"})
    game.post({"type": "play", "player": "Anja", "card": "G20"})
    page.goto(server.url("/"))
    # the shared server holds other games of these four (and their what-if forks): this game's own link
    watch = page.locator(f'a.watch-link[href="/watch/{game.id}"]').first
    expect(watch).to_have_accessible_name("Watch Fool! (Anja, Bettina, Uwe, Ilja)")
    watch.click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Fool!")
    expect(page.locator(".plays")).to_contain_text("Anja Green 20")
    page.get_by_role("link", name="Round 1: every trick, who won, the Fools and why").click()
    page.get_by_role("link", name="Trick 1", exact=False).first.click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Trick 1 of round 1")
    page.get_by_role("link", name="Replay", exact=True).click()
    expect(page.get_by_label("Step", exact=True)).to_have_value("3")
