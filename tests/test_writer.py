"""The writer: writes from many threads at once all land, each committed in its own thread and
transaction, each refused write rolled back alone.

The writer runs on both backends (``database``: tests/conftest.py); the checkpoints of the
write-ahead log are SQLite's."""

from __future__ import annotations

import threading
import time

import pytest
from sqlite_utils import Database

from service.record.writer import Writer
from service.storage import backend as store


@pytest.fixture
def committer(database):
    db = store.connect(database)
    db.execute("CREATE TABLE t (n INTEGER PRIMARY KEY)")
    db.close()
    return database, Writer(database, "FULL")


def sql(db, statement: str) -> str:
    """``statement``, written with SQLite's ``?`` placeholders, in the dialect of ``db``'s driver."""
    return statement.replace("?", "%s") if store.is_postgres(db) else statement


def first(row) -> int:
    """The first column of ``row`` (a tuple from SQLite, a dict from PostgreSQL)."""
    return int(next(iter(row.values())) if isinstance(row, dict) else row[0])


def stored(path: str) -> list[int]:
    db = store.connect(path)
    try:
        return [first(row) for row in db.execute("SELECT n FROM t ORDER BY n").fetchall()]
    finally:
        db.close()


def test_concurrent_writes_all_land_and_refusals_roll_back_alone(committer):
    path, writer = committer
    results: dict[int, str] = {}
    start = threading.Barrier(40)

    def job(n: int):
        def write(db: Database) -> int:
            db.execute(sql(db, "INSERT INTO t (n) VALUES (?)"), [n])
            if n % 5 == 0:
                raise ValueError(f"refused {n}")
            return n

        start.wait()
        try:
            results[n] = f"ok {writer.run(write)}"
        except ValueError as err:
            results[n] = str(err)

    threads = [threading.Thread(target=job, args=(n,)) for n in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert stored(path) == [n for n in range(40) if n % 5]
    assert results == {n: (f"refused {n}" if n % 5 == 0 else f"ok {n}") for n in range(40)}


def test_a_write_sees_the_writes_committed_before_it(committer):
    path, writer = committer
    seen: list[int] = []

    def write(db: Database) -> None:
        count = first(db.execute("SELECT count(*) FROM t").fetchone())
        seen.append(count)
        db.execute(sql(db, "INSERT INTO t (n) VALUES (?)"), [count])

    threads = [threading.Thread(target=writer.run, args=(write,)) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(seen) == list(range(20))
    assert stored(path) == list(range(20))


def test_the_result_comes_back_only_after_commit(committer):
    path, writer = committer

    def write(db: Database) -> list[int]:
        db.execute("INSERT INTO t (n) VALUES (7)")
        return stored(path)  # another connection: the insert is not committed yet

    assert writer.run(write) == []
    assert stored(path) == [7]


@pytest.mark.parametrize("database", ["sqlite"], indirect=True)  # SQLite's write-ahead log
def test_the_log_is_checkpointed_off_the_write_path(committer, monkeypatch):
    import sqlite3
    import time

    import service.record.writer

    path, writer = committer
    monkeypatch.setattr(service.record.writer, "CHECKPOINT_EVERY", 3)
    for n in range(9):
        writer.run(lambda db, n=n: db.execute("INSERT INTO t (n) VALUES (?)", [n]))

    def in_database_file() -> int:  # immutable=1 reads the main file only, not the log
        conn = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
        try:
            return int(conn.execute("SELECT count(*) FROM t").fetchone()[0])
        finally:
            conn.close()

    deadline = time.monotonic() + 60  # the checkpoint's thread runs at once; room for a loaded machine
    while in_database_file() < 9 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert in_database_file() == 9
    db = store.connect(path)
    try:
        assert db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 1000  # other connections keep SQLite's default
    finally:
        db.close()


@pytest.mark.parametrize("database", ["postgresql"], indirect=True)  # PostgreSQL's lock per game
def test_a_busy_game_waits_alone_keeps_its_order_and_fails_alone(committer):
    import psycopg

    from service.storage import postgres

    path, _writer = committer
    # the lock timeout is long enough that game B's write, which must not wait for A's lock,
    # ends well before it on a loaded machine: B done while A's write still waits is the claim
    writer = Writer(path, "FULL", busy_timeout_ms=4000)
    holder = psycopg.connect(path, autocommit=True)
    holder.execute("BEGIN")
    holder.execute("SELECT pg_advisory_xact_lock(%s, %s)", (postgres.GAME_LOCK, postgres.game_lock_key("A", postgres.lock_space(holder))))
    order: list[int] = []
    outcomes: dict[int, str] = {}

    def write(n: int):
        def job(db: Database) -> int:
            order.append(n)
            db.execute(sql(db, "INSERT INTO t (n) VALUES (?)"), [n])
            return n
        return job

    def run(n: int, game: str) -> None:
        try:
            outcomes[n] = f"ok {writer.run(write(n), games=[game])}"
        except store.StorageUnavailable as err:
            outcomes[n] = err.kind

    def queued(game: str, count: int) -> None:
        """Wait until ``count`` writes of ``game`` hold or wait for its turn in the writer."""
        deadline = time.monotonic() + 60
        while len(writer._turns._queues.get(game, ())) < count:
            assert time.monotonic() < deadline, f"{count} writes of {game} never came to the writer"
            time.sleep(0.01)

    first = threading.Thread(target=run, args=(1, "A"))
    first.start()
    queued("A", 1)  # the first write has A's turn and tries for A's lock until its timeout
    run(10, "B")  # another game: committed at once, not after A's lock
    assert outcomes == {10: "ok 10"}, outcomes  # while A's write still waits for its lock
    first.join(30)
    assert outcomes[1] == "busy"  # after the lock timeout, for A's write alone

    later = [threading.Thread(target=run, args=(n, "A")) for n in range(2, 7)]
    for count, thread in enumerate(later, start=1):  # queued behind each other while A is still held
        thread.start()
        queued("A", count)
    run(11, "B")
    assert outcomes[11] == "ok 11" and len(outcomes) == 3
    holder.execute("ROLLBACK")
    holder.close()
    for thread in later:
        thread.join(10)
    assert [outcomes[n] for n in range(2, 7)] == [f"ok {n}" for n in range(2, 7)]
    assert [n for n in order if n < 10] == [2, 3, 4, 5, 6]  # A's jobs ran in the order they came (1 never ran)
    assert stored(path) == [2, 3, 4, 5, 6, 10, 11]
    run(7, "A")  # once its jobs are done, A's writes go the usual way again
    assert outcomes[7] == "ok 7" and stored(path)[-3:] == [7, 10, 11]


@pytest.mark.parametrize("database", ["postgresql"], indirect=True)
def test_a_lock_one_job_waits_for_too_long_fails_that_job_alone(committer):
    import psycopg


    path, _writer = committer
    writer = Writer(path, "FULL", busy_timeout_ms=1000)
    holder = psycopg.connect(path, autocommit=True)
    holder.execute("BEGIN")
    holder.execute("SELECT pg_advisory_xact_lock(12345)")  # something a job waits for, past the timeout
    outcomes: dict[str, str] = {}

    def blocked(db: Database) -> None:
        db.execute(sql(db, "INSERT INTO t (n) VALUES (?)"), [1])
        db.execute("SELECT pg_advisory_xact_lock(12345)")

    def slow(db: Database) -> None:
        time.sleep(0.5)  # the next two jobs queue meanwhile: one batch
        db.execute(sql(db, "INSERT INTO t (n) VALUES (?)"), [0])

    def free(db: Database) -> None:
        db.execute(sql(db, "INSERT INTO t (n) VALUES (?)"), [2])

    def run(name: str, job, game: str) -> None:
        try:
            writer.run(job, games=[game])
            outcomes[name] = "ok"
        except store.StorageUnavailable as err:
            outcomes[name] = err.kind

    threads = [threading.Thread(target=run, args=("slow", slow, "S"))]
    threads[0].start()
    time.sleep(0.1)
    for name, job, game in (("blocked", blocked, "C"), ("free", free, "D")):
        threads.append(threading.Thread(target=run, args=(name, job, game)))
        threads[-1].start()
        time.sleep(0.05)
    for thread in threads:
        thread.join(10)
    holder.execute("ROLLBACK")
    holder.close()
    assert outcomes == {"slow": "ok", "blocked": "busy", "free": "ok"}
    assert stored(path) == [0, 2]


@pytest.mark.parametrize("database", ["sqlite"], indirect=True)  # SQLite's one write lock
def test_writes_that_wait_join_the_open_transaction_and_answer_after_its_one_commit(committer):
    path, _writer = committer
    commits: list[list[int]] = []
    writer = Writer(path, "FULL", on_commit=lambda: commits.append(stored(path)))
    hold, held = threading.Event(), threading.Event()
    answers: dict[int, object] = {}

    def insert(n: int, refuse: bool = False):
        def job(db: Database) -> int:
            db.execute("INSERT INTO t (n) VALUES (?)", [n])
            if n == 0:
                held.set()
                hold.wait(10)
            if refuse:
                raise ValueError(f"refused {n}")
            return n
        return job

    def submit(n: int, refuse: bool = False) -> None:
        try:
            answers[n] = (writer.run(insert(n, refuse)), len(commits))  # what each saw when answered
        except ValueError as err:
            answers[n] = (str(err), len(commits))

    threads = [threading.Thread(target=submit, args=(0,))]
    threads[0].start()
    assert held.wait(10)
    for n, refuse in ((1, False), (2, True), (3, False)):  # in this order, each waiting for the write lock
        threads.append(threading.Thread(target=submit, args=(n, refuse)))
        threads[-1].start()
        deadline = time.monotonic() + 60
        while len(writer._turns._queues.get("*", ())) < n + 1:
            assert time.monotonic() < deadline, f"write {n} never came to wait for the write lock"
            time.sleep(0.01)
    assert stored(path) == []  # nothing committed while the first write holds the lock
    hold.set()
    for thread in threads:
        thread.join(10)
    assert commits == [[0, 1, 3]]  # one commit for the four writes, the refused one's row rolled back alone
    assert answers == {0: (0, 1), 1: (1, 1), 2: ("refused 2", 1), 3: (3, 1)}  # each answered after that commit
    assert stored(path) == [0, 1, 3]
