"""Issue 10 §3: a payload error for a field the action does not take names the fields it
does take (every action of every game, and undo/redo), and a game's id is accepted in any
case, with spaces around it, or as its display name, on ``POST /games`` and on import;
the stored and returned id is always the canonical one. All through HTTP."""

from __future__ import annotations

from typing import Any

import pytest

import schemas
from tests.conftest import Game, assert_problem

FOUR = ["Ann", "Bob", "Cas", "Dee"]
PLAYERS = {"toepen": FOUR, "fool": FOUR, "stop_the_bus": FOUR, "fuji_flush": FOUR}
ACTIONS = [(game, kind) for game, module in sorted(schemas.GAMES.items()) for kind in sorted(module.ACTIONS)]


def new_game(client: Any, game: str, visibility: str = "table") -> Game:
    response = client.post("/games", json={"game": game, "players": PLAYERS[game], "visibility": visibility})
    assert response.status_code == 201, response.get_json()
    return Game(client, response.get_json())


def test_the_issue_example_names_take(client):
    game = new_game(client, "stop_the_bus")
    body = assert_problem(game.post({"type": "swap", "player": "Bob", "card": "QS"}), 422, "validation_failed")
    assert body["errors"]["card"] == [
        "Unknown field: a 'swap' takes player and give (required), take, take_all and at (optional)."
    ]
    assert "give" in body["errors"]
    assert client.get(game.url + "/events").get_json()["events"][-1]["seq"] == 1  # nothing stored


@pytest.mark.parametrize("visibility", ["table", "open"])
@pytest.mark.parametrize(("game_id", "kind"), ACTIONS)
def test_every_action_names_its_fields(client, game_id, kind, visibility):
    game = new_game(client, game_id, visibility)
    body = assert_problem(game.post({"type": kind, "bogus_field": 1}), 422, "validation_failed")
    message = body["errors"]["bogus_field"]
    assert len(message) == 1 and message[0].startswith(f"Unknown field: a{'n' if kind[0] in 'aeiou' else ''} {kind!r} takes ")
    schema = schemas.GAMES[game_id].ACTIONS[kind]
    open_only = set(schema.open_only) if visibility == "table" else set()
    for name in schema._declared_fields:
        if name == "type":
            continue
        if name in open_only:
            assert f" {name}" not in message[0], (name, message)  # a table game may not send it: not offered
        else:
            assert f" {name}" in message[0] or f"{name} (" in message[0], (name, message)
    assert "bogus_field" not in message[0]


def test_open_only_field_is_offered_in_an_open_game_only(client):
    table = assert_problem(new_game(client, "toepen").post({"type": "deal", "centre": []}), 422, "validation_failed")
    assert table["errors"]["centre"] == ["Unknown field: a 'deal' takes dealer and at (optional)."]
    open_ = assert_problem(new_game(client, "toepen", "open").post({"type": "deal", "centre": []}), 422,
                           "validation_failed")
    assert open_["errors"]["centre"] == ["Unknown field: a 'deal' takes dealer, hands and at (optional)."]


def test_several_unknown_fields_each_get_the_list(client):
    body = assert_problem(new_game(client, "fool").post({"type": "play", "player": "Ann", "card": "x", "who": 1,
                                                         "what": 2}), 422, "validation_failed")
    expected = ["Unknown field: a 'play' takes player and card (required), at (optional)."]
    assert body["errors"]["who"] == expected and body["errors"]["what"] == expected


@pytest.mark.parametrize("verb", ["undo", "redo"])
def test_undo_and_redo_name_their_fields(client, verb):
    game = new_game(client, "fuji_flush")
    body = assert_problem(game.post({"because": "x"}, verb), 422, "validation_failed")
    assert body["errors"]["because"] == ["Unknown field: an undo or redo takes reason and at (optional)."]


@pytest.mark.parametrize(("spelling", "canonical"), [
    ("Toepen", "toepen"), ("  TOEPEN ", "toepen"), ("toepen", "toepen"),
    ("Fool!", "fool"), ("fool", "fool"), (" FOOL! ", "fool"),
    ("Fuji Flush", "fuji_flush"), ("fuji flush", "fuji_flush"), ("Fuji_Flush", "fuji_flush"),
    ("Stop the Bus", "stop_the_bus"), (" stop  the bus ", "stop_the_bus"), ("STOP_THE_BUS", "stop_the_bus"),
])
def test_game_id_in_any_case_and_display_name(client, spelling, canonical):
    response = client.post("/games", json={"game": spelling, "players": FOUR})
    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    assert body["game"] == canonical
    game = Game(client, body)
    assert game.get().get_json()["game"] == canonical
    assert client.get(game.url + "/events").get_json()["events"][0]["data"]["game"] == canonical
    assert any(row["id"] == game.id for row in client.get(f"/games?game={canonical}").get_json()["games"])


@pytest.mark.parametrize("spelling", ["toepen2", "Toe pen", "", "fool!!x", "stop-the-bus-please"])
def test_other_names_are_still_refused(client, spelling):
    body = assert_problem(client.post("/games", json={"game": spelling, "players": ["Ann", "Bob"]}), 422,
                          "validation_failed")
    assert "toepen" in body["errors"]["game"][0]


@pytest.mark.parametrize(("spelling", "canonical", "dealer"), [
    ("Toepen", "toepen", "dealer"), (" Fuji Flush ", "fuji_flush", "first_player"), ("Fool!", "fool", "dealer"),
    ("Stop the Bus", "stop_the_bus", "dealer"),
])
def test_import_takes_the_display_name_and_stores_the_id(client, spelling, canonical, dealer):
    made = new_game(client, canonical)
    data = dict(client.get(made.url + "/events").get_json()["events"][0]["data"])
    data["game"] = spelling
    doc = {"kibitz_export": 1, "game": {"id": "MadeElsewhere001"},  # an id in the service's own format
           "events": [{"seq": 1, "type": "game_created", "data": data, "recorded_at": "2020-02-03T04:05:06.000Z",
                       "at": None}]}
    response = client.post("/games/import", json=doc)
    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    assert body["game"] == canonical
    stored = client.get(f"/games/{body['id']}/events").get_json()["events"][0]["data"]
    assert stored["game"] == canonical and stored[dealer] == "Ann"
