"""The writer meets a real full database (``max_page_count``): writes that came while one held
the write lock share its transaction (SQLite: service/record/writer.py), and a fault in it fails the
whole transaction with ``StorageUnavailable``: none of it is stored (not even its writes
before the fault), a refusal in it keeps its own error, and the next write after space is
freed commits on a fresh connection."""

from __future__ import annotations

import threading
import time

import pytest
from sqlite_utils import Database

from service.record.writer import Writer
from service.storage import sqlite as store


def rows(path: str) -> list[str]:
    db = store.connect(path)
    try:
        return [row[0] for row in db.execute("SELECT name FROM t ORDER BY name").fetchall()]
    finally:
        db.close()


def test_a_fault_fails_the_whole_transaction_and_the_next_write_commits_once_space_is_freed(tmp_path):
    path = str(tmp_path / "w.db")
    db = store.connect(path)
    db.execute("CREATE TABLE t (name TEXT, blob BLOB)")
    db.execute("CREATE TABLE filler (b BLOB)")
    db.execute("INSERT INTO filler VALUES (zeroblob(200000))")
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.close()
    writer = Writer(path, "FULL", max_page_count=pages)
    hold, held = threading.Event(), threading.Event()

    def blocker(conn: Database) -> str:  # holds the write lock while the next writes queue up
        conn.execute("INSERT INTO t (name) VALUES ('first')")
        held.set()
        hold.wait(10)
        return "first"

    def small(conn: Database) -> str:
        conn.execute("INSERT INTO t (name) VALUES ('small')")  # fits in the page t has
        return "small"

    def refused(conn: Database) -> str:
        raise ValueError("refused by the rules")

    def big(conn: Database) -> str:
        conn.execute("INSERT INTO t (name, blob) VALUES ('big', zeroblob(100000))")  # needs new pages
        return "big"

    outcomes: dict[str, object] = {}

    def submit(name: str, job) -> None:
        try:
            outcomes[name] = writer.run(job)
        except Exception as err:  # noqa: BLE001 - the test looks at what each write got
            outcomes[name] = err

    first = threading.Thread(target=submit, args=("first", blocker))
    first.start()
    assert held.wait(10)
    queued = [threading.Thread(target=submit, args=(name, job))
              for name, job in (("small", small), ("refused", refused), ("big", big))]
    for n, thread in enumerate(queued, start=2):  # in this order, each waiting for the write lock
        thread.start()
        deadline = time.monotonic() + 60
        while len(writer._turns._queues.get("*", ())) < n:
            assert time.monotonic() < deadline, f"write {n} never came to wait for the write lock"
            threading.Event().wait(0.01)
    hold.set()
    for thread in (first, *queued):
        thread.join(30)
    assert isinstance(outcomes["first"], store.StorageUnavailable) and outcomes["first"].kind == "full"
    assert isinstance(outcomes["small"], store.StorageUnavailable) and outcomes["small"].kind == "full"
    assert isinstance(outcomes["big"], store.StorageUnavailable) and outcomes["big"].kind == "full"
    assert isinstance(outcomes["refused"], ValueError)  # its own refusal, not the fault
    assert rows(path) == []  # nothing of the transaction: not even 'first' and 'small', written before the fault

    assert writer.run(small) == "small"  # on its own it fits: it failed above only with its batch
    with pytest.raises(store.StorageUnavailable):
        writer.run(big)
    db = store.connect(path)
    db.execute("DROP TABLE filler")
    db.close()
    assert writer.run(big) == "big"
    assert writer.run(small) == "small"
    assert rows(path) == ["big", "small", "small"]
