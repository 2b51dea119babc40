"""The tests' PostgreSQL server (``tests/postgres.py``): skipped saying why without one, failing
instead under ``KIBITZ_REQUIRE_POSTGRES=1`` (as ``.ci/run`` sets it), a fresh schema per test."""

from __future__ import annotations

import psycopg
import pytest

from tests import postgres as pg_server
from tests.postgres import postgres_url  # noqa: F401  (the fixture)


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
