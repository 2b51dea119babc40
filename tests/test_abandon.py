"""``abandon`` (recording.md, "Bookkeeping actions") over HTTP, for every game: the table
stops a game before it is decided. Status ``abandoned``, no winners or losers, an ordinary
action (undo reopens the game), refused with ``game_over`` once the game is over; listed
with ``GET /games?status=abandoned``; match histories count it apart, never as a win or a
loss; exports and the timeline show it."""

from __future__ import annotations

import csv
import io
import json

import pytest
import requests

from service.web.app import create_app
from tests.conftest import assert_problem, create
from tests.test_disputes_over_real_http import Table
from tests.test_server import server  # noqa: F401 - the module-scoped real server fixture

STOP = {"type": "abandon", "reason": "the club closes at eleven"}
GAMES = [
    pytest.param({"game": "toepen"}, {"type": "deal"}, id="toepen"),
    pytest.param({"game": "fool"}, {"type": "deal"}, id="fool"),
    pytest.param({"game": "fuji_flush", "first_player": "Ann"}, {"type": "deal"}, id="fuji_flush"),
    pytest.param({"game": "stop_the_bus"}, {"type": "deal", "centre": ["2C", "7D", "KH"]}, id="stop_the_bus"),
]


@pytest.mark.parametrize(("setup", "deal"), GAMES)
def test_abandon_stops_every_game_and_undo_reopens_it(client, setup, deal):
    game = create(client, **setup)
    assert game.post(deal).status_code == 201
    before = game.get().get_json()["state"]
    stopped = game.post(STOP)
    assert stopped.status_code == 201
    body = stopped.get_json()
    assert body["event"]["type"] == "abandon" and body["event"]["data"] == {"reason": STOP["reason"]}
    state = body["state"]
    assert (state["status"], state["phase"], state["to_act"]) == ("abandoned", "abandoned", [])
    assert not state.get("winners") and not state.get("losers")  # none, or null where the game always shows them
    assert state["players"] == before["players"]  # the game stands as it was
    read = game.get().get_json()
    assert read["status"] == "abandoned" and read["state"]["status"] == "abandoned"
    assert game.get(token=False).get_json()["status"] == "abandoned"

    # nothing but undo, redo and notes can follow
    actions = game.get("/actions").get_json()["actions"]
    assert [a["type"] for a in actions] == ["undo", "note"]
    assert actions[0]["target"] == {"seq": 3, "type": "abandon", "summary": "Game abandoned"}
    assert_problem(game.post(deal), 409, "game_over")
    assert_problem(game.post(STOP), 409, "game_over")
    assert game.post({"type": "note", "text": "Bob left early"}).status_code == 201

    undone = game.post(None, "undo")
    assert undone.get_json()["target"]["type"] == "abandon"
    assert undone.get_json()["state"]["status"] == "in_progress"
    assert game.get().get_json()["status"] == "in_progress"
    assert game.get("/actions").get_json()["actions"][-1]["type"] == "abandon"
    assert game.post(None, "redo").get_json()["state"]["status"] == "abandoned"


def test_the_reason_is_required_and_bounded(game):
    for body in ({"type": "abandon"}, {"type": "abandon", "reason": ""}, {"type": "abandon", "reason": "x" * 501},
                 {"type": "abandon", "reason": 7}, {"type": "abandon", "reason": "late", "player": "Ann"}):
        problem = assert_problem(game.post(body), 422, "validation_failed")
        assert "reason" in problem["errors"] or "player" in problem["errors"], problem
    assert game.get().get_json()["version"] == 1  # nothing stored
    assert game.post({"type": "abandon", "reason": "x" * 500}).status_code == 201


def test_a_finished_game_cannot_be_abandoned(client):
    toepen = create(client, options={"limit": 2})
    toepen.post({"type": "deal"})
    toepen.post({"type": "adjust", "player": "Ann", "amount": 2, "reason": "ruling"})
    assert toepen.get().get_json()["status"] == "finished"
    body = assert_problem(toepen.post(STOP), 409, "game_over")
    assert toepen.get().get_json()["version"] == body["version"] == 3


def test_the_list_filters_abandoned_games(client):
    kept, stopped = create(client), create(client)
    stopped.post(STOP)
    listed = client.get("/games?status=abandoned").get_json()["games"]
    assert [g["id"] for g in listed] == [stopped.id] and listed[0]["status"] == "abandoned"
    assert kept.id in [g["id"] for g in client.get("/games?status=in_progress").get_json()["games"]]
    assert stopped.id not in [g["id"] for g in client.get("/games?status=in_progress").get_json()["games"]]
    stopped.post(None, "undo")
    assert client.get("/games?status=abandoned").get_json()["games"] == []


def test_histories_count_abandoned_games_apart(client):
    won = create(client, players=["Ann", "Bob", "Cas"], options={"limit": 2})
    won.post({"type": "deal"})
    won.post({"type": "adjust", "player": "Bob", "amount": 2, "reason": "ruling"})  # Bob lost, Ann won
    stopped = create(client, players=["Ann", "Bob", "Cas"])
    stopped.post({"type": "deal"})
    stopped.post(STOP)

    ann = client.get("/players/ann").get_json()
    assert ann["by_game"]["toepen"] == {"games": 2, "finished": 1, "abandoned": 1, "wins": 1, "losses": 0,
                                        "average_lives_lost": 0.0, "hands": 1, "tricks_won": 0, "knocks": 0}
    bob = client.get("/players/bob").get_json()["by_game"]["toepen"]
    assert (bob["wins"], bob["losses"], bob["abandoned"]) == (0, 1, 1)
    row = next(g for g in ann["games"] if g["id"] == stopped.id)
    assert (row["status"], row["result"], row["score"], row["hands"]) == ("abandoned", "abandoned", None, None)
    listed = {p["name"]: p for p in client.get("/players").get_json()["players"]}
    assert (listed["Ann"]["games"], listed["Ann"]["finished"], listed["Ann"]["abandoned"], listed["Ann"]["wins"]) == (2, 1, 1, 1)
    assert listed["Cas"]["by_game"]["toepen"] == {"games": 2, "finished": 1, "wins": 1, "losses": 0, "abandoned": 1,
                                                  "average_lives_lost": 0.0}
    sheet = list(csv.DictReader(io.StringIO(client.get("/players/ann/games?format=csv").get_data(as_text=True))))
    assert [(r["status"], r["result"]) for r in sheet if r["id"] == stopped.id] == [("abandoned", "abandoned")]

    stopped.post(None, "undo")  # reopened: in progress again, no longer abandoned
    again = client.get("/players/ann").get_json()["by_game"]["toepen"]
    assert (again["abandoned"], again["finished"], again["games"]) == (0, 1, 2)


def test_exports_and_timeline_show_the_abandon(client, tmp_path):
    game = create(client, title="Friday club")
    game.post({"type": "deal"})
    game.post({"type": "play", "player": "Bob", "card": "7H"})
    game.post(STOP)
    exported = game.get("/export?format=json").get_json()
    assert exported["game"]["status"] == "abandoned"
    assert {r["result"] for r in exported["results"].values()} == {"abandoned"}
    assert exported["events"][-1]["type"] == "abandon" and exported["events"][-1]["undone"] is False
    text = game.get("/export?format=text").get_data(as_text=True)
    assert '[Status "abandoned"]' in text and f'[Abandoned "{STOP["reason"]}"]' in text
    assert f"  The game was abandoned: {STOP['reason']} · step 4 of the replay\n" in text  # no "#4 abandon" (issue 25)
    assert game.get("/export?format=csv").status_code == 200
    jsonl = [json.loads(line) for line in game.get("/export?format=jsonl").get_data(as_text=True).splitlines()]
    assert jsonl[-1]["type"] == "abandon"
    step = game.get("/timeline").get_json()["steps"][-1]
    assert step["type"] == "abandon" and step["summary"] == f"The game was abandoned: {STOP['reason']}."
    public = game.get("/timeline", token=False).get_json()["steps"][-1]
    assert public["summary"] == step["summary"]

    # an export of an abandoned game imports (into another club's server) as abandoned
    other = create_app({"TESTING": True, "DATABASE": str(tmp_path / "other.db")}).test_client()
    imported = other.post("/games/import", json=exported)
    assert imported.status_code == 201, imported.get_json()
    assert imported.get_json()["status"] == "abandoned"
    game.post(None, "undo")
    log = game.get("/events").get_json()["events"]
    assert [e["undone"] for e in log if e["type"] == "abandon"] == [True]
    assert "[Status \"in_progress\"]" in game.get("/export?format=text").get_data(as_text=True)


def test_state_at_the_abandon_says_abandoned(game):
    game.post({"type": "deal"})
    game.post(STOP)
    game.post(None, "undo")
    assert game.get("/states/3").get_json()["state"]["status"] == "abandoned"
    assert game.get("/states/4").get_json()["state"]["status"] == "in_progress"


def test_abandon_through_the_real_server(server):  # noqa: F811
    table = Table(server, {"game": "stop_the_bus", "players": ["Ann", "Bob", "Cas"]})
    table.post({"type": "deal", "centre": ["2C", "7D", "KH"]})
    assert table.post(STOP)["state"]["status"] == "abandoned"
    listed = requests.get(f"{server}/games", params={"status": "abandoned"}, timeout=30).json()["games"]
    assert table.id in [g["id"] for g in listed]
    refused = table.post({"type": "stop", "player": "Bob"}, status=409)
    assert refused["code"] == "game_over"
    assert table.post({}, "undo")["state"]["status"] == "in_progress"
    assert table.get()["status"] == "in_progress"
