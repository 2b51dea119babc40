"""Importing a game already stored here is a 409 ``already_imported`` naming the stored game
(issue 10 §4; api.md: "a game whose source game (the exported game's id) is already stored
here, as the original or as an import, whatever the length of either log; the body's
``game_id`` names the stored game"), over HTTP and through ``kibitz import``.

Before, the same export imported twice made a second copy and doubled the players' records.
"""

from __future__ import annotations

import json

from click.testing import CliRunner

from service.cli.main import main
from service.web.app import create_app
from tests.conftest import OPEN_DEAL, assert_problem, create

PLAYS = [{"type": "play", "player": player, "card": card} for player, card in (("Bob", "7H"), ("Cas", "8H"))]


def _export(client, game):
    response = client.get(f"{game.url}/export", headers=game.auth)
    assert response.status_code == 200
    return response.get_json()


def _count(client):
    return len(client.get("/games?limit=500&fork=true").get_json()["games"])


def _played(client):
    """An open Toepen game, dealt, with Bob and Cas's plays: a short and a long export."""
    game = create(client, visibility="open", players=["Ann", "Bob", "Cas", "Dee"])
    assert game.post(OPEN_DEAL).status_code == 201
    short = _export(client, game)
    for action in PLAYS:
        assert game.post(action).status_code == 201
    return game, short, _export(client, game)


def _server(tmp_path, name):
    return create_app({"TESTING": True, "DATABASE": str(tmp_path / f"{name}.db")}).test_client()


def test_importing_an_export_where_its_original_is_stored_is_a_409_naming_it(client):
    game, short, long = _played(client)
    before = _count(client)
    for doc in (long, short):  # the same log, or a shorter one: the same game
        body = assert_problem(client.post("/games/import", json=doc), 409, "already_imported")
        assert body["game_id"] == game.id
        assert game.id in body["detail"]
    assert _count(client) == before
    ann = client.get("/players/ann").get_json()
    assert ann["total_games"] == 1 and [g["id"] for g in ann["games"]] == [game.id]


def test_importing_the_same_export_twice_into_a_fresh_server_is_a_409_naming_the_first_copy(client, other_client):
    _game, _short, long = _played(client)
    first = other_client.post("/games/import", json=long)
    assert first.status_code == 201, first.get_json()
    again = other_client.post("/games/import", json=long)
    body = assert_problem(again, 409, "already_imported")
    assert body["game_id"] == first.get_json()["id"]
    assert _count(other_client) == 1
    assert other_client.get("/players/bob").get_json()["total_games"] == 1
    # the first copy's own export names it as the source: importing that back is refused too
    copy = first.get_json()
    exported = other_client.get(f"/games/{copy['id']}/export", headers={"Authorization": f"Bearer {copy['token']}"})
    body = assert_problem(other_client.post("/games/import", json=exported.get_json()), 409, "already_imported")
    assert body["game_id"] == copy["id"]


def test_a_longer_or_shorter_export_of_a_game_already_imported_is_a_409(client, tmp_path):
    _game, short, long = _played(client)
    assert len(long["events"]) == len(short["events"]) + len(PLAYS)
    for name, (once, twice) in (("short-first", (short, long)), ("long-first", (long, short))):
        server = _server(tmp_path, name)
        stored = server.post("/games/import", json=once)
        assert stored.status_code == 201, stored.get_json()
        body = assert_problem(server.post("/games/import", json=twice), 409, "already_imported")
        assert body["game_id"] == stored.get_json()["id"]
        assert _count(server) == 1
        assert server.get(f"/games/{stored.get_json()['id']}").get_json()["version"] == once["game"]["version"]


def test_a_document_that_is_not_valid_is_a_422_before_the_409(client):
    game, _short, long = _played(client)
    long["events"][2]["data"]["card"] = "TH"  # Bob does not hold it
    body = assert_problem(client.post("/games/import", json=long), 422, "import_invalid")
    assert body["seq"] == 3
    assert game.get().get_json()["version"] == 4


def test_a_fork_is_a_game_of_its_own_and_imports_once(client, other_client):
    game, _short, _long = _played(client)
    fork = client.post(f"{game.url}/fork", json={"seq": 2}, headers=game.auth).get_json()
    doc = client.get(f"/games/{fork['id']}/export", headers={"Authorization": f"Bearer {fork['token']}"}).get_json()
    assert assert_problem(client.post("/games/import", json=doc), 409, "already_imported")["game_id"] == fork["id"]
    assert other_client.post("/games/import", json=doc).status_code == 201
    assert_problem(other_client.post("/games/import", json=doc), 409, "already_imported")


def test_kibitz_import_refuses_a_game_already_stored(client, db_path, other_db_path, tmp_path):
    game, short, long = _played(client)
    files = []
    for name, doc in (("short", short), ("long", long)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        files.append(path)
    runner = CliRunner()
    # into the database that holds the original
    out = runner.invoke(main, ["import", str(files[1]), "--db", str(db_path)])
    assert out.exit_code == 1, out.output
    assert "0 imported, 1 refused." in out.output
    assert f"refused {files[1]}: already_imported: " in out.output and game.id in out.output
    # into another database: the first file is imported, the second (a longer log) is refused
    out = runner.invoke(main, ["import", str(files[0]), str(files[1]), "--db", str(other_db_path)])
    assert out.exit_code == 1, out.output
    assert "1 imported, 1 refused." in out.output
    new_id = next(line.split()[3] for line in out.output.splitlines() if line.startswith("imported "))
    assert f"refused {files[1]}: already_imported: " in out.output and new_id in out.output
    again = runner.invoke(main, ["import", str(files[0]), "--db", str(other_db_path)])
    assert again.exit_code == 1 and new_id in again.output
    other = create_app({"TESTING": True, "DATABASE": str(other_db_path)}).test_client()
    assert _count(other) == 1
