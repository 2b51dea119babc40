"""Whole-database storage work on PostgreSQL: ``kibitz backup`` through ``pg_dump`` and the
reads of ``kibitz check`` and ``kibitz verify``, the sibling of ``service.storage.admin``
(SQLite's). Both implement :class:`service.storage.interface.WholeDatabase`;
``service.storage.backend.whole_database`` picks the one a ``--db`` value names.

- :func:`backup` writes a ``pg_dump`` custom-format archive of the database (of the schema
  that holds the Kibitz tables alone when that is not ``public``), taken from one snapshot exported by
  a read-only transaction (``pg_export_snapshot``), so the games and events it counts are the
  ones the archive holds; ``pg_restore --list`` reads the archive back before it is moved
  into place. Restore it with ``pg_restore --no-owner --dbname URL FILE``.
- :func:`open_read_only` opens one ``REPEATABLE READ READ ONLY`` transaction: a check sees one
  committed state while servers go on writing, and never changes the database.
- :func:`integrity` checks the guarantees the database itself enforces (the primary key of
  ``events``, the triggers refusing to change or delete an event, the unique idempotency
  keys); the pages on disk are the server's own to check (data checksums, ``amcheck``).
- the other reads (:func:`games`, :func:`event_seqs`, :func:`game_events`,
  :func:`chain_events`, :func:`orphan_events` …) answer as ``service.storage.admin``'s do,
  JSON columns as UTF-8 bytes, so ``service.record.checking`` names every problem in the same words
  on both backends.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
from psycopg import conninfo

from schemas.common import scrub
from service.storage import messages, postgres
from service.storage.admin import DERIVED, SCHEMA, TABLES, BackupError, BadEvent, Copied, decode_json

#: The driver's errors, as ``service.storage.admin.Error`` is SQLite's.
Error = psycopg.Error
DatabaseError = psycopg.Error
#: What :func:`integrity`'s problems are named as.
INTEGRITY = "PostgreSQL's guarantees"

Connection = psycopg.Connection[tuple[Any, ...]]

#: The triggers that make the database refuse to change a stored event (``postgres.MIGRATIONS``).
TRIGGERS = postgres.TRIGGERS


def shown(url: str) -> str:
    """``url`` as it may be printed: any password left out (``messages.shown``; raises
    nothing, whatever the string)."""
    return messages.shown(url)


@contextmanager
def open_read_only(path: str | Path) -> Iterator[Connection]:
    """A connection to the database at URL ``path`` inside one ``REPEATABLE READ READ ONLY``
    transaction (rolled back at the end): every read sees the same committed state and
    nothing can be written. Raises ``psycopg.Error`` when the server cannot be reached."""
    conn: Connection = psycopg.connect(str(path), autocommit=True, connect_timeout=10)
    try:
        conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        yield conn
    finally:
        conn.close()


def _tables(conn: Connection) -> set[str]:
    return {str(row[0]) for row in conn.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")}


def _columns(conn: Connection, table: str) -> set[str]:
    return {str(row[0]) for row in conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
        "AND table_name = %s", [table])}


def integrity(conn: Connection) -> list[str]:
    """What is missing of the guarantees the database enforces on the event log (``[]`` when
    none is): the primary key ``(game_id, seq)`` of ``events``, its unique index of
    idempotency keys, and its triggers refusing ``UPDATE``, ``DELETE`` and ``TRUNCATE``
    (present, and enabled ``ALWAYS``: for every session, whatever its
    ``session_replication_role``); the triggers of ``player_results`` and ``results_seal``
    (migration ``0011_results_seal``) present and enabled ``ALWAYS``. Nothing when there is no
    ``events`` table (named elsewhere)."""
    if "events" not in _tables(conn):
        return []
    problems = []
    keys = [row[0] for row in conn.execute(
        "SELECT array_agg(a.attname::text ORDER BY a.attnum) FROM pg_constraint AS c "
        "JOIN pg_attribute AS a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey) "
        "WHERE c.conrelid = to_regclass('events') AND c.contype = 'p' GROUP BY c.oid")]
    if not keys or sorted(keys[0]) != ["game_id", "seq"]:
        problems.append("events has no primary key (game_id, seq): two events may share a seq")
    index = conn.execute("SELECT indisunique FROM pg_index WHERE indexrelid = to_regclass('events_idempotency')"
                         ).fetchone()
    if index is None or not index[0]:
        problems.append("events has no unique index events_idempotency: an Idempotency-Key may be stored twice")
    enabled = {str(row[0]): str(row[1]) for row in conn.execute(
        "SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = to_regclass('events') AND NOT tgisinternal")}
    for name, what in TRIGGERS.items():
        if name not in enabled:
            problems.append(f"the trigger {name} is missing: a stored event may be changed ({what})")
        elif enabled[name] == "D":
            problems.append(f"the trigger {name} is disabled: a stored event may be changed ({what}); "
                            f"ALTER TABLE events ENABLE ALWAYS TRIGGER {name}")
        elif enabled[name] != "A":  # 'O' or 'R': a session_replication_role skips it
            problems.append(f"the trigger {name} does not fire for every session (session_replication_role "
                            f"skips it): a stored event may be changed ({what}); "
                            f"ALTER TABLE events ENABLE ALWAYS TRIGGER {name}")
    sealed = {str(row[0]): str(row[1]) for row in conn.execute(
        "SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid IN (to_regclass('player_results'), "
        "to_regclass('results_seal')) AND NOT tgisinternal")}
    if "results_seal" in _tables(conn):  # migration 0011: named with the schema when it is missing
        for table, names in (("player_results", postgres.RESULTS_TRIGGERS), ("results_seal", postgres.SEAL_TRIGGERS)):
            if table not in _tables(conn):
                continue  # named with the schema
            for what, name in names.items():
                if sealed.get(name) != "A":
                    problems.append(f"the trigger {name} is missing or does not fire for every session: "
                                    + ("a player_results row may be changed unseen by a running server"
                                       if table == "player_results" else "results_seal may be set back")
                                    + f" ({what}); ALTER TABLE {table} ENABLE ALWAYS TRIGGER {name} (or create it "
                                      "as migration 0011_results_seal does)")
    changed = conn.execute("SELECT tgenabled FROM pg_trigger WHERE tgrelid = to_regclass('games') "
                           "AND tgname = 'games_changed'").fetchone()
    if "games" in _tables(conn) and (changed is None or changed[0] != "A"):
        problems.append("the trigger games_changed is missing or does not fire for every session: a games row "
                        "changed behind the servers' back is not heard by their answers from memory; "
                        "ALTER TABLE games ENABLE ALWAYS TRIGGER games_changed (or create it as migration "
                        "0010_sealed_events does)")
    return problems


def missing_tables(conn: Connection) -> list[str]:
    """The tables of ``admin.TABLES`` that the connection's schema lacks."""
    names = _tables(conn)
    return [name for name in TABLES if name not in names]


def schema_problems(conn: Connection) -> list[str]:
    """What the connection's schema lacks of ``admin.SCHEMA``, in ``admin.schema_problems``'s
    words; ``[]`` when it has every table and column."""
    names = _tables(conn)
    problems = []
    for table, columns in SCHEMA.items():
        if table not in names:
            problems.append(f"no {table} table")
            continue
        present = _columns(conn, table)
        problems.extend(f"no column {column} in {table}" for column in columns if column not in present)
    return problems


def read_table(conn: Connection, table: str) -> int:
    """Read every row of ``table`` (one of ``admin.SCHEMA``), every column the service needs;
    return how many rows. Raises ``psycopg.Error`` for what cannot be read."""
    columns = ", ".join(SCHEMA[table])
    return sum(1 for _ in conn.execute(f"SELECT {columns} FROM {table}"))


def _bytes(text: object) -> object:
    return text.encode("utf-8") if isinstance(text, str) else text


def games(conn: Connection) -> list[dict[str, Any]]:
    """Every ``games`` row as ``admin.games`` returns it (``players`` and ``options`` as UTF-8
    bytes of their JSON text; ``stored_events``; each column of ``admin.DERIVED`` the table
    has), in the order of creation."""
    present = _columns(conn, "games")
    record_hash = "record_hash" if "record_hash" in present else "NULL"
    stored_events = "stored_events" if "stored_events" in present else "NULL"
    derived = [column for column in DERIVED if column in present]
    extra = "".join(f", {column}" for column in derived)
    rows = conn.execute(f"SELECT id, game, version, status, visibility, players, options, {record_hash}, "
                        f"{stored_events}{extra} FROM games ORDER BY rowid").fetchall()
    return [{"id": row[0], "game": row[1], "version": None if row[2] is None else int(row[2]), "status": row[3],
             "visibility": row[4], "players": _bytes(row[5]), "options": _bytes(row[6]), "record_hash": row[7],
             "stored_events": None if row[8] is None else int(row[8]),
             **{column: int(value) if isinstance(value, int) else value
                for column, value in zip(derived, row[9:], strict=True)}}
            for row in rows]


def player_results(conn: Connection) -> dict[str, list[dict[str, Any]]]:
    """Every ``player_results`` row, by game id, as ``admin.player_results`` returns them."""
    if "player_results" not in _tables(conn):
        return {}
    columns = SCHEMA["player_results"]
    out: dict[str, list[dict[str, Any]]] = {}
    for row in conn.execute(f"SELECT {', '.join(columns)} FROM player_results ORDER BY game_id, seat, player_key"):
        found = {column: int(value) if isinstance(value, int) else value
                 for column, value in zip(columns, row, strict=True)}
        out.setdefault(str(found["game_id"]), []).append(found)
    return out


def has_chain(conn: Connection) -> bool:
    """True when the ``events`` table has its ``salt`` and ``hash`` columns (``0008_hash_chain``)."""
    return {"salt", "hash"} <= _columns(conn, "events")


def chain_events(conn: Connection, game_id: str) -> Iterator[dict[str, Any]]:
    """The events of ``game_id`` in ``seq`` order as ``admin.chain_events`` yields them (``data``
    decoded, None when it cannot be read)."""
    for seq, kind, data, recorded_at, at, salt, digest in conn.execute(
            "SELECT seq, type, data, recorded_at, at, salt, hash FROM events WHERE game_id = %s ORDER BY seq",
            [game_id]).fetchall():
        try:
            decoded = scrub(decode_json(_bytes(data)))
        except ValueError:
            decoded = None
        yield {"seq": int(seq), "type": kind, "data": decoded, "recorded_at": recorded_at, "at": at, "salt": salt,
               "hash": digest}


def event_seqs(conn: Connection, game_id: str) -> list[int]:
    """The stored ``seq`` numbers of ``game_id``, in order."""
    return [int(row[0]) for row in conn.execute("SELECT seq FROM events WHERE game_id = %s ORDER BY seq",
                                                [game_id])]


def stored_answers(conn: Connection, game_id: str) -> list[dict[str, Any]]:
    """As ``service.storage.admin.stored_answers``."""
    out = []
    for key, status, response, seq in conn.execute(
            "SELECT i.key, i.status, i.response, e.seq FROM idempotency AS i LEFT JOIN events AS e "
            "ON e.game_id = i.game_id AND e.idempotency_key = i.key WHERE i.game_id = %s ORDER BY i.key",
            [game_id]).fetchall():
        try:
            decoded = decode_json(_bytes(response))
        except ValueError:
            decoded = None
        out.append({"key": str(key), "status": status, "response": decoded, "seq": None if seq is None else int(seq)})
    return out


def game_events(conn: Connection, game_id: str) -> Iterator[dict[str, Any]]:
    """The events of ``game_id`` in ``seq`` order, ``data`` decoded, as ``admin.game_events``
    yields them; raises :class:`~service.storage.admin.BadEvent` (with the event's ``seq``)
    for data that is not a JSON object."""
    for seq, kind, data, recorded_at, at in conn.execute(
            "SELECT seq, type, data, recorded_at, at FROM events WHERE game_id = %s ORDER BY seq",
            [game_id]).fetchall():
        try:
            decoded = decode_json(_bytes(data))
        except ValueError as err:
            raise BadEvent(int(seq), f"its data cannot be read: {err}") from err
        if not isinstance(decoded, dict):
            raise BadEvent(int(seq), f"its data is a JSON {type(decoded).__name__}, not an object")
        yield {"seq": int(seq), "type": kind, "data": decoded, "recorded_at": recorded_at, "at": at}


def wrong_types(conn: Connection) -> list[tuple[str | None, int | None, str]]:
    """As ``service.storage.admin.wrong_types``: none, PostgreSQL's columns are typed."""
    return []


def unanswered_keys(conn: Connection) -> list[tuple[str, int, str]]:
    """``(game_id, seq, key)`` of every event stored with an ``Idempotency-Key`` that has no
    stored first answer in ``idempotency`` (every keyed write stores both, in one transaction)."""
    rows = conn.execute("SELECT e.game_id, e.seq, e.idempotency_key FROM events AS e LEFT JOIN idempotency AS i ON i.game_id "
                        "= e.game_id AND i.key = e.idempotency_key WHERE e.idempotency_key IS NOT NULL AND i.key IS NULL ORDER BY e.game_id, e.seq").fetchall()
    return [(str(game_id), int(seq), str(key)) for game_id, seq, key in rows]


def orphan_events(conn: Connection) -> list[tuple[str, int]]:
    """``(game_id, count)`` of events whose game has no ``games`` row."""
    rows = conn.execute("SELECT game_id, count(*) FROM events WHERE game_id NOT IN (SELECT id FROM games) "
                        "GROUP BY game_id ORDER BY game_id").fetchall()
    return [(str(game_id), int(count)) for game_id, count in rows]


# --- backups -----------------------------------------------------------------------------


def _dump_target(url: str) -> tuple[str, dict[str, str]]:
    """The connection string ``pg_dump`` gets and its environment: any password moves from
    the URL into ``PGPASSWORD``, so that it never shows in the list of processes."""
    params = conninfo.conninfo_to_dict(url)
    env = dict(os.environ)
    password = params.pop("password", None)
    if password is not None:
        env["PGPASSWORD"] = str(password)
    return conninfo.make_conninfo(**{key: str(value) for key, value in params.items()}), env


def backup(source: str | Path, dest: str | Path, *, force: bool = False) -> Copied:
    """Back up the PostgreSQL database at URL ``source`` (live: servers may go on writing) into
    ``dest``: a ``pg_dump`` custom-format archive (``pg_dump --format=custom``) of the whole
    database when the Kibitz tables are in its ``public`` schema, else of the schema holding
    them (the URL's ``search_path``), restored with ``pg_restore --no-owner --dbname URL dest``.

    The archive is taken from one snapshot that a read-only transaction exports, the same
    snapshot the games and events are counted in; it is written beside ``dest``, read back
    with ``pg_restore --list``, and only then renamed into place. Raises
    :class:`~service.storage.admin.BackupError` (a sentence) when ``pg_dump`` is not
    installed or fails, when the database cannot be reached or is not a Kibitz database,
    when ``dest`` exists and ``force`` is false, or its folder does not exist."""
    url, dest = str(source), Path(dest)
    where = shown(url)
    if dest.exists() and not force:
        raise BackupError(f"{dest} exists already: choose another name, or add --force to replace it.")
    if not dest.parent.is_dir():
        raise BackupError(f"There is no folder {dest.parent} to write {dest.name} into.")
    pg_dump, pg_restore = shutil.which("pg_dump"), shutil.which("pg_restore")
    if pg_dump is None or pg_restore is None:
        raise BackupError(f"No backup was made: {'pg_dump' if pg_dump is None else 'pg_restore'} is not installed "
                          "(on Debian: apt-get install postgresql-client), and a PostgreSQL database is backed up "
                          "through pg_dump.")
    temp = dest.with_name(f".{dest.name}.part-{os.getpid()}")
    try:
        target, env = _dump_target(url)
        with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
            conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            missing = missing_tables(conn)
            if missing:
                raise BackupError(f"{where} is not a Kibitz database (no {', '.join(missing)} table).")
            row = conn.execute("SELECT pg_export_snapshot(), current_schema(), (SELECT count(*) FROM games), "
                               "(SELECT count(*) FROM events)").fetchone()
            assert row is not None
            snapshot, schema, games_n, events_n = row
            # the whole database when the tables are in public (a dump of public alone would
            # create it again, which pg_restore refuses in a new database); else their schema alone
            only = [] if schema == "public" else ["--schema=" + '"' + str(schema).replace('"', '""') + '"']
            try:
                dumped = subprocess.run(
                    [pg_dump, "--format=custom", f"--snapshot={snapshot}", *only, "--file", str(temp),
                     "--dbname", target], env=env, capture_output=True, text=True, timeout=24 * 3600, check=False)
            except OSError as err:
                raise BackupError(f"No backup was made: pg_dump could not be run ({err}).") from err
            if dumped.returncode != 0:
                raise BackupError(f"No backup was made: pg_dump failed: {messages.failure(dumped.stderr, url)}")
        listed = subprocess.run([pg_restore, "--list", str(temp)], capture_output=True, text=True, check=False)
        if listed.returncode != 0 or "TABLE DATA" not in listed.stdout:
            raise BackupError(f"No backup was made: pg_restore cannot read the archive pg_dump wrote: "
                              f"{messages.failure(listed.stderr, url)}")
        os.replace(temp, dest)
    except psycopg.Error as err:
        raise BackupError(f"Could not back up {where}: {messages.failure(err, url)}") from err
    finally:
        if temp.exists():
            temp.unlink()
    return Copied(dest, dest.stat().st_size, int(games_n), int(events_n))
