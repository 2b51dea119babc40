"""PostgreSQL's advisory locks belong to a whole database, not to a schema; each Kibitz database
in a schema of its own (docs/league.md, ``?options=-csearch_path%3Dleague``) takes its write
locks in its own space (``service.storage.postgres.lock_space``): a write of the whole of one
schema never waits for another schema's writes, while the writers of one schema still take
turns exactly as before. (Found when the test suite's schemas, one per test in one database,
waited for each other: a test holding the database's lock on purpose for 10 s stalled another
worker's writes past its bound.)"""

from __future__ import annotations

import threading
import time

import psycopg
import pytest

from service.storage import postgres


def _timed_begin(url: str, **kwargs: object) -> tuple[float, BaseException | None]:
    """Seconds a ``begin_write`` on a new connection to ``url`` took, and what it raised."""
    result: list[object] = [None, None]

    def run() -> None:
        db = postgres.connect(url, busy_timeout_ms=2000)
        started = time.monotonic()
        try:
            postgres.begin_write(db, **kwargs)  # type: ignore[arg-type]
            postgres.rollback(db)
        except BaseException as err:  # noqa: BLE001 - handed to the test
            result[1] = err
        result[0] = time.monotonic() - started
        db.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(60)
    assert not thread.is_alive(), "still waiting after 60 s"
    return float(result[0]), result[1]  # type: ignore[arg-type]


@pytest.mark.parametrize("games", [None, ["g1"]], ids=["whole", "game"])
def test_a_lock_held_in_one_schema_holds_up_that_schema_alone(migrated_postgres_url: str, other_postgres_url: str,
                                                               games: list[str] | None) -> None:
    holder = postgres.connect(migrated_postgres_url)
    try:
        postgres.begin_write(holder, games=games)  # held (the whole schema's lock, or game g1's)
        took, raised = _timed_begin(other_postgres_url, games=games)  # the other schema: at once
        assert raised is None and took < 1.5, (took, raised)
        took, raised = _timed_begin(migrated_postgres_url, games=games)  # the same schema: waits, then busy
        assert isinstance(raised, psycopg.errors.LockNotAvailable), raised
        assert took >= 1.9, took
    finally:
        postgres.rollback(holder)
        holder.close()
    took, raised = _timed_begin(migrated_postgres_url, games=games)  # released: at once again
    assert raised is None, raised


def test_each_schema_has_a_space_of_its_own(migrated_postgres_url: str, other_postgres_url: str) -> None:
    with postgres.connect(migrated_postgres_url) as a, postgres.connect(other_postgres_url) as b, \
            postgres.connect(migrated_postgres_url) as again:
        assert postgres.lock_space(a) == postgres.lock_space(again) != postgres.lock_space(b)
        assert postgres.write_lock_key(a) != postgres.write_lock_key(b)
        assert postgres.game_lock_key("g1", postgres.lock_space(a)) != postgres.game_lock_key("g1", postgres.lock_space(b))
