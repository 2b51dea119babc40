"""The storage the service calls: each function hands its call to the backend that its
connection belongs to (``service.storage.sqlite`` or ``service.storage.postgres``), so the
rest of the service is the same on both. :func:`of` picks the backend of a connection, or
of a ``--db`` value (a ``postgresql://`` URL is PostgreSQL's; a path or a ``sqlite:`` URL
SQLite's).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import psycopg

from service.storage import admin, postgres, postgres_admin, sqlite
from service.storage.interface import Connection, Store, WholeDatabase
from service.storage.interface import Moment as Moment
from service.storage.interface import RecordDamaged as RecordDamaged
from service.storage.interface import StorageUnavailable as StorageUnavailable
from service.storage.messages import failure as failure
from service.storage.messages import one_sentence as one_sentence
from service.storage.messages import shown as shown
from service.storage.sqlite import BUSY_TIMEOUT_MS as BUSY_TIMEOUT_MS
from service.storage.sqlite import SYNCHRONOUS_LEVELS as SYNCHRONOUS_LEVELS
from service.storage.sqlite import damaged as damaged
from service.storage.sqlite import data_text as data_text
from service.storage.sqlite import decode_cursor as decode_cursor
from service.storage.sqlite import encode_cursor as encode_cursor


def is_postgres(target: object) -> bool:
    """True when ``target`` (a connection, or a ``--db`` value) is PostgreSQL's."""
    return isinstance(target, psycopg.Connection) or postgres.is_url(target)


#: The backend of each type of connection seen so far (:func:`of`): whether a connection is
#: PostgreSQL's depends on its type alone, so every store call after the first of a type
#: looks it up here instead of asking :func:`is_postgres` again (a move makes a dozen calls).
_BY_TYPE: dict[type, Store] = {}


def of(target: object) -> Store:
    """The backend of ``target``: a connection, or a database named as ``--db`` takes it."""
    kind = type(target)
    found = _BY_TYPE.get(kind)
    if found is not None:
        return found
    found = postgres if is_postgres(target) else sqlite
    if not isinstance(target, str):  # a ``--db`` text is decided by its value, a connection by its type
        _BY_TYPE[kind] = found
    return found


def whole_database(target: object) -> WholeDatabase:
    """The whole-database work (backups, the reads of checks) of the backend ``target`` names:
    ``service.storage.postgres_admin`` for a ``postgresql://`` URL, else ``service.storage.admin``."""
    return postgres_admin if is_postgres(target) else admin


def database_path(target: str | Path) -> str | Path:
    """What the backend of ``target`` opens: a ``sqlite:`` URL becomes its path."""
    if isinstance(target, str) and target.startswith("sqlite:"):
        return target.removeprefix("sqlite:").removeprefix("//")
    return target


def connect(path: str | Path, synchronous: str = "FULL", *, busy_timeout_ms: int | None = None,
            max_page_count: int | None = None) -> Connection:
    """Open the database ``path`` names (a file, a ``sqlite:`` URL or a ``postgresql://`` URL)."""
    return of(path).connect(database_path(path), synchronous, busy_timeout_ms=busy_timeout_ms,
                            max_page_count=max_page_count)


def fault(err: BaseException) -> StorageUnavailable | None:
    """The storage fault ``err`` is on either backend, or None."""
    return sqlite.fault(err) or postgres.fault(err)


def immediate(db: Connection) -> AbstractContextManager[Connection]:
    """``immediate`` of the backend of ``db``."""
    return of(db).immediate(db)


def snapshot(db: Connection) -> AbstractContextManager[Connection]:
    """``snapshot`` of the backend of ``db``."""
    return of(db).snapshot(db)


def insert_game(db: Connection, game_id: str, created: Mapping[str, Any], token_hash: str, created_at: str,
                       status: str) -> None:
    """``insert_game`` of the backend of ``db``."""
    return of(db).insert_game(db, game_id, created, token_hash, created_at, status)


def get_game(db: Connection, game_id: str) -> dict[str, Any] | None:
    """``get_game`` of the backend of ``db``."""
    return of(db).get_game(db, game_id)


def version_of(db: Connection, game_id: str) -> int | None:
    """``version_of`` of the backend of ``db``."""
    return of(db).version_of(db, game_id)


def set_version(db: Connection, game_id: str, version: int, status: str, *, secret_from_hand: int | None) -> None:
    """``set_version`` of the backend of ``db``."""
    return of(db).set_version(db, game_id, version, status, secret_from_hand=secret_from_hand)


def list_games(db: Connection, *, game: str | None = None, player: str | None = None,
                      status: str | None = None, limit: int = 50, cursor: str | None = None, fork: bool = False, forked_from: str | None = None,
                      created_from: str | None = None, created_before: str | None = None) -> tuple[list[dict[str, Any]], str | None]:
    """``list_games`` of the backend of ``db``."""
    return of(db).list_games(db, game=game, player=player, status=status, limit=limit, cursor=cursor, fork=fork, forked_from=forked_from,
                             created_from=created_from, created_before=created_before)


def append(db: Connection, game_id: str, seq: int, kind: str, data: Mapping[str, Any], recorded_at: str,
                  at: str | None = None, idempotency_key: str | None = None, *, salt: str | None = None) -> dict[str, Any]:
    """``append`` of the backend of ``db``."""
    return of(db).append(db, game_id, seq, kind, data, recorded_at, at, idempotency_key, salt=salt)


def head(db: Connection, game_id: str, *, count: bool = False) -> dict[str, Any] | None:
    """``head`` of the backend of ``db``."""
    return of(db).head(db, game_id, count=count)


def guard(db: Connection) -> object:
    """``guard`` of the backend of ``db``."""
    return of(db).guard(db)


def results_stamp(db: Connection) -> tuple[int, object]:
    """``results_stamp`` of the backend of ``db``."""
    return of(db).results_stamp(db)


def begin_move(db: Connection, game_id: str, key: str | None, *, deadline: float | None = None) -> Moment | None:
    """``begin_move`` of the backend of ``db``: the write transaction of a move and its one read."""
    return of(db).begin_move(db, game_id, key, deadline=deadline)


def read_move(db: Connection, game_id: str, key: str | None) -> Moment | None:
    """``read_move`` of the backend of ``db``: a move's read in a write transaction already open."""
    return of(db).read_move(db, game_id, key)


def append_move(db: Connection, game_id: str, event: Mapping[str, Any], idempotency_key: str | None, *,
                previous_hash: str, status: str, secret_from_hand: int | None, data_text: str | None = None) -> None:
    """``append_move`` of the backend of ``db``."""
    return of(db).append_move(db, game_id, event, idempotency_key, previous_hash=previous_hash, status=status,
                              secret_from_hand=secret_from_hand, data_text=data_text)


def pipeline(db: Connection) -> AbstractContextManager[Connection]:
    """``pipeline`` of the backend of ``db``: the block's statements in one round trip."""
    return of(db).pipeline(db)


def events(db: Connection, game_id: str, after: int = 0, upto: int | None = None) -> list[dict[str, Any]]:
    """``events`` of the backend of ``db``."""
    return of(db).events(db, game_id, after, upto)


def first_events(db: Connection, game_ids: list[str]) -> dict[str, dict[str, Any]]:
    """``first_events`` of the backend of ``db``."""
    return of(db).first_events(db, game_ids)


def event_hashes(db: Connection, game_id: str) -> list[tuple[int, str]]:
    """``event_hashes`` of the backend of ``db``."""
    return of(db).event_hashes(db, game_id)


def remembered(db: Connection, game_id: str, key: str) -> dict[str, Any] | None:
    """``remembered`` of the backend of ``db``."""
    return of(db).remembered(db, game_id, key)


def remember(db: Connection, game_id: str, key: str, request_hash: str, status: int, response: Any,
                    created_at: str) -> None:
    """``remember`` of the backend of ``db``."""
    return of(db).remember(db, game_id, key, request_hash, status, response, created_at)


def set_fork_lineage(db: Connection, game_id: str, lineage: list[list[Any]]) -> None:
    """``set_fork_lineage`` of the backend of ``db``."""
    return of(db).set_fork_lineage(db, game_id, lineage)


def fork_lineage(db: Connection, game_id: str) -> list[tuple[str, int]]:
    """``fork_lineage`` of the backend of ``db``."""
    return of(db).fork_lineage(db, game_id)


def lineage_secrets(db: Connection, game_id: str) -> list[tuple[str, int, int]]:
    """``lineage_secrets`` of the backend of ``db``."""
    return of(db).lineage_secrets(db, game_id)


def set_source_game(db: Connection, game_id: str, source: str | None) -> None:
    """``set_source_game`` of the backend of ``db``."""
    return of(db).set_source_game(db, game_id, source)


def set_imported_at(db: Connection, game_id: str, imported_at: str) -> None:
    """``set_imported_at`` of the backend of ``db``."""
    return of(db).set_imported_at(db, game_id, imported_at)


def stored_as(db: Connection, source: str) -> str | None:
    """``stored_as`` of the backend of ``db``."""
    return of(db).stored_as(db, source)


def add_token(db: Connection, game_id: str, token_hash: str, created_at: str) -> None:
    """``add_token`` of the backend of ``db``."""
    return of(db).add_token(db, game_id, token_hash, created_at)


def live_token_hashes(db: Connection, game_id: str) -> list[str]:
    """``live_token_hashes`` of the backend of ``db``."""
    return of(db).live_token_hashes(db, game_id)


def revoke_tokens(db: Connection, game_id: str, revoked_at: str) -> int:
    """``revoke_tokens`` of the backend of ``db``."""
    return of(db).revoke_tokens(db, game_id, revoked_at)


def begin_write(db: Connection, *, games: Iterable[str] | None = None) -> None:
    """``begin_write`` of the backend of ``db``."""
    return of(db).begin_write(db, games=games)


def try_begin_write(db: Connection, games: Iterable[str], *, patient: bool = False,
                    deadline: float | None = None) -> frozenset[str]:
    """``try_begin_write`` of the backend of ``db``: the games left out, their locks busy."""
    return of(db).try_begin_write(db, games, patient=patient, deadline=deadline)


def commit(db: Connection) -> None:
    """``commit`` of the backend of ``db``."""
    return of(db).commit(db)


def rollback(db: Connection) -> None:
    """``rollback`` of the backend of ``db``."""
    return of(db).rollback(db)


def is_lost(db: Connection) -> bool:
    """``is_lost`` of the backend of ``db``."""
    return of(db).is_lost(db)


def savepoint(db: Connection, name: str) -> None:
    """``savepoint`` of the backend of ``db``."""
    return of(db).savepoint(db, name)


def release(db: Connection, name: str) -> None:
    """``release`` of the backend of ``db``."""
    return of(db).release(db, name)


def rollback_to(db: Connection, name: str) -> None:
    """``rollback_to`` of the backend of ``db``."""
    return of(db).rollback_to(db, name)


def manual_checkpoints(db: Connection) -> None:
    """``manual_checkpoints`` of the backend of ``db``."""
    return of(db).manual_checkpoints(db)


def data_version(db: Connection) -> int:
    """``data_version`` of the backend of ``db``."""
    return of(db).data_version(db)


def checkpoint_passive(db: Connection) -> None:
    """``checkpoint_passive`` of the backend of ``db``."""
    return of(db).checkpoint_passive(db)


def game_ids(db: Connection) -> list[str]:
    """``game_ids`` of the backend of ``db``."""
    return of(db).game_ids(db)


def fork_relations(db: Connection) -> dict[str, tuple[str, str | None, int | None]]:
    """``fork_relations`` of the backend of ``db``."""
    return of(db).fork_relations(db)


def set_secret_from_hand(db: Connection, game_id: str, secret_from_hand: int | None) -> None:
    """``set_secret_from_hand`` of the backend of ``db``."""
    return of(db).set_secret_from_hand(db, game_id, secret_from_hand)


def is_fork(db: Connection, game_id: str) -> bool:
    """``is_fork`` of the backend of ``db``."""
    return of(db).is_fork(db, game_id)


def replace_player_results(db: Connection, game_id: str, columns: tuple[str, ...], rows: list[list[Any]]) -> None:
    """``replace_player_results`` of the backend of ``db``."""
    return of(db).replace_player_results(db, game_id, columns, rows)


def games_without_results(db: Connection) -> list[str]:
    """``games_without_results`` of the backend of ``db``."""
    return of(db).games_without_results(db)


def player_totals(db: Connection, since: str | None = None, until: str | None = None) -> list[dict[str, Any]]:
    """``player_totals`` of the backend of ``db``."""
    return of(db).player_totals(db, since, until)


def player_stats(db: Connection, player_key: str, counters: tuple[str, ...]) -> list[dict[str, Any]]:
    """``player_stats`` of the backend of ``db``."""
    return of(db).player_stats(db, player_key, counters)


def player_games(db: Connection, player_key: str, limit: int | None = None, offset: int = 0) -> list[dict[str, Any]]:
    """``player_games`` of the backend of ``db``."""
    return of(db).player_games(db, player_key, limit, offset)


def results_in_scope(db: Connection, columns: tuple[str, ...], since: str | None = None, until: str | None = None,
                     player_key: str | None = None) -> list[tuple[Any, ...]]:
    """``results_in_scope`` of the backend of ``db``."""
    return of(db).results_in_scope(db, columns, since, until, player_key)


def player_game_count(db: Connection, player_key: str) -> int:
    """``player_game_count`` of the backend of ``db``."""
    return of(db).player_game_count(db, player_key)


def connect_read_only(path: str | Path) -> Connection:
    """Open the database ``path`` names (a file, a ``sqlite:`` URL or a ``postgresql://``
    URL) read-only: ``connect_read_only`` of its backend."""
    return of(path).connect_read_only(database_path(path))


def tokens(db: Connection, game_id: str) -> list[dict[str, Any]]:
    """``tokens`` of the backend of ``db``."""
    return of(db).tokens(db, game_id)


def restore_token(db: Connection, game_id: str, token_hash: str, created_at: str, revoked_at: str | None) -> None:
    """``restore_token`` of the backend of ``db``."""
    return of(db).restore_token(db, game_id, token_hash, created_at, revoked_at)


def idempotency_records(db: Connection, game_id: str) -> list[dict[str, Any]]:
    """``idempotency_records`` of the backend of ``db``."""
    return of(db).idempotency_records(db, game_id)


def events_through_key(db: Connection, game_id: str, key: str) -> list[dict[str, Any]]:
    """``events_through_key`` of the backend of ``db``."""
    return of(db).events_through_key(db, game_id, key)


def event_keys(db: Connection, game_id: str) -> dict[int, str]:
    """``event_keys`` of the backend of ``db``."""
    return of(db).event_keys(db, game_id)


def player_results_of(db: Connection, game_id: str) -> list[dict[str, Any]]:
    """``player_results_of`` of the backend of ``db``."""
    return of(db).player_results_of(db, game_id)


def not_kibitz(db: Connection) -> str | None:
    """Why ``db`` is not a Kibitz database, in words for a parenthesis ("no games, events,
    idempotency table"; on PostgreSQL "no schema of its search_path exists" when the URL names
    a schema that is not there), or None when it holds every table of ``admin.TABLES``. Raises
    the driver's error when the database cannot be read."""
    if is_postgres(db):
        row = db.execute("SELECT current_schema() AS name").fetchone()
        if row is None or row["name"] is None:
            return "no schema of its search_path exists"
        names = {str(row["table_name"]) for row in db.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")}
    else:
        names = {str(row[0]) for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    missing = [name for name in admin.TABLES if name not in names]
    return f"no {', '.join(missing)} table" if missing else None
