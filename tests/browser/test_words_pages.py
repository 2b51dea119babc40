"""Words for card players on the pages, in a real browser: the score sheet of the game page
and of the table page fits a phone (390×844) with every column readable and no header or name
broken inside a word; the game page says, between hands, how the hand just ended, and after a
Fuji Flush turn who was flushed and must draw, with seat counts that agree with the sheet;
what-if forks are listed on their original's game page and on ``/``."""

from __future__ import annotations

from typing import Any

import requests
from playwright.sync_api import expect

from tests.browser import recorded
from tests.browser.conftest import PHONE
from tests.browser.pages_checks import keep_token
from tests.browser.table import settle

#: For every cell of the sheet: words whose letters sit on more than one line (broken inside).
BROKEN_WORDS = """(selector) => {
  const out = [];
  for (const cell of document.querySelectorAll(selector + ' th, ' + selector + ' td')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const re = /\\S+/g;
      let m;
      while ((m = re.exec(node.textContent))) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
        if (tops.size > 1) out.push(m[0]);
      }
    }
  }
  return out;
}"""
#: How far the sheet's table reaches beyond its box (0: every column is on the screen).
CUT_OFF = """(selector) => {
  const table = document.querySelector(selector);
  const box = table.parentElement.getBoundingClientRect();
  return Math.max(0, Math.round(table.getBoundingClientRect().right - Math.min(box.right, window.innerWidth)));
}"""


def _fuji(base: str) -> recorded.Recorder:
    game = recorded.create(base, game="fuji_flush", players=["Yeonsu", "Bettina", "Nami", "Gahee"],
                           first_player="Yeonsu")
    game.post({"type": "deal"})
    for player, card in [("Yeonsu", 6), ("Bettina", 8), ("Nami", 7), ("Gahee", 7), ("Yeonsu", 9), ("Bettina", 14),
                         ("Nami", 6), ("Gahee", 3), ("Yeonsu", 3), ("Bettina", 20), ("Nami", 2)]:
        game.post({"type": "play", "player": player, "card": card})
    return game


def test_score_sheets_fit_a_phone_with_no_word_broken(server: Any, new_context: Any) -> None:
    fuji = _fuji(server.base)
    fool = recorded.fool_game(server.base)  # Anja, Bettina, Uwe, Ilja
    context = new_context(PHONE)
    for game in (fuji, fool):
        keep_token(context, game.id, game.token)
    page = context.new_page()
    for game in (fuji, fool):
        page.goto(server.url(f"/watch/{game.id}"))
        expect(page.locator("table.sheet")).to_be_visible()
        assert page.evaluate(BROKEN_WORDS, "table.sheet") == []
        assert page.evaluate(CUT_OFF, "table.sheet") == 0
        # a sheet wider than the screen would show a shadow at the edge it scrolls to
        assert "radial-gradient" in page.evaluate(
            "getComputedStyle(document.querySelector('table.sheet').parentElement).backgroundImage")
        page.goto(server.url(f"/table/{game.id}"))
        settle(page)
        expect(page.locator("table.score-sheet")).to_be_visible()
        assert page.evaluate(BROKEN_WORDS, "table.score-sheet") == []
        assert page.evaluate(CUT_OFF, "table.score-sheet") == 0


def test_the_game_page_says_how_the_hand_just_ended(server: Any, page: Any) -> None:
    game = recorded.create(server.base, game="toepen", players=["Ann", "Bob", "Cas", "Dee"], dealer="Ann")
    game.post({"type": "deal"})
    game.post({"type": "knock", "player": "Bob"})
    for who in ("Cas", "Dee", "Ann"):
        game.post({"type": "fold", "player": who})
    page.goto(server.url(f"/watch/{game.id}"))
    expect(page.locator("#headline")).to_have_text("Deal hand 2 — dealer Bob")
    expect(page.locator("#hand-result")).to_have_text(
        "Hand 1 is over. Ann lost 1 life, Cas lost 1 life, Dee lost 1 life. "
        "Ann, Cas and Dee folded: Bob is the last player in.")
    game.post({"type": "deal"})  # the next hand begins: the line goes (the page follows live)
    expect(page.locator("#hand-result")).to_have_count(0)


def test_fuji_flush_game_page_says_who_was_flushed_and_counts_agree_with_the_sheet(server: Any, page: Any) -> None:
    game = _fuji(server.base)
    page.goto(server.url(f"/watch/{game.id}"))
    last = page.locator(".last-turn")
    expect(last).to_contain_text("Last turn: Nami played 2")
    turns = game.read("/hands/1")["turns"]
    expect(last).to_have_text(f"Last turn: {turns[-1]['explanation']}")
    flushed = next(t for t in turns if t["flushed"])
    assert "flushed and draw" in flushed["explanation"]
    csv = requests.get(f"{server.base}/games/{game.id}/export?format=csv", timeout=30).text.splitlines()
    header, last_row = csv[0].split(","), csv[-1].split(",")
    state = game.read()["state"]
    for player in state["players"]:
        held = player["hand_size"] + (player["table_card"] is not None)
        assert last_row[header.index(f"{player['name']} cards held after the turn")] == str(held)
        row = page.locator("table.seats-table tbody tr", has_text=player["name"])
        expect(row).to_contain_text(f"{held} card{'s' if held != 1 else ''} held")


def test_what_if_forks_are_listed_on_the_original_and_on_home(server: Any, page: Any) -> None:
    game = recorded.toepen_table_game(server.base)
    fork = requests.post(f"{server.base}/games/{game.id}/fork", json={"seq": 4},
                         headers={"Authorization": f"Bearer {game.token}"}, timeout=30)
    assert fork.status_code == 201, fork.text
    fork_id = fork.json()["id"]
    page.goto(server.url(f"/watch/{game.id}"))
    listed = page.get_by_role("region", name="What-if games from this game")
    # named by the moment, as card players say it, never by an event number or a game id (issue 25)
    link = listed.get_by_role("link", name="What-if after Cas played 8♥ in hand 1, trick 1 · Friday club", exact=True)
    expect(link).to_have_attribute("href", f"/watch/{fork_id}")
    page.goto(server.url("/"))
    home = page.get_by_role("region", name="What-if games")
    expect(home.locator(f"li[data-game-id='{fork_id}']")).to_contain_text("what-if game ·")
    home.locator(f"li[data-game-id='{fork_id}'] a.watch-link").click()
    meta = page.locator(".meta")
    expect(meta).to_contain_text("a what-if game from Friday club (Ann, Bob, Cas, Dee, started ")
    expect(meta).to_contain_text("), after Cas played 8♥ in hand 1, trick 1")
    expect(meta.get_by_role("link", name="Friday club", exact=True)).to_have_attribute("href", f"/watch/{game.id}")
    assert "event" not in meta.inner_text() and game.id not in meta.inner_text()


def test_the_club_table_sorts_toepen_lives_lost_best_first(server: Any, page: Any) -> None:
    # three finished games (rulings up to the limit): Ulla loses 3 lives in all, Vik 1, Wim 4
    names = ["Ulla", "Vik", "Wim"]
    for loser, amount in (("Ulla", 2), ("Ulla", 1), ("Vik", 1)):
        game = recorded.create(server.base, game="toepen", players=names, options={"limit": 2})
        game.post({"type": "adjust", "player": loser, "amount": amount, "reason": "ruling"})
        if amount < 2:
            game.post({"type": "adjust", "player": "Wim" if loser != "Wim" else "Vik", "amount": 2, "reason": "ruling"})
    page.goto(server.url("/club"))
    toepen = page.get_by_role("region", name="Toepen", exact=True)
    expect(toepen).to_contain_text("fewer is better")
    toepen.get_by_role("link", name="Average", exact=True).click()  # tap the heading to sort by it
    toepen = page.get_by_role("region", name="Toepen", exact=True)
    expect(toepen.get_by_role("columnheader", name="Average")).to_have_attribute("aria-sort", "ascending")
    rows = toepen.locator("tbody tr")
    ours = [(r.locator("th").inner_text(), float(r.locator("td").last.inner_text()))
            for r in rows.all() if r.locator("th").inner_text() in names]
    assert [average for _, average in ours] == sorted(average for _, average in ours), ours
    assert [name for name, _ in ours] == ["Vik", "Ulla", "Wim"]  # the most lives lost come last
