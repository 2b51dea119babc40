"""Match histories (issue 7): a fixture club of several games, exact stats, names matched
trimmed and case-insensitively, forks left out, the CSV parsed back, the projection kept in
step with undo."""

from __future__ import annotations

import csv
import io

import pytest

import engine
from engine import stream as streams
from service.storage import backend as store
from service.storage import history
from tests.conftest import EXAMPLES_DIR, Game, assert_problem, create, needs_examples, play_scenario

pytestmark = needs_examples



@pytest.fixture
def club(client) -> dict[str, Game]:
    """Four games: the open Toepen hand (ended by a ruling), Stop the Bus (ended by rulings),
    a short Toepen game with 'ann ' and Eve, and the Fuji Flush walkthrough (in progress)."""
    toepen = play_scenario(client, EXAMPLES_DIR / "toepen-open-hand.json")
    assert toepen.post({"type": "adjust", "player": "Ann", "amount": 8, "reason": "ruling"}).status_code == 201
    bus = play_scenario(client, EXAMPLES_DIR / "stop-the-bus-rounds.json")
    for player, amount in (("Bob", -5), ("Cas", -5)):
        bus.post({"type": "adjust", "player": player, "amount": amount, "reason": "left early"})
    short = create(client, players=[" ann ", "Eve", "Fay"], options={"limit": 2})
    assert short.post({"type": "adjust", "player": "Eve", "amount": 2, "reason": "ruling"}).status_code == 201
    fuji = play_scenario(client, EXAMPLES_DIR / "fuji-flush-walkthrough.json")
    return {"toepen": toepen, "bus": bus, "short": short, "fuji": fuji}


def test_players_lists_every_name_once_case_insensitively(client, club):
    players = {p["name"].casefold(): p for p in client.get("/players").get_json()["players"]}
    assert players["ann"]["games"] == 3 and players["ann"]["wins"] == 2 and players["ann"]["finished"] == 3
    assert players["ann"]["name"] == "ann"  # the latest spelling
    assert players["ann"]["by_game"] == {
        "stop_the_bus": {"games": 1, "finished": 1, "wins": 1, "losses": 0, "abandoned": 0, "average_chips": 2.0},
        "toepen": {"games": 2, "finished": 2, "wins": 1, "losses": 1, "abandoned": 0, "average_lives_lost": 5.0}}
    assert players["yeonsu"] == {"name": "Yeonsu", "games": 1, "finished": 0, "wins": 0, "losses": 0, "abandoned": 0,
                                 "by_game": {"fuji_flush": {"games": 1, "finished": 0, "wins": 0, "losses": 0,
                                                            "abandoned": 0}}}
    assert players["dee"]["wins"] == 1 and players["eve"]["wins"] == 0 and players["fay"]["wins"] == 1


def test_a_players_stats_per_game_type(client, club):
    body = client.get("/players/%20ANN%20").get_json()
    assert body["key"] == "ann" and body["total_games"] == 3
    assert body["by_game"] == {
        "stop_the_bus": {"games": 1, "finished": 1, "wins": 1, "losses": 0, "abandoned": 0, "average_chips": 2.0,
                         "hands": 2, "stops": 1},
        "toepen": {"games": 2, "finished": 2, "wins": 1, "losses": 1, "abandoned": 0, "average_lives_lost": 5.0,
                   "hands": 2, "tricks_won": 1, "knocks": 0},
    }
    dee = client.get("/players/dee").get_json()["by_game"]["toepen"]
    assert dee == {"games": 1, "finished": 1, "wins": 1, "losses": 0, "abandoned": 0, "average_lives_lost": 0.0,
                   "hands": 2, "tricks_won": 2, "knocks": 1}
    games = body["games"]
    assert [g["game"] for g in games] == ["toepen", "stop_the_bus", "toepen"]  # newest first
    assert games[0] | {"id": None, "date": None} == {
        "id": None, "date": None, "game": "toepen", "title": None, "name": "ann", "players": ["ann", "Eve", "Fay"],
        "seat": 1, "status": "finished", "result": "won", "score": 0, "unit": "lives_lost", "hands": 0,
        "tricks_won": 0, "fools": None, "knocks": 0, "stops": None,
    }
    assert games[2]["id"] == club["toepen"].id and games[2]["score"] == 10 and games[2]["seat"] == 1


def test_in_progress_games_are_listed_without_stats(client, club):
    body = client.get("/players/Jisu").get_json()
    assert body["by_game"] == {"fuji_flush": {"games": 1, "finished": 0, "wins": 0, "losses": 0, "abandoned": 0}}
    assert body["games"][0]["status"] == "in_progress" and body["games"][0]["result"] == "in_progress"


def test_player_games_as_csv(client, club):
    response = client.get("/players/ANN/games?format=csv")
    assert response.status_code == 200 and response.headers["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    assert [(r["game"], r["result"], r["score"]) for r in rows] == [
        ("toepen", "won", "0"), ("stop_the_bus", "won", "2"), ("toepen", "lost", "10")]
    assert rows[1]["stops"] == "1" and rows[1]["tricks_won"] == ""
    assert client.get("/players/ann/games").get_json()["games"][0]["game"] == "toepen"
    assert_problem(client.get("/players/ann/games?format=xml"), 422, "validation_failed")


def test_paging_and_unknown_players(client, club):
    body = client.get("/players/ann?limit=2").get_json()
    assert len(body["games"]) == 2 and body["next_offset"] == 2
    assert len(client.get("/players/ann?limit=2&offset=2").get_json()["games"]) == 1
    assert_problem(client.get("/players/nobody"), 404, "not_found")
    assert_problem(client.get("/players/ann?limit=0"), 422, "validation_failed")


def test_undo_of_the_finishing_move_reopens_the_game_in_the_history(client, club):
    assert club["short"].post({}, "undo").status_code == 201
    body = client.get("/players/eve").get_json()
    assert body["games"][0]["status"] == "in_progress" and body["by_game"]["toepen"]["finished"] == 0
    assert club["short"].post({}, "redo").status_code == 201
    assert client.get("/players/eve").get_json()["by_game"]["toepen"]["losses"] == 1


def test_imports_count_and_forks_never_do(client, other_client, club, app):
    doc = client.get(f"{club['short'].url}/export", headers=club["short"].auth).get_json()
    # issue 10: importing a game already stored here is refused, so records are never doubled
    refused = client.post("/games/import", json=doc)
    assert refused.status_code == 409 and refused.get_json()["game_id"] == club["short"].id
    assert client.get("/players/fay").get_json()["by_game"]["toepen"]["wins"] == 1
    assert other_client.post("/games/import", json=doc).status_code == 201  # imports count where they land
    assert other_client.get("/players/fay").get_json()["by_game"]["toepen"]["wins"] == 1
    fork = client.post(f"{club['short'].url}/fork", json={"seq": 1}, headers=club["short"].auth)
    assert fork.status_code == 201, fork.get_json()  # a fork (issue 6): recording on it never reaches the history
    forked = Game(client, fork.get_json())
    assert forked.post({"type": "adjust", "player": "Fay", "amount": 2, "reason": "what if"}).status_code == 201
    assert client.get(f"{forked.url}").get_json()["status"] == "finished"
    assert client.get("/players/fay").get_json()["total_games"] == 1
    with app.app_context():
        db = store.connect(app.config["DATABASE"])
        rules = engine.GAMES["toepen"]
        row = {"id": "f1", "game": "toepen", "created_at": "2020-01-01T00:00:00.000Z", "forked_from_game": "x"}
        stream = streams.start(rules, {"players": ["Fay", "Gus", "Hal"], "options": {}})
        history.refresh(db, row, stream)
        assert db.execute("SELECT COUNT(*) AS n FROM player_results WHERE game_id = 'f1'").fetchall() in ([(0,)],
                                                                                                       [{"n": 0}])
        db.close()


def test_backfill_folds_games_stored_before_the_projection(client, club, app):
    db = store.connect(app.config["DATABASE"])
    try:
        before = db.execute("SELECT * FROM player_results ORDER BY game_id, player_key").fetchall()
        db.execute("DELETE FROM player_results")
        assert history.backfill(db) == 4
        assert db.execute("SELECT * FROM player_results ORDER BY game_id, player_key").fetchall() == before
    finally:
        db.close()

