"""Wrong or unclear words a new user met (issue 25), each read in a real browser.

- Fuji Flush's game page said "1 in hand, 17 in front" when 17 is the card's number;
- ``/new`` answered "The request body is not valid. players: Length must be between 2 and 20"
  and called seat 2 "players.1": now an error summary linking to each field ("Seat 2 needs a
  name.", "Ann and ann are one name: …");
- "1 chips"; "Ann and Cas's cards"; option names in snake_case in the text export, and a
  "Result:" line for a hand still in play;
- ``/people``'s "Played" counted games in progress and abandoned without saying so;
- the player chart's caption says the other lines are dashed, where the first other one was solid;
- Fool!'s seat read "Score 10 · 1 round of +10 · 0 cards" (now "10 points (+10 this round)"),
  and the round's result line led with the last tap ("Round 1: Dee revealed Blue 9; …").
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import requests
from playwright.sync_api import expect

from tests.browser import recorded
from tests.browser.conftest import PHONE, TABLET
from tests.browser.table import open_table


def _text(page: Any, selector: str = "main") -> str:
    return re.sub(r"\s+", " ", page.locator(selector).inner_text())


def test_fuji_flush_counts_the_card_in_front_not_its_number(server: Any, page: Any) -> None:
    game = recorded.create(server.base, game="fuji_flush", players=["Ann", "Bob", "Cas"], first_player="Ann")
    game.post({"type": "deal"})
    game.post({"type": "play", "player": "Ann", "card": 17})
    page.goto(server.url(f"/watch/{game.id}"))
    row = page.locator("table.seats-table tbody tr", has_text="Ann")
    expect(row).to_contain_text("in hand, 1 in front (a 17)")
    assert "17 in front" not in row.inner_text()


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_new_game_lists_what_to_mend_and_links_to_each_field(server: Any, new_context: Any,
                                                              viewport: dict[str, int]) -> None:
    page = new_context(viewport=viewport).new_page()
    page.goto(server.url("/new"))
    page.get_by_label("Game", exact=True).select_option(label="Toepen")
    page.get_by_label("Seat 1", exact=True).fill("Ann")
    page.get_by_label("Seat 3", exact=True).fill("ann")
    before = requests.get(f"{server.base}/games?limit=500", timeout=30).json()["games"]
    page.get_by_role("button", name="Start game", exact=True).click()
    summary = page.get_by_role("alert").filter(has_text="There is a problem")
    expect(summary).to_be_visible()
    expect(summary.get_by_role("link")).to_have_text(["Seat 2 needs a name.",
                                                      "Ann and ann are one name: Seat 3 needs another name."])
    assert "players" not in summary.inner_text() and "Length must be" not in summary.inner_text()
    # each message stands at its field too, and is read with it
    seat2 = page.get_by_label("Seat 2", exact=True)
    expect(seat2).to_have_attribute("aria-invalid", "true")
    expect(seat2).to_have_accessible_description(re.compile(r"^Seat 2 needs a name\."))
    summary.get_by_role("link", name="Seat 2 needs a name.").click()
    expect(seat2).to_be_focused()
    assert requests.get(f"{server.base}/games?limit=500", timeout=30).json()["games"] == before  # nothing sent
    # what only the service can judge comes back the same way, at its field, never "players.1"
    seat2.fill("Bob\u200b")
    page.get_by_label("Seat 3", exact=True).fill("Cas")
    page.get_by_role("button", name="Start game", exact=True).click()
    link = summary.get_by_role("link")
    expect(link).to_have_count(1)
    expect(link).to_have_text(re.compile(r"^Seat 2: "))
    assert "players." not in summary.inner_text()
    link.click()
    expect(seat2).to_be_focused()
    expect(page.get_by_label("Seat 3", exact=True)).not_to_have_attribute("aria-invalid", "true")
    seat2.fill("Bob")
    page.get_by_role("button", name="Start game", exact=True).click()
    page.wait_for_url(re.compile(r".*/table/[A-Za-z0-9]+$"))


def test_one_chip_is_one_chip(server: Any, page: Any) -> None:
    game = recorded.create(server.base, game="stop_the_bus", players=["Ann", "Bob", "Cas"], options={"chips": 1})
    page.goto(server.url(f"/watch/{game.id}"))
    expect(page.locator("table.seats-table")).to_contain_text("1 chip")
    assert "1 chips" not in _text(page)


def _fool_round_to_its_reveals(base: str) -> Any:
    """Fool! for five, two cards each, two Fools a trick: after trick 1 the two Fools sit out
    trick 2, the other three go out in it, and the two Fools' last cards must be revealed."""
    names = ["Ann", "Bob", "Cas", "Dee", "Eve"]
    game = recorded.create(base, game="fool", players=names, dealer="Eve",
                           options={"hand_size": 2, "fools_per_trick": 2})
    game.post({"type": "deal"})
    # trick 1, green led: Bob and Cas play the lowest greens and are its Fools
    for player, card in (("Ann", "G20"), ("Bob", "G2"), ("Cas", "G3"), ("Dee", "G19"), ("Eve", "G18")):
        game.post({"type": "play", "player": player, "card": card})
    state = game.read("")["state"]
    assert sorted(state["sitting_out"]) == ["Bob", "Cas"], state
    for player, card in (("Ann", "R20"), ("Dee", "R2"), ("Eve", "R3")):
        game.post({"type": "play", "player": player, "card": card})
    return game


def test_fool_round_end_reads_in_words(server: Any, new_context: Any) -> None:
    game = _fool_round_to_its_reveals(server.base)
    page = new_context().new_page()
    table = {"id": game.id, "token": game.token}
    open_table(page, server, table)
    # "reveal Bob's and Cas's cards", not "Bob and Cas's cards"
    expect(page.get_by_role("status")).to_have_text("Round over: reveal Bob's and Cas's cards")
    watch = new_context().new_page()
    watch.goto(server.url(f"/watch/{game.id}"))
    expect(watch.locator("#headline, .headline").first).to_have_text("Round over: reveal Bob's and Cas's cards")
    game.post({"type": "reveal", "player": "Bob", "cards": ["B9"]})
    game.post({"type": "reveal", "player": "Cas", "cards": ["Y4"]})
    page.reload()
    open_table(page, server, table)
    # the round's result first, not the last tap ("Round 1: Cas revealed Yellow 4; …")
    result = page.locator("#hand-result")
    expect(result).to_contain_text(re.compile(r"^Round 1: Ann \+10, Bob -9, Cas -4, Dee 0, Eve 0\."))
    assert "revealed" not in result.inner_text()
    # a seat says its points and what the round just ended gave: "10 points (+10 this round)"
    ann = page.locator("#seats .seat[data-player='Ann'] .seat-info")
    expect(ann).to_contain_text("10 points (+10 this round)")
    assert "round of +10" not in page.locator("#seats").inner_text()
    expect(page.locator("#seats .seat[data-player='Bob'] .seat-info")).to_contain_text("-9 points (-9 this round)")


def test_the_text_export_writes_options_in_words_and_no_result_for_a_hand_in_play(server: Any) -> None:
    game = recorded.create(server.base, game="toepen", players=["Ann", "Bob", "Cas"], dealer="Ann")
    game.post({"type": "deal"})
    game.post({"type": "play", "player": "Bob", "card": "7H"})
    text = requests.get(f"{server.base}/games/{game.id}/export?format=text", timeout=30).text
    options = next(line for line in text.splitlines() if line.startswith("[Options "))
    assert "Lives to lose: 10" in options and "When the game ends: When someone has lost every life" in options
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", options), options  # no rules' codes
    assert "Result:" not in text  # hand 1 is still in play
    for loser in ("Ann",):
        game.post({"type": "adjust", "player": loser, "amount": 10, "reason": "ruling"})
    over = requests.get(f"{server.base}/games/{game.id}/export?format=text", timeout=30).text
    assert "  Result: (lives lost) Ann +10 = 10" in over


def test_people_says_what_games_counts(server: Any, page: Any) -> None:
    names = ["Pia", "Quin", "Rui"]
    finished = recorded.create(server.base, game="toepen", players=names, options={"limit": 2})
    finished.post({"type": "adjust", "player": "Pia", "amount": 2, "reason": "ruling"})
    recorded.create(server.base, game="toepen", players=names)  # in progress
    page.goto(server.url("/people"))
    table = page.locator("table.people")
    expect(table.locator("thead th")).to_have_text(["Player", "Games", "Finished", "Won", "Lost", "By game"])
    row = table.locator("tbody tr", has_text="Quin")
    expect(row.locator("td")).to_have_text(["2", "1", "1", "0", re.compile("Toepen 2")])
    expect(page.locator("main")).to_contain_text("Games counts every game a player sat in: those finished, those "
                                                 "still in progress and those abandoned.")


def test_the_chart_draws_every_other_line_dashed_as_its_caption_says(server: Any, page: Any) -> None:
    names = ["Sol", "Tam", "Uri", "Val"]
    game = recorded.create(server.base, game="toepen", players=names, dealer="Sol", options={"limit": 3})
    game.post({"type": "deal"})  # hand 1: Sol knocks, the others fold (a line needs two hands)
    game.post({"type": "knock", "player": "Sol"})
    for player in ("Tam", "Uri", "Val"):
        game.post({"type": "fold", "player": player})
    game.post({"type": "deal"})
    for loser, amount in (("Uri", 1), ("Val", 2)):
        game.post({"type": "adjust", "player": loser, "amount": amount, "reason": "ruling"})
    page.goto(server.url(f"/people/Sol?game={game.id}"))
    figure = page.locator("figure.chart", has_text="the thick one")
    expect(figure.locator("figcaption")).to_contain_text("Sol's line is the thick one, the others narrower and dashed")
    dashes = figure.locator("svg .series path.line").evaluate_all(
        "paths => paths.map(p => getComputedStyle(p).strokeDasharray)")
    assert len(dashes) == 4 and dashes[0] == "none", dashes
    assert all(dash != "none" for dash in dashes[1:]), dashes
