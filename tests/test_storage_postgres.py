"""The PostgreSQL backend's event log against a real PostgreSQL server (``tests/postgres.py``:
a fresh schema per test; skipped, saying why, without a server; failing under
``KIBITZ_REQUIRE_POSTGRES=1``). What the database itself enforces, the migrations, the hash
chain (the same hashes as SQLite's for the same events), the write lock across connections."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from replays import chain
from service.storage import migrations as sqlite_migrations
from service.storage import postgres
from service.storage import sqlite as sqlite_store
from service.storage.interface import RecordDamaged
from tests.postgres import postgres_url  # noqa: F401  (the fixture)

CREATED = {"game": "toepen", "players": ["Ann", "Bob"], "visibility": "public", "options": {"target": 10}}
WHEN = "2026-12-02T01:00:00.000Z"


@pytest.fixture
def db(postgres_url: str) -> Iterator[postgres.Connection]:  # noqa: F811
    conn = postgres.connect(postgres_url)
    postgres.migrate(conn)
    try:
        yield conn
    finally:
        conn.close()


def new_game(db: Any, game_id: str = "g1") -> None:
    with postgres.immediate(db):
        postgres.insert_game(db, game_id, CREATED, "ab" * 32, WHEN, "in_progress")
        postgres.append(db, game_id, 1, "game_created", CREATED, WHEN, salt="00" * 16)


def test_the_migrations_are_the_projects_by_name_and_run_once(postgres_url: str) -> None:  # noqa: F811
    names = [name for name, _ in postgres.MIGRATIONS]
    assert names == [migration.name for migration in sqlite_migrations.MIGRATIONS._migrations]
    with postgres.connect(postgres_url) as conn:
        assert postgres.applied(conn) == []
        assert postgres.migrate(conn) == names
        assert postgres.applied(conn) == names
        assert postgres.migrate(conn) == []


def test_several_processes_may_migrate_at_once(postgres_url: str) -> None:  # noqa: F811
    results: list[list[str]] = []

    def run() -> None:
        with postgres.connect(postgres_url) as conn:
            results.append(postgres.migrate(conn))

    threads = [threading.Thread(target=run) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(len(names) for names in results) == [0, 0, len(postgres.MIGRATIONS)]


def test_events_cannot_be_updated_deleted_or_truncated(db: Any) -> None:
    new_game(db)
    for statement in ("UPDATE events SET type = 'x'", "DELETE FROM events", "TRUNCATE events"):
        with pytest.raises(psycopg.errors.RestrictViolation, match="events are immutable"):
            db.execute(statement)
    assert [event["type"] for event in postgres.events(db, "g1")] == ["game_created"]


def test_a_seq_is_stored_once_and_never_with_a_gap(db: Any) -> None:
    new_game(db)
    with pytest.raises(psycopg.errors.UniqueViolation):
        db.execute("INSERT INTO events (game_id, seq, type, data, recorded_at) VALUES ('g1', 1, 'note', '{}', 'x')")
    with postgres.immediate(db), pytest.raises(RecordDamaged, match="disagrees"):
        postgres.append(db, "g1", 1, "note", {"text": "again"}, WHEN)
    with pytest.raises(RecordDamaged, match="no event 2"), postgres.immediate(db):
        postgres.append(db, "g1", 3, "note", {"text": "gap"}, WHEN)
    assert [event["seq"] for event in postgres.events(db, "g1")] == [1]


def test_an_idempotency_key_is_unique_per_game(db: Any) -> None:
    new_game(db)
    with postgres.immediate(db):
        postgres.append(db, "g1", 2, "note", {"text": "a"}, WHEN, idempotency_key="key-1")
    with pytest.raises(psycopg.errors.UniqueViolation), postgres.immediate(db):
        postgres.append(db, "g1", 3, "note", {"text": "b"}, WHEN, idempotency_key="key-1")
    with postgres.immediate(db):
        postgres.remember(db, "g1", "key-1", "h", 201, {"seq": 2}, WHEN)
    with pytest.raises(psycopg.errors.UniqueViolation), postgres.immediate(db):
        postgres.remember(db, "g1", "key-1", "h", 201, {"seq": 3}, WHEN)
    assert postgres.remembered(db, "g1", "key-1") == {"request_hash": "h", "status": 201, "response": {"seq": 2}}
    assert postgres.version_of(db, "g1") == 1  # nothing of the refused writes is stored
    assert [event["seq"] for event in postgres.events(db, "g1")] == [1, 2]


def test_the_chain_and_record_hash_are_sqlites(db: Any, tmp_path: Path) -> None:
    lite = sqlite_store.connect(tmp_path / "k.db")
    sqlite_migrations.migrate(lite)
    moves = [("game_created", CREATED), ("note", {"text": "Ann deals"}), ("note", {"text": "ünïcode ✓"})]
    for backend, conn in ((postgres, db), (sqlite_store, lite)):
        with backend.immediate(conn):
            backend.insert_game(conn, "g1", CREATED, "ab" * 32, WHEN, "in_progress")
            for seq, (kind, data) in enumerate(moves, start=1):
                backend.append(conn, "g1", seq, kind, data, WHEN, salt=f"{seq:032x}")
            backend.set_version(conn, "g1", len(moves), "in_progress", secret_from_hand=1)
    assert postgres.events(db, "g1") == sqlite_store.events(lite, "g1")
    assert postgres.event_hashes(db, "g1") == sqlite_store.event_hashes(lite, "g1")
    expected = chain.GENESIS
    for event in postgres.events(db, "g1"):
        expected = chain.event_hash(expected, event)
        assert event["hash"] == expected
    pg_row, lite_row = postgres.get_game(db, "g1"), sqlite_store.get_game(lite, "g1")
    assert pg_row is not None and lite_row is not None
    assert pg_row["record_hash"] == lite_row["record_hash"] == expected
    assert {key: pg_row[key] for key in lite_row if key != "_rowid"} == {
        key: value for key, value in lite_row.items() if key != "_rowid"}
    lite.close()


def test_a_rolled_back_append_leaves_nothing(db: Any) -> None:
    new_game(db)
    postgres.begin_write(db)
    postgres.append(db, "g1", 2, "note", {"text": "a"}, WHEN)
    postgres.set_version(db, "g1", 2, "in_progress", secret_from_hand=1)
    postgres.rollback(db)
    row = postgres.get_game(db, "g1")
    assert row is not None and row["version"] == 1 and row["record_hash"] == postgres.event_hashes(db, "g1")[0][1]
    assert [event["seq"] for event in postgres.events(db, "g1")] == [1]


def test_a_savepoint_undoes_one_job_of_a_batch(db: Any) -> None:
    new_game(db)
    postgres.begin_write(db)
    postgres.savepoint(db, "job")
    postgres.append(db, "g1", 2, "note", {"text": "kept"}, WHEN)
    postgres.release(db, "job")
    postgres.savepoint(db, "job")
    postgres.append(db, "g1", 3, "note", {"text": "undone"}, WHEN)
    postgres.rollback_to(db, "job")
    postgres.commit(db)
    assert [event["data"]["text"] for event in postgres.events(db, "g1", after=1)] == ["kept"]


def test_writers_on_two_connections_take_turns(db: Any, postgres_url: str) -> None:  # noqa: F811
    """The second writer waits for the first's lock, then reads the version the first
    stored and appends after it: no gap, no duplicate, whatever the order."""
    new_game(db)
    other = postgres.connect(postgres_url)
    postgres.begin_write(db)
    postgres.append(db, "g1", 2, "note", {"text": "first"}, WHEN)
    postgres.set_version(db, "g1", 2, "in_progress", secret_from_hand=1)
    seen: list[int | None] = []

    def second() -> None:
        with postgres.immediate(other):
            version = postgres.version_of(other, "g1")
            seen.append(version)
            assert version is not None
            postgres.append(other, "g1", version + 1, "note", {"text": "second"}, WHEN)
            postgres.set_version(other, "g1", version + 1, "in_progress", secret_from_hand=1)

    thread = threading.Thread(target=second)
    thread.start()
    thread.join(0.5)
    assert thread.is_alive()  # waiting for the write lock
    postgres.commit(db)
    thread.join(10)
    other.close()
    assert seen == [2]
    assert [(event["seq"], event["data"].get("text")) for event in postgres.events(db, "g1", after=1)] == [
        (2, "first"), (3, "second")]


def _note_after(conn: Any, game_id: str, text: str) -> int:
    """Append a note after the stored version of ``game_id`` in ``conn``'s open transaction."""
    version = postgres.version_of(conn, game_id)
    assert version is not None
    postgres.append(conn, game_id, version + 1, "note", {"text": text}, WHEN)
    postgres.set_version(conn, game_id, version + 1, "in_progress", secret_from_hand=1)
    return version + 1


def test_a_game_write_locks_its_games_alone(db: Any, postgres_url: str) -> None:  # noqa: F811
    """A transaction locking game g1 keeps g1's other writers waiting (they then append after
    it, no gap, no duplicate) and a write of the whole database too, but not g2's writers."""
    for game_id in ("g1", "g2"):
        new_game(db, game_id)
    others = [postgres.connect(postgres_url) for _ in range(3)]
    postgres.begin_write(db, games=["g1"])
    _note_after(db, "g1", "first")
    done: dict[str, int] = {}

    def write(name: str, conn: Any, game_id: str, games: list[str] | None) -> None:
        postgres.begin_write(conn, games=games)
        done[name] = _note_after(conn, game_id, name)
        postgres.commit(conn)

    threads = {name: threading.Thread(target=write, args=(name, conn, game_id, games)) for name, conn, game_id, games in (
        ("same game", others[0], "g1", ["g1"]), ("other game", others[1], "g2", ["g2"]),
        ("whole database", others[2], "g2", None))}
    threads["other game"].start()
    threads["other game"].join(10)
    assert done.get("other game") == 2  # g2 written and committed while g1 stays locked
    threads["same game"].start()
    threads["whole database"].start()  # (once it waits, new game writes queue behind it)
    threads["same game"].join(0.5)
    threads["whole database"].join(0.01)
    assert "same game" not in done and "whole database" not in done  # both waiting for db's locks
    postgres.commit(db)
    for thread in threads.values():
        thread.join(10)
    for conn in others:
        conn.close()
    assert done["same game"] == 3 and done["whole database"] == 3
    assert [(event["seq"], event["data"]["text"]) for event in postgres.events(db, "g1", after=1)] == [
        (2, "first"), (3, "same game")]


def test_a_whole_database_write_holds_off_game_writes(db: Any, postgres_url: str) -> None:  # noqa: F811
    new_game(db)
    other = postgres.connect(postgres_url)
    other.execute("SET lock_timeout = 300")
    postgres.begin_write(db)
    try:
        with pytest.raises(psycopg.errors.LockNotAvailable):
            postgres.begin_write(other, games=["g9"])
    finally:
        postgres.rollback(db)
    assert other.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    postgres.begin_write(other, games=["g9"])  # free again
    postgres.rollback(other)
    other.close()


def test_appending_to_a_game_the_transaction_did_not_lock_is_refused(db: Any) -> None:
    for game_id in ("g1", "g2"):
        new_game(db, game_id)
    postgres.begin_write(db, games=["g1"])
    try:
        with pytest.raises(RuntimeError, match="game g2: written without its write lock"):
            postgres.append(db, "g2", 2, "note", {"text": "x"}, WHEN)
        postgres.append(db, "g1", 2, "note", {"text": "x"}, WHEN)
    finally:
        postgres.rollback(db)
    with postgres.immediate(db):  # the whole database's lock covers every game
        postgres.append(db, "g2", 2, "note", {"text": "x"}, WHEN)


def test_a_lock_held_too_long_is_a_busy_storage_fault(db: Any, postgres_url: str) -> None:  # noqa: F811
    other = postgres.connect(postgres_url)
    other.execute("SET lock_timeout = 200")
    postgres.begin_write(db)
    try:
        with pytest.raises(psycopg.errors.LockNotAvailable) as caught:
            postgres.begin_write(other)
    finally:
        postgres.rollback(db)
    unavailable = postgres.fault(caught.value)
    assert unavailable is not None and unavailable.kind == "busy" and unavailable.retry_after == 1
    assert postgres.fault(psycopg.errors.UniqueViolation()) is None
    assert other.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    other.close()


def test_tokens_are_stored_hashed_and_revoked(db: Any) -> None:
    new_game(db)
    with postgres.immediate(db):
        postgres.add_token(db, "g1", "cd" * 32, "2026-12-02T01:00:01.000Z")
    assert postgres.live_token_hashes(db, "g1") == ["ab" * 32, "cd" * 32]
    with postgres.immediate(db):
        assert postgres.revoke_tokens(db, "g1", WHEN) == 2
    assert postgres.live_token_hashes(db, "g1") == []
    assert postgres.game_ids(db) == ["g1"]


def test_a_pool_lends_connections_set_up_like_connect(postgres_url: str) -> None:  # noqa: F811
    pool = postgres.open_pool(postgres_url, max_size=2)
    try:
        with pool.connection() as conn:
            assert conn.autocommit
            assert conn.execute("SHOW TIME ZONE").fetchone() == {"TimeZone": "UTC"}
            postgres.migrate(conn)
            postgres.begin_write(conn)  # left open: the pool rolls it back
        with pool.connection() as conn:
            assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
            assert postgres.applied(conn)[-1] == postgres.MIGRATIONS[-1][0]  # every migration, the last too
    finally:
        pool.close()


def test_a_damaged_json_column_is_record_damaged(db: Any) -> None:
    new_game(db)
    db.execute("UPDATE games SET options = 'not json' WHERE id = 'g1'")
    with pytest.raises(RecordDamaged, match="games.options"):
        postgres.get_game(db, "g1")


def test_a_url_names_postgresql_and_a_path_sqlite() -> None:
    assert postgres.is_url("postgresql://u@h/db") and postgres.is_url("postgres://u@h/db")
    assert not postgres.is_url("kibitz.db") and not postgres.is_url("sqlite:kibitz.db")


def _fill(backend: Any, conn: Any) -> None:
    """The same games, forks, imports and match-history rows, through one backend."""
    columns = ("game_id", "player_key", "name", "seat", "game", "created_at", "status", "result", "score", "unit",
               "hands", "tricks_won", "fools", "knocks", "stops")
    with backend.immediate(conn):
        for n, (game_id, players, status) in enumerate([("a", ["Ann", "Bob"], "finished"),
                                                        ("b", ["ann", "Cas"], "in_progress"),
                                                        ("c", ["Dee", "Ann"], "finished")]):
            when = f"2026-12-0{n + 1}T10:00:00.000Z"
            created = {**CREATED, "players": players}
            backend.insert_game(conn, game_id, created, f"{n:064x}", when, status)
            backend.append(conn, game_id, 1, "game_created", created, when, salt="11" * 16)
            backend.set_version(conn, game_id, 1, status, secret_from_hand=None if status == "finished" else 2)
            backend.replace_player_results(conn, game_id, columns, [
                [game_id, name.casefold(), name, seat, "toepen", when, status,
                 "won" if seat == 0 and status == "finished" else "lost" if status == "finished" else "none",
                 10 * seat + n, "points", 3, seat + n, 0, 1, None] for seat, name in enumerate(players)])
        fork = {**CREATED, "forked_from": {"game": "b", "seq": 1}}
        backend.insert_game(conn, "f", fork, "ff" * 32, "2026-12-04T10:00:00.000Z", "in_progress")
        backend.append(conn, "f", 1, "game_created", fork, "2026-12-04T10:00:00.000Z", salt="22" * 16)
        backend.set_fork_lineage(conn, "f", [["b", 1]])
        backend.set_secret_from_hand(conn, "f", 1)
        backend.set_source_game(conn, "c", "elsewhere")
        backend.set_imported_at(conn, "c", "2026-12-05T10:00:00.000Z")


def _reads(backend: Any, conn: Any) -> dict[str, Any]:
    page, cursor = backend.list_games(conn, limit=2)
    rest, end = backend.list_games(conn, limit=2, cursor=cursor)

    def strip(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{key: value for key, value in row.items() if key != "_rowid"} for row in rows]

    return {
        "pages": [strip(page), strip(rest), end],
        "ann": [row["id"] for row in backend.list_games(conn, player=" ANN ")[0]],
        "finished": [row["id"] for row in backend.list_games(conn, status="finished", game="toepen")[0]],
        "all": [row["id"] for row in backend.list_games(conn, fork=True)[0]],
        "forks_of_b": [row["id"] for row in backend.list_games(conn, forked_from="b")[0]],
        "lineage": backend.fork_lineage(conn, "f"), "none": backend.fork_lineage(conn, "a"),
        "secrets": backend.lineage_secrets(conn, "f"),
        "relations": backend.fork_relations(conn), "is_fork": [backend.is_fork(conn, g) for g in "abcf"],
        "stored_as": [backend.stored_as(conn, s) for s in ("a", "elsewhere", "nothing")],
        "ids": backend.game_ids(conn), "without": backend.games_without_results(conn),
        "totals": backend.player_totals(conn), "period": backend.player_totals(conn, "2026-12-02", "2026-12-02"),
        "stats": backend.player_stats(conn, "ann", ("hands", "tricks_won", "knocks", "stops")),
        "games": backend.player_games(conn, "ann"), "games_page": backend.player_games(conn, "ann", 1, 1),
        "count": backend.player_game_count(conn, "ann"),
    }


def test_every_read_answers_as_on_sqlite(db: Any, tmp_path: Path) -> None:
    lite = sqlite_store.connect(tmp_path / "k.db")
    sqlite_migrations.migrate(lite)
    _fill(postgres, db)
    _fill(sqlite_store, lite)
    on_postgres, on_sqlite = _reads(postgres, db), _reads(sqlite_store, lite)
    for key, expected in on_sqlite.items():
        assert on_postgres[key] == expected, key
    assert on_sqlite["ann"] == ["c", "b", "a"] and on_sqlite["secrets"] == [("b", 1, 2)]
    assert on_sqlite["pages"][2] is None and len(on_sqlite["pages"][0]) == 2
    assert on_sqlite["stored_as"] == ["a", "c", None] and on_sqlite["without"] == ["f"]
    assert [(row["player_key"], row["games"], row["wins"], row["name"]) for row in on_sqlite["totals"]][0] == (
        "ann", 3, 1, "Ann")
    assert on_sqlite["count"] == 3 and on_sqlite["stats"][0]["hands"] == 9 and on_sqlite["games_page"]
    lite.close()


def test_the_change_counter_moves_when_another_connection_writes(db: Any, postgres_url: str) -> None:  # noqa: F811
    new_game(db)
    guard = postgres.connect(postgres_url)
    before = postgres.data_version(guard)
    assert postgres.data_version(guard) == before  # nothing written meanwhile
    with postgres.immediate(db):
        postgres.append(db, "g1", 2, "note", {"text": "a"}, WHEN)
    assert postgres.data_version(guard) != before
    guard.close()


def test_connect_takes_sqlites_options(postgres_url: str) -> None:  # noqa: F811
    conn = postgres.connect(postgres_url, "off", busy_timeout_ms=250)
    assert conn.execute("SHOW synchronous_commit").fetchone() == {"synchronous_commit": "off"}
    assert conn.execute("SHOW lock_timeout").fetchone() == {"lock_timeout": "250ms"}
    conn.close()
    with pytest.raises(ValueError, match="synchronous must be one of"):
        postgres.connect(postgres_url, "sometimes")
    with pytest.raises(ValueError, match="max_page_count is SQLite's"):
        postgres.connect(postgres_url, max_page_count=10)


RACER = """
import sys, time
from service.storage import postgres
url, name, expected, start = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
db = postgres.connect(url)
time.sleep(max(0.0, start - time.time()))
with postgres.immediate(db):
    version = postgres.version_of(db, "g1")
    if version != expected:  # If-Match names a version that is no longer the game's: 412
        print("412", version)
    else:
        time.sleep(0.3)  # hold the lock while the other process tries
        postgres.append(db, "g1", version + 1, "note", {"text": name}, "2026-12-02T01:00:00.000Z")
        postgres.set_version(db, "g1", version + 1, "in_progress", secret_from_hand=1)
        print("201", version + 1)
"""


def test_two_processes_racing_with_the_same_version_store_one_event(db: Any, postgres_url: str) -> None:  # noqa: F811
    """Two OS processes, each with its own connection, both expecting version 1 (the same
    If-Match): one appends event 2, the other waits for the write lock, then finds the game
    at version 2 and stores nothing. No gap, no duplicate."""
    import subprocess
    import sys
    import time

    new_game(db)
    start = time.time() + 1.0
    racers = [subprocess.Popen([sys.executable, "-c", RACER, postgres_url, name, "1", str(start)],
                               stdout=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[1])
              for name in ("tablet-a", "tablet-b")]
    answers = sorted(racer.communicate(timeout=60)[0].split()[0] for racer in racers)
    assert all(racer.returncode == 0 for racer in racers)
    assert answers == ["201", "412"]
    assert [event["seq"] for event in postgres.events(db, "g1")] == [1, 2]
    assert postgres.version_of(db, "g1") == 2


#: Each read guarded against a NUL in what it looks up (``postgres._nothing_for_nul``), its
#: arguments after the connection and what it finds when nothing matches.
NUL_READS = [("get_game", ("g\x00",), None), ("version_of", ("g\x00",), None), ("head", ("g\x00",), None),
             ("events", ("g\x00",), []), ("event_hashes", ("g\x00",), []), ("remembered", ("g1", "k\x00"), None),
             ("live_token_hashes", ("g\x00",), []), ("fork_lineage", ("g\x00",), []),
             ("lineage_secrets", ("g\x00",), []), ("stored_as", ("g\x00",), None), ("is_fork", ("g\x00",), False),
             ("player_totals", (None, "2026\x00"), []), ("player_stats", ("bob\x00", ("fools",)), []),
             ("player_games", ("bob\x00",), []), ("results_in_scope", (("score",), None, None, "bob\x00"), []),
             ("player_game_count", ("bob\x00",), 0)]


@pytest.mark.parametrize(("name", "args", "nothing"), NUL_READS, ids=[read[0] for read in NUL_READS])
def test_a_nul_in_what_a_read_looks_up_finds_nothing(db: Any, name: str, args: tuple[Any, ...], nothing: Any) -> None:
    """PostgreSQL's text holds no NUL, so no row has one: the read finds nothing, as on SQLite,
    where psycopg would refuse to send the query (``DataError``, checked on the unguarded read)."""
    new_game(db)
    read = getattr(postgres, name)
    assert read(db, *args) == nothing
    with pytest.raises(psycopg.DataError):
        read.__wrapped__(db, *args)
