"""A connection that is lost (closed, or ended by its PostgreSQL server) on either backend:
``store.rollback`` never raises for it, ``store.is_lost`` says so, and the writer answers the
write that found it lost, drops it and commits the next write on a new one (a failure after a
commit is answered, and the next write goes on). The whole path through a real server
and a real PostgreSQL restart: tests/test_postgres_outage.py."""

from __future__ import annotations

import gc
import threading
import warnings

import psycopg
import pytest
from sqlite_utils import Database

from service.record.writer import Writer
from service.storage import backend as store


def _end(db) -> None:
    """Lose ``db``: on PostgreSQL its server ends its backend; SQLite's is closed."""
    if store.is_postgres(db):
        with psycopg.connect(db.info.dsn, autocommit=True) as other:
            other.execute("SELECT pg_terminate_backend(%s)", [db.info.backend_pid])
    else:
        db.close()


def test_a_lost_connection_rolls_back_without_raising(database: str) -> None:
    db = store.connect(database)
    assert not store.is_lost(db)
    with pytest.raises(Exception) as raised, store.immediate(db):
        db.execute("SELECT 1")
        _end(db)
        db.execute("SELECT 1")  # finds it lost
    if store.is_postgres(db):
        assert store.fault(raised.value) is not None  # a storage fault: 503 storage_unavailable
    assert store.is_lost(db)
    store.rollback(db)  # and again: never raises
    db.close()


def _table(database: str) -> None:
    db = store.connect(database)
    db.execute("CREATE TABLE t (n INTEGER PRIMARY KEY)")
    db.close()


def _stored(database: str) -> list[int]:
    db = store.connect(database)
    try:
        rows = db.execute("SELECT n FROM t ORDER BY n").fetchall()
        return [int(next(iter(row.values())) if isinstance(row, dict) else row[0]) for row in rows]
    finally:
        db.close()


def _insert(n: int):
    def job(db: Database) -> int:
        db.execute(f"INSERT INTO t (n) VALUES ({int(n)})")
        return n
    return job


def test_the_writer_answers_the_write_that_finds_its_connection_lost_and_commits_the_next(database: str) -> None:
    _table(database)
    writer = Writer(database, "FULL")
    assert writer.run(_insert(1)) == 1

    def ends_itself(db: Database) -> int:
        db.execute("INSERT INTO t (n) VALUES (2)")
        _end(db)
        db.execute("INSERT INTO t (n) VALUES (3)")
        return 2

    with pytest.raises(Exception) as raised:
        writer.run(ends_itself)
    if store.is_postgres(database):
        assert isinstance(raised.value, store.StorageUnavailable)
    assert writer.run(_insert(4)) == 4  # on a new connection
    assert _stored(database) == [1, 4]  # nothing of the lost write


@pytest.mark.parametrize("database", ["postgresql"], indirect=True)
def test_a_connection_the_server_ended_while_idle_costs_no_failed_write(database: str) -> None:
    _table(database)
    writer = Writer(database, "FULL")
    held: list[object] = []

    def note(db: Database) -> int:
        held.append(db)
        db.execute("INSERT INTO t (n) VALUES (1)")
        return 1

    assert writer.run(note) == 1
    _end(held[0])  # the writer's connection, idle between batches (as after a restart of the server)
    assert writer.run(_insert(2)) == 2  # begun again on a new connection: nothing had run
    assert _stored(database) == [1, 2]


def test_a_write_whose_commit_hook_fails_is_answered_with_it_and_the_next_write_commits(database: str) -> None:
    _table(database)
    failures = [SystemExit("the hook after the commit fails once")]

    def after_commit() -> None:
        if failures:
            raise failures.pop()

    writer = Writer(database, "FULL", on_commit=after_commit)
    answers: list[object] = []

    def write() -> None:
        for n in (1, 2):
            try:
                answers.append(writer.run(_insert(n)))
            except BaseException as err:  # noqa: BLE001 - the test looks at what each write got
                answers.append(err)

    tablet = threading.Thread(target=write, daemon=True)
    tablet.start()
    tablet.join(10)
    assert not tablet.is_alive(), "a write was left waiting"
    assert isinstance(answers[0], SystemExit)  # answered, not left waiting
    assert answers[1] == 2  # the next write commits as usual
    assert _stored(database) == [1, 2]


def test_a_writer_let_go_closes_the_connections_it_kept(database: str) -> None:
    """A writer keeps its connections between writes; once nothing refers to it (a CLI command
    done, a test's app gone, a writer caught in a reference cycle by a stored traceback) they
    are closed with it, not left open on the database server until the process ends (psycopg
    then warns: ResourceWarning, 'deleted while still open')."""
    with warnings.catch_warnings():  # what earlier tests left to the collector (their apps' connections) goes first,
        warnings.simplefilter("ignore", ResourceWarning)  # so the warnings below are this writer's alone
        gc.collect()
    _table(database)
    writer = Writer(database, "FULL")
    kept: list[Database] = []

    def note(db: Database) -> int:
        kept.append(db)
        db.execute("INSERT INTO t (n) VALUES (1)")
        return 1

    assert writer.run(note) == 1
    assert not store.is_lost(kept[0])  # kept for the next write
    writer._cycle = writer  # type: ignore[attr-defined]  # let go only through the collector, as a traceback would
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        del writer
        gc.collect()
    assert [str(warning.message) for warning in seen if issubclass(warning.category, ResourceWarning)] == []
    assert store.is_lost(kept[0])  # closed with the writer
    assert _stored(database) == [1]


def test_a_writer_closed_ends_its_connections_and_opens_new_ones_for_later_writes(database: str) -> None:
    _table(database)
    writer = Writer(database, "FULL")
    kept: list[Database] = []

    def note(n: int):
        def job(db: Database) -> int:
            kept.append(db)
            db.execute(f"INSERT INTO t (n) VALUES ({int(n)})")
            return n
        return job

    assert writer.run(note(1)) == 1
    writer.close()
    assert store.is_lost(kept[0])
    assert writer.run(note(2)) == 2  # a write after close opens a connection of its own
    assert kept[1] is not kept[0]
    writer.close()
    assert store.is_lost(kept[1])
    assert _stored(database) == [1, 2]
