"""The event store: plain functions over a sqlite-utils ``Database``.

Tables (created by ``service.storage.migrations.MIGRATIONS``):

- ``events`` — the append-only log: ``(game_id, seq)`` is the primary key, so two writers
  can never store the same ``seq``; triggers make SQLite itself refuse ``UPDATE`` and
  ``DELETE``. An ``Idempotency-Key`` is unique per game. Each event has its random
  ``salt`` and its ``hash``, chained to the event before (``replays.chain``, migration 0008).
- ``games`` — one row per game, a cache of what the events say (``game``, ``players``,
  ``options`` … from ``game_created``; ``version`` and ``status`` from the fold), and
  ``record_hash``, the last event's hash, written by :func:`append`.
- ``tokens`` — the write tokens of each game, one row per token (a game may hold one per
  device), each stored as its SHA-256 only (a secret, kept out of the public log), with when
  it was issued and, once revoked, when (``kibitz token``, migration 0006).
- ``idempotency`` — the first 201 response given for each ``(game_id, key)``.

Writes go through :func:`immediate`, a ``BEGIN IMMEDIATE`` transaction: SQLite lets one
writer in at a time, across threads and processes, and makes the others wait
(``busy_timeout``).

A write the storage cannot take (disk full, read-only file or disk, I/O error, a lock held
past the busy timeout) raises a ``sqlite3`` error that :func:`fault` classifies; the service
answers it with 503 ``storage_unavailable`` (:class:`StorageUnavailable`). Stored data that
is not what Kibitz writes raises :class:`RecordDamaged` (503 ``record_damaged``). Backups and
checks of a whole database live in ``service.storage.admin``.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import sqlite3
import time
import weakref
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import orjson
from sqlite_utils import Database

from replays import chain
from schemas.common import scrub

# The storage errors are the interface's, raised here and read as ``store.RecordDamaged`` … by the service.
from service.storage.interface import Moment as Moment
from service.storage.interface import RecordDamaged as RecordDamaged
from service.storage.interface import StorageUnavailable as StorageUnavailable

SYNCHRONOUS_LEVELS = ("OFF", "NORMAL", "FULL", "EXTRA")
#: The triggers that make SQLite refuse to change a stored event (``service.storage.migrations``
#: 0001 and 0009), and what each refuses.
TRIGGERS = {"events_no_update": "UPDATE", "events_no_delete": "DELETE", "events_no_replace": "INSERT OR REPLACE"}
BUSY_TIMEOUT_MS = 10_000
#: The triggers on ``player_results`` that count each change of its rows in ``results_seal``
#: (migration ``0011_results_seal``), by what they count.
RESULTS_TRIGGERS = {"INSERT": "results_counted_in", "UPDATE": "results_counted_up", "DELETE": "results_counted_out"}
#: The triggers that make ``results_seal`` only count up, by what they refuse.
SEAL_TRIGGERS = {"INSERT": "results_seal_no_insert", "UPDATE": "results_seal_forward",
                 "DELETE": "results_seal_no_delete"}
#: The message of the triggers that refuse to set ``results_seal`` back.
SEALED = "results_seal only counts up: {verb} refused"


def connect(path: str | Path, synchronous: str = "FULL", *, busy_timeout_ms: int | None = None,
            max_page_count: int | None = None) -> Database:
    """Open ``path`` (created if missing) in WAL mode and return a ``Database``.

    ``synchronous`` is one of :data:`SYNCHRONOUS_LEVELS` (``FULL`` by default: a committed
    event survives a power cut). ``busy_timeout_ms`` is how long a write waits for another
    connection's lock (:data:`BUSY_TIMEOUT_MS` by default). ``max_page_count`` caps the
    database at that many pages (SQLite's ``PRAGMA max_page_count``; never below its current
    size): a write that needs more fails as if the disk were full (``KIBITZ_MAX_PAGE_COUNT``,
    for trying out a full disk). The connection is in driver autocommit mode: transactions
    are opened explicitly (:func:`immediate`, ``db.atomic()``). Raises ``ValueError`` for an
    unknown ``synchronous`` level, ``sqlite3.Error`` when the file cannot be opened.
    """
    level = synchronous.upper()
    if level not in SYNCHRONOUS_LEVELS:
        raise ValueError(f"synchronous must be one of {', '.join(SYNCHRONOUS_LEVELS)}, not {synchronous!r}")
    timeout = BUSY_TIMEOUT_MS if busy_timeout_ms is None else busy_timeout_ms
    conn = sqlite3.connect(str(path), isolation_level=None, timeout=timeout / 1000, check_same_thread=False)
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(timeout)}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute(f"PRAGMA synchronous = {level}")
        if max_page_count is not None:
            conn.execute(f"PRAGMA max_page_count = {int(max_page_count)}")
    except BaseException:
        conn.close()
        raise
    db = Database(conn, execute_plugins=False)
    _BUSY_MS[db] = int(timeout)
    return db


# --- storage faults ------------------------------------------------------------------

#: SQLite's primary result codes that mean "the storage cannot take this now", by kind.
FAULT_KINDS = {
    sqlite3.SQLITE_FULL: "full",
    sqlite3.SQLITE_READONLY: "read_only",
    sqlite3.SQLITE_CANTOPEN: "cannot_open",
    sqlite3.SQLITE_IOERR: "io_error",
    sqlite3.SQLITE_PROTOCOL: "io_error",
    sqlite3.SQLITE_NOLFS: "io_error",
    sqlite3.SQLITE_BUSY: "busy",
    sqlite3.SQLITE_LOCKED: "busy",
    sqlite3.SQLITE_CORRUPT: "damaged",
    sqlite3.SQLITE_NOTADB: "damaged",
}

#: What the 503 says for each kind (the table reads it), and its ``Retry-After`` in seconds.
FAULT_DETAILS = {
    "full": ("The server's disk is full: nothing was stored. Free some space on the server, then try again.", 5),
    "read_only": ("The server cannot write to its database (the file or its disk is read-only): nothing was "
                  "stored. Make it writable again, then try again.", 5),
    "cannot_open": ("The server cannot open its database file: nothing was stored. Check the file and its "
                    "folder on the server, then try again.", 5),
    "io_error": ("The server's disk reported an error: nothing was stored. Try again.", 5),
    "busy": ("The database stayed locked by another program for too long: nothing was stored. Try again.", 1),
    "damaged": ("The server's database file is damaged: nothing was stored. Run kibitz check on the server "
                "and restore a backup (README, 'Running a club server').", 30),
    "damaged_data": ("A stored game's data is damaged (not what Kibitz wrote): nothing was stored. Run "
                     "kibitz check on the server and restore a backup (README, 'Running a club server').", 30),
}




def fault(err: BaseException) -> StorageUnavailable | None:
    """The storage fault that ``err`` is (a ``sqlite3`` error whose code is one of
    :data:`FAULT_KINDS`, or a :class:`StorageUnavailable` already), or None for any other
    error (a constraint, a bug)."""
    if isinstance(err, StorageUnavailable):
        return err
    if not isinstance(err, sqlite3.Error):
        return None
    code = getattr(err, "sqlite_errorcode", None)
    kind = FAULT_KINDS.get(code & 0xFF) if isinstance(code, int) else None
    if kind is None and isinstance(err, sqlite3.OperationalError):  # no code: go by SQLite's message
        text = str(err)
        kind = ("busy" if "locked" in text or "busy" in text else "full" if "full" in text
                else "read_only" if "readonly" in text else "io_error" if "I/O" in text
                else "damaged_data" if "decode to UTF-8" in text else None)
    if kind is None:
        return None
    detail, retry_after = FAULT_DETAILS[kind]
    return StorageUnavailable(kind, detail, retry_after, str(getattr(err, "sqlite_errorname", "") or err))


@contextmanager
def immediate(db: Database) -> Iterator[Database]:
    """``BEGIN IMMEDIATE`` … ``COMMIT``; rolled back if the block raises.

    Only one writer holds the lock; others wait up to the busy timeout, then get
    ``sqlite3.OperationalError: database is locked``.
    """
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.rollback()
        raise
    db.execute("COMMIT")


@contextmanager
def snapshot(db: Database) -> Iterator[Database]:
    """A read transaction: every query in the block sees the same committed state."""
    db.execute("BEGIN")
    try:
        yield db
    finally:
        db.rollback()


# --- games ---------------------------------------------------------------------------


def insert_game(db: Database, game_id: str, created: Mapping[str, Any], token_hash: str, created_at: str,
                status: str) -> None:
    """Insert the ``games`` row of a new game from its ``game_created`` data (version 1) and
    its first write token (``token_hash``: the token's hex SHA-256, see :func:`add_token`)."""
    players = list(created["players"])
    db.table("games").insert(
        {
            "id": game_id,
            "game": created["game"],
            "title": created.get("title"),
            "players": json.dumps(players),
            "player_keys": json.dumps([name.casefold() for name in players]),
            "visibility": created["visibility"],
            "options": json.dumps(created["options"]),
            "created_at": created_at,
            "version": 1,
            "status": status,
            **_fork_columns(created),
        }
    )
    add_token(db, game_id, token_hash, created_at)


def get_game(db: Database, game_id: str) -> dict[str, Any] | None:
    """Return the ``games`` row of ``game_id`` (JSON columns decoded), or None."""
    try:
        rows = list(db.query("SELECT rowid AS _rowid, * FROM games WHERE id = ?", [game_id]))
    except sqlite3.OperationalError as err:
        if "decode to UTF-8" not in str(err):
            raise
        raise damaged(game_id, None, "its games row holds text that is not UTF-8") from err
    return _game(rows[0]) if rows else None


def damaged(game_id: str, seq: int | None, what: str) -> RecordDamaged:
    """The 503 ``record_damaged`` for stored data of game ``game_id`` (event ``seq``, or None)
    that is not what Kibitz writes; ``what`` says what is wrong."""
    return RecordDamaged(game_id, seq, what)


#: The ``games`` columns Kibitz writes as text, as an integer, and (both) those it may leave NULL:
#: a value of another storage type (SQLite's columns take any: a BLOB, a real, text where an
#: integer goes) was not written by Kibitz.
ROW_TEXT = ("id", "game", "visibility", "created_at")
ROW_INTEGER = ("version", "stored_events")
ROW_TEXT_OR_NULL = ("title", "status", "record_hash", "forked_from_game", "source_game", "imported_at",
                    "fork_lineage", "token_hash")
ROW_INTEGER_OR_NULL = ("forked_from_seq", "secret_from_hand")


def row_types(row: Mapping[str, Any]) -> str | None:
    """What is wrong with the storage types of a ``games`` row (a column of :data:`ROW_TEXT` … that is
    not text, not an integer), or None; columns not in ``row`` are not looked at."""
    for names, kinds in ((ROW_TEXT, (str,)), (ROW_INTEGER, (int,)), (ROW_TEXT_OR_NULL, (str, type(None))),
                         (ROW_INTEGER_OR_NULL, (int, type(None)))):
        for name in names:
            if name in row and type(row[name]) not in kinds:
                return f"games.{name} is stored as {type(row[name]).__name__}, not as Kibitz writes it"
    return None


def _game(row: dict[str, Any], *, own: bool = False) -> dict[str, Any]:
    """A games row as the service reads it (``own``: ``row`` is the caller's to change, not copied)."""
    if not own:
        row = dict(row)
    game_id = str(row["id"])
    wrong = row_types(row)
    if wrong is not None:
        raise damaged(game_id, None, wrong)
    row["players"] = _decode(row["players"], list, game_id, None, "games.players cannot be read")
    row["options"] = _decode(row["options"], dict, game_id, None, "games.options cannot be read")
    if not all(isinstance(name, str) for name in row["players"]):
        raise damaged(game_id, None, "games.players holds something that is not a name")
    if isinstance(row.get("title"), str):
        row["title"] = scrub(row["title"])
    del row["player_keys"]
    return row


def _decode(text: str, shape: type | None, game_id: str, seq: int | None, what: str) -> Any:
    """A stored JSON column decoded; a lone surrogate that a database written before such
    text was refused may hold (stored as a JSON escape such as ``\\ud83d``) becomes U+FFFD, so that
    every read and export can be written as UTF-8. Raises :class:`RecordDamaged` (game
    ``game_id``, event ``seq``: ``what``, a 503 naming kibitz check) for text that is not
    JSON, or not of ``shape`` (``dict``, ``list``) when given one."""
    if not isinstance(text, str):  # a BLOB, a number, NULL: not the JSON text Kibitz writes
        raise damaged(game_id, seq, f"{what}: it is stored as {type(text).__name__}, not as text")
    try:
        value = loads(text)
    except (TypeError, ValueError) as err:
        raise damaged(game_id, seq, what) from err
    if shape is not None and not isinstance(value, shape):
        raise damaged(game_id, seq, what)
    return scrub(value) if "\\ud" in text or "\\uD" in text else value


#: Nineteen digits in a row: a number there may be an integer beyond 64 bits, which ``orjson``
#: reads as a float where ``json`` keeps it whole. ASCII digits only (a JSON number has no
#: others; Unicode's ``\d`` costs the search several times more on text full of hex digits).
_LONG_NUMBER = re.compile(r"\d{19}", re.ASCII)


#: ``json.dumps(…, separators=(",", ":"))``, the encoder built once (``json.dumps`` builds one on
#: every call given any option): the compact text of a stored event's ``data``.
_COMPACT = json.JSONEncoder(separators=(",", ":"))


def _texts(text: str) -> Any:
    """:func:`loads` of a JSON array of texts (the live tokens' hashes a move reads): read by
    ``orjson`` at once when it is one (a text is read alike by both, so the search for long
    numbers is not needed), else by :func:`loads`."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return loads(text)
    if type(value) is list and all(type(each) is str for each in value):
        return value
    return loads(text)


def data_text(data: Any) -> str:
    """The text an event's ``data`` is stored as, on either backend: compact JSON
    (``json.dumps(data, separators=(",", ":"))``)."""
    return _COMPACT.encode(data)


def loads(text: str) -> Any:
    """``json.loads(text)``: the same value, read by ``orjson`` (several times faster; a rebuild
    decodes every event) wherever the two read alike, by ``json`` where they may not: text
    ``orjson`` refuses (a lone surrogate escape, ``NaN``, a number beyond a float) and text
    with nineteen digits in a row. Raises ``ValueError`` (``json``'s) for text that is not
    JSON, ``TypeError`` for a value that is not text."""
    if isinstance(text, str) and not _LONG_NUMBER.search(text):
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)


def version_of(db: Database, game_id: str) -> int | None:
    """The stored ``version`` of ``game_id`` (the seq of its last event), or None."""
    row = db.execute("SELECT version FROM games WHERE id = ?", [game_id]).fetchone()
    if row is not None and type(row[0]) is not int:
        raise damaged(game_id, None, f"games.version is stored as {type(row[0]).__name__}, not as an integer")
    return None if row is None else int(row[0])


def set_version(db: Database, game_id: str, version: int, status: str, *, secret_from_hand: int | None) -> None:
    """Record the game's new ``version``, ``status`` and ``secret_from_hand`` (the first hand
    not over, None once all are: ``service.storage.forks.secret_from_hand``), all derived from the events."""
    db.execute("UPDATE games SET version = ?, status = ?, secret_from_hand = ? WHERE id = ?",
               [version, status, secret_from_hand, game_id])


def list_games(db: Database, *, game: str | None = None, player: str | None = None, status: str | None = None,
               limit: int = 50, cursor: str | None = None, fork: bool = False,
               forked_from: str | None = None, created_from: str | None = None,
               created_before: str | None = None) -> tuple[list[dict[str, Any]], str | None]:
    """Return up to ``limit`` games, newest first, and the cursor of the next page (or None).

    ``player`` matches a seat name case-insensitively. Forks are left out unless ``fork``
    (then every game is listed) or ``forked_from`` (only the forks of that game).
    ``created_from`` / ``created_before`` (UTC times as stored, ``2026-12-05T00:00:00.000Z``)
    keep the games created from the one (included) to the other (excluded). ``cursor``
    is a value returned by an earlier call; raises ``ValueError`` if it is not one.
    """
    where: list[str] = ["1 = 1"]
    params: list[Any] = []
    if forked_from is not None:
        where.append("forked_from_game = ?")
        params.append(forked_from)
    elif not fork:
        where.append("forked_from_game IS NULL")
    if game is not None:
        where.append("game = ?")
        params.append(game)
    if status is not None:
        where.append("status = ?")
        params.append(status)
    if player is not None:
        where.append("EXISTS (SELECT 1 FROM json_each(games.player_keys) WHERE value = ?)")
        params.append(player.strip().casefold())
    if created_from is not None:
        where.append("created_at >= ?")
        params.append(created_from)
    if created_before is not None:
        where.append("created_at < ?")
        params.append(created_before)
    if cursor is not None:
        created_at, rowid = decode_cursor(cursor)
        where.append("(created_at < ? OR (created_at = ? AND rowid < ?))")
        params.extend([created_at, created_at, rowid])
    sql = (
        f"SELECT rowid AS _rowid, * FROM games WHERE {' AND '.join(where)} "
        "ORDER BY created_at DESC, rowid DESC LIMIT ?"
    )
    rows = [_game(row) for row in db.query(sql, [*params, limit + 1])]
    more = len(rows) > limit
    rows = rows[:limit]
    next_cursor = encode_cursor(rows[-1]["created_at"], rows[-1]["_rowid"]) if more else None
    return rows, next_cursor


def encode_cursor(created_at: str, rowid: int) -> str:
    """An opaque paging cursor for the position after the game ``(created_at, rowid)``."""
    return base64.urlsafe_b64encode(json.dumps([created_at, rowid]).encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[str, int]:
    """Inverse of :func:`encode_cursor`; raises ``ValueError`` for anything else."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        created_at, rowid = json.loads(raw)
    except (binascii.Error, ValueError, TypeError) as err:
        raise ValueError("not a cursor returned by this service") from err
    if not isinstance(created_at, str) or not isinstance(rowid, int) or isinstance(rowid, bool):
        raise ValueError("not a cursor returned by this service")
    if not -(2**63) <= rowid < 2**63:
        raise ValueError("not a cursor returned by this service")
    return created_at, rowid


# --- events --------------------------------------------------------------------------


def append(db: Database, game_id: str, seq: int, kind: str, data: Mapping[str, Any], recorded_at: str,
           at: str | None = None, idempotency_key: str | None = None, *, salt: str | None = None) -> dict[str, Any]:
    """Insert event ``seq`` of ``game_id`` and return it as the API shows it with the token
    (``{seq, type, data, recorded_at, at, salt, hash}``).

    The event gets ``salt`` (a fresh ``replays.chain.new_salt`` when None; an import keeps
    the exported one) and its ``hash``, chained to the stored hash of event ``seq - 1``
    (``replays.chain``); the game's ``games.record_hash`` becomes that hash, in the same
    transaction. Raises ``sqlite3.IntegrityError`` if that idempotency key is taken: call it
    inside :func:`immediate` after reading the current version. Stores nothing and raises
    :class:`RecordDamaged` unless ``seq`` follows the last stored event of the game and that
    event has its hash: a ``games.version`` that disagrees with the log never makes a gap
    (or a clash) in it.
    """
    if seq == 1:
        previous: str | None = chain.GENESIS
    else:
        found = db.execute("SELECT hash FROM events WHERE game_id = ? AND seq = ?", [game_id, seq - 1]).fetchone()
        previous = found[0] if found is not None else None
    event = {"seq": seq, "type": kind, "data": dict(data), "recorded_at": recorded_at, "at": at,
             "salt": salt or chain.new_salt()}
    if not isinstance(previous, str):
        raise damaged(game_id, seq - 1, "games.version disagrees with the stored log (no event "
                                        f"{seq - 1} with its hash to follow)")
    event["hash"] = chain.event_hash(previous, event)
    cursor = db.execute(
        "INSERT INTO events (game_id, seq, type, data, recorded_at, at, idempotency_key, salt, hash) "
        "SELECT ?, ?, ?, ?, ?, ?, ?, ?, ? "
        "WHERE (SELECT coalesce(max(seq), 0) FROM events WHERE game_id = ?) = ?",
        [game_id, seq, kind, json.dumps(data, separators=(",", ":")), recorded_at, at, idempotency_key,
         event["salt"], event["hash"], game_id, seq - 1],
    )
    if cursor.rowcount != 1:
        raise damaged(game_id, seq, "games.version disagrees with the last stored event")
    db.execute("UPDATE games SET record_hash = ? WHERE id = ?", [event["hash"], game_id])
    return event


#: The database's guard, as a column of a query (:func:`head`, :func:`guard`): SQLite's
#: ``schema_version``, which every change of the schema moves on, so a trigger that refuses
#: to change an event (:data:`TRIGGERS`) cannot be dropped and put back unseen.
GUARD = "(SELECT schema_version FROM pragma_schema_version())"


def guard(db: Database) -> int:
    """The database's guard now (:data:`GUARD`): what ``service.record.cache.FoldCache.observe``
    compares, so that a change of the schema sends every cached game through the check again."""
    return int(db.execute(f"SELECT {GUARD}").fetchone()[0])


def results_stamp(db: Database) -> tuple[int, int]:
    """``(stamp, guard)`` in one query: the sum of ``results_seal`` (migration
    ``0011_results_seal``: it grows with every insert, update and delete of a
    ``player_results`` row, and cannot be set back without a change of the schema) and the
    database's guard (:data:`GUARD`). While both stay as they were, no ``player_results`` row
    has changed (``service.record.projections``)."""
    stamp, now = db.execute(f"SELECT (SELECT coalesce(sum(n), 0) FROM results_seal), {GUARD}").fetchone()
    return int(stamp), int(now)


def head(db: Database, game_id: str, *, count: bool = False) -> dict[str, Any] | None:
    """What a cached fold of ``game_id`` is checked against on every read and write, in one
    query: ``{"version", "status", "record_hash"}`` of its games row, ``count`` (how many
    events are stored, when ``count``, else None: its ``stored_events``, which two triggers
    keep on every insert and delete, migration ``0009_stored_events``, so reading it costs
    the same however long the game), its last stored event as stored (``last_seq``, ``last_type``,
    ``last_data`` as its JSON text, ``last_recorded_at``, ``last_at``, ``last_salt``,
    ``last_hash``; all None when there is none), ``previous_hash`` (the stored hash of the
    event before it) and ``guard`` (:data:`GUARD`). None when there is no such game."""
    found = db.execute(
        "SELECT g.version, g.status, g.record_hash, "
        + ("g.stored_events, " if count else "NULL, ") + "e.seq, "
        f"e.type, e.data, e.recorded_at, e.at, e.salt, e.hash, p.hash, {GUARD} FROM games AS g "
        "LEFT JOIN events AS e ON e.game_id = g.id AND e.seq = (SELECT max(seq) FROM events WHERE game_id = g.id) "
        "LEFT JOIN events AS p ON p.game_id = g.id AND p.seq = e.seq - 1 WHERE g.id = ?", [game_id]).fetchone()
    if found is None:
        return None
    if type(found[0]) is not int or (count and type(found[3]) is not int):
        raise damaged(game_id, None, "games.version or games.stored_events is not stored as an integer")
    return dict(zip(("version", "status", "record_hash", "count", "last_seq", "last_type", "last_data",
                     "last_recorded_at", "last_at", "last_salt", "last_hash", "previous_hash", "guard"), found,
                    strict=True))


#: The head's columns (``head``'s keys) as the one read of a move names them (``h_<key>``).
HEAD_KEYS = ("count", "last_seq", "last_type", "last_data", "last_recorded_at", "last_at", "last_salt", "last_hash",
             "previous_hash", "guard")

#: The one read of a move (:func:`begin_move`): the games row, the head of its log with the
#: count, its live tokens' hashes and the idempotency record of the key, in one statement.
MOVE_READ = (
    "SELECT g.rowid AS _rowid, g.*, g.stored_events AS h_count, "
    "e.seq AS h_last_seq, e.type AS h_last_type, e.data AS h_last_data, e.recorded_at AS h_last_recorded_at, "
    "e.at AS h_last_at, e.salt AS h_last_salt, e.hash AS h_last_hash, p.hash AS h_previous_hash, "
    f"{GUARD} AS h_guard, "
    "(SELECT json_group_array(token_hash) FROM (SELECT token_hash FROM tokens WHERE game_id = g.id "
    "AND revoked_at IS NULL ORDER BY created_at, token_hash)) AS token_hashes, "
    "i.request_hash AS k_request_hash, i.status AS k_status, i.response AS k_response FROM games AS g "
    "LEFT JOIN events AS e ON e.game_id = g.id AND e.seq = (SELECT max(seq) FROM events WHERE game_id = g.id) "
    "LEFT JOIN events AS p ON p.game_id = g.id AND p.seq = e.seq - 1 "
    "LEFT JOIN idempotency AS i ON i.game_id = g.id AND i.key = ? WHERE g.id = ?")


def begin_move(db: Database, game_id: str, key: str | None, *, deadline: float | None = None) -> Moment | None:
    """Open the write transaction of a move of ``game_id`` (``BEGIN IMMEDIATE``: the whole
    file's write lock, waiting up to the busy timeout, or only until ``deadline``
    (``time.monotonic()``) when that comes sooner: :func:`_begin_by`) and read, in one statement, everything the write needs to decide (:class:`Moment`: the games
    row with its live tokens' hashes, the head of its log as :func:`head` with ``count``, the
    idempotency record of ``key``). None when there is no such game (the transaction stays
    open: the caller ends it). Raises :class:`RecordDamaged` for a stored row that cannot be
    read, the driver's error for a storage fault."""
    _begin_by(db, deadline)
    return read_move(db, game_id, key)


#: The busy timeout (ms) each connection was opened with (:func:`connect`).
_BUSY_MS: weakref.WeakKeyDictionary[Database, int] = weakref.WeakKeyDictionary()
#: How much sooner than the busy timeout a deadline must come to bound a ``BEGIN``'s wait
#: (two more statements): a deadline within it waits the whole timeout, as good as.
DEADLINE_SLACK_MS = 50


def _begin_by(db: Database, deadline: float | None) -> None:
    """``BEGIN IMMEDIATE``, waiting for another connection's lock no later than ``deadline``
    (a queued move's arrival plus the busy timeout: ``Writer.drain``), its busy timeout
    shortened for this one statement; a deadline gone by waits not at all (the lock is
    still taken when free). Raises the driver's ``database is locked`` (a ``busy`` fault)."""
    full = _BUSY_MS.get(db)
    if deadline is None or full is None:
        db.execute("BEGIN IMMEDIATE")
        return
    left = max(0, int((deadline - time.monotonic()) * 1000))
    if left >= full - DEADLINE_SLACK_MS:
        db.execute("BEGIN IMMEDIATE")
        return
    db.execute(f"PRAGMA busy_timeout = {left}")
    try:
        db.execute("BEGIN IMMEDIATE")
    finally:
        with suppress(sqlite3.Error):  # a lost connection is dropped anyway; nothing may mask the fault
            db.execute(f"PRAGMA busy_timeout = {full}")


def read_move(db: Database, game_id: str, key: str | None) -> Moment | None:
    """:func:`begin_move`'s read alone, inside a write transaction already open (one that
    holds the file's write lock): one statement."""
    try:
        found = db.execute(MOVE_READ, [key, game_id])
        names = [column[0] for column in found.description]
        values = found.fetchone()
    except sqlite3.OperationalError as err:
        if "decode to UTF-8" not in str(err):
            raise
        return _move_read_apart(db, game_id, key)  # names what cannot be read
    if values is None:
        return None
    return _moment(game_id, key, dict(zip(names, values, strict=True)))


#: The head's columns of :data:`MOVE_READ` (``h_`` before each key), and the idempotency record's (``k_``).
_HEAD_COLUMNS = tuple((name, f"h_{name}") for name in HEAD_KEYS)
_KEPT_COLUMNS = tuple((name, f"k_{name}") for name in ("request_hash", "status", "response"))


def _moment(game_id: str, key: str | None, found: dict[str, Any]) -> Moment:
    """The :class:`Moment` of one row of :data:`MOVE_READ` (PostgreSQL's reads the same columns)."""
    head = {"version": found["version"], "status": found["status"], "record_hash": found["record_hash"]}
    for name, column in _HEAD_COLUMNS:
        head[name] = found.pop(column)
    kept = {name: found.pop(column) for name, column in _KEPT_COLUMNS}
    hashes = found.pop("token_hashes")
    row = _game(found, own=True)
    row["token_hashes"] = [str(each) for each in (_texts(hashes) if isinstance(hashes, str) else hashes or [])]
    if type(head["count"]) is not int:
        raise damaged(game_id, None, f"games.stored_events is stored as {type(head['count']).__name__}, not as an "
                                     "integer")
    remembered = None
    if key is not None and kept["request_hash"] is not None:
        remembered = answer(game_id, key, kept)
    return Moment(row, head, remembered)


def answer(game_id: str, key: str, stored: Mapping[str, Any]) -> dict[str, Any]:
    """The stored first answer to ``key`` (``{"request_hash", "status", "response"}`` as stored) as
    the service reads it (``response`` decoded). Raises :class:`RecordDamaged` when a column is
    not what Kibitz writes (a request hash that is not text, a status that is not an integer,
    an answer that cannot be read)."""
    what = f"the stored answer to Idempotency-Key {key[:40]!r}"
    if not isinstance(stored["request_hash"], str) or type(stored["status"]) is not int:
        raise damaged(game_id, None, f"{what} is not stored as Kibitz writes it (its request_hash or status)")
    return {"request_hash": stored["request_hash"], "status": stored["status"],
            "response": _decode(stored["response"], None, game_id, None, f"{what} cannot be read")}


def _move_read_apart(db: Database, game_id: str, key: str | None) -> Moment | None:
    """:func:`begin_move`'s read in separate statements, which name what cannot be read."""
    row = get_game(db, game_id)
    if row is None:
        return None
    found = head(db, game_id, count=True)
    assert found is not None
    row["token_hashes"] = live_token_hashes(db, game_id)
    return Moment(row, found, None if key is None else remembered(db, game_id, key))


def append_move(db: Database, game_id: str, event: Mapping[str, Any], idempotency_key: str | None, *,
                previous_hash: str, status: str, secret_from_hand: int | None, data_text: str | None = None) -> None:
    """Append ``event`` (``{seq, type, data, recorded_at, at, salt, hash}``, its hash chained
    by ``replays.chain.event_hash`` to ``previous_hash``, the stored hash of the event before
    it as :func:`begin_move` read it in this transaction) to the log of ``game_id`` and set the
    games row's ``version``, ``status``, ``secret_from_hand`` and ``record_hash``: two
    statements. Stores nothing and raises :class:`RecordDamaged` unless ``event`` follows the
    last stored event and that event's hash is ``previous_hash``; ``sqlite3.IntegrityError``
    when the idempotency key is taken. ``data_text``: ``event["data"]`` as :func:`data_text`
    writes it (None: written here)."""
    seq = int(event["seq"])
    try:
        cursor = db.execute(
            "INSERT INTO events (game_id, seq, type, data, recorded_at, at, idempotency_key, salt, hash) "
            "SELECT ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE (SELECT max(seq) FROM events WHERE game_id = ?) = ? "
            "AND (SELECT hash FROM events WHERE game_id = ? AND seq = ?) = ?",
            [game_id, seq, event["type"], data_text if data_text is not None else _COMPACT.encode(event["data"]),
             event["recorded_at"],
             event["at"], idempotency_key, event["salt"], event["hash"], game_id, seq - 1, game_id, seq - 1,
             previous_hash])
    except sqlite3.IntegrityError as err:  # the key's answer was not found, yet an event holds the key
        raise key_without_answer(db, game_id, idempotency_key) from err
    if cursor.rowcount != 1:
        raise damaged(game_id, seq, "games.version disagrees with the last stored event")
    db.execute("UPDATE games SET version = ?, status = ?, secret_from_hand = ?, record_hash = ? WHERE id = ?",
               [seq, status, secret_from_hand, event["hash"], game_id])


def key_without_answer(db: Database, game_id: str, key: str | None) -> RecordDamaged:
    """The 503 for an append refused because an event of ``game_id`` already holds
    Idempotency-Key ``key`` though the ``idempotency`` table holds no answer to it (the
    write read none under the lock): the answer's row was deleted behind the server."""
    found = db.execute("SELECT seq FROM events WHERE game_id = ? AND idempotency_key = ?", [game_id, key]).fetchone()
    return damaged(game_id, None if found is None else int(found[0]),
                   f"it was recorded with Idempotency-Key {str(key)[:40]!r} but the idempotency table holds no "
                   "answer to that key: the answer's row was deleted after it was stored")


@contextmanager
def pipeline(db: Database) -> Iterator[Database]:
    """The statements of the block sent together (PostgreSQL's pipeline); SQLite runs each at
    once, in the process, so the block is the block."""
    yield db


def events(db: Database, game_id: str, after: int = 0, upto: int | None = None) -> list[dict[str, Any]]:
    """Return the events of ``game_id`` with ``after < seq <= upto``, oldest first.

    Each is ``{"seq", "type", "data", "recorded_at", "at", "salt", "hash"}`` with ``data``
    decoded. Raises :class:`RecordDamaged` naming the event whose data is not a JSON object
    or whose text is not UTF-8.
    """
    sql = "SELECT seq, type, data, recorded_at, at, salt, hash FROM events WHERE game_id = ? AND seq > ?"
    params: list[Any] = [game_id, after]
    if upto is not None:
        sql += " AND seq <= ?"
        params.append(upto)
    try:
        rows = db.execute(sql + " ORDER BY seq", params).fetchall()
    except sqlite3.OperationalError as err:
        if "decode to UTF-8" not in str(err):
            raise
        raise damaged(game_id, _unreadable_event(db, game_id, after, upto), "its stored text is not UTF-8") from err
    texts = "\n".join([row[2] for row in rows if type(row[2]) is str])
    if _LONG_NUMBER.search(texts) or "\\ud" in texts or "\\uD" in texts:
        return [_event(game_id, *row) for row in rows]  # a number json must read, or a surrogate to scrub
    out: list[dict[str, Any]] = []
    keep = out.append
    quick = orjson.loads
    for row in rows:  # what _event does, for text orjson reads as json does (above: none is left that it may not)
        seq, kind, data, recorded_at, at, salt, hashed = row
        try:
            value = quick(data) if type(seq) is int and type(kind) is str and type(recorded_at) is str \
                and (at is None or type(at) is str) and (salt is None or type(salt) is str) \
                and (hashed is None or type(hashed) is str) and type(data) is str else None
        except orjson.JSONDecodeError:
            value = None
        if type(value) is not dict:  # a column of another type, text orjson refuses, a value not an object
            keep(_event(game_id, *row))
            continue
        keep({"seq": seq, "type": kind, "data": value, "recorded_at": recorded_at, "at": at, "salt": salt,
              "hash": hashed})
    return out


def _event(game_id: str, seq: Any, kind: Any, data: Any, recorded_at: Any, at: Any, salt: Any,
           hashed: Any) -> dict[str, Any]:
    """One stored event as :func:`events` returns it (``data`` decoded). Raises
    :class:`RecordDamaged` naming it when a column is not of the storage type Kibitz writes
    (``seq`` an integer; ``type``, ``data``, ``recorded_at`` text; ``at``, ``salt``, ``hash``
    text or NULL): SQLite's columns take any."""
    if not (type(seq) is int and type(kind) is str and type(recorded_at) is str and (at is None or type(at) is str)
            and (salt is None or type(salt) is str) and (hashed is None or type(hashed) is str)):
        _wrong_event_types(game_id, seq, kind, recorded_at, at, salt, hashed)
    return {"seq": seq, "type": kind, "data": _decode(data, dict, game_id, seq, "its data is not a JSON object"),
            "recorded_at": recorded_at, "at": at, "salt": salt, "hash": hashed}


def _wrong_event_types(game_id: str, seq: Any, kind: Any, recorded_at: Any, at: Any, salt: Any, hashed: Any) -> None:
    """Raise the :class:`RecordDamaged` naming the column of an event stored as another type."""
    if type(seq) is not int:
        raise damaged(game_id, None, f"an event's seq is stored as {type(seq).__name__}, not as an integer")
    for name, value, nullable in (("type", kind, False), ("recorded_at", recorded_at, False), ("at", at, True),
                                  ("salt", salt, True), ("hash", hashed, True)):
        if not (isinstance(value, str) or (nullable and value is None)):
            raise damaged(game_id, seq, f"its {name} is stored as {type(value).__name__}, not as text")


def _unreadable_event(db: Database, game_id: str, after: int, upto: int | None) -> int | None:
    """The seq of the first event of ``game_id`` in ``after < seq <= upto`` holding text that
    is not UTF-8 (None if none is found)."""
    for row in db.execute(
            "SELECT seq, CAST(type AS BLOB), CAST(data AS BLOB), CAST(recorded_at AS BLOB), CAST(at AS BLOB), "
            "CAST(salt AS BLOB), CAST(hash AS BLOB) FROM events WHERE game_id = ? AND seq > ? AND seq <= ? "
            "ORDER BY seq", [game_id, after, 2**62 if upto is None else upto]):
        try:
            for value in row[1:]:
                if isinstance(value, bytes):
                    value.decode("utf-8")
        except UnicodeDecodeError:
            return int(row[0])
    return None


def first_events(db: Database, game_ids: list[str]) -> dict[str, dict[str, Any]]:
    """Event 1 (``game_created``) of each of ``game_ids`` that has one, as :func:`events`
    returns it, by game id: one query (``service.record.projections.check_listed``). Raises
    :class:`RecordDamaged` naming an event whose data cannot be read."""
    if not game_ids:
        return {}
    marks = ", ".join("?" * len(game_ids))
    try:
        rows = list(db.query(f"SELECT game_id, seq, type, data, recorded_at, at, salt, hash FROM events "
                             f"WHERE seq = 1 AND game_id IN ({marks})", list(game_ids)))
    except sqlite3.OperationalError as err:
        if "decode to UTF-8" not in str(err):
            raise
        return {game_id: found[0] for game_id in game_ids if (found := events(db, game_id, upto=1))}
    out = {}
    for row in rows:
        game_id = str(row.pop("game_id"))
        out[game_id] = _event(game_id, row["seq"], row["type"], row["data"], row["recorded_at"], row["at"],
                              row["salt"], row["hash"])
    return out


def event_hashes(db: Database, game_id: str) -> list[tuple[int, str]]:
    """``(seq, hash)`` of every stored event of ``game_id``, oldest first (``kibitz verify``
    and the game page's verify form look a fingerprint up in them)."""
    return [(int(seq), str(value)) for seq, value in db.execute(
        "SELECT seq, hash FROM events WHERE game_id = ? AND hash IS NOT NULL ORDER BY seq", [game_id]).fetchall()]


# --- idempotency ---------------------------------------------------------------------


def remembered(db: Database, game_id: str, key: str) -> dict[str, Any] | None:
    """Return ``{"request_hash", "status", "response"}`` stored for ``key``, or None."""
    rows = list(
        db.query(
            "SELECT request_hash, status, response FROM idempotency WHERE game_id = ? AND key = ?", [game_id, key]
        )
    )
    if not rows:
        return None
    return answer(game_id, key, rows[0])


def remember(db: Database, game_id: str, key: str, request_hash: str, status: int, response: Any,
             created_at: str) -> None:
    """Store the first response given to ``key`` on ``game_id``."""
    db.execute("INSERT INTO idempotency (game_id, key, request_hash, status, response, created_at) "
               "VALUES (?, ?, ?, ?, ?, ?)",
               [game_id, key, request_hash, status, json.dumps(response, separators=(",", ":")), created_at])


# --- forks ---------------------------------------------------------------------------


def _fork_columns(created: Mapping[str, Any]) -> dict[str, Any]:
    """The ``games`` columns of the fork relation, from ``game_created``'s ``forked_from``."""
    fork = created.get("forked_from")
    if not isinstance(fork, Mapping):
        return {}
    return {"forked_from_game": fork.get("game"), "forked_from_seq": fork.get("seq")}


def set_fork_lineage(db: Database, game_id: str, lineage: list[list[Any]]) -> None:
    """Store what fork ``game_id`` inherits: ``[[ancestor id, last hand shared], …]``."""
    db.execute("UPDATE games SET fork_lineage = ? WHERE id = ?",
               [json.dumps(lineage, separators=(",", ":")) if lineage else None, game_id])


def fork_lineage(db: Database, game_id: str) -> list[tuple[str, int]]:
    """The stored lineage of ``game_id`` (``[]`` for a game that is not a fork, or shares nothing)."""
    found = db.execute("SELECT fork_lineage FROM games WHERE id = ?", [game_id]).fetchone()
    if not found or not found[0]:
        return []
    return [(str(ancestor), int(shared)) for ancestor, shared in json.loads(found[0])]


def lineage_secrets(db: Database, game_id: str) -> list[tuple[str, int, int]]:
    """``(ancestor id, last hand shared, its secret_from_hand)`` for each game in ``game_id``'s
    lineage that still has a hand in play, nearest first: one query, whatever the chain's length."""
    rows = db.execute(
        "SELECT g.id, json_extract(l.value, '$[1]'), g.secret_from_hand "
        "FROM games AS f, json_each(f.fork_lineage) AS l JOIN games AS g ON g.id = json_extract(l.value, '$[0]') "
        "WHERE f.id = ? AND g.secret_from_hand IS NOT NULL ORDER BY l.key DESC",
        [game_id]).fetchall()
    return [(str(ancestor), int(shared), int(secret)) for ancestor, shared, secret in rows]


def set_source_game(db: Database, game_id: str, source: str | None) -> None:
    """Record the id of the game that imported game ``game_id`` was exported from."""
    db.execute("UPDATE games SET source_game = ? WHERE id = ?", [source, game_id])


def set_imported_at(db: Database, game_id: str, imported_at: str) -> None:
    """Record when game ``game_id`` was imported (UTC text)."""
    db.execute("UPDATE games SET imported_at = ? WHERE id = ?", [imported_at, game_id])


def stored_as(db: Database, source: str) -> str | None:
    """The id of the stored game that is game ``source`` (the original itself, first) or an
    import of it (the earliest), or None."""
    found = db.execute(
        "SELECT id FROM games WHERE id = ? OR source_game = ? ORDER BY id = ? DESC, rowid LIMIT 1",
        [source, source, source]).fetchone()
    return None if found is None else str(found[0])


# --- write tokens --------------------------------------------------------------------


def add_token(db: Database, game_id: str, token_hash: str, created_at: str) -> None:
    """Store a new write token of ``game_id`` by its hex SHA-256 ``token_hash``
    (``service.http.new_token``), issued at ``created_at`` (UTC text)."""
    db.execute("INSERT INTO tokens (token_hash, game_id, created_at) VALUES (?, ?, ?)",
               [token_hash, game_id, created_at])


def live_token_hashes(db: Database, game_id: str) -> list[str]:
    """The hex SHA-256 of every write token of ``game_id`` that has not been revoked
    (``[]`` for an unknown game), oldest first."""
    rows = db.execute("SELECT token_hash FROM tokens WHERE game_id = ? AND revoked_at IS NULL "
                      "ORDER BY created_at, token_hash",
                      [game_id]).fetchall()
    return [str(row[0]) for row in rows]


def revoke_tokens(db: Database, game_id: str, revoked_at: str) -> int:
    """Revoke every live write token of ``game_id`` as of ``revoked_at`` (UTC text); returns
    how many were live. Revoked tokens stay stored (hashed), marked, and never work again."""
    cursor = db.execute("UPDATE tokens SET revoked_at = ? WHERE game_id = ? AND revoked_at IS NULL",
                        [revoked_at, game_id])
    return int(cursor.rowcount)


# --- transactions (the writer's and the request threads') ------------------------------


def begin_write(db: Database, *, games: Iterable[str] | None = None, deadline: float | None = None) -> None:
    """Open a write transaction that holds the database's write lock from its start
    (``BEGIN IMMEDIATE``: other writers wait up to the busy timeout, or only until ``deadline``
    when that comes sooner: :func:`_begin_by`). ``games`` (the games the transaction writes)
    changes nothing here: one SQLite writer holds the whole file."""
    _begin_by(db, deadline)


def try_begin_write(db: Database, games: Iterable[str], *, patient: bool = False,
                    deadline: float | None = None) -> frozenset[str]:
    """:func:`begin_write` (``BEGIN IMMEDIATE``, waiting up to the busy timeout, ``patient`` or
    not, whatever the ``deadline``): one SQLite writer holds the whole file, so no game is ever
    left out; returns an empty set."""
    begin_write(db, games=games)
    return frozenset()


def commit(db: Database) -> None:
    """Commit the open transaction (one ``fsync`` at ``synchronous=FULL``)."""
    db.execute("COMMIT")


def rollback(db: Database) -> None:
    """Roll back the open transaction, if there is one (a no-op otherwise, and for a closed
    connection)."""
    if not is_lost(db) and db.conn.in_transaction:
        db.conn.rollback()


def is_lost(db: Database) -> bool:
    """True when ``db`` can no longer be used (it was closed): a new connection is needed."""
    try:
        db.conn.total_changes  # noqa: B018 - raises ProgrammingError once the connection is closed
    except sqlite3.ProgrammingError:
        return True
    return False


def savepoint(db: Database, name: str) -> None:
    """Open savepoint ``name`` (an identifier) inside the open transaction."""
    db.execute(f"SAVEPOINT {name}")


def release(db: Database, name: str) -> None:
    """Keep what was written since savepoint ``name`` and close it."""
    db.execute(f"RELEASE {name}")


def rollback_to(db: Database, name: str) -> None:
    """Undo what was written since savepoint ``name``, and close it."""
    db.execute(f"ROLLBACK TO {name}")
    db.execute(f"RELEASE {name}")


def manual_checkpoints(db: Database) -> None:
    """Stop this connection from copying the write-ahead log into the database inside a
    commit (``wal_autocheckpoint = 0``); :func:`checkpoint_passive` does it instead."""
    db.execute("PRAGMA wal_autocheckpoint = 0")


def data_version(db: Database) -> int:
    """SQLite's ``PRAGMA data_version`` of connection ``db``: it changes whenever any other
    connection, in this process or another, has committed a change since ``db`` last asked
    (never for ``db``'s own commits). ``service.web.boards`` uses it to trust what it remembers."""
    row = db.execute("PRAGMA data_version").fetchone()
    return int(row[0])


def checkpoint_passive(db: Database) -> None:
    """Copy what it can of the write-ahead log into the database without waiting for
    readers or writers (``wal_checkpoint(PASSIVE)``)."""
    db.execute("PRAGMA wal_checkpoint(PASSIVE)")


# --- reads over every game ------------------------------------------------------------


def game_ids(db: Database) -> list[str]:
    """The id of every stored game, oldest first."""
    return [str(row[0]) for row in db.execute("SELECT id FROM games ORDER BY created_at, rowid").fetchall()]


def fork_relations(db: Database) -> dict[str, tuple[str, str | None, int | None]]:
    """Every stored game: id -> ``(game, forked_from_game, forked_from_seq)``."""
    return {str(game_id): (str(game), parent, seq) for game_id, game, parent, seq in db.execute(
        "SELECT id, game, forked_from_game, forked_from_seq FROM games").fetchall()}


def set_secret_from_hand(db: Database, game_id: str, secret_from_hand: int | None) -> None:
    """Store game ``game_id``'s ``secret_from_hand`` alone (``service.storage.forks.backfill``)."""
    db.execute("UPDATE games SET secret_from_hand = ? WHERE id = ?", [secret_from_hand, game_id])


def is_fork(db: Database, game_id: str) -> bool:
    """True when the stored game ``game_id`` is a what-if fork (recorded here or imported)."""
    found = db.execute("SELECT forked_from_game FROM games WHERE id = ?", [game_id]).fetchone()
    return bool(found and found[0])


# --- the match-history projection (``player_results``, kept by ``service.storage.history``) ----


def replace_player_results(db: Database, game_id: str, columns: tuple[str, ...], rows: list[list[Any]]) -> None:
    """Replace the ``player_results`` rows of ``game_id`` with ``rows`` (values in the order
    of ``columns``, names of ``player_results`` columns)."""
    db.execute("DELETE FROM player_results WHERE game_id = ?", [game_id])
    if rows:
        db.conn.executemany(
            f"INSERT INTO player_results ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", rows)


def games_without_results(db: Database) -> list[str]:
    """The ids of the stored games that have no ``player_results`` rows."""
    return [str(row[0]) for row in db.execute(
        "SELECT id FROM games WHERE id NOT IN (SELECT DISTINCT game_id FROM player_results)").fetchall()]


def _period_clause(since: str | None, until: str | None) -> tuple[str, list[str]]:
    """``WHERE`` text and parameters keeping rows created from ``since`` to ``until``
    (``YYYY-MM-DD`` dates, inclusive; stored times are ISO 8601 UTC, so they compare as text)."""
    clauses, params = [], []
    if since is not None:
        clauses.append("created_at >= ?")
        params.append(since)
    if until is not None:
        clauses.append("created_at < ?")
        params.append(until + "T24")  # after every time of that day ("T23:59:59.999Z" < "T24")
    return ("WHERE " + " AND ".join(clauses)) if clauses else "", params


def player_totals(db: Database, since: str | None = None, until: str | None = None) -> list[dict[str, Any]]:
    """Per player key and game type, over the games created from ``since`` to ``until``
    (inclusive dates, None for no bound): ``{"player_key", "game", "games", "finished",
    "wins", "losses", "abandoned", "average", "unit", "latest", "name"}``, by key then game."""
    where, params = _period_clause(since, until)
    sql = (
        "SELECT player_key, game, COUNT(*) AS games, SUM(status = 'finished') AS finished, "
        "SUM(result = 'won') AS wins, SUM(result = 'lost') AS losses, "
        "SUM(status = 'abandoned') AS abandoned, AVG(score) AS average, MAX(unit) AS unit, "
        f"MAX(created_at) AS latest, name FROM player_results {where} "
        "GROUP BY player_key, game ORDER BY player_key, game"
    )
    return list(db.query(sql, params))


def player_stats(db: Database, player_key: str, counters: tuple[str, ...]) -> list[dict[str, Any]]:
    """Per game type for one player key: ``{"game", "games", "finished", "wins", "losses",
    "abandoned", "average", "unit", <counter>: sum …}`` (``counters`` are column names)."""
    sql = (
        "SELECT game, COUNT(*) AS games, SUM(status = 'finished') AS finished, SUM(result = 'won') AS wins, "
        "SUM(result = 'lost') AS losses, SUM(status = 'abandoned') AS abandoned, AVG(score) AS average, "
        "MAX(unit) AS unit, "
        + ", ".join(f"SUM({counter}) AS {counter}" for counter in counters)
        + " FROM player_results WHERE player_key = ? GROUP BY game ORDER BY game"
    )
    return list(db.query(sql, [player_key]))


def player_games(db: Database, player_key: str, limit: int | None = None, offset: int = 0) -> list[dict[str, Any]]:
    """One player key's ``player_results`` rows with the game's ``title`` and ``players``
    (decoded), newest first."""
    sql = (
        "SELECT r.*, g.title, g.players FROM player_results AS r JOIN games AS g ON g.id = r.game_id "
        "WHERE r.player_key = ? ORDER BY r.created_at DESC, r.game_id LIMIT ? OFFSET ?"
    )
    return [{**row, "players": json.loads(row["players"])}
            for row in db.query(sql, [player_key, -1 if limit is None else limit, offset])]


def results_in_scope(db: Database, columns: tuple[str, ...], since: str | None = None, until: str | None = None,
                     player_key: str | None = None) -> list[tuple[Any, ...]]:
    """The ``player_results`` rows a history answer over ``since`` / ``until`` (as
    :func:`player_totals`) or of one ``player_key`` counts, in no order: the values of
    ``columns`` (names of ``player_results`` columns, ``game_id`` first), then its game's
    ``record_hash`` and ``version`` (both None for a row whose game is not stored): what
    ``service.record.projections`` checks against the logs before the answer is served."""
    where, params = _period_clause(since, until)
    where = where.replace("created_at", "r.created_at")
    if player_key is not None:
        where += (" AND " if where else "WHERE ") + "r.player_key = ?"
        params.append(player_key)
    selected = ", ".join(f"r.{column}" for column in columns)
    return db.execute(f"SELECT {selected}, g.record_hash, g.version FROM player_results AS r "
                      f"LEFT JOIN games AS g ON g.id = r.game_id {where}", params).fetchall()


def player_game_count(db: Database, player_key: str) -> int:
    """How many ``player_results`` rows one player key has."""
    return int(db.execute("SELECT COUNT(*) FROM player_results WHERE player_key = ?", [player_key]).fetchone()[0])


# --- a whole game's stored rows, for ``kibitz copy`` (``service.record.copying``) -------------


def connect_read_only(path: str | Path) -> Database:
    """Open the existing database file ``path`` read-only (a ``mode=ro`` URI: nothing this
    connection does can change the file), in driver autocommit mode. Raises
    ``sqlite3.OperationalError`` when the file is missing or cannot be opened."""
    conn = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True, isolation_level=None,
                           timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except BaseException:
        conn.close()
        raise
    return Database(conn, execute_plugins=False)


def tokens(db: Database, game_id: str) -> list[dict[str, Any]]:
    """Every write token of ``game_id``, revoked ones included: ``{"token_hash",
    "created_at", "revoked_at"}`` (None while it works), oldest first."""
    return list(db.query("SELECT token_hash, created_at, revoked_at FROM tokens WHERE game_id = ? "
                         "ORDER BY created_at, token_hash", [game_id]))


def restore_token(db: Database, game_id: str, token_hash: str, created_at: str, revoked_at: str | None) -> None:
    """Store token ``token_hash`` of ``game_id`` exactly as another database held it: issued
    at ``created_at``, revoked at ``revoked_at`` (None: it works); a row already there for
    that token takes these times."""
    db.execute("INSERT INTO tokens (token_hash, game_id, created_at, revoked_at) VALUES (?, ?, ?, ?) "
               "ON CONFLICT (game_id, token_hash) DO UPDATE SET created_at = excluded.created_at, "
               "revoked_at = excluded.revoked_at", [token_hash, game_id, created_at, revoked_at])


def idempotency_records(db: Database, game_id: str) -> list[dict[str, Any]]:
    """Every stored first answer of ``game_id``: ``{"key", "request_hash", "status",
    "response" (decoded), "created_at"}``, by key. Raises :class:`RecordDamaged` for an
    answer that cannot be read."""
    rows = list(db.query("SELECT key, request_hash, status, response, created_at FROM idempotency "
                         "WHERE game_id = ? ORDER BY key", [game_id]))
    return [{**row, **answer(game_id, str(row["key"]), row)} for row in rows]


def event_keys(db: Database, game_id: str) -> dict[int, str]:
    """The ``Idempotency-Key`` each event of ``game_id`` was recorded with, by seq (events
    recorded without one are left out)."""
    return {int(seq): str(key) for seq, key in db.execute(
        "SELECT seq, idempotency_key FROM events WHERE game_id = ? AND idempotency_key IS NOT NULL ORDER BY seq",
        [game_id]).fetchall()}


def events_through_key(db: Database, game_id: str, key: str) -> list[dict[str, Any]]:
    """The events of ``game_id`` (as :func:`events`) from 1 up to the one stored with
    ``Idempotency-Key`` ``key`` (``events.idempotency_key``), in one statement; ``[]`` when no
    event was stored with it."""
    rows = db.execute("SELECT seq, type, data, recorded_at, at, salt, hash FROM events WHERE game_id = ? AND seq <= "
                      "(SELECT seq FROM events WHERE game_id = ? AND idempotency_key = ?) ORDER BY seq",
                      [game_id, game_id, key]).fetchall()
    return [_event(game_id, *row) for row in rows]


def player_results_of(db: Database, game_id: str) -> list[dict[str, Any]]:
    """The ``player_results`` rows of ``game_id`` (every column), by seat."""
    return list(db.query("SELECT * FROM player_results WHERE game_id = ? ORDER BY seat", [game_id]))
