"""The tamper-evident record (api.md, "A tamper-evident record"; docs/tamper-evidence.md).

Every hash is recomputed here from the spec's own words (SHA-256 of the previous hash's hex
and the canonical JSON), not with the service's code; ``kibitz check`` finds what the
database's own tools can do (a deleted last event with ``games.version`` lowered, a changed
note, a changed ``recorded_at``); imports keep or refuse a chain; migration 0008 gives stored
games their chains with the immutability triggers back; ``kibitz verify`` and the game page
prove a record against a noted fingerprint.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

import engine
from replays import replay
from service.storage import history, migrations
from service.storage import sqlite as store
from service.web.app import create_app
from tests.club_server import kibitz
from tests.conftest import OPEN_DEAL, PLAYERS, create
from tests.test_check_database import json_set, make_database, tamper

ZEROS = "0" * 64


def spec_hash(previous: str, event: dict[str, Any]) -> str:
    """api.md's hash, written from its sentence."""
    body = {key: event[key] for key in ("seq", "type", "data", "recorded_at", "at", "salt")}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256((previous + text).encode("utf-8")).hexdigest()


def assert_chain(events: list[dict[str, Any]]) -> str:
    previous = ZEROS
    for event in events:
        assert re.fullmatch(r"[0-9a-f]{32}", event["salt"]), event
        assert event["hash"] == spec_hash(previous, event), event["seq"]
        previous = event["hash"]
    return previous


def finished_game(client: Any) -> Any:
    """An open Toepen game to one life, played to its end (every play the first legal one)."""
    game = create(client, visibility="open", options={"limit": 1})
    assert game.post(OPEN_DEAL).status_code == 201
    while True:
        plays = [a for a in game.get("/actions").get_json()["actions"] if a["type"] == "play"]
        if not plays:
            break
        assert game.post({"type": "play", "player": plays[0]["player"], "card": plays[0]["cards"][0]}).status_code == 201
    assert game.get().get_json()["status"] == "finished"
    return game


def test_every_hash_follows_the_spec_and_record_hash_is_the_last(open_game):
    assert open_game.post({"type": "note", "text": "Zoë said “wait” ♥ — 10 € 😀"}).status_code == 201
    assert open_game.post({"type": "play", "player": "Bob", "card": "7H", "at": "2026-11-29T20:14:00Z"}).status_code == 201
    events = open_game.get("/events").get_json()["events"]
    last = assert_chain(events)
    assert len({event["salt"] for event in events}) == len(events)  # a fresh random salt each
    assert open_game.get().get_json()["record_hash"] == last
    assert open_game.get(token=False).get_json()["record_hash"] == last  # the fingerprint is public
    assert events[0]["hash"] == spec_hash(ZEROS, events[0])


def test_the_201_of_a_write_carries_the_stored_salt_and_hash(open_game):
    made = open_game.post({"type": "note", "text": "n"}).get_json()["event"]
    stored = open_game.get("/events").get_json()["events"][-1]
    assert (made["salt"], made["hash"]) == (stored["salt"], stored["hash"])


def test_salt_only_where_the_event_is_shown_in_full(open_game):
    assert open_game.post({"type": "play", "player": "Bob", "card": "7H"}).status_code == 201
    public = {e["seq"]: e for e in open_game.get("/events", token=False).get_json()["events"]}
    full = {e["seq"]: e for e in open_game.get("/events").get_json()["events"]}
    assert public[2]["data"] != full[2]["data"]  # the open deal's hands are hidden while the hand is played
    assert "salt" not in public[2] and public[2]["hash"] == full[2]["hash"]
    for seq in (1, 3):  # game_created and a played card hide nothing
        assert public[seq]["data"] == full[seq]["data"] and public[seq]["salt"] == full[seq]["salt"]
    assert all("salt" in event for event in full.values())
    export = open_game.client.get(f"{open_game.url}/export").get_json()  # the public export, too
    assert "salt" not in export["events"][1] and export["events"][1]["hash"] == full[2]["hash"]


def test_an_import_of_an_export_keeps_its_chain_and_fingerprint(open_game, other_client):
    open_game.post({"type": "note", "text": "à la carte"})
    doc = open_game.client.get(f"{open_game.url}/export", headers=open_game.auth).get_json()
    made = other_client.post("/games/import", json=doc)
    assert made.status_code == 201, made.get_json()
    body = made.get_json()
    assert body["record_hash"] == open_game.get().get_json()["record_hash"]
    copied = other_client.get(f"/games/{body['id']}/events", headers={"Authorization": f"Bearer {body['token']}"})
    original = open_game.get("/events").get_json()["events"]
    assert [(e["salt"], e["hash"]) for e in copied.get_json()["events"]] == [(e["salt"], e["hash"]) for e in original]


@pytest.mark.parametrize("change, seq", [
    (lambda doc: doc["events"][2]["data"].update(text="another note"), 3),
    (lambda doc: doc["events"][1].update(recorded_at="2020-01-01T00:00:00.000Z"), 2),
    (lambda doc: doc["events"][2].update(hash="0" * 64), 3),
    (lambda doc: doc["events"][0].update(salt="f" * 32), 1),
], ids=["note", "recorded_at", "hash", "salt"])
def test_an_import_whose_hash_does_not_follow_is_refused_naming_the_event(open_game, other_client, change, seq):
    open_game.post({"type": "note", "text": "a note"})
    doc = open_game.client.get(f"{open_game.url}/export", headers=open_game.auth).get_json()
    change(doc)
    refused = other_client.post("/games/import", json=doc)
    assert refused.status_code == 422
    problem = refused.get_json()
    assert problem["code"] == "import_invalid" and problem["seq"] == seq and problem["rule_code"] == "hash_mismatch"
    assert f"Event {seq}" in problem["detail"]
    assert other_client.get("/games").get_json()["games"] == []  # nothing stored


@pytest.mark.parametrize("removed", [("hash", "salt"), ("salt",), ("hash",)], ids=["both", "salt", "hash"])
def test_an_export_with_one_event_lacking_its_hash_or_salt_is_refused_naming_it(open_game, other_client, removed):
    for text in ("one", "two", "three"):
        assert open_game.post({"type": "note", "text": text}).status_code == 201
    doc = open_game.client.get(f"{open_game.url}/export", headers=open_game.auth).get_json()
    doc["events"][4]["data"]["text"] = "FORGED"
    for key in removed:
        del doc["events"][4][key]
    refused = other_client.post("/games/import", json=doc)
    assert refused.status_code == 422, refused.get_json()
    problem = refused.get_json()
    assert problem["code"] == "import_invalid" and problem["seq"] == 5 and problem["rule_code"] == "hash_missing"
    assert "Event 5" in problem["detail"]
    assert other_client.get("/games").get_json()["games"] == []  # nothing stored, no fresh chain


def test_a_public_export_that_leaves_a_salt_out_is_refused_never_given_a_fresh_chain(open_game, other_client):
    assert open_game.post({"type": "note", "text": "a note"}).status_code == 201
    doc = open_game.client.get(f"{open_game.url}/export").get_json()  # the open deal's salt is left out
    assert "salt" not in doc["events"][1] and all("hash" in event for event in doc["events"])
    refused = other_client.post("/games/import", json=doc)
    assert refused.status_code == 422
    problem = refused.get_json()
    assert problem["code"] == "import_invalid" and problem["seq"] == 2 and problem["rule_code"] == "hash_missing"
    assert other_client.get("/games").get_json()["games"] == []


def test_a_public_export_that_shows_every_event_in_full_keeps_its_chain(client, other_client):
    game = finished_game(client)
    doc = client.get(f"{game.url}/export").get_json()  # no token: the public view of a finished game
    assert all("salt" in event and "hash" in event for event in doc["events"])
    made = other_client.post("/games/import", json=doc)
    assert made.status_code == 201, made.get_json()
    assert made.get_json()["record_hash"] == game.get().get_json()["record_hash"]


def test_an_export_without_hashes_gets_a_fresh_chain(open_game, other_client):
    doc = open_game.client.get(f"{open_game.url}/export", headers=open_game.auth).get_json()
    for event in doc["events"]:
        del event["hash"], event["salt"]
    made = other_client.post("/games/import", json=doc)
    assert made.status_code == 201, made.get_json()
    body = made.get_json()
    events = other_client.get(f"/games/{body['id']}/events",
                              headers={"Authorization": f"Bearer {body['token']}"}).get_json()["events"]
    assert assert_chain(events) == body["record_hash"] != open_game.get().get_json()["record_hash"]


def test_kibitz_check_finds_a_deleted_last_event_a_changed_note_and_a_changed_recorded_at(database):
    path = database  # a SQLite file, or a PostgreSQL schema
    deleted, note, moved = make_database(path, games=3, notes=2)  # events: created, deal, play, 2 notes
    tamper(path, f"DELETE FROM events WHERE game_id = '{deleted}' AND seq = 5",
           f"UPDATE games SET version = 4 WHERE id = '{deleted}'",
           f"UPDATE events SET data = {json_set(path, 'data', 'text', 'it was Bob')} WHERE game_id = '{note}' "
           "AND seq = 4",
           f"UPDATE events SET recorded_at = '2020-01-01T00:00:00.000Z' WHERE game_id = '{moved}' AND seq = 3")
    done = kibitz("check", "--db", str(path))
    assert done.returncode == 1, done.stdout
    assert done.stdout.splitlines() == [  # the tamper lifts the triggers that refuse it, not the count's
        f"game {deleted}: games.record_hash is not the hash of the last stored event: the log's last event(s) "
        "were deleted, or the games row was changed",
        f"game {note}, event 4: its hash does not match the record's hash chain: this event was changed, or one "
        "before it deleted, after it was recorded",
        f"game {moved}, event 3: its hash does not match the record's hash chain: this event was changed, or one "
        "before it deleted, after it was recorded",
    ]


def test_a_game_cached_before_damage_is_checked_again_when_rebuilt(tmp_path):
    path = tmp_path / "kibitz.db"
    client = create_app({"TESTING": True, "DATABASE": str(path)}).test_client()
    game = create(client)
    assert game.post({"type": "note", "text": "first"}).status_code == 201
    assert game.get().status_code == 200
    tamper(path, f"UPDATE events SET data = '{{\"text\":\"second\"}}' WHERE game_id = '{game.id}' AND seq = 2")
    edited = game.get()  # the cached game's last event is hashed again on every read: found at once
    assert edited.status_code == 503 and edited.get_json()["seq"] == 2
    checked = client.get(f"/watch/{game.id}/verify?fingerprint=000000000000")  # verify reads it all afresh
    assert checked.status_code == 503 and "kibitz check" in checked.get_data(as_text=True)
    fresh = create_app({"TESTING": True, "DATABASE": str(path)}).test_client()  # a new process: rebuilt, refused
    answer = fresh.get(f"/games/{game.id}")
    assert answer.status_code == 503 and answer.get_json()["code"] == "record_damaged"
    assert answer.get_json()["seq"] == 2 and "Retry-After" not in answer.headers


def test_events_another_process_wrote_are_checked_when_caught_up(tmp_path):
    path = tmp_path / "kibitz.db"
    reader = create_app({"TESTING": True, "DATABASE": str(path)}).test_client()
    game = create(reader)
    assert game.get().status_code == 200  # cached here at version 1
    writer = create_app({"TESTING": True, "DATABASE": str(path)}).test_client()
    for text in ("one", "two"):
        assert writer.post(f"/games/{game.id}/events", json={"type": "note", "text": text},
                           headers=game.auth).status_code == 201
    tamper(path, f"UPDATE events SET data = '{{\"text\":\"three\"}}' WHERE game_id = '{game.id}' AND seq = 3")
    answer = reader.get(f"/games/{game.id}/events")  # only events 2 and 3 are read, and checked
    assert answer.status_code == 503 and answer.get_json()["seq"] == 3


def _old_database(path: Path) -> str:
    """A database as Kibitz wrote it before migration 0008: one game of four events (a note
    with text outside ASCII), stored the way the old append stored them (the game created
    when its game_created was recorded)."""
    db = store.connect(path)
    with store.immediate(db):
        migrations.MIGRATIONS.apply(db, stop_before="0008_hash_chain")
    client = create_app({"TESTING": True, "DATABASE": str(tmp := path.with_name("scratch.db"))}).test_client()
    made = create(client, visibility="open")
    created = client.get(f"/games/{made.id}/events").get_json()["events"][0]["data"]
    tmp.unlink()
    rows = [(1, "game_created", created), (2, "deal", {k: v for k, v in OPEN_DEAL.items() if k != "type"}),
            (3, "note", {"text": "Zoë ♥"}), (4, "play", {"player": "Bob", "card": "7H"})]
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO games (id, game, title, players, player_keys, visibility, options, created_at, "
                 "version, status, secret_from_hand) VALUES ('old1', 'toepen', NULL, ?, ?, 'open', ?, "
                 "'2026-01-01T00:00:01.000Z', 4, 'in_progress', 1)", [json.dumps(PLAYERS), json.dumps([p.casefold() for p in PLAYERS]),
                                    json.dumps(created["options"])])
    conn.execute("INSERT INTO tokens (token_hash, game_id, created_at) VALUES (?, 'old1', '2026-01-01T00:00:00.000Z')",
                 [hashlib.sha256(b"old-token").hexdigest()])
    for seq, kind, data in rows:
        conn.execute("INSERT INTO events (game_id, seq, type, data, recorded_at, at) VALUES ('old1', ?, ?, ?, ?, NULL)",
                     [seq, kind, json.dumps(data, separators=(",", ":")), f"2026-01-01T00:00:0{seq}.000Z"])
    folded = replay.fold(engine.GAMES["toepen"], [{"seq": seq, "type": kind, "data": data} for seq, kind, data in rows])
    conn.executemany(f"INSERT INTO player_results ({', '.join(history.COLUMNS)}) "  # its match history, as kept then
                     f"VALUES ({', '.join('?' * len(history.COLUMNS))})",
                     history.rows({"id": "old1", "game": "toepen", "created_at": "2026-01-01T00:00:01.000Z"},
                                  folded.stream))
    conn.commit()
    conn.close()
    db.close()
    return "old1"


def test_migration_0008_gives_stored_games_their_chains_and_puts_the_triggers_back(tmp_path):
    path = tmp_path / "kibitz.db"
    game_id = _old_database(path)
    client = create_app({"TESTING": True, "DATABASE": str(path)}).test_client()  # migrates
    auth = {"Authorization": "Bearer old-token"}
    events = client.get(f"/games/{game_id}/events", headers=auth).get_json()["events"]
    assert [event["seq"] for event in events] == [1, 2, 3, 4] and events[2]["data"] == {"text": "Zoë ♥"}
    assert assert_chain(events) == client.get(f"/games/{game_id}").get_json()["record_hash"]
    conn = sqlite3.connect(path)
    triggers = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    assert {"events_no_update", "events_no_delete"} <= triggers
    with pytest.raises(sqlite3.IntegrityError, match="immutable"):
        conn.execute("UPDATE events SET hash = NULL WHERE game_id = ?", [game_id])
    conn.close()
    assert client.post(f"/games/{game_id}/events", json={"type": "note", "text": "after"},
                       headers=auth).status_code == 201
    events = client.get(f"/games/{game_id}/events", headers=auth).get_json()["events"]
    assert assert_chain(events) == client.get(f"/games/{game_id}").get_json()["record_hash"]
    assert kibitz("check", "--db", str(path)).returncode == 0


def test_kibitz_verify_says_whether_the_record_still_matches(database, tmp_path):
    path = database  # a SQLite file, or a PostgreSQL schema
    client = create_app({"TESTING": True, "DATABASE": str(path)}).test_client()
    game = create(client)
    for n in range(4):
        assert game.post({"type": "note", "text": f"note {n}"}).status_code == 201
    events = game.get("/events").get_json()["events"]
    now = game.get().get_json()["record_hash"][:12]
    done = kibitz("verify", game.id, now.upper(), "--db", str(path))
    assert done.returncode == 0 and "matches the record as it stands now, after a note before the first deal: nothing" in done.stdout and done.stdout.endswith(" (event 5)\n"), done.stdout
    done = kibitz("verify", game.id, events[2]["hash"][:12], "--db", str(path))
    assert done.returncode == 0 and "matches the record as it stood after a note before the first deal: everything recorded up to then is unchanged, and 2 more entries" in done.stdout, done.stdout
    done = kibitz("verify", game.id, "0123456789ab", "--db", str(path))
    assert done.returncode == 1 and "matches no moment of this game's record" in done.stdout
    assert kibitz("verify", game.id, "nope", "--db", str(path)).returncode == 2
    assert kibitz("verify", "NoSuchGame", now, "--db", str(path)).returncode == 2
    assert kibitz("verify", game.id, now, "--db", str(tmp_path / "none.db")).returncode == 2
    tamper(path, f"UPDATE events SET data = '{{\"text\":\"other\"}}' WHERE game_id = '{game.id}' AND seq = 3")
    done = kibitz("verify", game.id, now, "--db", str(path))
    assert done.returncode == 3 and f"game {game.id}, event 3: its hash does not match" in done.stdout, done.stdout


def test_the_game_page_shows_the_fingerprint_and_checks_a_noted_one(client):
    game = finished_game(client)
    record_hash = game.get().get_json()["record_hash"]
    page = client.get(f"/watch/{game.id}").get_data(as_text=True)
    shown = " ".join(record_hash[i:i + 4] for i in range(0, 16, 4))  # 16 digits in four groups of four
    assert f'<code class="fingerprint-code">{shown}</code>' in page
    assert "Game over. The record's fingerprint" in page  # at the end of a game, in words
    board = client.get(f"/watch/{game.id}/board").get_data(as_text=True)
    assert shown in board  # the live part follows the record
    events = game.get("/events").get_json()["events"]
    said = client.get(f"/watch/{game.id}/verify?fingerprint={record_hash[:12]}")
    assert said.status_code == 200 and "matches the record as it stands now" in said.get_data(as_text=True)
    said = client.get(f"/watch/{game.id}/verify?fingerprint={events[3]['hash'][:6]}-{events[3]['hash'][6:12]}")
    words = re.sub(r"<[^>]+>", "", said.get_data(as_text=True))  # names isolated in <bdi>
    assert said.status_code == 200 and "matches the record as it stood after Cas played" in words, words
    assert re.search(r"in hand 1, trick 1: everything recorded up to then is unchanged, and \d+ more entries were "
                     r"recorded after it was noted \(the record now stands after \w+ played .+\)\. \(step 4 of the replay\)", words)
    said = client.get(f"/watch/{game.id}/verify?fingerprint={record_hash}")  # the whole hash will do
    assert said.status_code == 200 and "matches the record as it stands now" in said.get_data(as_text=True)
    said = client.get(f"/watch/{game.id}/verify?fingerprint=0123456789ab")
    assert said.status_code == 200 and "matches no moment of this game&#39;s record" in said.get_data(as_text=True)
    said = client.get(f"/watch/{game.id}/verify?fingerprint=12345")
    assert said.status_code == 422 and "is not a fingerprint" in said.get_data(as_text=True)
    said = client.get(f"/watch/{game.id}/verify")  # nothing typed yet: the form, asking for one
    assert said.status_code == 200 and "Give the 16 hex digits" in said.get_data(as_text=True)
    in_play = create(client)
    assert "Record fingerprint: " in client.get(f"/watch/{in_play.id}").get_data(as_text=True)


@pytest.mark.parametrize("sql, what", [
    ("UPDATE games SET players = '[\"Ann\",\"Bob\",\"Cas\",\"Zed\"]' WHERE id = '{id}'",
     "games.players is ['Ann', 'Bob', 'Cas', 'Zed'] but the log's game_created says ['Ann', 'Bob', 'Cas', 'Dee']"),
    ("UPDATE games SET status = 'finished' WHERE id = '{id}'",
     "games.status is 'finished' but its events make it 'in_progress'"),
], ids=["players", "status"])
def test_a_games_row_that_disagrees_with_its_log_is_503_record_damaged(tmp_path, sql, what):
    path = tmp_path / "kibitz.db"
    game = create(create_app({"TESTING": True, "DATABASE": str(path)}).test_client())
    tamper(path, sql.format(id=game.id))
    fresh = create_app({"TESTING": True, "DATABASE": str(path)}).test_client()
    answer = fresh.get(f"/games/{game.id}/events")
    assert answer.status_code == 503, answer.get_json()
    problem = answer.get_json()
    assert problem["code"] == "record_damaged" and problem["seq"] is None and what in problem["detail"]


def test_a_fork_starts_a_chain_of_its_own(open_game):
    assert open_game.post({"type": "note", "text": "before the fork"}).status_code == 201
    made = open_game.post({"seq": 3}, "fork")
    assert made.status_code == 201, made.get_json()
    body = made.get_json()
    events = open_game.client.get(f"/games/{body['id']}/events",
                                  headers={"Authorization": f"Bearer {body['token']}"}).get_json()["events"]
    assert assert_chain(events) == body["record_hash"]
    original = {event["hash"] for event in open_game.get("/events").get_json()["events"]}
    assert not original & {event["hash"] for event in events}
