"""The home page counts a table's games of a night as one series ("game 2 of 3 that night")
only when they were made with **Play again**, each linked to the game before it
(``play_again_of`` in ``POST /games``, stored in its ``game_created``): two games of the same
players on the same night, started apart (two tables, or the new-game page), are not a series
(issue 25). The Play again tap itself is tested by tests/browser/test_club_score_app.py."""

from __future__ import annotations

import uuid

import pytest
import requests
from playwright.sync_api import expect

from tests.browser.conftest import PHONE


def started(base: str, players: list[str], **extra: str) -> str:
    answer = requests.post(f"{base}/games", json={"game": "toepen", "players": players, **extra}, timeout=30)
    assert answer.status_code == 201, answer.text
    return str(answer.json()["id"])


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["tablet", "phone"])
def test_only_play_again_makes_a_series(server, new_context, viewport):
    players = [f"{name} {uuid.uuid4().hex[:5]}" for name in ("Ann", "Bob", "Cas")]
    one = started(server.base, players)  # the same players, the same night, not linked
    two = started(server.base, list(reversed(players)))
    page = new_context(viewport).new_page()
    page.goto(server.url("/"))
    for game in (one, two):
        expect(page.locator(f"li[data-game-id='{game}']")).to_be_visible()
        expect(page.locator(f"li[data-game-id='{game}'] .night")).to_have_count(0)

    three = started(server.base, players, play_again_of=two)  # Play again after the second
    four = started(server.base, players, play_again_of=three)
    page.goto(server.url("/"))
    expect(page.locator(f"li[data-game-id='{one}'] .night")).to_have_count(0)
    for number, game in enumerate((two, three, four), start=1):
        expect(page.locator(f"li[data-game-id='{game}'] .night")).to_have_text(f"game {number} of 3 that night")
