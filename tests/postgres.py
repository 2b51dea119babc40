"""The PostgreSQL server of the tests: a schema of its own per test on the server named by
``KIBITZ_TEST_POSTGRES`` (docs/league.md, "Testing on PostgreSQL"). ``postgres_url`` is a new,
blank schema; ``migrated_postgres_url`` (the ``database`` of the suite's PostgreSQL runs) one
with every migration applied and every table empty, emptied again after each test and kept
for the next one of the same process (migrating a new schema for each test would cost more
than most tests).

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
from pathlib import Path
from typing import Any
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
    """``url`` with every connection's ``search_path`` set to ``schema`` (and its
    ``application_name`` the schema's name, so the test's connections to it can be found)."""
    options = quote(f"-csearch_path={schema}")
    return f"{url}{'&' if '?' in url else '?'}options={options}&application_name={schema}"


@contextmanager
def fresh_schema() -> Iterator[str]:
    """The URL of a new, empty schema on the test server, dropped on leaving the block."""
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


@contextmanager
def empty_database(backend: str, folder: Path) -> Iterator[str]:
    """What ``kibitz serve --db`` takes for a new database of ``backend``: ``folder/kibitz.db``
    (not there yet) for ``sqlite``, the URL of a :func:`fresh_schema` for ``postgresql``
    (dropped on leaving the block)."""
    if backend == "postgresql":
        with fresh_schema() as url:
            yield url
    else:
        yield str(folder / "kibitz.db")


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """The URL of a fresh, empty schema on the test server, dropped after the test."""
    with fresh_schema() as url:
        yield url


#: What :func:`_fingerprint` reads of a schema: its relations, columns, indexes, triggers (and
#: whether each is enabled), functions, constraints and applied migrations.
_FINGERPRINT = """SELECT md5(concat_ws('|',
  (SELECT string_agg(relname || ':' || relkind::text, ',' ORDER BY relname) FROM pg_class
   WHERE relnamespace = %(s)s::regnamespace),
  (SELECT string_agg(c.relname || '.' || a.attname || ':' || format_type(a.atttypid, a.atttypmod) || ':'
                     || a.attnotnull::text || ':' || a.attidentity::text || ':' || coalesce(pg_get_expr(d.adbin, d.adrelid), ''),
                     ',' ORDER BY c.relname, a.attnum)
   FROM pg_attribute AS a JOIN pg_class AS c ON c.oid = a.attrelid
   LEFT JOIN pg_attrdef AS d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
   WHERE c.relnamespace = %(s)s::regnamespace AND a.attnum > 0 AND NOT a.attisdropped),
  (SELECT string_agg(pg_get_indexdef(i.indexrelid), ',' ORDER BY pg_get_indexdef(i.indexrelid))
   FROM pg_index AS i JOIN pg_class AS c ON c.oid = i.indrelid WHERE c.relnamespace = %(s)s::regnamespace),
  (SELECT string_agg(t.tgname || ':' || t.tgenabled::text || ':' || pg_get_triggerdef(t.oid), ',' ORDER BY t.tgname)
   FROM pg_trigger AS t JOIN pg_class AS c ON c.oid = t.tgrelid
   WHERE c.relnamespace = %(s)s::regnamespace AND NOT t.tgisinternal),
  (SELECT string_agg(proname || ':' || md5(prosrc), ',' ORDER BY proname) FROM pg_proc
   WHERE pronamespace = %(s)s::regnamespace),
  (SELECT string_agg(conname || ':' || pg_get_constraintdef(oid), ',' ORDER BY conname) FROM pg_constraint
   WHERE connamespace = %(s)s::regnamespace),
  (SELECT string_agg(name, ',' ORDER BY name) FROM {schema}.kibitz_migrations))) AS fingerprint"""


def _fingerprint(conn: Any, schema: str) -> str | None:
    """A digest of the definition of ``schema`` (not of its rows), None when it cannot be read."""
    import psycopg

    try:
        row = conn.execute(_FINGERPRINT.format(schema=schema), {"s": schema}).fetchone()
    except psycopg.Error:
        return None
    return None if row is None else str(row[0])


#: This process's migrated schemas that are empty again, ready for the next test: ``(name,
#: fingerprint, the statements that empty it)`` (:func:`migrated_schema`).
Ready = list[tuple[str, str, str]]
_READY: Ready = []


def _emptying(conn: Any, schema: str) -> str:
    """The statements, in one transaction, that delete every row of ``schema`` but its applied
    migrations and restart its identity columns: the triggers that refuse to delete an event
    are off inside that transaction alone, and each is put back as it was (``ALWAYS``)."""
    tables = [row[0] for row in conn.execute(
        "SELECT relname FROM pg_class WHERE relnamespace = %s::regnamespace AND relkind = 'r' "
        "AND relname <> 'kibitz_migrations' ORDER BY relname", [schema])]
    triggers = [(row[0], row[1], row[2]) for row in conn.execute(
        "SELECT c.relname, t.tgname, t.tgenabled::text FROM pg_trigger AS t JOIN pg_class AS c ON c.oid = t.tgrelid "
        "WHERE c.relnamespace = %s::regnamespace AND NOT t.tgisinternal ORDER BY c.relname, t.tgname", [schema])]
    guarded = sorted({table for table, _, _ in triggers})
    enable = {"O": "ENABLE", "A": "ENABLE ALWAYS", "R": "ENABLE REPLICA", "D": "DISABLE"}  # each as it was
    identities = [(row[0], row[1]) for row in conn.execute(
        "SELECT c.relname, a.attname FROM pg_attribute AS a JOIN pg_class AS c ON c.oid = a.attrelid "
        "WHERE c.relnamespace = %s::regnamespace AND a.attidentity <> '' ORDER BY 1, 2", [schema])]
    return "; ".join(
        ["BEGIN"] + [f"ALTER TABLE {schema}.{table} DISABLE TRIGGER USER" for table in guarded]
        + [f"DELETE FROM {schema}.{table}" for table in tables]
        + [f"ALTER TABLE {schema}.{table} {enable[state]} TRIGGER {name}" for table, name, state in triggers]
        + [f"SELECT setval(pg_get_serial_sequence('{schema}.{table}', '{column}'), 1, false)"
           for table, column in identities] + ["COMMIT"])


def _migrated_schema(url: str) -> tuple[str, str, str]:
    """A new schema with every migration of ``service.storage.postgres`` applied, its
    fingerprint and the statements that empty it."""
    import psycopg

    from service.storage import postgres

    schema = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    with postgres.connect(with_schema(url, schema)) as conn:
        postgres.migrate(conn)
    with psycopg.connect(url, autocommit=True) as conn:
        fingerprint = _fingerprint(conn, schema)
        assert fingerprint is not None
        return schema, fingerprint, _emptying(conn, schema)


def _emptied(url: str, schema: str, fingerprint: str, emptying: str) -> bool:
    """Empty ``schema`` for the next test: end the connections the test left open to it, then,
    if its definition is still ``fingerprint``, run ``emptying`` (in one round trip) and return
    True; False (nothing emptied) when the test changed the definition."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SET lock_timeout = '10s'; SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                     f"WHERE application_name = '{schema}' AND pid <> pg_backend_pid()")
        if _fingerprint(conn, schema) != fingerprint:
            return False
        conn.execute(emptying)
        return True


def _drop(url: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture(scope="session")
def _migrated_schemas() -> Iterator[Ready]:
    """This process's ready schemas, each dropped at the end of the session."""
    yield _READY
    url = os.environ.get(SERVER, "").strip()
    while _READY and url:
        _drop(url, _READY.pop()[0])


@contextmanager
def migrated_schema(ready: Ready) -> Iterator[str]:
    """The URL of a schema holding every migration and no row: what the service makes of an
    empty database when it starts (``service.storage.connections.init_app``), without the cost of migrating a
    new schema for each test. The schema is taken from ``ready`` when one is there, else
    created and migrated; afterwards its tables are emptied and it goes back to ``ready`` (or,
    if the test changed its definition, it is dropped)."""
    url = server_url()
    schema, fingerprint, emptying = ready.pop() if ready else _migrated_schema(url)
    try:
        yield with_schema(url, schema)
    finally:
        if _emptied(url, schema, fingerprint, emptying):
            ready.append((schema, fingerprint, emptying))
        else:
            _drop(url, schema)


@pytest.fixture
def migrated_postgres_url(_migrated_schemas: Ready) -> Iterator[str]:
    """The URL of an empty, migrated schema (:func:`migrated_schema`): the PostgreSQL ``database``."""
    with migrated_schema(_migrated_schemas) as url:
        yield url


@pytest.fixture
def other_postgres_url(_migrated_schemas: Ready) -> Iterator[str]:
    """A second empty, migrated schema, for a second server of the same test."""
    with migrated_schema(_migrated_schemas) as url:
        yield url
