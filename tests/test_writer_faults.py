"""The writer meets a real full database (``max_page_count``): a write that fails with the
fault stores nothing of itself (not even what it wrote before the fault) and raises
``StorageUnavailable``; writes that fit commit beside it, a refusal keeps its own error, and
the next write after space is freed commits on a fresh connection."""

from __future__ import annotations

import threading

import pytest
from sqlite_utils import Database

from service.storage import sqlite as store
from service.writer import Writer


def rows(path: str) -> list[str]:
    db = store.connect(path)
    try:
        return [row[0] for row in db.execute("SELECT name FROM t ORDER BY name").fetchall()]
    finally:
        db.close()


def test_a_fault_stores_nothing_of_its_write_and_the_next_write_commits_once_space_is_freed(tmp_path):
    path = str(tmp_path / "w.db")
    db = store.connect(path)
    db.execute("CREATE TABLE t (name TEXT, blob BLOB)")
    db.execute("CREATE TABLE filler (b BLOB)")
    db.execute("INSERT INTO filler VALUES (zeroblob(200000))")
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.close()
    writer = Writer(path, "FULL", max_page_count=pages)

    def small(conn: Database) -> str:
        conn.execute("INSERT INTO t (name) VALUES ('small')")  # fits in the page t has
        return "small"

    def refused(conn: Database) -> str:
        conn.execute("INSERT INTO t (name) VALUES ('refused')")
        raise ValueError("refused by the rules")

    def big(conn: Database) -> str:
        conn.execute("INSERT INTO t (name, blob) VALUES ('big', zeroblob(100000))")  # needs new pages
        return "big"

    def small_then_big(conn: Database) -> str:
        small(conn)
        return big(conn)

    outcomes: dict[str, object] = {}

    def submit(name: str, job) -> None:
        try:
            outcomes[name] = writer.run(job)
        except Exception as err:  # noqa: BLE001 - the test looks at what each write got
            outcomes[name] = err

    writes = [threading.Thread(target=submit, args=(name, job))  # at once, from threads of their own
              for name, job in (("small", small), ("refused", refused), ("small then big", small_then_big),
                                ("big", big))]
    for thread in writes:
        thread.start()
    for thread in writes:
        thread.join(30)
    assert outcomes["small"] == "small"
    assert isinstance(outcomes["refused"], ValueError)  # its own refusal, not a fault
    for name in ("small then big", "big"):
        assert isinstance(outcomes[name], store.StorageUnavailable) and outcomes[name].kind == "full"
    assert rows(path) == ["small"]  # nothing of the failed writes: not even the small row written before the fault

    with pytest.raises(store.StorageUnavailable):
        writer.run(big)
    db = store.connect(path)
    db.execute("DROP TABLE filler")
    db.close()
    assert writer.run(big) == "big"
    assert writer.run(small) == "small"
    assert rows(path) == ["big", "small", "small"]
