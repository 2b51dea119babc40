"""The PostgreSQL server of the tests: a fresh schema per test on the server named by
``KIBITZ_TEST_POSTGRES`` (docs/league.md, "Testing on PostgreSQL").

Start a throwaway server with ``tests/postgres_cluster.sh start DIR`` (it prints the URL to
export as ``KIBITZ_TEST_POSTGRES``) and remove it with ``tests/postgres_cluster.sh stop DIR``;
``.ci/run`` does both. Without the variable the PostgreSQL tests are skipped, saying why;
with ``KIBITZ_REQUIRE_POSTGRES=1`` (as in CI) they fail instead.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import quote

import pytest

SERVER = "KIBITZ_TEST_POSTGRES"
REQUIRE = "KIBITZ_REQUIRE_POSTGRES"
HOWTO = ("set KIBITZ_TEST_POSTGRES to a PostgreSQL URL (tests/postgres_cluster.sh start DIR starts a throwaway "
         "server and prints one)")


def server_url() -> str:
    """The URL of the test server; skips the test (fails it under ``KIBITZ_REQUIRE_POSTGRES=1``)
    when there is none or it cannot be reached, saying why."""
    url = os.environ.get(SERVER, "").strip()
    why = None
    if not url:
        why = f"no PostgreSQL server for the tests: {HOWTO}"
    else:
        import psycopg

        try:
            psycopg.connect(url, connect_timeout=5).close()
        except psycopg.Error as err:
            why = f"the PostgreSQL server at {url} cannot be reached ({err}): {HOWTO}"
    if why is not None:
        if os.environ.get(REQUIRE) == "1":
            pytest.fail(f"{REQUIRE}=1 but {why}")
        pytest.skip(why)
    return url


def with_schema(url: str, schema: str) -> str:
    """``url`` with every connection's ``search_path`` set to ``schema``."""
    options = quote(f"-csearch_path={schema}")
    return f"{url}{'&' if '?' in url else '?'}options={options}"


@contextmanager
def fresh_schema() -> Iterator[str]:
    """The URL of a fresh, empty schema on the test server, dropped afterwards."""
    import psycopg

    url = server_url()
    schema = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield with_schema(url, schema)
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """The URL of a fresh, empty schema on the test server, dropped after the test."""
    with fresh_schema() as url:
        yield url


@pytest.fixture
def other_postgres_url() -> Iterator[str]:
    """A second fresh schema (another league's database), beside :func:`postgres_url`'s."""
    with fresh_schema() as url:
        yield url
