"""``games.stored_events``: the number of a game's stored events, kept by triggers on every
insert and delete (migration ``0009_stored_events``), which a write reads to find a gap in
the log (docs/tamper-evidence.md) instead of counting the game's events: counting cost more
the longer the game (issue 23: the append at 10,000 events).

Each test that takes ``database`` runs on both backends (tests/conftest.py)."""

from __future__ import annotations

import sqlite3

from service.storage import backend as store
from service.storage import migrations
from service.storage import sqlite as sqlite_store

CREATED = {"game": "toepen", "players": ["Ann", "Bob", "Cas"], "visibility": "table", "options": {}}
STAMP = "2026-01-01T00:00:00.000Z"


def _game(db, game_id: str, events: int) -> None:
    with store.immediate(db):
        store.insert_game(db, game_id, CREATED, "hash", STAMP, "in_progress")
        store.append(db, game_id, 1, "game_created", CREATED, STAMP)
        for seq in range(2, events + 1):
            store.append(db, game_id, seq, "note", {"text": f"note {seq}"}, STAMP)
        store.set_version(db, game_id, events, "in_progress", secret_from_hand=1)


def _count(db, game_id: str) -> int:
    return int(store.head(db, game_id, count=True)["count"])


def test_the_count_follows_every_append_and_every_delete(db):
    _game(db, "g1", 5)
    _game(db, "g2", 2)
    assert (_count(db, "g1"), _count(db, "g2")) == (5, 2)
    with store.immediate(db):
        store.append(db, "g1", 6, "note", {"text": "six"}, STAMP)
    assert (_count(db, "g1"), _count(db, "g2")) == (6, 2)
    # someone lifts the immutability trigger and deletes an event from the middle
    db.execute("DROP TRIGGER events_no_delete" + (" ON events" if store.is_postgres(db) else ""))
    db.execute("DELETE FROM events WHERE game_id = 'g1' AND seq = 3")
    assert (_count(db, "g1"), _count(db, "g2")) == (5, 2)
    assert store.head(db, "g1", count=True)["version"] == 5  # games.version still says 5: 6 events written


def test_a_database_stored_before_the_count_is_counted_by_the_migration(tmp_path):
    path = tmp_path / "old.db"
    db = sqlite_store.connect(path)
    migrations.migrate(db)
    _game(db, "g1", 7)
    _game(db, "g2", 1)
    db.close()
    with sqlite3.connect(path) as conn:  # the database as it was before migration 0009
        conn.execute("DROP TRIGGER events_counted_in")
        conn.execute("DROP TRIGGER events_counted_out")
        conn.execute("ALTER TABLE games DROP COLUMN stored_events")
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = '0009_stored_events'")
    db = sqlite_store.connect(path)
    migrations.migrate(db)
    assert (_count(db, "g1"), _count(db, "g2")) == (7, 1)
    with store.immediate(db):
        store.append(db, "g2", 2, "note", {"text": "two"}, STAMP)
    assert _count(db, "g2") == 2
    db.close()


def test_a_write_reads_the_count_without_walking_the_log(tmp_path):
    """What the write's head read costs in SQLite's virtual machine does not grow with the
    game: the old ``count(*)`` stepped once per stored event (some 400 µs at 10,000)."""
    db = sqlite_store.connect(tmp_path / "kibitz.db")
    migrations.migrate(db)
    _game(db, "short", 10)
    _game(db, "long", 3000)

    def steps(game_id: str) -> int:
        counted = [0]

        def tick() -> int:
            counted[0] += 1
            return 0

        db.conn.set_progress_handler(tick, 1)
        try:
            store.head(db, game_id, count=True)
        finally:
            db.conn.set_progress_handler(None, 1)
        return counted[0]

    short, long = steps("short"), steps("long")
    assert long <= short + 20, f"{short} steps at 10 events, {long} at 3,000"
    db.close()


def test_kibitz_check_names_a_count_that_disagrees_with_the_log(database):
    from tests.club_server import kibitz
    from tests.test_check_database import make_database, tamper

    ids = make_database(database, games=2, notes=1)
    tamper(database, f"UPDATE games SET stored_events = stored_events + 1 WHERE id = '{ids[0]}'")
    done = kibitz("check", "--db", str(database))
    assert done.returncode == 1, done.stdout
    assert (f"game {ids[0]}: games.stored_events is 5 but 4 events are stored: an event was added or deleted with "
            "the database's triggers disabled, or the count changed (each write of the game then re-reads its "
            "whole log)") in done.stdout.splitlines()
    assert ids[1] not in done.stdout
