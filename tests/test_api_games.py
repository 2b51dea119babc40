"""POST /games, GET /games, GET /games/<id>."""

from __future__ import annotations

import hashlib

import pytest
from freezegun import freeze_time

from service.storage import backend as store
from tests.conftest import PLAYERS, assert_problem, create, stored_events


def test_create_returns_game_token_and_state(client, database):
    response = client.post("/games", json={"game": "toepen", "players": PLAYERS, "title": "Friday club",
                                           "options": {"limit": 5}})
    assert response.status_code == 201
    body = response.get_json()
    assert response.headers["Location"] == f"/games/{body['id']}"
    assert response.headers["ETag"] == '"1"'
    assert body["version"] == 1
    assert body["players"] == PLAYERS
    assert body["visibility"] == "table"
    assert body["title"] == "Friday club"
    assert body["options"]["limit"] == 5
    assert body["options"]["game_end"] == "first_to_limit"  # defaults filled in
    assert body["status"] == "in_progress"
    assert body["state"]["status"] == "in_progress"
    assert [p["name"] for p in body["state"]["players"]] == PLAYERS
    db = store.connect(database)
    try:
        assert store.live_token_hashes(db, body["id"]) == [hashlib.sha256(body["token"].encode()).hexdigest()]
        assert body["token"] not in "".join(str(db.execute(f"select * from {table}").fetchall())
                                            for table in ("games", "events", "tokens"))
    finally:
        db.close()


def test_game_created_event_holds_everything_needed_to_rebuild(client, database):
    body = create(client, dealer="cas", title="T").body
    [event] = stored_events(database, body["id"])
    assert event["seq"] == 1 and event["type"] == "game_created"
    data = event["data"]
    assert data["game"] == "toepen"
    assert data["players"] == PLAYERS
    assert data["visibility"] == "table"
    assert data["dealer"] == "Cas"  # spelt as seated
    assert data["options"] == body["options"]
    assert data["rules_version"] == 1
    assert data["title"] == "T"


@freeze_time("2026-11-29 20:15:00.123456")
def test_created_at_is_server_utc(client):
    assert create(client).body["created_at"] == "2026-11-29T20:15:00.123Z"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"players": PLAYERS}, "game"),
        ({"game": "chess", "players": PLAYERS}, "game"),
        ({"game": "toepen"}, "players"),
        ({"game": "toepen", "players": "Ann,Bob,Cas"}, "players"),
        ({"game": "toepen", "players": ["Ann", "Bob"]}, "players"),
        ({"game": "toepen", "players": [f"P{i}" for i in range(9)]}, "players"),
        ({"game": "toepen", "players": ["Ann", "Bob", "ann"]}, "players"),
        ({"game": "toepen", "players": ["Ann", "Bob", ""]}, "players.2"),
        ({"game": "toepen", "players": ["Ann", "Bob", "x" * 41]}, "players.2"),
        ({"game": "toepen", "players": ["Ann", "Bob", 7]}, "players.2"),
        ({"game": "toepen", "players": PLAYERS, "visibility": "secret"}, "visibility"),
        ({"game": "toepen", "players": PLAYERS, "dealer": "Zed"}, "dealer"),
        ({"game": "toepen", "players": PLAYERS, "first_player": "Ann"}, "first_player"),
        ({"game": "toepen", "players": PLAYERS, "options": {"colour": "red"}}, "options.colour"),
        ({"game": "toepen", "players": PLAYERS, "options": {"limit": "ten"}}, "options.limit"),
        ({"game": "toepen", "players": PLAYERS, "options": {"limit": 0}}, "options.limit"),
        ({"game": "toepen", "players": PLAYERS, "options": []}, "options"),
        ({"game": "toepen", "players": PLAYERS, "title": 5}, "title"),
        ({"game": "toepen", "players": PLAYERS, "extra": 1}, "extra"),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_create_refuses_bad_bodies(client, body, field):
    problem = assert_problem(client.post("/games", json=body), 422, "validation_failed")
    assert field in problem["errors"], problem["errors"]
    assert all(isinstance(m, str) for messages in problem["errors"].values() for m in messages)


def test_create_needs_json(client):
    assert_problem(client.post("/games", data="game=toepen"), 415, "unsupported_media_type")
    assert_problem(client.post("/games", data="{", content_type="application/json"), 400, "malformed_json")


def test_list_newest_first_with_filters_and_paging(client):
    with freeze_time("2026-01-01 10:00:00") as clock:
        ids = []
        for players in (["Ann", "Bob", "Cas"], ["Dee", "Eve", "Fay"], ["ann", "Gus", "Hal"]):
            ids.append(create(client, players=players).id)
            clock.tick(1)
    body = client.get("/games").get_json()
    assert [g["id"] for g in body["games"]] == ids[::-1]
    assert body["next_cursor"] is None
    assert "token" not in body["games"][0] and "state" not in body["games"][0]
    assert [g["id"] for g in client.get("/games?player=ANN").get_json()["games"]] == [ids[2], ids[0]]
    assert client.get("/games?game=toepen&status=in_progress").get_json()["games"][0]["id"] == ids[2]
    assert client.get("/games?status=finished").get_json()["games"] == []
    page = client.get("/games?limit=2").get_json()
    assert [g["id"] for g in page["games"]] == [ids[2], ids[1]]
    rest = client.get(f"/games?limit=2&cursor={page['next_cursor']}").get_json()
    assert [g["id"] for g in rest["games"]] == [ids[0]] and rest["next_cursor"] is None


def test_list_pages_through_games_created_in_the_same_millisecond(client):
    with freeze_time("2026-01-01 10:00:00"):
        ids = [create(client).id for _ in range(5)]
    seen, cursor = [], ""
    while True:
        page = client.get(f"/games?limit=2{cursor}").get_json()
        seen += [g["id"] for g in page["games"]]
        if page["next_cursor"] is None:
            break
        cursor = f"&cursor={page['next_cursor']}"
    assert seen == ids[::-1]


@pytest.mark.parametrize(
    "query",
    ["limit=0", "limit=501", "limit=abc", "limit=99999999999999999999999999", "limit=-1", "status=lost",
     "cursor=nonsense", "cursor=WzEsMl0", "cursor=" + "A" * 300],
)
def test_list_refuses_bad_queries(client, query):
    assert_problem(client.get(f"/games?{query}"), 422, "validation_failed")


def test_get_game_public_and_full(client, game):
    public = client.get(game.url)
    assert public.status_code == 200
    assert public.headers["ETag"] == '"1"'
    body = public.get_json()
    assert set(body) >= {"id", "game", "players", "visibility", "options", "version", "created_at", "status",
                         "state"}
    assert "token" not in body
    assert game.get().status_code == 200


def test_unknown_game_and_route(client):
    assert_problem(client.get("/games/nope"), 404, "game_not_found")
    assert_problem(client.get("/games/" + "x" * 5000), 404, "game_not_found")
    assert_problem(client.get("/nowhere"), 404, "not_found")
    assert_problem(client.delete("/games"), 405, "method_not_allowed")


def test_wrong_token_on_a_read_is_403(client, game):
    response = client.get(game.url, headers={"Authorization": "Bearer not-the-token"})
    assert_problem(response, 403, "token_invalid")


def test_health(client):
    assert client.get("/health").get_json() == {"status": "ok"}
