"""Home and the new-game page in a real browser: create a game by its form, land on its table page."""

from __future__ import annotations

from playwright.sync_api import expect


def test_home_links_to_new_game_and_start_game_opens_the_table(server, page):
    page.goto(server.url("/"))
    page.get_by_role("link", name="New game", exact=True).first.click()
    page.get_by_label("Game", exact=True).select_option(label="Toepen")
    for n, name in enumerate(["Ann", "Bob", "Cas"], start=1):
        page.get_by_label(f"Seat {n}", exact=True).fill(name)
    page.get_by_role("button", name="Add seat", exact=True).click()
    page.get_by_label("Seat 4", exact=True).fill("Dee")
    page.get_by_label("Dealer", exact=True).select_option("Cas")
    page.get_by_role("group", name="Visibility").get_by_label("Open", exact=True).check()
    page.get_by_label("limit", exact=True).fill("2")
    page.get_by_role("button", name="Start game", exact=True).click()
    page.wait_for_url("**/table/*")
    game_id = page.url.rsplit("/", 1)[1]
    game = server.get(f"/games/{game_id}")
    assert game["players"] == ["Ann", "Bob", "Cas", "Dee"]
    assert game["visibility"] == "open"
    assert game["options"]["limit"] == 2
    assert game["state"]["dealer"] == "Cas"
    token = page.evaluate(f"window.localStorage.getItem('kibitz.token.{game_id}')")
    assert token and len(token) > 10
    page.goto(server.url("/"))
    expect(page.locator(f"li[data-game-id='{game_id}'] .recordable")).to_be_visible()


def test_fuji_flush_asks_for_the_first_player(server, page):
    page.goto(server.url("/new"))
    page.get_by_label("Game", exact=True).select_option(label="Fuji Flush")
    expect(page.get_by_label("First player", exact=True)).to_be_visible()
    expect(page.get_by_label("Seat 3", exact=True)).to_be_visible()
    expect(page.get_by_label("Seat 4", exact=True)).to_have_count(0)


def test_a_refused_creation_shows_the_services_sentence(server, page):
    page.goto(server.url("/new"))
    page.get_by_label("Seat 1", exact=True).fill("Ann")
    page.get_by_label("Seat 2", exact=True).fill("ann")
    page.get_by_label("Seat 3", exact=True).fill("Cas")
    page.get_by_role("button", name="Start game", exact=True).click()
    expect(page.get_by_role("alert")).to_contain_text("players")
    assert page.url.endswith("/new")


def test_table_page_loads_under_a_non_local_name(server, page):
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas"])
    page.goto(f"{server.lan_base}/table/{game['id']}#token={game['token']}")
    assert page.evaluate("window.isSecureContext") is False
    expect(page.get_by_role("status")).not_to_have_text("Loading…")
    assert "#token" not in page.url
    assert page.evaluate(f"window.localStorage.getItem('kibitz.token.{game['id']}')") == game["token"]
