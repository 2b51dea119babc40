"""Whole-database storage work for running a club server on SQLite: backups, checks, the
checkpoint at shutdown. Every SQL statement of ``kibitz backup``, ``kibitz check`` and ``kibitz
serve``'s start-up and shutdown checks is here, beside ``service.storage.sqlite``. It implements
:class:`service.storage.interface.WholeDatabase`, as ``service.storage.postgres_admin`` does
on PostgreSQL.

- :func:`backup` copies a live database with SQLite's online backup API into one
  self-contained file (rollback-journal mode: no ``-wal`` or ``-shm`` needed beside it).
- :func:`open_read_only` opens a database with a ``mode=ro`` URI, so a check never changes it.
- :func:`integrity`, :func:`games`, :func:`event_seqs`, :func:`orphan_events` are the reads of
  ``kibitz check`` (``service.record.checking`` folds the games).
- :func:`startup_problem` is ``kibitz serve``'s quick check; :func:`checkpoint` is run when it
  stops.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schemas.common import scrub
from service.storage import sqlite as store
from service.storage.messages import one_sentence

#: The tables without which a file is not a Kibitz database at all.
TABLES = ("games", "events", "idempotency")

#: Every table and column the service reads or writes, once ``service.storage.migrations`` has run
#: (tests/test_check_schema.py keeps it equal to what the migrations create).
SCHEMA: dict[str, tuple[str, ...]] = {
    "games": ("id", "game", "title", "players", "player_keys", "visibility", "options", "created_at", "version",
              "status", "imported_at", "forked_from_game", "forked_from_seq", "secret_from_hand", "fork_lineage",
              "source_game", "record_hash", "stored_events"),
    "events": ("game_id", "seq", "type", "data", "recorded_at", "at", "idempotency_key", "salt", "hash"),
    "idempotency": ("game_id", "key", "request_hash", "status", "response", "created_at"),
    "player_results": ("game_id", "player_key", "name", "seat", "game", "created_at", "status", "result", "score",
                       "unit", "hands", "tricks_won", "fools", "knocks", "stops"),
    "tokens": ("game_id", "token_hash", "created_at", "revoked_at"),
    "results_seal": ("game_id", "n"),
}


#: The driver's errors (``service.storage.postgres_admin`` names psycopg's).
Error = sqlite3.Error
DatabaseError = sqlite3.DatabaseError
#: What :func:`integrity`'s problems are named as.
INTEGRITY = "SQLite integrity check"


def shown(path: str) -> str:
    """``path`` as it may be printed (a file's path is printed as it is)."""
    return path


class BackupError(Exception):
    """A backup that could not be made; the message is a sentence for the terminal."""


@dataclass(frozen=True)
class Copied:
    """What :func:`backup` wrote: the destination, its size in bytes, games and events."""

    path: Path
    bytes: int
    games: int
    events: int


def backup(source: str | Path, dest: str | Path, *, force: bool = False) -> Copied:
    """Copy the database ``source`` (live: servers may go on writing) to ``dest``.

    The copy is one consistent snapshot (SQLite's online backup API, in one step under a
    read transaction, so writers are not held up in WAL mode), switched to rollback-journal
    mode so that it is a single self-contained file, checked (``PRAGMA quick_check``), and
    only then moved into place (a temporary file beside ``dest``, renamed). Raises
    :class:`BackupError` when ``source`` is missing or not a database, when ``dest`` exists
    and ``force`` is false, or when the copy fails.
    """
    source, dest = Path(source), Path(dest)
    if not source.is_file():
        raise BackupError(f"There is no database file {source}.")
    if dest.exists() and not force:
        raise BackupError(f"{dest} exists already: choose another name, or add --force to replace it.")
    if dest.exists() and dest.resolve() == source.resolve():
        raise BackupError(f"{dest} is the database itself: back it up to another file.")
    if not dest.parent.is_dir():
        raise BackupError(f"There is no folder {dest.parent} to write {dest.name} into.")
    temp = dest.with_name(f".{dest.name}.part-{os.getpid()}")
    try:
        with closing(sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=store.BUSY_TIMEOUT_MS / 1000)) as src:
            _tables_or_fail(src, source)
            with closing(sqlite3.connect(temp, isolation_level=None)) as out:
                src.backup(out)
                out.execute("PRAGMA journal_mode = DELETE")
                verdict = out.execute("PRAGMA quick_check").fetchall()
                if verdict != [("ok",)]:
                    raise BackupError(f"The copy of {source} does not pass SQLite's check: {verdict[0][0]}.")
                games_n, events_n = out.execute(
                    "SELECT (SELECT count(*) FROM games), (SELECT count(*) FROM events)").fetchone()
        os.replace(temp, dest)
    except sqlite3.Error as err:
        raise BackupError(f"Could not back up {source}: {one_sentence(err)}") from err
    finally:
        for leftover in (temp, temp.with_name(temp.name + "-journal")):
            if leftover.exists():
                leftover.unlink()
    return Copied(dest, dest.stat().st_size, int(games_n), int(events_n))


def _tables_or_fail(conn: sqlite3.Connection, path: Path) -> None:
    missing = missing_tables(conn)
    if missing:
        raise BackupError(f"{path} is not a Kibitz database (no {', '.join(missing)} table).")


@contextmanager
def open_read_only(path: str | Path) -> Iterator[sqlite3.Connection]:
    """A connection to ``path`` that cannot change it (``mode=ro``). Raises ``sqlite3.Error``
    when the file cannot be opened, ``FileNotFoundError`` when there is none."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"There is no database file {path}.")
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=store.BUSY_TIMEOUT_MS / 1000)
    try:
        yield conn
    finally:
        conn.close()


def integrity(conn: sqlite3.Connection, quick: bool = False) -> list[str]:
    """SQLite's ``PRAGMA integrity_check`` (``quick_check`` if ``quick``): ``[]`` when the file
    is sound, else SQLite's messages (at most 100)."""
    pragma = "quick_check" if quick else "integrity_check"
    rows = [str(row[0]) for row in conn.execute(f"PRAGMA {pragma}(100)")]
    return ([] if rows == ["ok"] else rows) + missing_triggers(conn)


def missing_triggers(conn: sqlite3.Connection) -> list[str]:
    """Each trigger that makes SQLite refuse to change a stored event
    (``service.storage.sqlite.TRIGGERS``), or counts a change of ``player_results`` in
    ``results_seal`` and keeps that from being set back (``RESULTS_TRIGGERS``,
    ``SEAL_TRIGGERS``), that the database lacks, in words; ``[]`` when it has them all, or
    has no ``events`` table (named elsewhere)."""
    names = {str(row[0]) for row in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')")}
    if "events" not in names:
        return []
    missing = [f"the trigger {name} is missing: a stored event may be changed ({what})"
               for name, what in store.TRIGGERS.items() if name not in names]
    if "results_seal" in names and "player_results" in names:  # migration 0011; a missing table is named with the schema
        missing += [f"the trigger {name} is missing: a player_results row may be changed ({what}) unseen by a "
                    "running server" for what, name in store.RESULTS_TRIGGERS.items() if name not in names]
    if "results_seal" in names:
        missing += [f"the trigger {name} is missing: results_seal may be set back ({what})"
                    for what, name in store.SEAL_TRIGGERS.items() if name not in names]
    return missing


def missing_tables(conn: sqlite3.Connection) -> list[str]:
    """The tables of :data:`TABLES` that ``conn``'s database lacks."""
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return [name for name in TABLES if name not in names]


def schema_problems(conn: sqlite3.Connection) -> list[str]:
    """What ``conn``'s database lacks of :data:`SCHEMA`, in words ("no tokens table", "no
    column status in games"); ``[]`` when it has every table and column."""
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    problems = []
    for table, columns in SCHEMA.items():
        if table not in names:
            problems.append(f"no {table} table")
            continue
        present = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        problems.extend(f"no column {column} in {table}" for column in columns if column not in present)
    return problems


def read_table(conn: sqlite3.Connection, table: str) -> int:
    """Read every row of ``table`` (one of :data:`SCHEMA`), every column the service needs,
    as the service would (text decoded); return how many rows. Raises ``sqlite3.Error`` for
    what cannot be read."""
    columns = ", ".join(SCHEMA[table])
    return sum(1 for _ in conn.execute(f"SELECT {columns} FROM {table}"))


#: The ``games`` columns :func:`games` reads besides the ones every database has, each when
#: the database has it: what ``kibitz check`` compares with the log (``service.record.checking``).
DERIVED = ("title", "created_at", "player_keys", "forked_from_game", "forked_from_seq", "secret_from_hand",
           "fork_lineage")


def games(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every ``games`` row's ``id``, ``game``, ``version``, ``status``, ``visibility``,
    ``record_hash`` and ``stored_events`` (each None where its column is missing: a database
    not migrated) and ``players`` and ``options`` (as stored: JSON text, or whatever a damaged
    row holds), and each column of :data:`DERIVED` the table has (text columns as text, None
    where it is not UTF-8), oldest first."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(games)")}
    record_hash = "record_hash" if "record_hash" in columns else "NULL"
    stored_events = "stored_events" if "stored_events" in columns else "NULL"
    derived = [column for column in DERIVED if column in columns]
    extra = "".join(f", {column}" if column in ("forked_from_seq", "secret_from_hand") else f", CAST({column} AS BLOB)"
                    for column in derived)
    rows = conn.execute(f"SELECT id, game, version, status, visibility, CAST(players AS BLOB), "
                        f"CAST(options AS BLOB), {record_hash}, {stored_events}{extra} FROM games ORDER BY rowid"
                        ).fetchall()
    return [{"id": row[0], "game": row[1], "version": row[2], "status": row[3], "visibility": row[4],
             "players": row[5], "options": row[6], "record_hash": row[7], "stored_events": row[8],
             **{column: _text(value) if isinstance(value, bytes) else value
                for column, value in zip(derived, row[9:], strict=True)}} for row in rows]


def player_results(conn: sqlite3.Connection) -> dict[str, list[dict[str, Any]]]:
    """Every ``player_results`` row (every column of :data:`SCHEMA`'s), by game id, each
    game's by seat (``{}`` when the table is missing)."""
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "player_results" not in names:
        return {}
    columns = SCHEMA["player_results"]
    out: dict[str, list[dict[str, Any]]] = {}
    for row in conn.execute(f"SELECT {', '.join(columns)} FROM player_results ORDER BY game_id, seat, player_key"):
        found = dict(zip(columns, row, strict=True))
        out.setdefault(str(found["game_id"]), []).append(found)
    return out


def has_chain(conn: sqlite3.Connection) -> bool:
    """True when ``conn``'s events have their ``salt`` and ``hash`` columns (migration 0008)."""
    return {"salt", "hash"} <= {row[1] for row in conn.execute("PRAGMA table_info(events)")}


def chain_events(conn: sqlite3.Connection, game_id: str) -> Iterator[dict[str, Any]]:
    """The events of ``game_id`` in ``seq`` order as the hash chain covers them: ``seq``,
    ``type``, ``data`` (decoded; None when it cannot be read), ``recorded_at``, ``at``,
    ``salt``, ``hash`` (each None when it is not text)."""
    for seq, kind, data, recorded_at, at, salt, digest in conn.execute(
            "SELECT seq, CAST(type AS BLOB), CAST(data AS BLOB), CAST(recorded_at AS BLOB), CAST(at AS BLOB), "
            "CAST(salt AS BLOB), CAST(hash AS BLOB) FROM events WHERE game_id = ? ORDER BY seq", [game_id]):
        try:
            decoded = scrub(decode_json(data))  # as every read decodes it
        except ValueError:
            decoded = None
        yield {"seq": seq, "type": _text(kind), "data": decoded, "recorded_at": _text(recorded_at), "at": _text(at),
               "salt": _text(salt), "hash": _text(digest)}


def _text(stored: object) -> str | None:
    """A column read as bytes decoded as UTF-8 (None for NULL or bytes that are not UTF-8)."""
    if not isinstance(stored, bytes):
        return None
    try:
        return stored.decode("utf-8")
    except UnicodeDecodeError:
        return None


def event_seqs(conn: sqlite3.Connection, game_id: str) -> list[int]:
    """The stored ``seq`` numbers of ``game_id``, in order."""
    return [int(row[0]) for row in conn.execute("SELECT seq FROM events WHERE game_id = ? ORDER BY seq", [game_id])]


def stored_answers(conn: sqlite3.Connection, game_id: str) -> list[dict[str, Any]]:
    """Every stored first answer of ``game_id``'s ``Idempotency-Key``s: ``key``, ``status``,
    ``response`` (decoded; None when it cannot be read) and ``seq``, the event stored with that
    key (None when none was), by key."""
    out = []
    for key, status, response, seq in conn.execute(
            "SELECT i.key, i.status, CAST(i.response AS BLOB), e.seq FROM idempotency AS i LEFT JOIN events AS e "
            "ON e.game_id = i.game_id AND e.idempotency_key = i.key WHERE i.game_id = ? ORDER BY i.key", [game_id]):
        try:
            decoded = decode_json(response)
        except ValueError:
            decoded = None
        out.append({"key": str(key), "status": status, "response": decoded, "seq": seq})
    return out


class BadEvent(ValueError):
    """A stored event that is not what Kibitz writes: ``seq`` is the event's, the message says why."""

    def __init__(self, seq: int, what: str) -> None:
        super().__init__(what)
        self.seq = seq


def decode_json(stored: object) -> Any:
    """A JSON column read as bytes (``CAST(… AS BLOB)``) decoded. Raises ``ValueError`` naming
    what is wrong: not UTF-8 text, or not JSON."""
    if not isinstance(stored, bytes):
        raise ValueError(f"it is not JSON text but {type(stored).__name__}")
    try:
        return json.loads(stored.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise ValueError(f"it is not UTF-8 text ({err.reason} at byte {err.start})") from err
    except ValueError as err:
        raise ValueError(f"it is not JSON ({err})") from err


def game_events(conn: sqlite3.Connection, game_id: str) -> Iterator[dict[str, Any]]:
    """The events of ``game_id`` in ``seq`` order, ``data`` decoded; raises :class:`BadEvent`
    (with the event's ``seq``) for a type that is not text or data that is not a JSON object."""
    for seq, kind, data, recorded_at, at in conn.execute(
            "SELECT seq, CAST(type AS BLOB), CAST(data AS BLOB), recorded_at, at FROM events WHERE game_id = ? "
            "ORDER BY seq", [game_id]):
        try:
            decoded = decode_json(data)
        except ValueError as err:
            raise BadEvent(seq, f"its data cannot be read: {err}") from err
        if not isinstance(decoded, dict):
            raise BadEvent(seq, f"its data is a JSON {type(decoded).__name__}, not an object")
        try:
            kind = kind.decode("utf-8") if isinstance(kind, bytes) else None
        except UnicodeDecodeError:
            kind = None
        if kind is None:
            raise BadEvent(seq, "its type is not text")
        yield {"seq": seq, "type": kind, "data": decoded, "recorded_at": recorded_at, "at": at}


def unanswered_keys(conn: sqlite3.Connection) -> list[tuple[str, int, str]]:
    """``(game_id, seq, key)`` of every event stored with an ``Idempotency-Key`` that has no
    stored first answer in ``idempotency`` (every keyed write stores both, in one transaction)."""
    rows = conn.execute("SELECT e.game_id, e.seq, e.idempotency_key FROM events AS e LEFT JOIN idempotency AS i ON i.game_id "
                        "= e.game_id AND i.key = e.idempotency_key WHERE e.idempotency_key IS NOT NULL AND i.key IS NULL ORDER BY e.game_id, e.seq").fetchall()
    return [(str(game_id), int(seq), str(key)) for game_id, seq, key in rows]


def orphan_events(conn: sqlite3.Connection) -> list[tuple[str, int]]:
    """``(game_id, count)`` of events whose game has no ``games`` row."""
    rows = conn.execute("SELECT game_id, count(*) FROM events WHERE game_id NOT IN (SELECT id FROM games) "
                        "GROUP BY game_id ORDER BY game_id").fetchall()
    return [(str(game_id), int(count)) for game_id, count in rows]


#: The storage types Kibitz writes in each column (SQLite's ``typeof``), by table: the
#: column naming the game first, then the event's seq (None: the table has none). SQLite's
#: columns take any type (a BLOB of the same bytes, a number, NULL where text goes):
#: :func:`wrong_types` names a value of another type, which no write of Kibitz stores.
_T, _I, _N = "text", "integer", "null"
STORED_TYPES: dict[str, tuple[str, str | None, dict[str, tuple[str, ...]]]] = {
    "games": ("id", None, {"id": (_T,), "game": (_T,), "title": (_T, _N), "players": (_T,), "player_keys": (_T,),
                           "visibility": (_T,), "options": (_T,), "created_at": (_T,), "version": (_I,),
                           "status": (_T, _N), "imported_at": (_T, _N), "forked_from_game": (_T, _N),
                           "forked_from_seq": (_I, _N), "secret_from_hand": (_I, _N), "fork_lineage": (_T, _N),
                           "source_game": (_T, _N), "record_hash": (_T, _N), "stored_events": (_I,)}),
    "events": ("game_id", "seq", {"game_id": (_T,), "seq": (_I,), "type": (_T,), "data": (_T,), "recorded_at": (_T,),
                                  "at": (_T, _N), "idempotency_key": (_T, _N), "salt": (_T, _N), "hash": (_T, _N)}),
    "idempotency": ("game_id", None, {"game_id": (_T,), "key": (_T,), "request_hash": (_T,), "status": (_I,),
                                      "response": (_T,), "created_at": (_T, _N)}),
    "player_results": ("game_id", None, {"game_id": (_T,), "player_key": (_T,), "name": (_T,), "seat": (_I,),
                                         "game": (_T,), "created_at": (_T,), "status": (_T,), "result": (_T,),
                                         "score": (_I, "real", _N), "unit": (_T, _N), "hands": (_I, _N),
                                         "tricks_won": (_I, _N), "fools": (_I, _N), "knocks": (_I, _N),
                                         "stops": (_I, _N)}),
}


def wrong_types(conn: sqlite3.Connection) -> list[tuple[str | None, int | None, str]]:
    """Every stored value of a storage type Kibitz does not write in its column
    (:data:`STORED_TYPES`): ``(game id, seq or None, what)``, one query per table (only the
    columns the table has)."""
    out: list[tuple[str | None, int | None, str]] = []
    for table, (game_column, seq_column, columns) in STORED_TYPES.items():
        present = {str(row[1]) for row in conn.execute(f"PRAGMA table_info({table})")}
        checked = [(name, kinds) for name, kinds in columns.items() if name in present]
        if not checked or game_column not in present:
            continue
        where = " OR ".join(f"typeof({name}) NOT IN ({', '.join(repr(kind) for kind in kinds)})"
                            for name, kinds in checked)
        seq = seq_column if seq_column in present else "NULL"
        types = ", ".join(f"typeof({name})" for name, _ in checked)
        for row in conn.execute(f"SELECT CAST({game_column} AS TEXT), CAST({seq} AS TEXT), {types} FROM {table} "
                                f"WHERE {where}"):
            game_id, seq_text, found = row[0], row[1], row[2:]
            number = int(seq_text) if isinstance(seq_text, str) and seq_text.isdigit() else None
            for (name, kinds), kind in zip(checked, found, strict=True):
                if kind not in kinds:
                    out.append((None if game_id is None else str(game_id), number,
                                f"{table}.{name} is stored as {kind}, not as Kibitz writes it "
                                f"({' or '.join(kinds)}): it was changed after it was stored"))
    return out


def startup_problem(path: str | Path) -> str | None:
    """``kibitz serve``'s check before it serves ``path``: None when the file is missing (it
    will be created) or sound and readable (``PRAGMA quick_check``, the schema readable);
    else what is wrong, in a few words ("damaged: …", "not a database", "unreadable: …")."""
    path = Path(path)
    if not path.exists():
        return None
    if not os.access(path, os.R_OK) or path.is_dir():
        return "unreadable: permission denied" if not path.is_dir() else "unreadable: it is a folder"
    try:
        with open_read_only(path) as conn:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            damage = integrity(conn, quick=True)
            if damage:
                return f"damaged ({damage[0]})"
            names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            for table in SCHEMA:
                if table in names:
                    conn.execute(f"SELECT * FROM {table} LIMIT 1").fetchall()
    except sqlite3.DatabaseError as err:
        kind = store.fault(err)
        if kind is not None and kind.kind == "damaged":
            return f"damaged or not a database ({err})"
        return f"unreadable ({err})"
    return None


def schema_problem(path: str | Path) -> str | None:
    """``kibitz serve``'s check of the schema, once the migrations have run: None when
    ``path`` has every table and column of :data:`SCHEMA`, else what it lacks, in a few
    words ("missing part of its schema (no player_results table)")."""
    with open_read_only(path) as conn:
        missing = schema_problems(conn)
    return f"missing part of its schema ({', '.join(missing)})" if missing else None


def checkpoint(path: str | Path) -> None:
    """Copy the write-ahead log of ``path`` into the database file and empty it
    (``PRAGMA wal_checkpoint(TRUNCATE)``), so the file alone holds every committed event.
    Raises ``sqlite3.Error`` if the checkpoint cannot run."""
    with closing(sqlite3.connect(str(path), timeout=store.BUSY_TIMEOUT_MS / 1000)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
