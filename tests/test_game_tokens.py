"""Write tokens: several per game, ``kibitz token`` reissues one, ``--revoke`` stops the old ones.

Through the CLI (``kibitz token`` as a subprocess on the database) and HTTP (the Flask test
client on the same database file; a real ``kibitz serve`` at the end), and the migration that
turns each game's single stored hash into its first token.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import subprocess
from pathlib import Path

import requests
from sqlite_utils import Database

from service.storage import backend, migrations
from service.storage import sqlite as store
from tests.club_server import kibitz, outside, serve, unprivileged
from tests.conftest import ON_BOTH_BACKENDS, OPEN_DEAL, PLAYERS, assert_problem, create
from tests.serving import kibitz_command

NOTE = {"type": "note", "text": "who dealt?"}
LINK = re.compile(r"^Share link \(opens the table page with the token\): (\S+)$", re.M)


def issue(db_path: Path, game_id: str, *args: str) -> tuple[str, str, str]:
    """Run ``kibitz token GAME_ID --db db_path --no-qr *args``; return (token, share link, output)."""
    done = kibitz("token", game_id, "--db", str(db_path), "--no-qr", "--url", "http://club.example:8000", *args)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"New token for game {game_id} (")
    token = lines[1].strip()
    found = LINK.search(done.stdout)
    assert found, done.stdout
    assert "--url" not in done.stdout  # the address was given: nothing guessed, nothing to say
    return token, found.group(1), done.stdout


def write(client, game_id: str, token: str):
    return client.post(f"/games/{game_id}/events", json=NOTE, headers={"Authorization": f"Bearer {token}"})


def test_a_new_token_works_beside_the_old_one(client, db_path):
    game = create(client, title="Friday club")
    token, link, out = issue(db_path, game.id)
    assert token != game.token and len(token) >= 40
    assert link == f"http://club.example:8000/table/{game.id}#token={token}"  # the fragment the table page reads
    assert "Friday club · toepen · Ann, Bob, Cas, Dee" in out
    assert "The game's 1 other token still works" in out
    third, _, out = issue(db_path, game.id)
    assert "The game's 2 other tokens still work" in out
    for each in (game.token, token, third):  # several live tokens at once, one per device
        assert write(client, game.id, each).status_code == 201
    assert client.get(f"/games/{game.id}/events").get_json()["events"][-1]["seq"] == 4
    stored = store.live_token_hashes(store.connect(db_path), game.id)
    assert stored == [hashlib.sha256(each.encode()).hexdigest() for each in (game.token, token, third)]
    rows = str(outside(db_path, "SELECT * FROM tokens"))
    assert token not in rows and third not in rows  # stored hashed only


@ON_BOTH_BACKENDS
def test_token_and_revoke_on_either_backend(client, database):
    """``kibitz token --db`` a SQLite file or a postgresql:// URL: the same tokens, stored hashed."""
    game, other = create(client, title="Friday club"), create(client)
    token, link, out = issue(database, game.id)
    assert link == f"http://club.example:8000/table/{game.id}#token={token}"
    assert "The game's 1 other token still works" in out
    assert write(client, game.id, token).status_code == 201 and write(client, game.id, game.token).status_code == 201
    newest, _, out = issue(database, game.id, "--revoke")
    assert "Revoked 2 older tokens: only this one works now." in out
    for old in (game.token, token):
        assert_problem(write(client, game.id, old), 403, "token_invalid")
    assert write(client, game.id, newest).status_code == 201
    assert write(client, other.id, other.token).status_code == 201  # another game keeps its token
    db = backend.connect(database)
    try:
        assert backend.live_token_hashes(db, game.id) == [hashlib.sha256(newest.encode()).hexdigest()]
    finally:
        db.close()
    unknown = kibitz("token", "NoSuchGame", "--db", database)
    assert unknown.returncode == 1 and unknown.stderr.strip() == f"Error: There is no game 'NoSuchGame' in {database}."


def test_a_guessed_address_says_when_the_link_works(client, db_path):
    """Without ``--url`` the link names this machine's first LAN address (or loopback when it
    has none), which a server started without ``--lan`` does not listen on: one line under the
    link says so, in the Share panel's words, and names ``--url``."""
    from service.cli import lan

    game = create(client)
    done = kibitz("token", game.id, "--db", str(db_path), "--no-qr", "--port", "8001")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    found = LINK.search(done.stdout)
    assert found
    said = lines[lines.index(found.group(0)) + 1]
    urls = lan.lan_urls(8001)
    if urls:
        assert found.group(1).startswith(f"{urls[0]}table/{game.id}#token=")
        assert said == ("This link uses this machine's network address: it works only when the server was started "
                        "for the club with kibitz serve --lan (it then listens on the club's network); otherwise "
                        "give --url with the address the tablets open.")
    else:
        assert found.group(1).startswith(f"http://127.0.0.1:8001/table/{game.id}#token=")
        assert said == ("This link names this computer's own address, which other devices cannot open: give --url "
                        "with the address the tablets open.")


def test_revoke_stops_every_old_token_and_the_new_one_records(client, db_path, tmp_path):
    game = create(client, visibility="open")
    assert game.post(OPEN_DEAL).status_code == 201
    second, _, _ = issue(db_path, game.id)
    new, link, out = issue(db_path, game.id, "--revoke")
    assert "Revoked 2 older tokens: only this one works now." in out
    for old in (game.token, second):
        body = assert_problem(write(client, game.id, old), 403, "token_invalid")
        assert "revoked" in body["detail"]
        assert body["version"] == 2
        # reads with a revoked token are refused too, never silently the public view
        assert_problem(client.get(f"/games/{game.id}", headers={"Authorization": f"Bearer {old}"}), 403,
                       "token_invalid")
        assert_problem(client.post(f"/games/{game.id}/fork", json={"seq": 2},
                                   headers={"Authorization": f"Bearer {old}"}), 403, "token_invalid")
    assert [row[0] for row in outside(db_path, "SELECT seq FROM events WHERE game_id = ?", [game.id])] == [1, 2]
    assert write(client, game.id, new).status_code == 201
    full = client.get(f"/games/{game.id}/events", headers={"Authorization": f"Bearer {new}"}).get_json()
    assert full["events"][1]["data"]["hands"] == OPEN_DEAL["hands"]  # the full view with the live token
    revoked = outside(db_path, "SELECT count(*) FROM tokens WHERE game_id = ? AND revoked_at IS NOT NULL", [game.id])
    assert revoked == [(2,)]
    assert link.endswith(f"/table/{game.id}#token={new}")


def test_revoking_one_game_leaves_the_others_alone(client, db_path):
    first, other = create(client), create(client)
    issue(db_path, first.id, "--revoke")
    assert write(client, other.id, other.token).status_code == 201
    assert_problem(write(client, first.id, first.token), 403, "token_invalid")


def test_an_unknown_game_is_one_sentence_and_stores_nothing(client, db_path):
    create(client)
    done = kibitz("token", "NoSuchGame", "--db", str(db_path))
    assert done.returncode == 1
    assert done.stderr.strip() == f"Error: There is no game 'NoSuchGame' in {db_path}."
    assert outside(db_path, "SELECT count(*) FROM tokens") == [(1,)]


def test_a_missing_database_file_is_refused(tmp_path):
    done = kibitz("token", "abc", "--db", str(tmp_path / "none.db"))
    assert done.returncode == 2 and "does not exist" in done.stderr
    assert not (tmp_path / "none.db").exists()


def test_a_read_only_database_says_nothing_was_issued(client, db_path):
    """A database file the CLI cannot write (run without root's powers over file modes)."""
    game = create(client)
    prefix = unprivileged()
    conn = sqlite3.connect(db_path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    db_path.chmod(0o444)
    done = subprocess.run([*prefix, *kibitz_command(), "token", game.id, "--db", str(db_path), "--no-qr"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout
    assert done.stderr.startswith("Error: No token was issued: The server cannot write to its database"), done.stderr
    assert "Traceback" not in done.stderr
    assert outside(db_path, "SELECT count(*) FROM tokens") == [(1,)]


def test_migration_makes_each_stored_token_hash_the_games_first_token(tmp_path):
    """A database from before 0006 (one ``games.token_hash`` per game) keeps every game's token working."""
    path = tmp_path / "old.db"
    db = store.connect(path)
    with store.immediate(db):
        migrations.MIGRATIONS.apply(db, stop_before="0006_tokens")
    token = "an-old-token-from-last-season"
    db.table("games").insert({
        "id": "OldGame1", "game": "toepen", "title": None, "players": '["Ann","Bob","Cas","Dee"]',
        "player_keys": '["ann","bob","cas","dee"]', "visibility": "table", "options": "{}",
        "token_hash": hashlib.sha256(token.encode()).hexdigest(), "created_at": "2025-01-10T20:00:00.000Z",
        "version": 0, "status": "in_progress"})
    db.close()
    from service.web.app import create_app

    client = create_app({"TESTING": True, "DATABASE": str(path)}).test_client()  # migrates
    migrated = Database(sqlite3.connect(path))
    assert "token_hash" not in migrated.table("games").columns_dict
    assert list(migrated.query("SELECT game_id, created_at, revoked_at FROM tokens")) == [
        {"game_id": "OldGame1", "created_at": "2025-01-10T20:00:00.000Z", "revoked_at": None}]
    assert store.live_token_hashes(migrated, "OldGame1") == [hashlib.sha256(token.encode()).hexdigest()]
    # a new game on the migrated database gets its token in the new table
    fresh = create(client)
    assert write(client, fresh.id, fresh.token).status_code == 201
    assert_problem(write(client, fresh.id, token), 403, "token_invalid")


def test_reissue_and_revoke_while_the_real_server_runs(tmp_path):
    db_path = tmp_path / "club.db"
    with serve(db_path) as served:
        created = requests.post(f"{served.base}/games", json={"game": "toepen", "players": PLAYERS},
                                timeout=30).json()
        game_id, old = created["id"], created["token"]

        def note(token: str) -> requests.Response:
            return requests.post(f"{served.base}/games/{game_id}/events", json=NOTE,
                                 headers={"Authorization": f"Bearer {token}"}, timeout=30)

        added, _, _ = issue(db_path, game_id)
        assert note(old).status_code == 201 and note(added).status_code == 201
        new, _, _ = issue(db_path, game_id, "--revoke")
        for each in (old, added):
            refused = note(each)
            assert refused.status_code == 403 and refused.json()["code"] == "token_invalid"
        assert note(new).status_code == 201
        events = requests.get(f"{served.base}/games/{game_id}/events", timeout=30).json()["events"]
        assert [event["seq"] for event in events] == [1, 2, 3, 4]
