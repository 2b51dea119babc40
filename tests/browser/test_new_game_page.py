"""Home and the new-game page in a real browser: create a game by its form, land on its table page;
every option labelled in words, with its values in words, one line saying what it does and the
rules file's name as the control's ``name``."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from service.web.pages import catalogue


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
    page.get_by_label("Lives to lose", exact=True).fill("2")
    page.get_by_label("When the game ends", exact=True).select_option(label="When one player is left")
    page.get_by_role("button", name="Start game", exact=True).click()
    page.wait_for_url("**/table/*")
    game_id = page.url.rsplit("/", 1)[1]
    game = server.get(f"/games/{game_id}")
    assert game["players"] == ["Ann", "Bob", "Cas", "Dee"]
    assert game["visibility"] == "open"
    assert game["options"]["limit"] == 2
    assert game["options"]["game_end"] == "elimination"
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
    expect(page.get_by_role("alert")).to_contain_text("Ann and ann are one name: Seat 2 needs another name.")
    # one only the service tells apart (case folding makes ß and SS one name): its sentence,
    # at the seats, never the field's code ("players")
    page.get_by_label("Seat 1", exact=True).fill("Straße")
    page.get_by_label("Seat 2", exact=True).fill("STRASSE")
    page.get_by_role("button", name="Start game", exact=True).click()
    expect(page.get_by_role("alert")).to_contain_text("Straße and STRASSE are one name: give each seat a name of its own")
    assert "players" not in page.get_by_role("alert").inner_text()
    assert page.url.endswith("/new")


def test_table_page_loads_under_a_non_local_name(server, page):
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas"])
    page.goto(f"{server.lan_base}/table/{game['id']}#token={game['token']}")
    assert page.evaluate("window.isSecureContext") is False
    expect(page.get_by_role("status")).not_to_have_text("Loading…")
    assert "#token" not in page.url
    assert page.evaluate(f"window.localStorage.getItem('kibitz.token.{game['id']}')") == game["token"]


#: What an option's label, value or line must never look like: a rules-file name.
CODE = re.compile(r"\b[a-z]+_[a-z_]+\b")


@pytest.mark.parametrize("game", ["Toepen", "Fool!", "Fuji Flush", "Stop the Bus"])
def test_every_option_is_labelled_in_words_with_its_rules_name_as_the_controls_name(server, page, game):
    page.goto(server.url("/new"))
    page.get_by_label("Game", exact=True).select_option(label=game)
    game_id = next(g.id for g in catalogue.GAMES.values() if g.name == game)
    options = catalogue.GAMES[game_id].options
    assert options
    for option in options:
        control = page.locator(f"#option-list [name='{option.name}']")
        expect(control).to_have_count(1)
        expect(page.get_by_label(option.label, exact=True)).to_have_attribute("name", option.name)
        assert option.label != option.name and not CODE.search(option.label)
        line = page.locator(f"#opt-{option.name}-hint").inner_text()
        assert line.endswith(".") and not CODE.search(line), line
        assert line.startswith(option.words)
        if option.kind == "choice":
            shown = control.locator("option").all_inner_texts()
            assert all(text and not CODE.search(text) for text in shown), shown
            values = [v for v in control.locator("option").evaluate_all("els => els.map(e => e.value)") if v]
            assert values == list(option.choices)


def test_toepen_options_read_as_card_players_say_them(server, page):
    page.goto(server.url("/new"))
    page.get_by_label("Game", exact=True).select_option(label="Toepen")
    expect(page.locator("#opt-limit-hint")).to_have_text(
        "How many lives a player may lose before they are out. Default: 10.")
    ends = page.get_by_label("When the game ends", exact=True)
    expect(ends.locator("option")).to_have_text(["When someone has lost every life", "When one player is left"])
    expect(page.locator("#opt-game_end-hint")).to_contain_text("Default: When someone has lost every life.")
    expect(page.get_by_label("Answering a knock", exact=True).locator("option:checked")).to_have_text(
        "Fold any time; playing on is staying")
    page.get_by_label("Game", exact=True).select_option(label="Fool!")
    expect(page.get_by_label("Fools per trick", exact=True).locator("option").first).to_have_text(
        "By seat count (1, or 2 with 7 or 8 players)")
