"""What a storage backend implements: the interface between the service and its database.

A backend is a module of plain functions (``service.storage.sqlite`` today), each taking the
backend's connection first; :class:`Store` lists them as a ``typing.Protocol`` (a module can
satisfy a protocol), and ``service.storage`` checks that the SQLite module does. The
errors every backend raises, whatever its driver, are defined here: :class:`RecordDamaged`
(503 ``record_damaged``) and :class:`StorageUnavailable` (503 ``storage_unavailable``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

#: A backend's connection (for SQLite a sqlite-utils ``Database``).
Connection = Any


class RecordDamaged(Exception):
    """A game's stored record is not what Kibitz writes (api.md, 503 ``record_damaged``): a
    gap, an event that no longer rebuilds, an unknown type, a broken hash chain, a ``games``
    row that disagrees with its log, stored text that cannot be read. ``game_id`` names the
    game, ``seq`` the event (None when it is not about one event), ``what`` says what is
    wrong in words. Not a storage fault: only the write that met it is refused, and waiting
    will not mend it."""

    def __init__(self, game_id: str, seq: int | None, what: str) -> None:
        super().__init__(what)
        self.game_id, self.seq, self.what = game_id, seq, what

    def __str__(self) -> str:
        where = f"game {self.game_id}" + (f", event {self.seq}" if self.seq is not None else "")
        return f"{where}: {self.what}"


class StorageUnavailable(Exception):
    """A write the database could not take now: ``kind`` (a :data:`FAULT_KINDS` value),
    ``detail`` (a sentence), ``retry_after`` (seconds) and the driver's error ``name``."""

    def __init__(self, kind: str, detail: str, retry_after: int, name: str) -> None:
        super().__init__(detail)
        self.kind, self.detail, self.retry_after, self.name = kind, detail, retry_after, name

    def __str__(self) -> str:
        return f"{self.name}: {self.detail}"


@dataclass(frozen=True)
class Moment:
    """What a move's one read brings (``begin_move``), all read under the game's write lock in
    the transaction that appends: ``row``, the games row as ``get_game`` returns it with
    ``token_hashes`` (the SHA-256s of its live write tokens, as ``live_token_hashes``);
    ``head``, the head of its log as ``head(count=True)`` returns it; ``remembered``, the
    idempotency record of the key as ``remembered`` returns it (None without a key, or none
    stored). A check that needs more of the same moment adds a field here and a column to
    the read, not a query."""

    row: dict[str, Any]
    head: dict[str, Any]
    remembered: dict[str, Any] | None


class EventLog(Protocol):
    """The core every backend implements: transactions and storage faults, games, the
    append-only events with their hash chain, idempotency records and write tokens."""

    def fault(self, err: BaseException) -> StorageUnavailable | None:
        """The storage fault that ``err`` is (a driver error the backend
        recognises, or a :class:`StorageUnavailable` already), or None for any other error (a constraint, a bug)."""
        ...

    def immediate(self, db: Connection) -> AbstractContextManager[Connection]:
        """A write transaction holding the write lock from its start, committed at the end of the
        block and rolled back if it raises."""
        ...

    def snapshot(self, db: Connection) -> AbstractContextManager[Connection]:
        """A read transaction: every query in the block sees the same committed state."""
        ...

    def insert_game(self, db: Connection, game_id: str, created: Mapping[str, Any], token_hash: str,
                    created_at: str, status: str) -> None:
        """Insert the ``games`` row of a new game from its ``game_created`` data (version 1) and its first
        write token (``token_hash``: the token's hex SHA-256, see :func:`add_token`)."""
        ...

    def get_game(self, db: Connection, game_id: str) -> dict[str, Any] | None:
        """Return the ``games`` row of ``game_id`` (JSON columns decoded), or None."""
        ...

    def version_of(self, db: Connection, game_id: str) -> int | None:
        """The stored ``version`` of ``game_id`` (the seq of its last event), or None."""
        ...

    def set_version(self, db: Connection, game_id: str, version: int, status: str, *,
                    secret_from_hand: int | None) -> None:
        """Record the game's new ``version``, ``status`` and ``secret_from_hand`` (the first hand not over,
        None once all are: ``service.storage.forks.secret_from_hand``), all derived from the events."""
        ...

    def append(self, db: Connection, game_id: str, seq: int, kind: str, data: Mapping[str, Any],
                    recorded_at: str, at: str | None = None, idempotency_key: str | None = None, *, salt: str | None = None) -> dict[str, Any]:
        """Insert event ``seq`` of ``game_id`` and return it as the API shows it with the token (``{seq, type,
        data, recorded_at, at, salt, hash}``)."""
        ...

    def head(self, db: Connection, game_id: str, *, count: bool = False) -> dict[str, Any] | None:
        """The games row's version, status and record_hash with the last stored event (and,
        when ``count``, the number of events) and the database's :meth:`guard`: what a cached
        fold is checked against."""
        ...

    def guard(self, db: Connection) -> Any:
        """The database's guard now (also the ``guard`` of :meth:`head`): a value that changes
        whenever what refuses to change a stored event (the triggers on ``events``) is
        dropped, disabled or replaced, even if it is put back (SQLite's ``schema_version``; on
        PostgreSQL the triggers' oids, ``xmin`` and state)."""
        ...

    def results_stamp(self, db: Connection) -> tuple[int, Any]:
        """``(stamp, guard)`` in one query: the sum of ``results_seal``, which grows with every
        insert, update and delete of a ``player_results`` row and cannot be set back without
        lifting a trigger, and the database's guard (:meth:`guard`, which then changes)."""
        ...

    def begin_move(self, db: Connection, game_id: str, key: str | None, *,
                   deadline: float | None = None) -> Moment | None:
        """Open the write transaction of a move of ``game_id`` holding its write lock and read
        everything the write needs to decide (:class:`Moment`, ``key``'s idempotency record
        included) in one round trip; a lock another transaction holds is waited for until
        ``deadline`` (``time.monotonic()``; None: the backend's lock timeout), then a ``busy``
        fault. None when there is no such game (the transaction stays open)."""
        ...

    def read_move(self, db: Connection, game_id: str, key: str | None) -> Moment | None:
        """:meth:`begin_move`'s read alone, inside a write transaction already open that holds
        the game's write lock."""
        ...

    def append_move(self, db: Connection, game_id: str, event: Mapping[str, Any], idempotency_key: str | None, *,
                    previous_hash: str, status: str, secret_from_hand: int | None,
                    data_text: str | None = None) -> None:
        """Append ``event`` (``{seq, type, data, recorded_at, at, salt, hash}``, its hash
        chained by ``replays.chain.event_hash`` to ``previous_hash``, the stored hash of the
        event before it as :meth:`begin_move` read it; ``data_text``: its ``data`` as
        ``service.storage.sqlite.data_text`` writes it, when the caller has it already) and set the games row's version,
        status, ``secret_from_hand`` and ``record_hash`` (and notify, where the backend
        does), sending nothing that waits for an answer (inside :meth:`pipeline`, nothing at
        all until the block ends). Stores nothing, raising ``RecordDamaged`` (at the latest
        when the pipeline ends), unless ``event`` follows the last stored event and that
        event's hash is ``previous_hash``."""
        ...

    def pipeline(self, db: Connection) -> AbstractContextManager[Connection]:
        """Send the statements of the block together, in one round trip, with their errors
        raised when it ends (PostgreSQL); SQLite runs each at once."""
        ...

    def events(self, db: Connection, game_id: str, after: int = 0, upto: int | None = None) -> list[dict[str, Any]]:
        """Return the events of ``game_id`` with ``after < seq <= upto``, oldest first."""
        ...

    def first_events(self, db: Connection, game_ids: list[str]) -> dict[str, dict[str, Any]]:
        """Event 1 of each of ``game_ids`` that has one, as :meth:`events` returns it, by game id,
        in one query."""
        ...

    def event_hashes(self, db: Connection, game_id: str) -> list[tuple[int, str]]:
        """``(seq, hash)`` of every stored event of ``game_id``, oldest first (``kibitz verify`` and the game
        page's verify form look a fingerprint up in them)."""
        ...

    def remembered(self, db: Connection, game_id: str, key: str) -> dict[str, Any] | None:
        """Return ``{"request_hash", "status", "response"}`` stored for ``key``, or None."""
        ...

    def remember(self, db: Connection, game_id: str, key: str, request_hash: str, status: int, response: Any,
                    created_at: str) -> None:
        """Store the first response given to ``key`` on ``game_id``."""
        ...

    def add_token(self, db: Connection, game_id: str, token_hash: str, created_at: str) -> None:
        """Store a new write token of ``game_id`` by its hex SHA-256 ``token_hash``
        (``service.http.new_token``), issued at ``created_at`` (UTC text)."""
        ...

    def live_token_hashes(self, db: Connection, game_id: str) -> list[str]:
        """The hex SHA-256 of every write token of ``game_id`` that has not been revoked (``[]`` for an unknown
        game), oldest first."""
        ...

    def revoke_tokens(self, db: Connection, game_id: str, revoked_at: str) -> int:
        """Revoke every live write token of ``game_id`` as of ``revoked_at`` (UTC text); returns how many were
        live. Revoked tokens stay stored (hashed), marked, and never work again."""
        ...

    def begin_write(self, db: Connection, *, games: Iterable[str] | None = None) -> None:
        """Open a write transaction that holds its write locks from its start (other writers wait up to the
        busy timeout): without ``games`` the whole database's; with ``games`` (the ids of the games the
        transaction writes, or other text it must write alone) at least those games' (PostgreSQL locks
        each game; SQLite's ``BEGIN IMMEDIATE`` holds the whole file either way)."""
        ...

    def try_begin_write(self, db: Connection, games: Iterable[str], *, patient: bool = False,
                        deadline: float | None = None) -> frozenset[str]:
        """Open a write transaction as ``begin_write(db, games=games)`` does, except that a game whose
        lock another transaction holds is not waited for: returns those games (not to be written in
        this transaction); ``patient``: tried again, holding nothing in between, until every lock is
        taken (returns none) or the lock timeout (or ``deadline``, a ``time.monotonic()``) passed
        (a ``busy`` fault is raised). SQLite's
        ``BEGIN IMMEDIATE`` waits for the whole file and returns none."""
        ...

    def commit(self, db: Connection) -> None:
        """Commit the open transaction (one ``fsync`` at ``synchronous=FULL``)."""
        ...

    def rollback(self, db: Connection) -> None:
        """Roll back the open transaction, if there is one (a no-op otherwise). Never raises
        for a connection that is lost (:meth:`is_lost`)."""
        ...

    def is_lost(self, db: Connection) -> bool:
        """True when ``db`` can no longer be used (closed, or its server went away): the
        caller must drop it and open a new one."""
        ...

    def savepoint(self, db: Connection, name: str) -> None:
        """Open savepoint ``name`` (an identifier) inside the open transaction."""
        ...

    def release(self, db: Connection, name: str) -> None:
        """Keep what was written since savepoint ``name`` and close it."""
        ...

    def rollback_to(self, db: Connection, name: str) -> None:
        """Undo what was written since savepoint ``name``, and close it."""
        ...

    def game_ids(self, db: Connection) -> list[str]:
        """The id of every stored game, oldest first."""
        ...


class Store(EventLog, Protocol):
    """Everything the service asks of its storage, as ``service.storage.sqlite`` documents it:
    the :class:`EventLog`, opening a connection, the projections (forks, match histories),
    SQLite's checkpoints and change counter."""

    def connect(self, path: str | Path, synchronous: str = "FULL", *, busy_timeout_ms: int | None = None,
                    max_page_count: int | None = None) -> Connection:
        """Open the database at ``path`` and return a connection to it."""
        ...

    def list_games(self, db: Connection, *, game: str | None = None, player: str | None = None,
                    status: str | None = None, limit: int = 50, cursor: str | None = None, fork: bool = False, forked_from: str | None = None,
                    created_from: str | None = None, created_before: str | None = None) -> tuple[list[dict[str, Any]], str | None]:
        """Return up to ``limit`` games, newest first, and the cursor of the next page (or None);
        ``created_from`` / ``created_before`` (stored UTC times) keep the games created in that span."""
        ...

    def set_fork_lineage(self, db: Connection, game_id: str, lineage: list[list[Any]]) -> None:
        """Store what fork ``game_id`` inherits: ``[[ancestor id, last hand shared], …]``."""
        ...

    def fork_lineage(self, db: Connection, game_id: str) -> list[tuple[str, int]]:
        """The stored lineage of ``game_id`` (``[]`` for a game that is not a fork, or shares nothing)."""
        ...

    def lineage_secrets(self, db: Connection, game_id: str) -> list[tuple[str, int, int]]:
        """``(ancestor id, last hand shared, its secret_from_hand)`` for each game in ``game_id``'s lineage
        that still has a hand in play, nearest first: one query, whatever the chain's length."""
        ...

    def set_source_game(self, db: Connection, game_id: str, source: str | None) -> None:
        """Record the id of the game that imported game ``game_id`` was exported from."""
        ...

    def set_imported_at(self, db: Connection, game_id: str, imported_at: str) -> None:
        """Record when game ``game_id`` was imported (UTC text)."""
        ...

    def stored_as(self, db: Connection, source: str) -> str | None:
        """The id of the stored game that is game ``source`` (the original itself, first) or an import of it
        (the earliest), or None."""
        ...

    def manual_checkpoints(self, db: Connection) -> None:
        """Stop this connection from copying the write-ahead log into the database inside a commit
        (``wal_autocheckpoint = 0``); :func:`checkpoint_passive` does it instead."""
        ...

    def data_version(self, db: Connection) -> int:
        """SQLite's ``PRAGMA data_version`` of connection ``db``: it changes whenever any other connection, in
        this process or another, has committed a change since ``db`` last asked (never for ``db``'s own
        commits). ``service.web.boards`` uses it to trust what it remembers."""
        ...

    def checkpoint_passive(self, db: Connection) -> None:
        """Copy what it can of the write-ahead log into the database without waiting for readers or writers
        (``wal_checkpoint(PASSIVE)``)."""
        ...

    def fork_relations(self, db: Connection) -> dict[str, tuple[str, str | None, int | None]]:
        """Every stored game: id -> ``(game, forked_from_game, forked_from_seq)``."""
        ...

    def set_secret_from_hand(self, db: Connection, game_id: str, secret_from_hand: int | None) -> None:
        """Store game ``game_id``'s ``secret_from_hand`` alone (``service.storage.forks.backfill``)."""
        ...

    def is_fork(self, db: Connection, game_id: str) -> bool:
        """True when the stored game ``game_id`` is a what-if fork (recorded here or imported)."""
        ...

    def replace_player_results(self, db: Connection, game_id: str, columns: tuple[str, ...],
                    rows: list[list[Any]]) -> None:
        """Replace the ``player_results`` rows of ``game_id`` with ``rows`` (values in the order of
        ``columns``, names of ``player_results`` columns)."""
        ...

    def games_without_results(self, db: Connection) -> list[str]:
        """The ids of the stored games that have no ``player_results`` rows."""
        ...

    def player_totals(self, db: Connection, since: str | None = None,
                    until: str | None = None) -> list[dict[str, Any]]:
        """Per player key and game type, over the games created from ``since`` to ``until`` (inclusive dates,
        None for no bound): ``{"player_key", "game", "games", "finished", "wins", "losses", "abandoned",
        "average", "unit", "latest", "name"}``, by key then game."""
        ...

    def player_stats(self, db: Connection, player_key: str, counters: tuple[str, ...]) -> list[dict[str, Any]]:
        """Per game type for one player key: ``{"game", "games", "finished", "wins", "losses", "abandoned",
        "average", "unit", <counter>: sum …}`` (``counters`` are column names)."""
        ...

    def player_games(self, db: Connection, player_key: str, limit: int | None = None,
                    offset: int = 0) -> list[dict[str, Any]]:
        """One player key's ``player_results`` rows with the game's ``title`` and ``players`` (decoded), newest
        first."""
        ...

    def results_in_scope(self, db: Connection, columns: tuple[str, ...], since: str | None = None,
                         until: str | None = None, player_key: str | None = None) -> list[tuple[Any, ...]]:
        """The ``player_results`` rows a history answer over a period, or of one player key,
        counts, in no order: the values of ``columns`` (``game_id`` first), then its
        game's ``record_hash`` and ``version`` (None when the game is not stored)."""
        ...

    def player_game_count(self, db: Connection, player_key: str) -> int:
        """How many ``player_results`` rows one player key has."""
        ...

    # --- a whole game's stored rows, for ``kibitz copy`` (``service.record.copying``) ---

    def connect_read_only(self, path: str | Path) -> Connection:
        """Open the existing database ``path`` so that nothing done through the connection can change it."""
        ...

    def tokens(self, db: Connection, game_id: str) -> list[dict[str, Any]]:
        """Every write token of ``game_id``, revoked ones included: ``{"token_hash", "created_at",
        "revoked_at"}``, oldest first."""
        ...

    def restore_token(self, db: Connection, game_id: str, token_hash: str, created_at: str,
                      revoked_at: str | None) -> None:
        """Store a token of ``game_id`` exactly as another database held it (its times; revoked or not)."""
        ...

    def idempotency_records(self, db: Connection, game_id: str) -> list[dict[str, Any]]:
        """Every stored first answer of ``game_id``: ``{"key", "request_hash", "status", "response",
        "created_at"}``, by key."""
        ...

    def events_through_key(self, db: Connection, game_id: str, key: str) -> list[dict[str, Any]]:
        """The events of ``game_id`` (as :meth:`events`) from 1 up to the one stored with
        ``Idempotency-Key`` ``key``, in one statement; ``[]`` when none was."""
        ...

    def event_keys(self, db: Connection, game_id: str) -> dict[int, str]:
        """The ``Idempotency-Key`` each event of ``game_id`` was recorded with, by seq."""
        ...

    def player_results_of(self, db: Connection, game_id: str) -> list[dict[str, Any]]:
        """The ``player_results`` rows of ``game_id`` (every column), by seat."""
        ...


class WholeDatabase(Protocol):
    """Whole-database work on one backend: ``kibitz backup`` and the reads of ``kibitz check``
    and ``kibitz verify`` (``service.record.checking`` folds the games and names the problems, in the
    same words on every backend). ``service.storage.admin`` implements it on SQLite,
    ``service.storage.postgres_admin`` on PostgreSQL; ``service.storage.backend.whole_database``
    picks the one a ``--db`` value names. Rows and events come back in the same shapes from
    both (JSON columns as UTF-8 bytes, for ``service.storage.admin.decode_json``)."""

    @property
    def Error(self) -> type[Exception]:  # noqa: N802 - the driver's class, as sqlite3.Error
        """The driver's base error: what a read that fails raises."""
        ...

    @property
    def DatabaseError(self) -> type[Exception]:  # noqa: N802 - the driver's class, as sqlite3.DatabaseError
        """The driver's error for a database that cannot be read (a damaged one)."""
        ...

    @property
    def INTEGRITY(self) -> str:  # noqa: N802 - a constant of the module
        """What :meth:`integrity`'s problems are named as ("SQLite integrity check")."""
        ...

    def shown(self, path: str) -> str:
        """The database ``path`` names, as it may be printed (never with a password)."""
        ...

    def backup(self, source: str | Path, dest: str | Path, *, force: bool = False) -> Any:
        """Back the live database ``source`` up into the file ``dest`` (replaced only with
        ``force``); returns ``service.storage.admin.Copied`` (the file, its bytes, games and
        events), raises ``service.storage.admin.BackupError`` with a sentence for the terminal."""
        ...

    def open_read_only(self, path: str | Path) -> AbstractContextManager[Any]:
        """A connection to the database ``path`` names that cannot change it. Raises
        ``FileNotFoundError`` for a missing SQLite file, :attr:`Error` when it cannot be opened."""
        ...

    def integrity(self, conn: Any) -> list[str]:
        """What the database engine's own check finds wrong, in its words (``[]``: nothing)."""
        ...

    def missing_tables(self, conn: Any) -> list[str]:
        """The tables without which the database is no Kibitz database at all that it lacks."""
        ...

    def schema_problems(self, conn: Any) -> list[str]:
        """Each table and column the service needs and the database lacks, in words."""
        ...

    def read_table(self, conn: Any, table: str) -> int:
        """Read every row of ``table``, every column the service needs; how many rows."""
        ...

    def games(self, conn: Any) -> list[dict[str, Any]]:
        """Every games row (``id``, ``game``, ``version``, ``status``, ``visibility``,
        ``players`` and ``options`` as stored bytes, ``record_hash``, and each column of
        ``service.storage.admin.DERIVED`` the table has), oldest first."""
        ...

    def player_results(self, conn: Any) -> dict[str, list[dict[str, Any]]]:
        """Every ``player_results`` row (every column), by game id, each game's by seat."""
        ...

    def has_chain(self, conn: Any) -> bool:
        """True when the events have their ``salt`` and ``hash`` columns."""
        ...

    def chain_events(self, conn: Any, game_id: str) -> Any:
        """The events of ``game_id`` as its hash chain covers them, in ``seq`` order."""
        ...

    def event_seqs(self, conn: Any, game_id: str) -> list[int]:
        """The stored ``seq`` numbers of ``game_id``, in order."""
        ...

    def stored_answers(self, conn: Any, game_id: str) -> list[dict[str, Any]]:
        """Every stored first answer of ``game_id``'s ``Idempotency-Key``s: ``key``, ``status``,
        ``response`` (decoded; None when it cannot be read) and ``seq``, the event stored with
        that key (None when none was), by key."""
        ...

    def game_events(self, conn: Any, game_id: str) -> Any:
        """The events of ``game_id`` in ``seq`` order, data decoded; raises
        ``service.storage.admin.BadEvent`` naming an event that cannot be read."""
        ...

    def orphan_events(self, conn: Any) -> list[tuple[str, int]]:
        """``(game_id, count)`` of events whose game has no games row."""
        ...

    def unanswered_keys(self, conn: Any) -> list[tuple[str, int, str]]:
        """``(game_id, seq, key)`` of every event stored with an Idempotency-Key that has no
        stored first answer."""
        ...

    def wrong_types(self, conn: Any) -> list[tuple[str | None, int | None, str]]:
        """Every stored value of a storage type Kibitz does not write in its column:
        ``(game id, seq or None, what)`` (none on PostgreSQL, whose columns are typed)."""
        ...
