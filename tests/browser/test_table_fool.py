"""The table page, Fool!, in a real browser: a whole game recorded by tapping, reveals included."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.table import act, confirm, expect_status, open_table, pick, status, tap

PLAYERS = ["Ann", "Bob", "Cas", "Dee"]


def to_play(page) -> str:
    expect(status(page)).to_have_text(re.compile(r"^\w+ to play$"))
    return status(page).inner_text().split(" ")[0]


def test_a_whole_fool_game_with_reveals(server, page):
    game = server.create(game="fool", players=PLAYERS, options={"hand_size": 2})
    open_table(page, server, game)
    for r in range(1, 5):
        dealer = PLAYERS[(r - 1) % 4]
        expect_status(page, f"Deal round {r} — dealer {dealer}")
        act(page, "Deal")
        first = {"Ann": f"Green {r + 1}", "Bob": f"Green {10 + r}", "Cas": f"Green {14 + r}", "Dee": f"Green {18 + r}"}
        for _ in range(4):
            tap(page, first[to_play(page)])
        expect(page.locator(".seat[data-player=Ann]")).to_contain_text("Fool")
        second = {"Bob": f"Red {r + 1}", "Cas": f"Red {r + 5}", "Dee": f"Red {r + 10}"}
        for _ in range(3):
            tap(page, second[to_play(page)])
        expect_status(page, "Round over: reveal Ann's cards")
        page.get_by_role("button", name="Reveal: Ann", exact=True).click()
        pick(page, f"Green {28 - r}")
        confirm(page)
    expect_status(page, "Game over: Cas and Dee won.")
    state = server.get(f"/games/{game['id']}", game["token"])["state"]
    assert [p["score"] for p in state["players"]] == [-102, 0, 40, 40]
    reveals = [e["data"] for e in server.events(game) if e["type"] == "reveal"]
    assert reveals == [{"player": "Ann", "cards": [f"G{28 - r}"]} for r in range(1, 5)]
    sheet = page.locator("#sheet table")
    expect(sheet.locator("tbody tr")).to_have_count(4)
    expect(sheet).to_contain_text("-102")


def test_fool_colours_are_named_with_their_word_and_the_wild_one(server, page):
    game = server.create(game="fool", players=PLAYERS, options={"hand_size": 3})
    open_table(page, server, game)
    act(page, "Deal")
    tap(page, "Wild 1")
    tap(page, "Yellow 9")
    expect(page.locator(".trick.current")).to_contain_text("Wild 1")
    expect(page.locator(".trick.current")).to_contain_text("Yellow 9")
    # the wild 1 has six copies: it stays available after one is played
    page.get_by_role("button", name="Reveal: Dee", exact=True).click()
    pick(page, "Wild 1", "Wild 1")
    expect(page.get_by_role("group", name="Deck", exact=True).get_by_role("button", name="Wild 1", exact=True)
           ).to_contain_text("×2")
    confirm(page)
    assert server.events(game)[-1]["data"] == {"player": "Dee", "cards": ["1", "1"]}
