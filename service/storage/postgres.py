"""The PostgreSQL backend: the event log of ``service.storage.sqlite`` on a PostgreSQL server.

psycopg 3 (``psycopg[binary]``) with its connection pool (``psycopg_pool``). The tables, their
columns and the text stored in them are SQLite's (JSON as text, times as ISO 8601 UTC text),
so an event's ``hash`` is the same on both backends. What the database itself enforces:

- ``events``: ``(game_id, seq)`` is the primary key; triggers refuse ``UPDATE``, ``DELETE``
  and ``TRUNCATE`` (``events are immutable: … refused``); an ``Idempotency-Key`` is unique
  per game (a partial unique index);
- :func:`append` chains the event's ``hash`` to the stored hash of the event before and
  sets ``games.record_hash``, inside the caller's transaction, and stores nothing unless
  ``seq`` follows the last stored event of the game;
- :func:`append` notifies channel :data:`CHANNEL` with ``<game id>:<seq>`` (``pg_notify``,
  delivered by the server when the transaction commits, never for one rolled back), so that
  every ``kibitz serve`` process on the database hears of the move at once (:func:`listen`,
  :func:`changes`; ``service.record.listener``);
- writes lock per game (:func:`begin_write` with ``games``): a transaction holds the write
  lock of each game it writes (``pg_advisory_xact_lock``, to the transaction's end), so
  writers in any number of processes or machines take turns on one game (reading its version
  and appending after it happen under its lock) while other games' writes go on; a write of
  the whole database (:func:`immediate`, :func:`begin_write` without ``games``) holds the
  database's write lock alone, waiting for every game write and making them wait.

The migrations are the project's numbered ones (:data:`MIGRATIONS`, the names of
``service.storage.migrations.MIGRATIONS``) in PostgreSQL's dialect, recorded in the
``kibitz_migrations`` table and applied by :func:`migrate` in one transaction under an
advisory lock, so several processes may start at once. This backend implements
:class:`service.storage.interface.Store`, the whole interface; ``service.storage.backend``
hands it the calls made on its connections (``kibitz serve --db postgresql://…``: docs/league.md).
"""

from __future__ import annotations

import functools
import json
import secrets
import time
import weakref
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ParamSpec, Protocol, TypeVar, cast

import psycopg
from psycopg import errors
from psycopg.rows import dict_row, tuple_row
from psycopg_pool import ConnectionPool

from replays import chain
from schemas.common import scrub
from service.storage import postgres_bounds as bounds
from service.storage.interface import Moment, RecordDamaged, StorageUnavailable
from service.storage.sqlite import data_text as sqlite_data_text
from service.storage.sqlite import decode_cursor, encode_cursor, loads

P = ParamSpec("P")
R = TypeVar("R")

#: A connection of this backend: psycopg's, in autocommit mode, rows as dicts.
Connection = psycopg.Connection[dict[str, Any]]

#: The key of the database's advisory write lock (``begin_write``): held alone by a write of
#: the whole database, shared by every write of some games.
WRITE_LOCK = 0x6B6962_01
#: The first key of a game's advisory write lock (the second: :func:`game_lock_key`).
GAME_LOCK = 0x6B6962_03
#: The key of the advisory lock :func:`migrate` holds.
MIGRATE_LOCK = 0x6B6962_02
#: How long a write waits for another's lock before it is a ``busy`` storage fault.
LOCK_TIMEOUT_MS = 10_000
#: The levels ``connect`` takes, as SQLite's (``service.storage.sqlite.SYNCHRONOUS_LEVELS``).
SYNCHRONOUS_LEVELS = ("OFF", "NORMAL", "FULL", "EXTRA")
#: The channel each append notifies at commit (``<game id>:<seq>``; ``<game id>:tokens`` when
#: its tokens are issued, restored or revoked): :func:`listen`, :func:`changes`.
CHANNEL = "kibitz_events"

#: The database's guard, as a column of a query (:func:`head`, :func:`guard`): the identity
#: (oid), the last change (``xmin``) and the state (``tgenabled``) of every trigger on
#: ``events``, ``games``, ``player_results`` and ``results_seal`` and of the function it runs,
#: and the oids of those tables. Dropping a trigger and creating it again, disabling and
#: enabling it, replacing its function or the table each change it, even when what stands at
#: the end looks as before: so a stored event cannot be changed, nor ``results_seal`` set
#: back, unseen by a running server (``service.record.cache.FoldCache.observe``).
GUARD = ("(SELECT coalesce(string_agg(t.oid::text || '.' || t.xmin::text || '.' || t.tgenabled::text || '.' "
         "|| f.oid::text || '.' || f.xmin::text, ',' ORDER BY t.oid), '') FROM pg_trigger AS t "
         "JOIN pg_proc AS f ON f.oid = t.tgfoid WHERE t.tgrelid IN ('events'::regclass, 'games'::regclass, "
         "to_regclass('player_results'), to_regclass('results_seal'))) "
         "|| ';' || 'events'::regclass::oid::text || ';' || 'games'::regclass::oid::text || ';' "
         "|| coalesce(to_regclass('player_results')::oid::text, '') || ';' "
         "|| coalesce(to_regclass('results_seal')::oid::text, '')")


def is_url(target: object) -> bool:
    """True when ``target`` (a ``--db`` / ``KIBITZ_DB`` value) names a PostgreSQL database
    (``postgresql://…`` or ``postgres://…``); a path or a ``sqlite:`` URL is SQLite's."""
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


def _configure(conn: Connection, lock_timeout_ms: int = LOCK_TIMEOUT_MS) -> None:
    conn.autocommit = True
    settings = bounds.session_settings(conn, lock_timeout_ms)  # statement_timeout after lock_timeout
    conn.execute(f"SET lock_timeout = {int(lock_timeout_ms)}; SET TIME ZONE 'UTC'; {settings}".encode())


def connect(path: str | Path, synchronous: str = "FULL", *, busy_timeout_ms: int | None = None,
            max_page_count: int | None = None) -> Connection:
    """Open a connection to the PostgreSQL database at URL ``path`` (a libpq URL, for example
    ``postgresql://user@host:5432/kibitz``), in autocommit mode: transactions are opened
    explicitly (:func:`begin_write`, :func:`immediate`, :func:`snapshot`).

    The options are ``service.storage.sqlite.connect``'s: ``synchronous`` ``OFF`` turns
    ``synchronous_commit`` off (a commit may be lost in a crash of the server), any other of
    :data:`SYNCHRONOUS_LEVELS` keeps it on; ``busy_timeout_ms`` is how long a write waits for
    the write lock (:data:`LOCK_TIMEOUT_MS` by default). ``max_page_count`` is SQLite's alone:
    raises ``ValueError`` when given, or for an unknown level. Raises
    ``psycopg.OperationalError`` when the server cannot be reached, and
    :class:`~service.storage.postgres_bounds.NotAnswering` (one of them) when it does not
    answer in time.

    Every wait of the connection on its server is bounded (``service.storage.postgres_bounds``:
    the server's ``statement_timeout`` and ``idle_in_transaction_session_timeout``, a watchdog
    that gives up the waits on a server that does not answer, a last bound on each wait,
    ``connect_timeout``, TCP keepalives and ``tcp_user_timeout``); a server that stops
    answering is a storage fault (``not_answering``)."""
    level = synchronous.upper()
    if level not in SYNCHRONOUS_LEVELS:
        raise ValueError(f"synchronous must be one of {', '.join(SYNCHRONOUS_LEVELS)}, not {synchronous!r}")
    if max_page_count is not None:
        raise ValueError("max_page_count is SQLite's: a PostgreSQL server's space is its own to limit")
    conn: Connection = bounds.open_bounded(str(path), row_factory=dict_row, autocommit=True)
    try:
        _configure(conn, LOCK_TIMEOUT_MS if busy_timeout_ms is None else busy_timeout_ms)
        if level == "OFF":
            conn.execute("SET synchronous_commit = off")
    except BaseException:
        conn.close()
        raise
    return conn


def open_pool(url: str, *, min_size: int = 1, max_size: int = 8) -> ConnectionPool[Connection]:
    """A pool of connections to ``url`` configured as :func:`connect`'s (``pool.connection()``
    lends one; a transaction left open by a borrower is rolled back when it is returned).
    Each connection's waits have :func:`connect`'s last bound, it is checked before it is lent,
    and a borrower waits for one at most as long as one may take to open. Waits until ``min_size`` connections
    are open; raises ``psycopg_pool.PoolTimeout`` when the server cannot be reached."""
    pool: ConnectionPool[Connection] = ConnectionPool(
        url, min_size=min_size, max_size=max_size, open=False, configure=_configure,
        connection_class=bounds.BoundedConnection, check=ConnectionPool.check_connection,
        kwargs={"row_factory": dict_row, "autocommit": True, **bounds.options(url)},
        timeout=bounds.CONNECT_SECONDS, reconnect_timeout=60)
    pool.open(wait=True, timeout=30)
    return pool


# --- migrations ----------------------------------------------------------------------

#: The message of the triggers that make PostgreSQL refuse to change a stored event.
IMMUTABLE = "events are immutable: %s refused"
#: The triggers that make PostgreSQL refuse to change a stored event, and what each refuses.
TRIGGERS = {"events_no_update": "UPDATE", "events_no_delete": "DELETE", "events_no_truncate": "TRUNCATE"}
#: The triggers on ``player_results`` (migration ``0011_results_seal``): one counting each
#: insert, update and delete of a row in ``results_seal``, one refusing ``TRUNCATE`` (which
#: fires no row trigger), by what they do.
RESULTS_TRIGGERS = {"INSERT, UPDATE, DELETE": "results_counted", "TRUNCATE": "results_no_truncate"}
#: The triggers that make ``results_seal`` only count up (a new row at 0, an update by one):
#: one for its rows, one refusing ``TRUNCATE``.
SEAL_TRIGGERS = {"INSERT, UPDATE, DELETE": "results_seal_forward", "TRUNCATE": "results_seal_no_truncate"}
#: The message of the triggers that refuse to set ``results_seal`` back (``%`` is the statement).
SEALED = "results_seal only counts up: % refused"

_INITIAL = [
    "CREATE TABLE games (rowid BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE, id TEXT PRIMARY KEY, "
    "game TEXT NOT NULL, title TEXT, players TEXT NOT NULL, player_keys TEXT NOT NULL, visibility TEXT NOT NULL, "
    "options TEXT NOT NULL, token_hash TEXT NOT NULL, created_at TEXT NOT NULL, version BIGINT NOT NULL, "
    "status TEXT)",
    "CREATE INDEX games_created_at ON games (created_at)",
    "CREATE TABLE events (game_id TEXT NOT NULL, seq BIGINT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, "
    "recorded_at TEXT NOT NULL, at TEXT, idempotency_key TEXT, PRIMARY KEY (game_id, seq))",
    "CREATE UNIQUE INDEX events_idempotency ON events (game_id, idempotency_key) WHERE idempotency_key IS NOT NULL",
    "CREATE FUNCTION kibitz_events_immutable() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
    f"RAISE EXCEPTION '{IMMUTABLE}', TG_OP USING ERRCODE = 'restrict_violation'; END $$",
    "CREATE TRIGGER events_no_update BEFORE UPDATE ON events FOR EACH ROW EXECUTE FUNCTION kibitz_events_immutable()",
    "CREATE TRIGGER events_no_delete BEFORE DELETE ON events FOR EACH ROW EXECUTE FUNCTION kibitz_events_immutable()",
    "CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events FOR EACH STATEMENT "
    "EXECUTE FUNCTION kibitz_events_immutable()",
    "CREATE TABLE idempotency (game_id TEXT NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL, "
    "status BIGINT NOT NULL, response TEXT NOT NULL, created_at TEXT, PRIMARY KEY (game_id, key))",
]

#: The project's numbered migrations in PostgreSQL's dialect, by the names SQLite's have.
#: The backfills of SQLite's 0002, 0004 and 0007 (folding games stored before them) have
#: nothing to fold here: a PostgreSQL database gets every migration before its first game.
MIGRATIONS: list[tuple[str, list[str]]] = [
    ("0001_initial", _INITIAL),
    ("0002_player_results", [
        "ALTER TABLE games ADD COLUMN imported_at TEXT",
        "CREATE TABLE player_results (game_id TEXT NOT NULL, player_key TEXT NOT NULL, name TEXT NOT NULL, "
        "seat BIGINT NOT NULL, game TEXT NOT NULL, created_at TEXT NOT NULL, status TEXT NOT NULL, "
        "result TEXT NOT NULL, score BIGINT, unit TEXT, hands BIGINT, tricks_won BIGINT, fools BIGINT, "
        "knocks BIGINT, stops BIGINT, PRIMARY KEY (game_id, player_key))",
        "CREATE INDEX player_results_player_key_created_at ON player_results (player_key, created_at)",
    ]),
    ("0003_forked_from", [
        "ALTER TABLE games ADD COLUMN forked_from_game TEXT",
        "ALTER TABLE games ADD COLUMN forked_from_seq BIGINT",
        "CREATE INDEX games_forked_from_game ON games (forked_from_game)",
    ]),
    ("0004_fork_lineage", [
        "ALTER TABLE games ADD COLUMN secret_from_hand BIGINT",
        "ALTER TABLE games ADD COLUMN fork_lineage TEXT",
    ]),
    ("0005_import_source", [
        "ALTER TABLE games ADD COLUMN source_game TEXT",
        "CREATE INDEX games_source_game ON games (source_game)",
    ]),
    ("0006_tokens", [
        "CREATE TABLE tokens (game_id TEXT NOT NULL, token_hash TEXT NOT NULL, created_at TEXT NOT NULL, "
        "revoked_at TEXT, PRIMARY KEY (game_id, token_hash))",
        "INSERT INTO tokens (token_hash, game_id, created_at) SELECT token_hash, id, created_at FROM games",
        "ALTER TABLE games DROP COLUMN token_hash",
    ]),
    ("0007_player_keys_nfc", []),
    ("0008_hash_chain", [
        "ALTER TABLE events ADD COLUMN salt TEXT",
        "ALTER TABLE events ADD COLUMN hash TEXT",
        "ALTER TABLE games ADD COLUMN record_hash TEXT",
    ]),
    ("0009_stored_events", [  # as SQLite's: the events of each game counted by a trigger
        "ALTER TABLE games ADD COLUMN stored_events BIGINT NOT NULL DEFAULT 0",
        "UPDATE games SET stored_events = (SELECT count(*) FROM events WHERE events.game_id = games.id)",
        "CREATE FUNCTION kibitz_events_counted() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "IF TG_OP = 'INSERT' THEN UPDATE games SET stored_events = stored_events + 1 WHERE id = NEW.game_id; "
        "ELSE UPDATE games SET stored_events = stored_events - 1 WHERE id = OLD.game_id; END IF; "
        "RETURN NULL; END $$",
        "CREATE TRIGGER events_counted AFTER INSERT OR DELETE ON events FOR EACH ROW "
        "EXECUTE FUNCTION kibitz_events_counted()",
    ]),
    # SQLite's 0010 refuses INSERT OR REPLACE of a stored event; PostgreSQL has no such
    # statement (ON CONFLICT DO UPDATE fires the UPDATE trigger). Here the triggers fire
    # ALWAYS: also for a session with session_replication_role = replica, which would skip
    # them without changing the guard that a running server watches (docs/tamper-evidence.md);
    # and a change of a games row that is not a move's (which changes its version, its
    # record_hash or its stored_events, and notifies for itself) notifies CHANNEL
    # (``<id>:row``), so that the servers' answers from memory (service.web.boards) hear of one
    # made behind their back.
    ("0010_sealed_events", [
        *(f"ALTER TABLE events ENABLE ALWAYS TRIGGER {name}" for name in TRIGGERS),
        "CREATE FUNCTION kibitz_games_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        f"PERFORM pg_notify('{CHANNEL}', NEW.id || ':row'); RETURN NULL; END $$",
        "CREATE TRIGGER games_changed AFTER UPDATE ON games FOR EACH ROW WHEN (OLD.version IS NOT DISTINCT FROM "
        "NEW.version AND OLD.record_hash IS NOT DISTINCT FROM NEW.record_hash AND OLD.stored_events IS NOT "
        "DISTINCT FROM NEW.stored_events) "
        "EXECUTE FUNCTION kibitz_games_changed()",
        "ALTER TABLE games ENABLE ALWAYS TRIGGER games_changed",
    ]),
    # As SQLite's 0011: every change of a player_results row counted in results_seal, which
    # only counts up (its triggers refuse anything else, TRUNCATE included, and fire ALWAYS).
    ("0011_results_seal", [
        "CREATE TABLE results_seal (game_id TEXT PRIMARY KEY, n BIGINT NOT NULL)",
        "CREATE FUNCTION kibitz_results_counted() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "IF TG_OP IN ('UPDATE', 'DELETE') THEN "
        "INSERT INTO results_seal (game_id, n) VALUES (OLD.game_id, 0) ON CONFLICT (game_id) DO NOTHING; "
        "UPDATE results_seal SET n = n + 1 WHERE game_id = OLD.game_id; END IF; "
        "IF TG_OP IN ('INSERT', 'UPDATE') THEN "
        "INSERT INTO results_seal (game_id, n) VALUES (NEW.game_id, 0) ON CONFLICT (game_id) DO NOTHING; "
        "UPDATE results_seal SET n = n + 1 WHERE game_id = NEW.game_id; END IF; "
        "RETURN NULL; END $$",
        f"CREATE TRIGGER {RESULTS_TRIGGERS['INSERT, UPDATE, DELETE']} AFTER INSERT OR UPDATE OR DELETE "
        "ON player_results FOR EACH ROW EXECUTE FUNCTION kibitz_results_counted()",
        "CREATE FUNCTION kibitz_results_sealed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "IF TG_OP = 'INSERT' THEN IF NEW.n = 0 THEN RETURN NEW; END IF; "
        "ELSIF TG_OP = 'UPDATE' THEN IF NEW.n = OLD.n + 1 AND NEW.game_id = OLD.game_id THEN RETURN NEW; END IF; "
        "END IF; "
        f"RAISE EXCEPTION '{SEALED}', TG_OP USING ERRCODE = 'restrict_violation'; END $$",
        f"CREATE TRIGGER {SEAL_TRIGGERS['INSERT, UPDATE, DELETE']} BEFORE INSERT OR UPDATE OR DELETE ON results_seal "
        "FOR EACH ROW EXECUTE FUNCTION kibitz_results_sealed()",
        f"CREATE TRIGGER {SEAL_TRIGGERS['TRUNCATE']} BEFORE TRUNCATE ON results_seal FOR EACH STATEMENT "
        "EXECUTE FUNCTION kibitz_results_sealed()",
        f"CREATE TRIGGER {RESULTS_TRIGGERS['TRUNCATE']} BEFORE TRUNCATE ON player_results FOR EACH STATEMENT "
        "EXECUTE FUNCTION kibitz_results_sealed()",
        f"ALTER TABLE player_results ENABLE ALWAYS TRIGGER {RESULTS_TRIGGERS['INSERT, UPDATE, DELETE']}",
        f"ALTER TABLE player_results ENABLE ALWAYS TRIGGER {RESULTS_TRIGGERS['TRUNCATE']}",
        f"ALTER TABLE results_seal ENABLE ALWAYS TRIGGER {SEAL_TRIGGERS['INSERT, UPDATE, DELETE']}",
        f"ALTER TABLE results_seal ENABLE ALWAYS TRIGGER {SEAL_TRIGGERS['TRUNCATE']}",
    ]),
]


def applied(db: Connection) -> list[str]:
    """The names of the migrations applied to ``db``, in order (``[]`` for an empty database)."""
    found = db.execute("SELECT to_regclass('kibitz_migrations') AS t").fetchone()
    if found is None or found["t"] is None:
        return []
    return [str(row["name"]) for row in db.execute("SELECT name FROM kibitz_migrations ORDER BY name")]


#: How long one statement of a migration may go unanswered (seconds): the server itself sets
#: them no ``statement_timeout``, since building an index of a large table may take long.
MIGRATION_SECONDS = 600.0


def migrate(db: Connection) -> list[str]:
    """Apply the pending :data:`MIGRATIONS` to ``db``, all in one transaction under an
    advisory lock (several processes may call it at once: one applies, the others then find
    nothing pending). Returns the names applied now. Raises ``psycopg.errors.InvalidSchemaName``
    (in words a terminal may print) when no schema of the URL's ``search_path`` exists, and the
    driver's error when the server refuses."""
    done: list[str] = []
    row = db.execute("SELECT current_schema() AS name").fetchone()
    if row is None or row["name"] is None:
        raise errors.InvalidSchemaName("no schema of its search_path exists to create the tables in: create it "
                                       "(CREATE SCHEMA name) or name one that exists")
    with bounds.waiting(db, MIGRATION_SECONDS), immediate(db, lock=MIGRATE_LOCK):
        db.execute("SET LOCAL statement_timeout = 0")  # building an index of a large table may take long
        db.execute("CREATE TABLE IF NOT EXISTS kibitz_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
        have = set(applied(db))
        for name, statements in MIGRATIONS:
            if name in have:
                continue
            for statement in statements:
                db.execute(statement)
            db.execute("INSERT INTO kibitz_migrations (name, applied_at) "
                       "VALUES (%s, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'))", [name])
            done.append(name)
    return done


# --- storage faults ------------------------------------------------------------------

#: What the 503 says for each kind of fault, and its ``Retry-After`` in seconds.
FAULT_DETAILS = {
    "full": ("The database server's disk is full: nothing was stored. Free some space on it, then try again.", 5),
    "read_only": ("The database server does not take writes now (read-only): nothing was stored. Try again "
                  "once it does.", 5),
    "cannot_open": ("The server cannot reach its PostgreSQL database: nothing was stored. Try again.", 5),
    "io_error": ("The database server reported an error: nothing was stored. Try again.", 5),
    "busy": ("Another write held the database for too long: nothing was stored. Try again.", 1),
    "not_answering": ("The database server is not answering (it may be paused, overloaded, or cut off from this "
                      "server): nothing was stored. Try again.", 5),
}

_FAULTS: list[tuple[type[BaseException], str]] = [
    (bounds.NotAnswering, "not_answering"),
    (errors.DiskFull, "full"),
    (errors.ReadOnlySqlTransaction, "read_only"),
    (errors.LockNotAvailable, "busy"),
    (errors.QueryCanceled, "busy"),
    (errors.DeadlockDetected, "busy"),
    (errors.SerializationFailure, "busy"),
    (errors.IoError, "io_error"),
    # the server ended a transaction left idle past idle_in_transaction_session_timeout (postgres_bounds)
    (errors.IdleInTransactionSessionTimeout, "io_error"),
    (psycopg.OperationalError, "cannot_open"),
]


def fault(err: BaseException) -> StorageUnavailable | None:
    """The storage fault that ``err`` is (a psycopg error meaning the database cannot take
    the write now: disk full, read-only, a lock held past :data:`LOCK_TIMEOUT_MS`, a statement
    past ``statement_timeout``, the server unreachable or not answering; or a
    :class:`StorageUnavailable` already), or None for any other error."""
    if isinstance(err, StorageUnavailable):
        return err
    for kind_of, kind in _FAULTS:
        if isinstance(err, kind_of):
            detail, retry_after = FAULT_DETAILS[kind]
            return StorageUnavailable(kind, detail, retry_after, type(err).__name__)
    return None


# --- transactions ----------------------------------------------------------------------


#: Each connection's lock space (:func:`lock_space`), asked of its server once.
_SPACES: weakref.WeakKeyDictionary[psycopg.Connection[Any], int] = weakref.WeakKeyDictionary()


def lock_space(db: psycopg.Connection[Any]) -> int:
    """The space of ``db``'s advisory locks: the CRC-32 (an unsigned 32-bit number) of its
    ``current_schema()`` (the first schema of its ``search_path`` that exists; "" when none
    does), asked of the server once per connection (one round trip, at its first lock).

    PostgreSQL's advisory locks belong to the whole database, not to a schema: each Kibitz
    database in a schema of its own (``?options=-csearch_path%3Dleague``, docs/league.md)
    takes its locks in its own space, so a write of the whole of one schema never waits for
    the writes of another, nor one schema's game for another's game of the same lock key."""
    space = _SPACES.get(db)
    if space is None:
        row = db.execute("SELECT current_schema() AS name").fetchone()
        name = (row["name"] if isinstance(row, dict) else row[0]) if row is not None else None
        space = _SPACES[db] = zlib.crc32(str(name or "").encode("utf-8", "surrogatepass"))
    return space


def write_lock_key(db: psycopg.Connection[Any], lock: int = WRITE_LOCK) -> int:
    """The key (a signed 64-bit number) of ``db``'s schema's advisory lock ``lock``
    (:data:`WRITE_LOCK`, :data:`MIGRATE_LOCK`): ``lock`` in its high 32 bits, the
    :func:`lock_space` in its low 32."""
    return int(lock) * 2**32 + lock_space(db)


def game_lock_key(game_id: str, space: int = 0) -> int:
    """The second key (a signed 32-bit number: the CRC-32 of the id's UTF-8, mixed with the
    :func:`lock_space` ``space`` of the connection taking it) of the advisory lock of game
    ``game_id``; two ids may share one, which only makes their writes take turns."""
    return (zlib.crc32(game_id.encode("utf-8", "surrogatepass")) ^ space) - 2**31


#: What each connection's open write transaction locked (:func:`begin_write`): None for the
#: whole database, else the game lock keys; no entry outside a write transaction.
_HELD: weakref.WeakKeyDictionary[Connection, frozenset[int] | None] = weakref.WeakKeyDictionary()


def begin_write(db: Connection, *, lock: int = WRITE_LOCK, games: Iterable[str] | None = None) -> None:
    """Open a write transaction holding its write locks from its start (advisory locks,
    released at commit or rollback; other writers wait up to :data:`LOCK_TIMEOUT_MS`, then
    fail with a ``busy`` fault).

    Without ``games``: the database's write lock ``lock`` alone, as one SQLite writer holds
    the file (any game may be written; every other write waits). With ``games`` (game ids,
    or any text naming what the transaction must write alone, such as the game an import
    was exported from): the database's lock shared, then each game's lock
    (:func:`game_lock_key`) in ascending order of key, all in one round trip, so
    transactions locking overlapping games never deadlock. :func:`append` then refuses a
    game whose lock is not held. ``games`` may be empty (a new game's id is its own)."""
    space = lock_space(db)
    keys = None if games is None else frozenset(game_lock_key(game, space) for game in games)
    statements = ["BEGIN"]
    if keys is None:
        statements.append(f"SELECT pg_advisory_xact_lock({write_lock_key(db, lock)})")
    else:
        statements.append(f"SELECT pg_advisory_xact_lock_shared({write_lock_key(db, lock)})")
        statements += [f"SELECT pg_advisory_xact_lock({GAME_LOCK}, {key})" for key in sorted(keys)]
    try:
        db.execute("; ".join(statements).encode())  # integers only: one round trip, no parameters
    except BaseException:
        rollback(db)
        raise
    _HELD[db] = keys


def try_begin_write(db: Connection, games: Iterable[str], *, patient: bool = False,
                    deadline: float | None = None) -> frozenset[str]:
    """Open a write transaction like :func:`begin_write` with ``games``, but take each game's
    lock without waiting (``pg_try_advisory_xact_lock``): returns the games whose lock another
    transaction holds (none of them may be written in this transaction; an empty set when
    every lock was taken). Only the database's shared lock is waited for (up to
    :data:`LOCK_TIMEOUT_MS`, then a ``busy`` fault), as a write of the whole database holds it.
    A lock taken without waiting never waits while holding another, so no deadlock arises.

    ``patient``: try again every :data:`RETRY_SECONDS` (in a new transaction, holding nothing
    in between, so a write of the whole database is never held up by this wait) until every
    lock is taken (returns an empty set) or ``deadline`` (``time.monotonic()``; None: the
    connection's ``lock_timeout`` from now) has passed (raises ``errors.LockNotAvailable``: a
    ``busy`` fault)."""
    if not patient:
        return _try_begin_write(db, games)
    return _patiently(db, tuple(games), deadline)


def _lock_deadline(db: Connection) -> float:
    """``time.monotonic()`` once the connection's ``lock_timeout`` has passed from now."""
    limit = db.execute("SELECT EXTRACT(EPOCH FROM current_setting('lock_timeout')::interval) AS s").fetchone()
    return time.monotonic() + float(limit["s"] if limit else LOCK_TIMEOUT_MS / 1000)


def _patiently(db: Connection, games: tuple[str, ...], deadline: float | None) -> frozenset[str]:
    """:func:`_try_begin_write` again every :data:`RETRY_SECONDS`, holding nothing in between,
    until every lock is taken (an empty set) or ``deadline`` (None: the ``lock_timeout``) has
    passed (``errors.LockNotAvailable``)."""
    if deadline is None:
        deadline = _lock_deadline(db)
    while True:
        busy = _try_begin_write(db, games)
        if not busy:
            return busy
        rollback(db)
        if time.monotonic() >= deadline:
            raise errors.LockNotAvailable(f"the write locks of {len(busy)} game(s) were held past lock_timeout")
        time.sleep(RETRY_SECONDS)


#: How often a patient :func:`try_begin_write` tries a busy game's lock again.
RETRY_SECONDS = 0.05


def _try_begin_write(db: Connection, games: Iterable[str]) -> frozenset[str]:
    """:func:`try_begin_write` trying each lock once."""
    by_key: dict[int, list[str]] = {}
    space = lock_space(db)
    for game in games:
        by_key.setdefault(game_lock_key(game, space), []).append(game)
    try:
        db.execute(f"BEGIN; SELECT pg_advisory_xact_lock_shared({write_lock_key(db)})".encode())
        busy: set[int] = set()
        if by_key:
            keys = ", ".join(str(int(key)) for key in sorted(by_key))
            rows = db.execute(f"SELECT k, pg_try_advisory_xact_lock({GAME_LOCK}, k) AS taken "
                              f"FROM unnest(ARRAY[{keys}]::integer[]) AS k".encode()).fetchall()
            busy = {row["k"] for row in rows if not row["taken"]}
    except BaseException:
        rollback(db)
        raise
    _HELD[db] = frozenset(by_key) - busy
    return frozenset(game for key in busy for game in by_key[key])


def _check_held(db: Connection, game_id: str) -> None:
    """Raise ``RuntimeError`` when ``db``'s write transaction locked some games, not ``game_id``."""
    keys = _HELD.get(db)
    if keys is None or db.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
        return  # the whole database's lock, or not in one of begin_write's transactions (ended elsewhere)
    if game_lock_key(game_id, lock_space(db)) not in keys:
        raise RuntimeError(f"game {game_id}: written without its write lock (begin_write(games=...) "
                           "does not name it)")


def commit(db: Connection) -> None:
    """Commit the open transaction."""
    _HELD.pop(db, None)
    db.execute("COMMIT")


def rollback(db: Connection) -> None:
    """Roll back the open transaction, if there is one (a no-op otherwise). Never raises for
    a connection that is lost (closed, or found closed by the ``ROLLBACK``: the server stopped
    or ended its backend), whose transaction the server has ended by itself; the caller drops
    such a connection (:func:`is_lost`)."""
    _HELD.pop(db, None)
    if is_lost(db) or db.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
        return
    try:
        db.execute("ROLLBACK")
    except psycopg.Error:
        if not is_lost(db):
            raise


def is_lost(db: Connection) -> bool:
    """True when ``db`` can no longer be used (closed, or lost with its server): a new
    connection is needed."""
    return bool(db.closed or db.broken)


def savepoint(db: Connection, name: str) -> None:
    """Open savepoint ``name`` (an identifier) inside the open transaction."""
    db.execute(f"SAVEPOINT {name}")


def release(db: Connection, name: str) -> None:
    """Keep what was written since savepoint ``name`` and close it."""
    db.execute(f"RELEASE SAVEPOINT {name}")


def rollback_to(db: Connection, name: str) -> None:
    """Undo what was written since savepoint ``name``, and close it."""
    db.execute(f"ROLLBACK TO SAVEPOINT {name}")
    db.execute(f"RELEASE SAVEPOINT {name}")


@contextmanager
def immediate(db: Connection, *, lock: int = WRITE_LOCK) -> Iterator[Connection]:
    """A write of the whole database (:func:`begin_write` without ``games``: every other
    write waits for it) committed at the end of the block, rolled back if it raises."""
    begin_write(db, lock=lock)
    try:
        yield db
    except BaseException:
        rollback(db)
        raise
    commit(db)


@contextmanager
def snapshot(db: Connection) -> Iterator[Connection]:
    """A read transaction: every query in the block sees the same committed state."""
    db.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
    try:
        yield db
    finally:
        rollback(db)


# --- games ---------------------------------------------------------------------------


def _unstorable(*texts: str | None) -> bool:
    """True when one of ``texts`` holds a NUL character. PostgreSQL's text cannot hold one, so
    no stored row has it: a read looking one up finds nothing, as it does on SQLite (psycopg
    would refuse to send it, a ``DataError``)."""
    return any(text is not None and "\x00" in text for text in texts)


class _NulGuard(Protocol):
    def __call__(self, read: Callable[P, R], /) -> Callable[P, R]: ...


def _none() -> None:
    return None


def _nothing_for_nul(nothing: Callable[[], Any]) -> _NulGuard:
    """The NUL guard of a read, in one place: the decorated read answers ``nothing()`` (None,
    ``[]``, ``False``, 0: what it answers when no row matches) without a query when one of its
    text arguments holds a NUL (:func:`_unstorable`). Every text argument of a read it guards
    is a value looked up."""
    def guard(read: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(read)
        def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
            if any(type(value) is str and "\x00" in value for value in (*args, *kwargs.values())):
                return cast(R, nothing())
            return read(*args, **kwargs)
        return guarded
    return guard


def insert_game(db: Connection, game_id: str, created: Mapping[str, Any], token_hash: str, created_at: str,
                status: str) -> None:
    """Insert the ``games`` row of a new game from its ``game_created`` data (version 1) and
    its first write token (``token_hash``: the token's hex SHA-256, see :func:`add_token`)."""
    players = list(created["players"])
    fork = created.get("forked_from")
    parent, parent_seq = (fork.get("game"), fork.get("seq")) if isinstance(fork, Mapping) else (None, None)
    db.execute(
        "INSERT INTO games (id, game, title, players, player_keys, visibility, options, created_at, version, status, "
        "forked_from_game, forked_from_seq) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, 1, %s, %s, %s)",
        [game_id, created["game"], created.get("title"), json.dumps(players),
         json.dumps([name.casefold() for name in players]), created["visibility"], json.dumps(created["options"]),
         created_at, status, parent, parent_seq])
    _insert_token(db, game_id, token_hash, created_at)  # its first event notifies


@_nothing_for_nul(_none)
def get_game(db: Connection, game_id: str) -> dict[str, Any] | None:
    """Return the ``games`` row of ``game_id`` (JSON columns decoded, ``_rowid`` its place in
    the order of creation), or None. Raises :class:`RecordDamaged` for a column that is not
    what Kibitz writes."""
    row = db.execute("SELECT rowid AS _rowid, * FROM games WHERE id = %s", [game_id]).fetchone()
    return None if row is None else _game(row)


def _game(found: dict[str, Any]) -> dict[str, Any]:
    row = {key: value for key, value in found.items() if key != "rowid"}
    game_id = str(row["id"])
    row["players"] = _decode(row["players"], list, game_id, None, "games.players cannot be read")
    row["options"] = _decode(row["options"], dict, game_id, None, "games.options cannot be read")
    if not all(isinstance(name, str) for name in row["players"]):
        raise RecordDamaged(game_id, None, "games.players holds something that is not a name")
    if isinstance(row.get("title"), str):
        row["title"] = scrub(row["title"])
    del row["player_keys"]
    return row


def _decode(text: str, shape: type | None, game_id: str, seq: int | None, what: str) -> Any:
    """A stored JSON column decoded as ``service.storage.sqlite`` decodes it; raises
    :class:`RecordDamaged` for text that is not JSON, or not of ``shape`` when given one."""
    try:
        value = loads(text)
    except (TypeError, ValueError) as err:
        raise RecordDamaged(game_id, seq, what) from err
    if shape is not None and not isinstance(value, shape):
        raise RecordDamaged(game_id, seq, what)
    return scrub(value) if "\\ud" in text or "\\uD" in text else value


@_nothing_for_nul(_none)
def version_of(db: Connection, game_id: str) -> int | None:
    """The stored ``version`` of ``game_id`` (the seq of its last event), or None."""
    row = db.execute("SELECT version FROM games WHERE id = %s", [game_id]).fetchone()
    return None if row is None else int(row["version"])


def set_version(db: Connection, game_id: str, version: int, status: str, *, secret_from_hand: int | None) -> None:
    """Record the game's new ``version``, ``status`` and ``secret_from_hand``, all derived
    from the events."""
    db.execute("UPDATE games SET version = %s, status = %s, secret_from_hand = %s WHERE id = %s",
               [version, status, secret_from_hand, game_id])


def game_ids(db: Connection) -> list[str]:
    """The id of every stored game, oldest first."""
    return [str(row["id"]) for row in db.execute("SELECT id FROM games ORDER BY created_at, rowid")]


# --- events --------------------------------------------------------------------------


def append(db: Connection, game_id: str, seq: int, kind: str, data: Mapping[str, Any], recorded_at: str,
           at: str | None = None, idempotency_key: str | None = None, *, salt: str | None = None) -> dict[str, Any]:
    """Insert event ``seq`` of ``game_id`` and return it (``{seq, type, data, recorded_at,
    at, salt, hash}``), exactly as ``service.storage.sqlite.append`` does: the hash chained
    to event ``seq - 1``'s, ``games.record_hash`` set, in the caller's transaction. Raises
    ``psycopg.errors.UniqueViolation`` if the idempotency key (or the seq) is taken, and
    :class:`RecordDamaged`, storing nothing, unless ``seq`` follows the last stored event
    of the game and that event has its hash; ``RuntimeError`` when the transaction locked
    some games (:func:`begin_write`), not this one."""
    _check_held(db, game_id)
    if seq == 1:
        previous: str | None = chain.GENESIS
    else:
        found = db.execute("SELECT hash FROM events WHERE game_id = %s AND seq = %s", [game_id, seq - 1]).fetchone()
        previous = found["hash"] if found is not None else None
    event = {"seq": seq, "type": kind, "data": dict(data), "recorded_at": recorded_at, "at": at,
             "salt": salt or chain.new_salt()}
    if not isinstance(previous, str):
        raise RecordDamaged(game_id, seq - 1, "games.version disagrees with the stored log (no event "
                                              f"{seq - 1} with its hash to follow)")
    event["hash"] = chain.event_hash(previous, event)
    cursor = db.execute(
        "INSERT INTO events (game_id, seq, type, data, recorded_at, at, idempotency_key, salt, hash) "
        "SELECT %s, %s, %s, %s, %s, %s, %s, %s, %s "
        "WHERE (SELECT coalesce(max(seq), 0) FROM events WHERE game_id = %s) = %s",
        [game_id, seq, kind, json.dumps(data, separators=(",", ":")), recorded_at, at, idempotency_key,
         event["salt"], event["hash"], game_id, seq - 1])
    if cursor.rowcount != 1:
        raise RecordDamaged(game_id, seq, "games.version disagrees with the last stored event")
    db.execute("UPDATE games SET record_hash = %s WHERE id = %s", [event["hash"], game_id])
    _notify(db, f"{game_id}:{seq}")
    return event


#: The head's columns (``head``'s keys) as the one read of a move names them (``h_<key>``).
HEAD_KEYS = ("count", "last_seq", "last_type", "last_data", "last_recorded_at", "last_at", "last_salt", "last_hash",
             "previous_hash", "guard")

#: The one read of a move (:func:`begin_move`), as ``service.storage.sqlite.MOVE_READ``.
MOVE_READ = (
    "SELECT g.rowid AS _rowid, g.*, g.stored_events AS h_count, "
    "e.seq AS h_last_seq, e.type AS h_last_type, e.data AS h_last_data, e.recorded_at AS h_last_recorded_at, "
    "e.at AS h_last_at, e.salt AS h_last_salt, e.hash AS h_last_hash, p.hash AS h_previous_hash, "
    f"{GUARD} AS h_guard, "
    "ARRAY(SELECT token_hash FROM tokens WHERE game_id = g.id AND revoked_at IS NULL "
    "ORDER BY created_at, token_hash) AS token_hashes, "
    "i.request_hash AS k_request_hash, i.status AS k_status, i.response AS k_response FROM games AS g "
    "LEFT JOIN events AS e ON e.game_id = g.id AND e.seq = (SELECT max(seq) FROM events WHERE game_id = g.id) "
    "LEFT JOIN events AS p ON p.game_id = g.id AND p.seq = e.seq - 1 "
    "LEFT JOIN idempotency AS i ON i.game_id = g.id AND i.key = %s WHERE g.id = %s")


def begin_move(db: Connection, game_id: str, key: str | None, *, deadline: float | None = None) -> Moment | None:
    """Open the write transaction of a move of ``game_id`` and read everything the write needs
    to decide (:class:`Moment`), in **one round trip**: ``BEGIN``, the database's write lock
    shared, the game's write lock tried without waiting, then the read (its own statement, so
    its snapshot is taken once the lock is held), sent as one pipeline. When another
    transaction holds the game's lock, the transaction is rolled back and the lock tried
    again every :data:`RETRY_SECONDS`, holding nothing in between, until ``deadline``
    (``time.monotonic()``; None: the connection's ``lock_timeout``), then
    ``errors.LockNotAvailable`` (a ``busy`` fault); then the read. None when there is no such
    game (the transaction stays open: the caller ends it)."""
    if _unstorable(game_id):
        return None
    lookup = None if key is None or _unstorable(key) else key
    game_key = game_lock_key(game_id, lock_space(db))  # before the pipeline: its space asked once per connection
    try:
        with db.pipeline():
            db.execute("BEGIN")
            db.execute(f"SELECT pg_advisory_xact_lock_shared({write_lock_key(db)})".encode())
            tried = db.execute(f"SELECT pg_try_advisory_xact_lock({GAME_LOCK}, {game_key}) AS taken".encode())
            read = db.execute(MOVE_READ, [lookup, game_id])
        taken = tried.fetchone()
        found = read.fetchone()
        if taken is None or not taken["taken"]:
            rollback(db)
            _patiently(db, (game_id,), deadline)
            found = db.execute(MOVE_READ, [lookup, game_id]).fetchone()
    except BaseException:
        rollback(db)
        raise
    _HELD[db] = frozenset({game_key})
    if found is None:
        return None
    return _moment(game_id, lookup, dict(found))


def read_move(db: Connection, game_id: str, key: str | None) -> Moment | None:
    """:func:`begin_move`'s read alone, inside a write transaction already open that holds the
    game's lock (``RuntimeError`` otherwise): one round trip."""
    _check_held(db, game_id)
    if _unstorable(game_id):
        return None
    lookup = None if key is None or _unstorable(key) else key
    found = db.execute(MOVE_READ, [lookup, game_id]).fetchone()
    return None if found is None else _moment(game_id, lookup, dict(found))


def _moment(game_id: str, key: str | None, found: dict[str, Any]) -> Moment:
    """The :class:`Moment` of one row of :data:`MOVE_READ`."""
    head = {"version": found["version"], "status": found["status"], "record_hash": found["record_hash"]}
    head.update({name: found.pop(f"h_{name}") for name in HEAD_KEYS})
    for name in ("version", "count", "last_seq"):
        if head[name] is not None:
            head[name] = int(head[name])
    kept = {name: found.pop(f"k_{name}") for name in ("request_hash", "status", "response")}
    hashes = found.pop("token_hashes")
    row = _game(found)
    row["token_hashes"] = [str(each) for each in hashes or []]
    remembered = None
    if key is not None and kept["request_hash"] is not None:
        remembered = {"request_hash": kept["request_hash"], "status": int(kept["status"]),
                      "response": _decode(kept["response"], None, game_id, None,
                                          f"the stored answer to Idempotency-Key {key[:40]!r} cannot be read")}
    return Moment(row, head, remembered)


#: The append each connection's open pipeline guards (:func:`append_move`): game id and seq.
_GUARDED: weakref.WeakKeyDictionary[Connection, tuple[str, int]] = weakref.WeakKeyDictionary()


def append_move(db: Connection, game_id: str, event: Mapping[str, Any], idempotency_key: str | None, *,
                previous_hash: str, status: str, secret_from_hand: int | None, data_text: str | None = None) -> None:
    """Append ``event`` (its hash chained to ``previous_hash``, the stored hash of the event
    before it as :func:`begin_move` read it under the same lock) to the log of ``game_id``,
    set the games row's ``version``, ``status``, ``secret_from_hand`` and ``record_hash``, and
    notify :data:`CHANNEL`: three statements that wait for no answer, so inside
    :func:`pipeline` they go with the commit in one round trip.

    The ``INSERT`` stores nothing unless ``event`` follows the last stored event and that
    event's hash is ``previous_hash``: otherwise its ``seq`` is NULL, the server refuses the
    row, every later statement of the pipeline is skipped and the transaction aborted, and
    :class:`RecordDamaged` is raised (at the end of the pipeline). Raises
    ``psycopg.errors.UniqueViolation`` if the idempotency key is taken; ``RuntimeError``
    when the transaction did not lock this game."""
    _check_held(db, game_id)
    seq = int(event["seq"])
    _GUARDED[db] = (game_id, seq)
    try:
        db.execute(
            "INSERT INTO events (game_id, seq, type, data, recorded_at, at, idempotency_key, salt, hash) "
            "SELECT %s, CASE WHEN (SELECT max(seq) FROM events WHERE game_id = %s) = %s "
            "AND (SELECT hash FROM events WHERE game_id = %s AND seq = %s) = %s THEN %s::bigint END, "
            "%s, %s, %s, %s, %s, %s, %s",
            [game_id, game_id, seq - 1, game_id, seq - 1, previous_hash, seq, event["type"],
             data_text if data_text is not None else sqlite_data_text(event["data"]), event["recorded_at"], event["at"],
             idempotency_key, event["salt"], event["hash"]])
    except errors.NotNullViolation as err:  # outside a pipeline: at once
        _GUARDED.pop(db, None)
        raise _disagrees(game_id, seq) from err
    except errors.UniqueViolation as err:  # outside a pipeline: at once
        _GUARDED.pop(db, None)
        raise _key_without_answer(game_id, idempotency_key) from err
    db.execute("UPDATE games SET version = %s, status = %s, secret_from_hand = %s, record_hash = %s WHERE id = %s",
               [seq, status, secret_from_hand, event["hash"], game_id])
    _notify(db, f"{game_id}:{seq}")


def _disagrees(game_id: str, seq: int) -> RecordDamaged:
    return RecordDamaged(game_id, seq, "games.version disagrees with the last stored event")


def _key_without_answer(game_id: str, key: str | None) -> RecordDamaged:
    """As ``service.storage.sqlite.key_without_answer``, without the event's seq (the
    transaction is aborted: nothing more can be read in it)."""
    named = "this write's Idempotency-Key" if key is None else f"Idempotency-Key {key[:40]!r}"
    return RecordDamaged(game_id, None, f"an event was recorded with {named} but the "
                                        "idempotency table holds no answer to that key: the answer's row was "
                                        "deleted after it was stored")


@contextmanager
def pipeline(db: Connection) -> Iterator[Connection]:
    """Send the statements of the block as one psycopg pipeline: one round trip for all of
    them, their errors raised when the block ends (the first one; the statements after it
    are skipped and the transaction is aborted: the caller rolls it back). An append of
    :func:`append_move` that does not follow the stored log raises :class:`RecordDamaged`."""
    try:
        with db.pipeline():
            yield db
    except errors.NotNullViolation as err:
        guarded = _GUARDED.pop(db, None)
        if guarded is None or err.diag.table_name != "events":
            raise
        raise _disagrees(*guarded) from err
    except errors.UniqueViolation as err:  # the key's answer was not found, yet an event holds the key
        guarded = _GUARDED.pop(db, None)
        if guarded is None or err.diag.table_name != "events":
            raise
        raise _key_without_answer(guarded[0], None) from err
    finally:
        _GUARDED.pop(db, None)


def _notify(db: Connection, payload: str) -> None:
    """Notify :data:`CHANNEL` with ``payload``: delivered to every listener when the open
    transaction commits (at once outside one), dropped when it rolls back."""
    db.execute("SELECT pg_notify(%s, %s)", [CHANNEL, payload])


def guard(db: Connection) -> str:
    """The database's guard now (:data:`GUARD`): what ``service.record.cache.FoldCache.observe``
    compares, so that a change of a trigger guarding the log sends every cached game through
    the check again. Raises :class:`StorageUnavailable` when the connection is lost."""
    try:
        row = db.execute(f"SELECT {GUARD} AS guard").fetchone()
    except psycopg.Error as err:
        raise _lost(err) from err
    assert row is not None
    return str(row["guard"])


def results_stamp(db: Connection) -> tuple[int, str]:
    """As ``service.storage.sqlite.results_stamp``: ``(stamp, guard)`` in one query (the sum
    of ``results_seal``, and :data:`GUARD`, which covers the triggers of ``player_results`` and
    ``results_seal`` too). Raises :class:`StorageUnavailable` when the connection is lost."""
    try:
        row = db.execute(f"SELECT (SELECT coalesce(sum(n), 0) FROM results_seal) AS stamp, {GUARD} AS guard").fetchone()
    except psycopg.Error as err:
        raise _lost(err) from err
    assert row is not None
    return int(row["stamp"]), str(row["guard"])


@_nothing_for_nul(_none)
def head(db: Connection, game_id: str, *, count: bool = False) -> dict[str, Any] | None:
    """What a cached fold of ``game_id`` is checked against on every read and write, in one
    query (as ``service.storage.sqlite.head``): ``{"version", "status", "record_hash"}`` of its
    games row, ``count`` (the number of stored events when ``count``, else None: its
    ``stored_events``, kept by a trigger on every insert and delete), its last
    stored event as stored (``last_seq``, ``last_type``, ``last_data`` as its JSON text,
    ``last_recorded_at``, ``last_at``, ``last_salt``, ``last_hash``; all None when there is
    none), ``previous_hash`` (the stored hash of the event before it) and ``guard``
    (:data:`GUARD`). None when there is no such game."""
    found = db.execute(
        "SELECT g.version, g.status, g.record_hash, "
        + ("g.stored_events AS count, " if count else "NULL AS count, ")
        + "e.seq AS last_seq, e.type AS last_type, e.data AS last_data, e.recorded_at AS last_recorded_at, "
        f"e.at AS last_at, e.salt AS last_salt, e.hash AS last_hash, p.hash AS previous_hash, {GUARD} AS guard "
        "FROM games AS g "
        "LEFT JOIN events AS e ON e.game_id = g.id AND e.seq = (SELECT max(seq) FROM events WHERE game_id = g.id) "
        "LEFT JOIN events AS p ON p.game_id = g.id AND p.seq = e.seq - 1 WHERE g.id = %s", [game_id]).fetchone()
    if found is None:
        return None
    out = dict(found)
    for key in ("version", "count", "last_seq"):
        if out[key] is not None:
            out[key] = int(out[key])
    return out


@_nothing_for_nul(list)
def events(db: Connection, game_id: str, after: int = 0, upto: int | None = None) -> list[dict[str, Any]]:
    """Return the events of ``game_id`` with ``after < seq <= upto``, oldest first, each
    ``{"seq", "type", "data", "recorded_at", "at", "salt", "hash"}`` with ``data`` decoded;
    raises :class:`RecordDamaged` naming an event whose data is not a JSON object."""
    rows = db.execute(
        "SELECT seq, type, data, recorded_at, at, salt, hash FROM events WHERE game_id = %s AND seq > %s "
        "AND seq <= %s ORDER BY seq", [game_id, after, 2**62 if upto is None else upto]).fetchall()
    return [{**row, "seq": int(row["seq"]),
             "data": _decode(row["data"], dict, game_id, int(row["seq"]), "its data is not a JSON object")}
            for row in rows]


def events_through_key(db: Connection, game_id: str, key: str) -> list[dict[str, Any]]:
    """As ``service.storage.sqlite.events_through_key``: one round trip."""
    rows = db.execute(
        "SELECT seq, type, data, recorded_at, at, salt, hash FROM events WHERE game_id = %s AND seq <= "
        "(SELECT seq FROM events WHERE game_id = %s AND idempotency_key = %s) ORDER BY seq",
        [game_id, game_id, key]).fetchall()
    return [{**row, "seq": int(row["seq"]),
             "data": _decode(row["data"], dict, game_id, int(row["seq"]), "its data is not a JSON object")}
            for row in rows]


def first_events(db: Connection, game_ids: list[str]) -> dict[str, dict[str, Any]]:
    """As ``service.storage.sqlite.first_events``."""
    wanted = [game_id for game_id in game_ids if not _unstorable(game_id)]
    if not wanted:
        return {}
    rows = db.execute("SELECT game_id, seq, type, data, recorded_at, at, salt, hash FROM events "
                      "WHERE seq = 1 AND game_id = ANY(%s)", [wanted]).fetchall()
    return {str(row["game_id"]): {**{key: value for key, value in row.items() if key != "game_id"}, "seq": 1,
                                  "data": _decode(row["data"], dict, str(row["game_id"]), 1,
                                                  "its data is not a JSON object")} for row in rows}


@_nothing_for_nul(list)
def event_hashes(db: Connection, game_id: str) -> list[tuple[int, str]]:
    """``(seq, hash)`` of every stored event of ``game_id``, oldest first."""
    return [(int(row["seq"]), str(row["hash"])) for row in db.execute(
        "SELECT seq, hash FROM events WHERE game_id = %s AND hash IS NOT NULL ORDER BY seq", [game_id])]


# --- idempotency ---------------------------------------------------------------------


@_nothing_for_nul(_none)
def remembered(db: Connection, game_id: str, key: str) -> dict[str, Any] | None:
    """Return ``{"request_hash", "status", "response"}`` stored for ``key``, or None."""
    row = db.execute("SELECT request_hash, status, response FROM idempotency WHERE game_id = %s AND key = %s",
                     [game_id, key]).fetchone()
    if row is None:
        return None
    return {**row, "status": int(row["status"]),
            "response": _decode(row["response"], None, game_id, None,
                                f"the stored answer to Idempotency-Key {key[:40]!r} cannot be read")}


def remember(db: Connection, game_id: str, key: str, request_hash: str, status: int, response: Any,
             created_at: str) -> None:
    """Store the first response given to ``key`` on ``game_id`` (``UniqueViolation`` if one is)."""
    db.execute("INSERT INTO idempotency (game_id, key, request_hash, status, response, created_at) "
               "VALUES (%s, %s, %s, %s, %s, %s)",
               [game_id, key, request_hash, status, json.dumps(response, separators=(",", ":")), created_at])


# --- write tokens --------------------------------------------------------------------


def add_token(db: Connection, game_id: str, token_hash: str, created_at: str) -> None:
    """Store a new write token of ``game_id`` by its hex SHA-256 ``token_hash``."""
    _insert_token(db, game_id, token_hash, created_at)
    _notify(db, f"{game_id}:tokens")  # what the other processes remember of its tokens is stale


def _insert_token(db: Connection, game_id: str, token_hash: str, created_at: str) -> None:
    db.execute("INSERT INTO tokens (token_hash, game_id, created_at) VALUES (%s, %s, %s)",
               [token_hash, game_id, created_at])


@_nothing_for_nul(list)
def live_token_hashes(db: Connection, game_id: str) -> list[str]:
    """The hex SHA-256 of every write token of ``game_id`` not revoked, oldest first."""
    return [str(row["token_hash"]) for row in db.execute(
        "SELECT token_hash FROM tokens WHERE game_id = %s AND revoked_at IS NULL ORDER BY created_at, token_hash",
        [game_id])]


def revoke_tokens(db: Connection, game_id: str, revoked_at: str) -> int:
    """Revoke every live write token of ``game_id`` as of ``revoked_at``; returns how many were live."""
    cursor = db.execute("UPDATE tokens SET revoked_at = %s WHERE game_id = %s AND revoked_at IS NULL",
                        [revoked_at, game_id])
    _notify(db, f"{game_id}:tokens")
    return int(cursor.rowcount)



# --- games: lists, forks, imports ----------------------------------------------------


def list_games(db: Connection, *, game: str | None = None, player: str | None = None, status: str | None = None,
               limit: int = 50, cursor: str | None = None, fork: bool = False,
               forked_from: str | None = None, created_from: str | None = None,
               created_before: str | None = None) -> tuple[list[dict[str, Any]], str | None]:
    """Return up to ``limit`` games, newest first, and the cursor of the next page (or None),
    as ``service.storage.sqlite.list_games`` does; raises ``ValueError`` for a cursor that is
    not one."""
    where: list[str] = ["TRUE"]
    params: list[Any] = []
    if forked_from is not None:
        where.append("forked_from_game = %s")
        params.append(forked_from)
    elif not fork:
        where.append("forked_from_game IS NULL")
    if game is not None:
        where.append("game = %s")
        params.append(game)
    if status is not None:
        where.append("status = %s")
        params.append(status)
    if player is not None:
        where.append("EXISTS (SELECT 1 FROM json_array_elements_text(games.player_keys::json) AS k WHERE k = %s)")
        params.append(player.strip().casefold())
    if created_from is not None:
        where.append("created_at >= %s")
        params.append(created_from)
    if created_before is not None:
        where.append("created_at < %s")
        params.append(created_before)
    if cursor is not None:
        created_at, rowid = decode_cursor(cursor)
        where.append("(created_at < %s OR (created_at = %s AND rowid < %s))")
        params.extend([created_at, created_at, rowid])
    if _unstorable(game, player, status, forked_from):
        return [], None  # after the cursor is checked, as SQLite checks it
    sql = f"SELECT rowid AS _rowid, * FROM games WHERE {' AND '.join(where)} ORDER BY created_at DESC, rowid DESC LIMIT %s"
    rows = [_game(row) for row in db.execute(sql, [*params, limit + 1])]
    more = len(rows) > limit
    rows = rows[:limit]
    next_cursor = encode_cursor(rows[-1]["created_at"], rows[-1]["_rowid"]) if more else None
    return rows, next_cursor


def set_fork_lineage(db: Connection, game_id: str, lineage: list[list[Any]]) -> None:
    """Store what fork ``game_id`` inherits: ``[[ancestor id, last hand shared], …]``."""
    db.execute("UPDATE games SET fork_lineage = %s WHERE id = %s",
               [json.dumps(lineage, separators=(",", ":")) if lineage else None, game_id])


@_nothing_for_nul(list)
def fork_lineage(db: Connection, game_id: str) -> list[tuple[str, int]]:
    """The stored lineage of ``game_id`` (``[]`` for a game that is not a fork, or shares nothing)."""
    found = db.execute("SELECT fork_lineage FROM games WHERE id = %s", [game_id]).fetchone()
    if not found or not found["fork_lineage"]:
        return []
    return [(str(ancestor), int(shared)) for ancestor, shared in json.loads(found["fork_lineage"])]


@_nothing_for_nul(list)
def lineage_secrets(db: Connection, game_id: str) -> list[tuple[str, int, int]]:
    """``(ancestor id, last hand shared, its secret_from_hand)`` for each game in ``game_id``'s
    lineage that still has a hand in play, nearest first, in one query."""
    rows = db.execute(
        "SELECT g.id, (l.value ->> 1)::bigint AS shared, g.secret_from_hand "
        "FROM games AS f CROSS JOIN LATERAL json_array_elements(f.fork_lineage::json) WITH ORDINALITY AS l(value, n) "
        "JOIN games AS g ON g.id = l.value ->> 0 "
        "WHERE f.id = %s AND g.secret_from_hand IS NOT NULL ORDER BY l.n DESC", [game_id]).fetchall()
    return [(str(row["id"]), int(row["shared"]), int(row["secret_from_hand"])) for row in rows]


def set_source_game(db: Connection, game_id: str, source: str | None) -> None:
    """Record the id of the game that imported game ``game_id`` was exported from."""
    db.execute("UPDATE games SET source_game = %s WHERE id = %s", [source, game_id])


def set_imported_at(db: Connection, game_id: str, imported_at: str) -> None:
    """Record when game ``game_id`` was imported (UTC text)."""
    db.execute("UPDATE games SET imported_at = %s WHERE id = %s", [imported_at, game_id])


@_nothing_for_nul(_none)
def stored_as(db: Connection, source: str) -> str | None:
    """The id of the stored game that is game ``source`` (the original itself, first) or an
    import of it (the earliest), or None."""
    found = db.execute("SELECT id FROM games WHERE id = %s OR source_game = %s ORDER BY (id = %s) DESC, rowid "
                       "LIMIT 1", [source, source, source]).fetchone()
    return None if found is None else str(found["id"])


def fork_relations(db: Connection) -> dict[str, tuple[str, str | None, int | None]]:
    """Every stored game: id -> ``(game, forked_from_game, forked_from_seq)``."""
    return {str(row["id"]): (str(row["game"]), row["forked_from_game"],
                             None if row["forked_from_seq"] is None else int(row["forked_from_seq"]))
            for row in db.execute("SELECT id, game, forked_from_game, forked_from_seq FROM games")}


def set_secret_from_hand(db: Connection, game_id: str, secret_from_hand: int | None) -> None:
    """Store game ``game_id``'s ``secret_from_hand`` alone."""
    db.execute("UPDATE games SET secret_from_hand = %s WHERE id = %s", [secret_from_hand, game_id])


@_nothing_for_nul(bool)
def is_fork(db: Connection, game_id: str) -> bool:
    """True when the stored game ``game_id`` is a what-if fork."""
    found = db.execute("SELECT forked_from_game FROM games WHERE id = %s", [game_id]).fetchone()
    return bool(found and found["forked_from_game"])


# --- what SQLite alone needs -----------------------------------------------------------


def manual_checkpoints(db: Connection) -> None:
    """Nothing to do: PostgreSQL checkpoints its write-ahead log itself."""


def checkpoint_passive(db: Connection) -> None:
    """Nothing to do: PostgreSQL checkpoints its write-ahead log itself."""


def data_version(db: Connection) -> int:
    """A number that changes whenever any connection has committed a write since ``db`` last
    asked (as SQLite's ``PRAGMA data_version``; it may also change for ``db``'s own writes):
    the first transaction id not yet handed out, which every writing transaction moves on."""
    row = db.execute("SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS xmax").fetchone()
    assert row is not None
    return int(row["xmax"])


# --- hearing of changes: LISTEN --------------------------------------------------------


def listen(url: str, *, application_name: str = "kibitz listener") -> Connection:
    """A connection of its own to the database at ``url`` listening on :data:`CHANNEL`
    (``LISTEN``), in autocommit mode, named ``application_name`` in ``pg_stat_activity``.
    Its waits are bounded as :func:`connect`'s (TCP keepalives and a TCP user timeout make a
    silently lost server an error within some 20 s rather than hours; a query on it left
    unanswered finds a server that stops answering), but it is a *probing* connection: it connects, and asks,
    even while this process knows the server not to answer, and the first connection that
    succeeds tells every other connection to try again (``service.storage.postgres_bounds``).
    Raises :class:`StorageUnavailable` when the server cannot be reached or does not answer."""
    try:
        bounded = bounds.open_bounded(url, probing=True, row_factory=dict_row, autocommit=True,
                                      application_name=application_name)
    except psycopg.Error as err:
        raise _lost(err) from err
    bounded.answer_within = bounds.PROBE_SECONDS  # LISTEN, and each query, answered within this or the server is silent
    conn: Connection = bounded
    try:
        conn.execute(f"LISTEN {CHANNEL}")
    except psycopg.Error as err:
        conn.close()
        raise _lost(err) from err
    return conn


def changes(conn: Connection, timeout: float) -> list[str]:
    """The ids of the games whose changes were heard on ``conn`` (from :func:`listen`):
    waits up to ``timeout`` seconds for a notification and returns as soon as one arrives
    (with any that came with it), or ``[]``. Raises :class:`StorageUnavailable` when the
    connection is lost (the server stopped, the backend was terminated, the network failed):
    notifications may have been missed, so the caller must assume that anything changed."""
    try:
        return [note.payload.rpartition(":")[0] for note in conn.notifies(timeout=timeout, stop_after=1)
                if note.channel == CHANNEL]
    except psycopg.Error as err:
        raise _lost(err) from err


def _lost(err: psycopg.Error) -> StorageUnavailable:
    return fault(err) or StorageUnavailable("cannot_open", FAULT_DETAILS["cannot_open"][0],
                                            FAULT_DETAILS["cannot_open"][1], type(err).__name__)


# --- the match-history projection ------------------------------------------------------


def replace_player_results(db: Connection, game_id: str, columns: tuple[str, ...], rows: list[list[Any]]) -> None:
    """Replace the ``player_results`` rows of ``game_id`` with ``rows`` (values in the order
    of ``columns``, names of ``player_results`` columns)."""
    db.execute("DELETE FROM player_results WHERE game_id = %s", [game_id])
    if rows:
        with db.cursor() as cursor:
            cursor.executemany(
                f"INSERT INTO player_results ({', '.join(columns)}) "
                f"VALUES ({', '.join(['%s'] * len(columns))})", rows)


def games_without_results(db: Connection) -> list[str]:
    """The ids of the stored games that have no ``player_results`` rows."""
    return [str(row["id"]) for row in db.execute(
        "SELECT id FROM games WHERE id NOT IN (SELECT DISTINCT game_id FROM player_results) ORDER BY rowid")]


def _period_clause(since: str | None, until: str | None) -> tuple[str, list[str]]:
    clauses, params = [], []
    if since is not None:
        clauses.append("created_at >= %s")
        params.append(since)
    if until is not None:
        clauses.append("created_at < %s")
        params.append(until + "T24")  # after every time of that day
    return ("WHERE " + " AND ".join(clauses)) if clauses else "", params


_COUNTS = ("COUNT(*) AS games, SUM((status = 'finished')::int)::bigint AS finished, "
           "SUM((result = 'won')::int)::bigint AS wins, SUM((result = 'lost')::int)::bigint AS losses, "
           "SUM((status = 'abandoned')::int)::bigint AS abandoned, AVG(score)::float8 AS average, MAX(unit) AS unit")


@_nothing_for_nul(list)
def player_totals(db: Connection, since: str | None = None, until: str | None = None) -> list[dict[str, Any]]:
    """Per player key and game type, over the games created from ``since`` to ``until``, as
    ``service.storage.sqlite.player_totals`` (``name`` is the name of the latest game)."""
    where, params = _period_clause(since, until)
    sql = (f"SELECT player_key, game, {_COUNTS}, MAX(created_at) AS latest, "
           f"(array_agg(name ORDER BY created_at DESC))[1] AS name FROM player_results {where} "
           "GROUP BY player_key, game ORDER BY player_key, game")
    return list(db.execute(sql, params))


@_nothing_for_nul(list)
def player_stats(db: Connection, player_key: str, counters: tuple[str, ...]) -> list[dict[str, Any]]:
    """Per game type for one player key, as ``service.storage.sqlite.player_stats``."""
    sql = (f"SELECT game, {_COUNTS}, "
           + ", ".join(f"SUM({counter})::bigint AS {counter}" for counter in counters)
           + " FROM player_results WHERE player_key = %s GROUP BY game ORDER BY game")
    return list(db.execute(sql, [player_key]))


@_nothing_for_nul(list)
def player_games(db: Connection, player_key: str, limit: int | None = None, offset: int = 0) -> list[dict[str, Any]]:
    """One player key's ``player_results`` rows with the game's ``title`` and ``players``
    (decoded), newest first."""
    rows = db.execute(
        "SELECT r.*, g.title, g.players FROM player_results AS r JOIN games AS g ON g.id = r.game_id "
        "WHERE r.player_key = %s ORDER BY r.created_at DESC, r.game_id LIMIT %s OFFSET %s",
        [player_key, limit, offset])
    return [{**row, "players": json.loads(row["players"])} for row in rows]


@_nothing_for_nul(list)
def results_in_scope(db: Connection, columns: tuple[str, ...], since: str | None = None, until: str | None = None,
                     player_key: str | None = None) -> list[tuple[Any, ...]]:
    """As ``service.storage.sqlite.results_in_scope``."""
    where, params = _period_clause(since, until)
    where = where.replace("created_at", "r.created_at")
    if player_key is not None:
        where += (" AND " if where else "WHERE ") + "r.player_key = %s"
        params.append(player_key)
    selected = ", ".join(f"r.{column}" for column in columns)
    with db.cursor(row_factory=tuple_row) as cursor:
        return cursor.execute(f"SELECT {selected}, g.record_hash, g.version FROM player_results AS r "
                              f"LEFT JOIN games AS g ON g.id = r.game_id {where}", params).fetchall()


@_nothing_for_nul(int)
def player_game_count(db: Connection, player_key: str) -> int:
    """How many ``player_results`` rows one player key has."""
    row = db.execute("SELECT COUNT(*) AS n FROM player_results WHERE player_key = %s", [player_key]).fetchone()
    return 0 if row is None else int(row["n"])


# --- a whole game's stored rows, for ``kibitz copy`` (``service.record.copying``) -------------


def connect_read_only(path: str | Path) -> Connection:
    """A :func:`connect` to URL ``path`` whose every transaction is read-only
    (``default_transaction_read_only``): a write through it is refused by the server."""
    conn = connect(path)
    try:
        conn.execute("SET default_transaction_read_only = on")
    except BaseException:
        conn.close()
        raise
    return conn


def tokens(db: Connection, game_id: str) -> list[dict[str, Any]]:
    """Every write token of ``game_id``, revoked ones included: ``{"token_hash",
    "created_at", "revoked_at"}``, oldest first."""
    return list(db.execute("SELECT token_hash, created_at, revoked_at FROM tokens WHERE game_id = %s "
                           "ORDER BY created_at, token_hash", [game_id]))


def restore_token(db: Connection, game_id: str, token_hash: str, created_at: str, revoked_at: str | None) -> None:
    """Store token ``token_hash`` of ``game_id`` exactly as another database held it (as
    ``service.storage.sqlite.restore_token``)."""
    db.execute("INSERT INTO tokens (token_hash, game_id, created_at, revoked_at) VALUES (%s, %s, %s, %s) "
               "ON CONFLICT (game_id, token_hash) DO UPDATE SET created_at = excluded.created_at, "
               "revoked_at = excluded.revoked_at", [token_hash, game_id, created_at, revoked_at])
    _notify(db, f"{game_id}:tokens")


def idempotency_records(db: Connection, game_id: str) -> list[dict[str, Any]]:
    """Every stored first answer of ``game_id`` (as ``service.storage.sqlite.idempotency_records``)."""
    rows = db.execute("SELECT key, request_hash, status, response, created_at FROM idempotency "
                      "WHERE game_id = %s ORDER BY key COLLATE \"C\"", [game_id]).fetchall()
    return [{**row, "status": int(row["status"]),
             "response": _decode(row["response"], None, game_id, None,
                                 f"the stored answer to Idempotency-Key {str(row['key'])[:40]!r} cannot be read")}
            for row in rows]


def event_keys(db: Connection, game_id: str) -> dict[int, str]:
    """The ``Idempotency-Key`` each event of ``game_id`` was recorded with, by seq."""
    return {int(row["seq"]): str(row["idempotency_key"]) for row in db.execute(
        "SELECT seq, idempotency_key FROM events WHERE game_id = %s AND idempotency_key IS NOT NULL ORDER BY seq",
        [game_id])}


def player_results_of(db: Connection, game_id: str) -> list[dict[str, Any]]:
    """The ``player_results`` rows of ``game_id`` (every column), by seat."""
    return [{key: int(value) if isinstance(value, int) else value for key, value in row.items()}
            for row in db.execute("SELECT * FROM player_results WHERE game_id = %s ORDER BY seat", [game_id])]


def same_database(src: Connection, dst: Connection) -> bool:
    """True when the connections ``src`` and ``dst`` reach the same schema of one database on
    one server, however their URLs spell it (a host name or its address, another user,
    other options): ``dst`` takes a session advisory lock on two random keys, ``src`` looks
    for that lock in ``pg_locks`` of its own database (which lists the locks of its server
    alone), the lock is released, and both must name the same ``current_schema()``. ``src``
    only reads (it may be read-only, or a standby). Raises the driver's error."""
    keys = [secrets.randbits(31), secrets.randbits(31)]
    dst.execute("SELECT pg_advisory_lock(%s::integer, %s::integer)", keys)
    try:
        seen = src.execute(
            "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted "
            "AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
            "AND classid = %s::bigint::oid AND objid = %s::bigint::oid AND objsubid = 2) AS seen, "
            "current_schema() AS name", keys).fetchone()
    finally:
        dst.execute("SELECT pg_advisory_unlock(%s::integer, %s::integer)", keys)
    there = dst.execute("SELECT current_schema() AS name").fetchone()
    if seen is None or there is None:
        return False
    return bool(seen["seen"]) and seen["name"] == there["name"]
