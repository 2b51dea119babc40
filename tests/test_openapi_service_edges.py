"""Where the service was looser or odder than its OpenAPI document (issue 10, section 5)."""

from __future__ import annotations

from tests.conftest import assert_problem, create


def test_games_import_allows_only_post(client):
    for method in ("get", "put", "delete"):
        response = getattr(client, method)("/games/import")
        assert_problem(response, 405, "method_not_allowed")
        assert "GET" not in response.headers["Allow"]
        assert "POST" in response.headers["Allow"]


def test_a_game_is_still_read_by_its_id(client):
    game = create(client)
    assert client.get(game.url).status_code == 200
    assert_problem(client.get("/games/importer"), 404, "game_not_found")


def test_a_cursor_is_only_what_the_service_hands_out(client):
    for _ in range(3):
        create(client)
    first = client.get("/games?limit=2").get_json()
    assert client.get(f"/games?limit=2&cursor={first['next_cursor']}").status_code == 200
    for bad in ("", "!!!!", "W1siYSIsIDFdXQ==", "a" * 201, "Wy J9"):
        body = assert_problem(client.get("/games", query_string={"cursor": bad}), 422, "validation_failed")
        assert "cursor" in body["errors"]


def test_empty_names_and_null_times_are_refused(client, game):
    assert game.post({"type": "deal"}).status_code == 201
    for body in ({"type": "play", "player": "", "card": "7H"}, {"type": "play", "player": "Bob", "card": "7H", "at": None},
                 {"type": "knock", "player": " " * 101}):
        assert_problem(game.post(body), 422, "validation_failed")
    for players in (["", "Bob"], ["   ", "Bob"], ["A" * 41, "Bob"]):
        assert_problem(client.post("/games", json={"game": "toepen", "players": [*players, "Cas"]}), 422,
                       "validation_failed")
