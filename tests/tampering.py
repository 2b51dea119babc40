"""Changing a stored record the way an outside tester does, with the database's own tools
and past the triggers that refuse it: lift the triggers, change rows, put the triggers back
(docs/tamper-evidence.md). Used by the tests that check what Kibitz finds afterwards.

Only the triggers that refuse the change are lifted (those counting the events,
``games.stored_events``, stay). On SQLite (``path`` a file): the triggers of
``service.storage.sqlite.TRIGGERS`` are dropped and created again from their own stored
SQL, on a connection of the test's own. On PostgreSQL (``path`` a ``postgresql://`` URL, as
the superuser): in one transaction, those of ``service.storage.postgres.TRIGGERS`` are
disabled and then each put back as it was (``ALWAYS``, as migration ``0010_sealed_events``
leaves them).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from service.storage import backend, postgres
from service.storage import sqlite as sqlite_store

#: Runs one SQL statement (with optional parameters) on the tampering connection; its rows.
Run = Callable[..., list[tuple[Any, ...]]]


@contextmanager
def lifted(path: Path | str) -> Iterator[Run]:
    """A connection to ``path`` with the triggers guarding ``events`` lifted for the block and
    put back after it (committed at the end; on PostgreSQL all in one transaction). Yields a
    function running one statement (``run(sql, params=())``, placeholders ``?`` on SQLite,
    ``%s`` on PostgreSQL) and returning its rows."""
    if backend.is_postgres(str(path)):
        import psycopg

        with psycopg.connect(str(path)) as pg:  # one transaction, committed when the block ends
            states = pg.execute("SELECT tgname, tgenabled::text FROM pg_trigger WHERE tgrelid = 'events'::regclass "
                                "AND tgname = ANY(%s)", [list(postgres.TRIGGERS)]).fetchall()
            assert {name for name, _ in states} == set(postgres.TRIGGERS), states
            for name, _ in states:
                pg.execute(f"ALTER TABLE events DISABLE TRIGGER {name}")

            def run_pg(sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
                cursor = pg.execute(sql, params)  # type: ignore[arg-type]
                return cursor.fetchall() if cursor.description else []

            yield run_pg
            enable = {"O": "ENABLE", "A": "ENABLE ALWAYS", "R": "ENABLE REPLICA", "D": "DISABLE"}
            for name, state in states:  # each put back as it was (the guarding ones ALWAYS)
                pg.execute(f"ALTER TABLE events {enable[state]} TRIGGER {name}")
        return
    conn = sqlite3.connect(path, isolation_level=None, timeout=30)
    try:
        kept = [(name, sql) for name, sql in conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'events'").fetchall()
            if name in sqlite_store.TRIGGERS]
        assert {name for name, _ in kept} == set(sqlite_store.TRIGGERS), kept
        for name, _ in kept:
            conn.execute(f"DROP TRIGGER {name}")

        def run_sqlite(sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
            return conn.execute(sql, params).fetchall()

        try:
            yield run_sqlite
        finally:
            for _, sql in kept:
                conn.execute(sql)
    finally:
        conn.close()
