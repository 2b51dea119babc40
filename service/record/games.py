"""Looking games up and shaping them for responses (shared by the views)."""

from __future__ import annotations

from typing import Any

from flask import current_app

import engine
from engine import stream as streams
from engine.interface import GameRules
from replays import audit, chain
from replays.replay import Folded
from service.problems import ApiError
from service.record.cache import FoldCache, checked_events
from service.record.writer import Writer
from service.storage import backend as store
from service.storage.connections import get_db

#: Largest number accepted in a path (a seq, hand or trick number); beyond it is 404.
MAX_PATH_NUMBER = 2**62


def load(game_id: str) -> dict[str, Any]:
    """The ``games`` row of ``game_id`` with ``token_hashes`` (the SHA-256s of its live write
    tokens, which ``http.require_token`` and ``service.record.secrecy.reader`` check, read afresh on
    every request so a revocation counts at once); 404 ``game_not_found`` if there is none.

    The game's record is checked first (:func:`current`: on a cache miss its log is read,
    its hash chain recomputed and folded), so every route of a damaged game answers 503
    ``record_damaged`` (``store.RecordDamaged``) before it reads anything else."""
    db = get_db()
    row = store.get_game(db, game_id) if len(game_id) <= 100 else None
    if row is None or row["game"] not in engine.GAMES:
        raise ApiError(404, "game_not_found", f"There is no game {game_id[:100]!r}.")
    current(row)
    row["token_hashes"] = store.live_token_hashes(db, row["id"])
    return row


def rules_of(row: dict[str, Any]) -> GameRules:
    """The engine module of a game row."""
    return engine.GAMES[row["game"]]


def cache() -> FoldCache:
    """The app's cache of folded games."""
    cached: FoldCache = current_app.extensions["kibitz_cache"]
    return cached


def writer() -> Writer:
    """The app's writer: every write of this process goes through it (service/record/writer.py)."""
    found: Writer = current_app.extensions["kibitz_writer"]
    return found


def current(row: dict[str, Any]) -> Folded:
    """The game folded at the row's version (cached, caught up if another process wrote);
    raises ``store.RecordDamaged`` when what it reads from storage is not what Kibitz writes."""
    return cache().get(get_db(), rules_of(row), row["id"], row["version"], record_hash=row.get("record_hash"),
                       row=row)


def events(row: dict[str, Any], *, after: int = 0, upto: int | None = None) -> list[dict[str, Any]]:
    """The stored events of game ``row`` (a :func:`load`-ed row) with ``after < seq <= upto``
    (``upto`` None: the row's version), oldest first, checked as they are read
    (``service.record.cache.checked_events``: no gap, the hash chain, known types, the last hash the
    row's ``record_hash``). Every view and page that returns or refolds stored events reads
    them here. Raises ``store.RecordDamaged`` (503 ``record_damaged``) naming the event."""
    last = row["version"] if upto is None else upto
    return checked_events(get_db(), rules_of(row), row["id"], after=after, upto=last,
                          record_hash=row.get("record_hash"), version=row["version"])


def summary(row: dict[str, Any]) -> dict[str, Any]:
    """The fields of a game shown in lists and on its page (no state)."""
    return {
        "id": row["id"],
        "game": row["game"],
        "title": row["title"],
        "players": row["players"],
        "visibility": row["visibility"],
        "options": row["options"],
        "version": row["version"],
        "created_at": row["created_at"],
        "status": row["status"],
        "forked_from": forked_from(row),
    }


def forked_from(row: dict[str, Any]) -> dict[str, Any] | None:
    """``{"game", "seq"}`` for a what-if fork (the game and event it branched off), else None."""
    if not row.get("forked_from_game"):
        return None
    return {"game": row["forked_from_game"], "seq": row["forked_from_seq"]}


def body(row: dict[str, Any], stream: streams.Stream, full: bool) -> dict[str, Any]:
    """``GET /games/<id>``: the summary plus ``record_hash`` (the last event's hash, api.md
    "A tamper-evident record") and ``state`` (the engine's view for this reader)."""
    return {**summary(row), "version": stream.version, "status": streams.status(stream),
            "record_hash": row.get("record_hash"), "state": streams.view(stream, full)}


def fingerprint_context(row: dict[str, Any], version: int, status: str) -> dict[str, Any]:
    """What the pages' ``record_fingerprint.html`` shows: ``fingerprint`` (the first 16 hex
    digits of the row's ``record_hash``), ``fingerprint_shown`` (the same in groups of four),
    ``fingerprint_version`` (the event it is of), ``fingerprint_status`` (the game's status),
    ``fingerprint_game_id`` and ``fingerprint_players`` (the seats' names, to isolate in the
    sentence of the moment: api.md, "Text people type")."""
    digits = chain.fingerprint(row.get("record_hash"))
    return {"fingerprint": digits, "fingerprint_shown": chain.grouped(digits) if digits else None,
            "fingerprint_version": version,
            "fingerprint_status": status, "fingerprint_game_id": row["id"],
            "fingerprint_players": list(row.get("players") or [])}


def path_number(value: int) -> int:
    """``value`` if it is a usable path number; 404 ``not_found`` beyond the range."""
    if not 0 <= value <= MAX_PATH_NUMBER:
        raise ApiError(404, "not_found", "There is no such resource.")
    return value


def trick_audit(row: dict[str, Any], n: int, t: int, full: bool) -> dict[str, Any] | None:
    """Trick ``t`` of hand ``n`` of ``row``'s game as ``replays.audit.trick`` gives it (``full``:
    every card named), read from the game's stored events up to its version; None when the game
    has no such trick. Raises ``ApiError`` 404 for a number no path takes (:func:`path_number`)."""
    path_number(n)
    path_number(t)
    return audit.trick(current(row), events(row, upto=row["version"]), n, t, full)
