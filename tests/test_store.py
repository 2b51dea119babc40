"""The event store: immutability, unique seq, idempotency keys, migrations, pragmas.

Each test that takes ``database`` runs on both backends (tests/conftest.py) through
``service.storage.backend``, the interface the service calls; ``test_pragmas`` is SQLite's."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap

import psycopg
import pytest

from service.storage import backend as store
from service.storage import migrations, postgres
from service.storage import sqlite as sqlite_store


def integrity_error(db):
    """The driver's error for a statement the database's constraints refuse."""
    return psycopg.IntegrityError if store.is_postgres(db) else sqlite3.IntegrityError


def _game(db, game_id="g1"):
    with store.immediate(db):
        created = {"game": "toepen", "players": ["Ann", "Bob", "Cas"], "visibility": "table", "options": {}}
        store.insert_game(db, game_id, created, "hash", "2026-01-01T00:00:00.000Z", "in_progress")
        store.append(db, game_id, 1, "game_created", created, "2026-01-01T00:00:00.000Z")


def test_the_database_refuses_update_and_delete_on_events(db):
    _game(db)
    with pytest.raises(integrity_error(db), match="immutable"):
        db.execute("UPDATE events SET type = 'x'")
    with pytest.raises(integrity_error(db), match="immutable"):
        db.execute("DELETE FROM events")
    if not store.is_postgres(db):
        with pytest.raises(sqlite3.IntegrityError, match="immutable"):
            db["events"].delete_where()  # sqlite-utils' own delete
    assert [e["type"] for e in store.events(db, "g1")] == ["game_created"]


def test_a_seq_is_stored_once(db):
    _game(db)
    with pytest.raises(store.RecordDamaged):  # append takes only the seq after the log's last
        store.append(db, "g1", 1, "note", {"text": "again"}, "t")
    with pytest.raises(integrity_error(db)):  # and the table's key refuses a second seq 1 by itself
        db.execute("INSERT INTO events (game_id, seq, type, data, recorded_at) VALUES ('g1', 1, 'note', '{}', 't')")
    assert [e["seq"] for e in store.events(db, "g1")] == [1]


def test_an_idempotency_key_is_unique_per_game(db):
    _game(db)
    _game(db, "g2")
    store.append(db, "g1", 2, "note", {"text": "a"}, "t", idempotency_key="k")
    store.append(db, "g2", 2, "note", {"text": "a"}, "t", idempotency_key="k")
    store.append(db, "g1", 3, "note", {"text": "b"}, "t")
    store.append(db, "g1", 4, "note", {"text": "c"}, "t")
    with pytest.raises(integrity_error(db)):
        store.append(db, "g1", 5, "note", {"text": "d"}, "t", idempotency_key="k")


def test_immediate_rolls_back_on_error(db):
    _game(db)
    with pytest.raises(RuntimeError), store.immediate(db):
        store.append(db, "g1", 2, "note", {"text": "a"}, "t")
        raise RuntimeError
    assert len(store.events(db, "g1")) == 1


def test_migrations_are_recorded_and_idempotent(db):
    if store.is_postgres(db):
        assert postgres.migrate(db) == []
        names = postgres.applied(db)
        tables = {row["tablename"] for row in db.execute("SELECT tablename FROM pg_tables WHERE schemaname = "
                                                          "current_schema()")}
    else:
        migrations.migrate(db)
        names = [m.name for m in migrations.MIGRATIONS.applied(db)]
        assert migrations.MIGRATIONS.pending(db) == []
        tables = set(db.table_names())
    assert names[0] == "0001_initial" and "0003_forked_from" in names
    assert names == [m.name for m in migrations.MIGRATIONS._migrations]
    assert {"games", "events", "idempotency"} <= tables


def test_pragmas(db_path):
    store = sqlite_store
    db = store.connect(db_path, synchronous="normal")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA synchronous").fetchone()[0] == 1
    assert db.execute("PRAGMA busy_timeout").fetchone()[0] == store.BUSY_TIMEOUT_MS
    assert store.connect(db_path).execute("PRAGMA synchronous").fetchone()[0] == 2
    with pytest.raises(ValueError):
        store.connect(db_path, synchronous="sometimes")


def test_cursor_round_trip():
    store = sqlite_store
    assert store.decode_cursor(store.encode_cursor("2026-01-01T00:00:00.000Z", 7)) == ("2026-01-01T00:00:00.000Z", 7)
    for junk in ("", "!!!", "bnVsbA", "WzEsMl0", "WyJhIiwgOTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTldCg"):
        with pytest.raises(ValueError):
            store.decode_cursor(junk)


APPENDER = textwrap.dedent(
    """
    import sys
    from service.storage import backend as store
    db = store.connect(sys.argv[1])
    won = 0
    for _ in range(40):
        with store.immediate(db):
            seq = store.head(db, "g1")["last_seq"] + 1
            store.append(db, "g1", seq, "note", {"text": sys.argv[2]}, "t")
            won += 1
    print(won)
    """
)


def test_two_processes_appending_never_share_a_seq(db, database):
    _game(db)
    procs = [subprocess.Popen([sys.executable, "-c", APPENDER, database, name], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for name in ("a", "b")]
    outs = [proc.communicate(timeout=60) for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0], outs
    seqs = [e["seq"] for e in store.events(db, "g1")]
    assert seqs == list(range(1, 82))


def test_forks_are_listed_only_when_asked_for(db):
    _game(db)
    created = {"game": "toepen", "players": ["Ann", "Bob", "Cas"], "visibility": "table", "options": {},
               "forked_from": {"game": "g1", "seq": 1}}
    store.insert_game(db, "f1", created, "h", "2025-01-02T00:00:00Z", "in_progress")
    assert [g["id"] for g in store.list_games(db)[0]] == ["g1"]
    assert {g["id"] for g in store.list_games(db, fork=True)[0]} == {"g1", "f1"}
    assert [g["id"] for g in store.list_games(db, forked_from="g1")[0]] == ["f1"]
    row = store.get_game(db, "f1")
    assert (row["forked_from_game"], row["forked_from_seq"]) == ("g1", 1)
