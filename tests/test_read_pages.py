"""The read-only pages through Flask's test client: what they read matches the API, the live
board answers 304 while nothing changed, refusals are pages with the API's sentence, the club
table sorts and filters by period. (The browser tests in tests/browser/ drive them for real.)"""

from __future__ import annotations

import re

import pytest
from freezegun import freeze_time

import engine
from engine.stream import status_sentence
from tests.conftest import OPEN_DEAL, create


def test_game_page_shows_the_public_state_and_the_live_board_answers_304(client):
    game = create(client, title="Friday club")
    game.post({"type": "deal"})
    game.post({"type": "play", "player": "Bob", "card": "7H"})
    page = client.get(f"/watch/{game.id}")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assert "<bdi>Cas</bdi> to play" in html and "7♥" in html and "Friday club" in html
    board = client.get(f"/watch/{game.id}/board")
    assert board.status_code == 200 and board.headers["ETag"] == '"3"'
    assert client.get(f"/watch/{game.id}/board", headers={"If-None-Match": '"3"'}).status_code == 304
    game.post({"type": "play", "player": "Cas", "card": "8H"})
    fresh = client.get(f"/watch/{game.id}/board", headers={"If-None-Match": '"3"'})
    assert fresh.status_code == 200 and fresh.headers["ETag"] == '"4"' and "8♥" in fresh.get_data(as_text=True)


def test_open_hands_are_hidden_without_the_token_and_shown_with_it(client):
    game = create(client, visibility="open")
    game.post(OPEN_DEAL)
    public = client.get(f"/watch/{game.id}/replay/board?step=2").get_data(as_text=True)
    full = client.get(f"/watch/{game.id}/replay/board?step=2", headers=game.auth).get_data(as_text=True)
    assert "10♥" not in public and "10♥" in full
    wrong = client.get(f"/watch/{game.id}/replay/board?step=2", headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 403 and "not the token of this game" in wrong.get_data(as_text=True)


@pytest.mark.parametrize("path, status, words", [
    ("/watch/nope", 404, "There is no game 'nope'."),
    ("/watch/{id}/hands/9", 404, "This game has no hand 9."),
    ("/watch/{id}/hands/1/tricks/5", 404, "This game has no trick 5 in hand 1."),
    ("/watch/{id}/replay/board?step=99", 404, "its steps are 1 to 2"),  # the replay's word, not "event"
    ("/watch/{id}/fork?seq=0", 422, "Give an event of this game, 1 to 2."),
    ("/people/nobody", 404, "Nobody called 'nobody' has played a game here."),
    ("/club?since=2026-13-01", 422, "The query parameters are not valid."),
])
def test_refusals_are_pages_with_the_api_sentence(client, path, status, words):
    game = create(client)
    game.post({"type": "deal"})
    response = client.get(path.format(id=game.id))
    assert response.status_code == status and response.mimetype == "text/html"
    assert words.replace("'", "&#39;") in response.get_data(as_text=True)


def test_club_table_per_game_sorted_and_over_a_period(client):
    with freeze_time("2026-01-10 20:00:00"):
        old = create(client, players=["Ann", "Bob", "Cas"], options={"limit": 1})
        old.post({"type": "adjust", "player": "Ann", "amount": 1, "reason": "ruling"})
    new = create(client, players=["Ann", "Bob", "Dee"], options={"limit": 1})
    new.post({"type": "adjust", "player": "Bob", "amount": 1, "reason": "ruling"})
    html = client.get("/club?sort=losses&order=desc").get_data(as_text=True)
    names = re.findall(r'class="cell-link" href="/people/(\w+)"', html)
    assert names[:2] == ["Ann", "Bob"] and set(names) == {"Ann", "Bob", "Cas", "Dee"}
    assert 'aria-sort="descending"' in html
    by_name = re.findall(r'class="cell-link" href="/people/(\w+)"', client.get("/club?sort=name&order=asc").get_data(
        as_text=True))
    assert by_name == ["Ann", "Bob", "Cas", "Dee"]
    january = client.get("/club?since=2026-01-01&until=2026-01-31").get_data(as_text=True)
    assert set(re.findall(r'class="cell-link" href="/people/(\w+)"', january)) == {"Ann", "Bob", "Cas"}


def test_player_page_has_its_record_and_charts(client):
    for loser in ("Ann", "Bob"):
        game = create(client, players=["Ann", "Bob", "Cas"], options={"limit": 2})
        game.post({"type": "deal"})
        game.post({"type": "adjust", "player": loser, "amount": 2, "reason": "ruling"})
    html = client.get("/people/ann").get_data(as_text=True)
    assert "<h1><bdi>Ann</bdi></h1>" in html
    assert html.count('<svg role="img"') == 3 and "<script" not in html.split("<main")[1].split("</main>")[0]
    assert re.search(r"<th scope=\"row\">Toepen</th><td>2</td><td>1</td><td>1</td>", html)


@pytest.mark.parametrize("game, state, words", [
    ("toepen", {"status": "in_progress", "phase": "playing", "to_act": ["Cas"]}, "Cas to play"),
    ("toepen", {"status": "in_progress", "phase": "answering", "to_act": ["Bob"], "last_knocker": "Ann"},
     "Ann knocked — Bob: stay or fold?"),
    ("toepen", {"status": "in_progress", "phase": "deal", "to_act": [], "hand_number": 1, "next_dealer": "Cas"},
     "Deal hand 2 — dealer Cas"),
    ("stop_the_bus", {"status": "in_progress", "phase": "showdown", "to_act": ["Bob"]}, "Showdown: Bob to show"),
    ("fool", {"status": "in_progress", "phase": "reveal", "to_act": ["Ann", "Cas"]},
     "Round over: reveal Ann's and Cas's cards"),
    ("fool", {"status": "finished", "phase": "game_over", "to_act": [], "winners": ["Anja", "Uwe"]},
     "Game over: Anja and Uwe won."),
])
def test_whose_turn_in_words(game, state, words):
    assert status_sentence(engine.GAMES[game], state) == words


def test_an_abandoned_game_says_so(client):
    game = create(client)
    game.post({"type": "deal"})
    assert game.post({"type": "abandon", "reason": "closing time"}).status_code == 201
    html = client.get(f"/watch/{game.id}").get_data(as_text=True)
    assert "The game was abandoned." in html and "to play" not in html
    step = client.get(f"/watch/{game.id}/replay/board?step=3").get_data(as_text=True)
    assert "The game was abandoned." in step
