"""The tests' PostgreSQL server (``tests/postgres.py``): skipped saying why without one, failing
instead under ``KIBITZ_REQUIRE_POSTGRES=1`` (as ``.ci/run`` sets it), a fresh schema per test."""

from __future__ import annotations

import psycopg
import pytest

from service.storage import postgres
from tests import postgres as pg_server
from tests.postgres import postgres_url  # noqa: F401  (the fixture)

CREATED = {"game": "toepen", "players": ["Ann", "Bob"], "visibility": "public", "options": {}}


def test_without_a_server_the_tests_skip_saying_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(pg_server.SERVER, raising=False)
    monkeypatch.delenv(pg_server.REQUIRE, raising=False)
    with pytest.raises(pytest.skip.Exception, match="tests/postgres_cluster.sh start"):
        pg_server.server_url()
    monkeypatch.setenv(pg_server.REQUIRE, "1")
    with pytest.raises(pytest.fail.Exception, match="KIBITZ_REQUIRE_POSTGRES=1 but no PostgreSQL server"):
        pg_server.server_url()
    monkeypatch.setenv(pg_server.SERVER, "postgresql://nobody@127.0.0.1:1/none")
    with pytest.raises(pytest.fail.Exception, match="cannot be reached"):
        pg_server.server_url()


def test_each_test_gets_a_fresh_empty_schema(postgres_url: str) -> None:  # noqa: F811
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        schema = conn.execute("SELECT current_schema()").fetchone()
        assert schema is not None and schema[0].startswith("t_")
        assert conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()").fetchone() == (0,)
        conn.execute("CREATE TABLE probe (x int)")


def test_a_migrated_schema_comes_back_empty_and_one_a_test_changed_is_never_reused() -> None:
    ready: pg_server.Ready = []
    with pg_server.migrated_schema(ready) as url, postgres.connect(url) as conn:
        first = conn.execute("SELECT current_schema() AS s").fetchone()
        assert postgres.migrate(conn) == []  # every migration is there already
        with postgres.immediate(conn):
            postgres.insert_game(conn, "g1", CREATED, "ab" * 32, "2026-01-01T00:00:00.000Z", "in_progress")
            postgres.append(conn, "g1", 1, "game_created", CREATED, "2026-01-01T00:00:00.000Z")
        postgres.remember(conn, "g1", "k", "h", 201, {}, "2026-01-01T00:00:00.000Z")
        left_open = postgres.connect(url)  # a connection the test forgets to close is ended
    assert [schema for schema, _, _ in ready] == [first["s"]]
    with pg_server.migrated_schema(ready) as url, postgres.connect(url) as conn:
        assert conn.execute("SELECT current_schema() AS s").fetchone() == first  # the same schema, again empty
        for table in ("games", "events", "idempotency", "tokens", "player_results"):
            assert conn.execute(f"SELECT count(*) AS n FROM {table}").fetchone() == {"n": 0}, table
        with postgres.immediate(conn):  # the identity starts again, the triggers are back on
            postgres.insert_game(conn, "g2", CREATED, "ab" * 32, "2026-01-01T00:00:00.000Z", "in_progress")
            postgres.append(conn, "g2", 1, "game_created", CREATED, "2026-01-01T00:00:00.000Z")
        assert conn.execute("SELECT rowid FROM games").fetchone() == {"rowid": 1}
        with pytest.raises(psycopg.errors.RestrictViolation, match="immutable"):
            conn.execute("DELETE FROM events")
        conn.execute("DROP TRIGGER events_no_delete ON events")  # the test changes the schema
    assert ready == []  # so it is dropped, not handed to the next test
    with psycopg.connect(pg_server.server_url(), autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM pg_namespace WHERE nspname = %s", [first["s"]]).fetchone() == (0,)
    with pytest.raises(psycopg.OperationalError):
        left_open.execute("SELECT 1")
    left_open.close()
