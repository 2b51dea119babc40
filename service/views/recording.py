"""Recording: ``POST /games/<id>/events``, ``/undo``, ``/redo``; the log and next actions.

A write follows ``api.md``'s order of checks: body (413/415/400) → game (404) → token
(401/403) → payload parsed, errors kept → the group committer's ``BEGIN IMMEDIATE`` (service/writer.py)
→ ``Idempotency-Key`` → payload errors (422) → ``If-Match`` (412) → rules (409) → append →
``COMMIT`` (shared with the other writes waiting at that moment) → 201.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from flask import Blueprint, Response, request
from marshmallow import Schema, ValidationError
from sqlite_utils import Database

import schemas
from engine import stream as streams
from engine.core import RulesError
from replays import audit, replay
from schemas.common import ReasonSchema, utc_text
from schemas.games import EventsQuerySchema, flatten
from service import forks, games, history, http, store
from service.db import get_db
from service.problems import ApiError
from service.views.games import invalid

bp = Blueprint("recording", __name__)


@dataclass(frozen=True)
class Parsed:
    """A write's payload after the schema: the action, its ``at``, or the errors."""

    action: dict[str, Any] | None
    at: str | None
    errors: dict[str, list[str]] | None


@bp.post("/games/<game_id>/events")
def record(game_id: str) -> Response:
    """Record one action (``{"type": ..., ...}``); 201 ``{seq, version, event, state,
    irregularities}`` (the revokes this event proves, as ``GET …/irregularities``)."""
    body = http.read_json()
    row = games.load(game_id)
    http.require_token(row)
    return commit(row, "events", body, parse_action(row, body))


@bp.post("/games/<game_id>/undo")
def undo(game_id: str) -> Response:
    """Record an ``undo`` (optional body ``{"reason"}``): 201 ``{seq, version, event, state,
    target}`` (``target`` ``{seq, type, summary}``: the action cancelled); 409 ``nothing_to_undo``."""
    return _bookkeeping(game_id, streams.UNDO)


@bp.post("/games/<game_id>/redo")
def redo(game_id: str) -> Response:
    """Record a ``redo`` (optional body ``{"reason"}``): 201 with ``target``, the action
    restored; 409 ``nothing_to_redo``."""
    return _bookkeeping(game_id, streams.REDO)


def _bookkeeping(game_id: str, kind: str) -> Response:
    body = http.read_json(allow_empty=True)
    row = games.load(game_id)
    http.require_token(row)
    return commit(row, kind, body, parse_reason(kind, body))


def parse_action(row: Mapping[str, Any], body: Any) -> Parsed:
    """Load ``body`` with the game's action schema for its ``type``; errors are kept."""
    if not isinstance(body, dict):
        return Parsed(None, None, {"_schema": ["The body must be a JSON object."]})
    actions = games.schemas_of(dict(row)).ACTIONS
    kind = body.get("type")
    if not isinstance(kind, str) or kind not in actions:
        known = ", ".join(sorted(actions))
        return Parsed(None, None, {"type": [f"Give the action's type, one of: {known}."]})
    schema = action_schema(row["game"], kind, tuple(row["players"]), row["visibility"])
    try:
        loaded = dict(schema.load(body))
    except ValidationError as err:
        return Parsed(None, None, flatten(err.messages))
    at = loaded.pop("at", None)
    loaded.pop("type", None)
    return Parsed({"type": kind, **loaded}, at, None)


@lru_cache(maxsize=512)
def action_schema(game: str, kind: str, players: tuple[str, ...], visibility: str) -> Schema:
    """The action schema of ``kind`` for one table (seats, visibility), built once and reused.

    Building a marshmallow schema costs more than loading a body with it; a loaded schema
    keeps no state between loads, so one instance serves every request of that table.
    """
    schema: Schema = schemas.GAMES[game].ACTIONS[kind](players=players, visibility=visibility)
    return schema


def parse_reason(kind: str, body: Any) -> Parsed:
    """Load the optional ``{"reason", "at"}`` body of an undo or redo; errors are kept."""
    if not isinstance(body, dict):
        return Parsed(None, None, {"_schema": ["The body must be a JSON object."]})
    try:
        loaded = dict(ReasonSchema().load(body))
    except ValidationError as err:
        return Parsed(None, None, flatten(err.messages))
    at = loaded.pop("at", None)
    return Parsed({"type": kind, **loaded}, at, None)


def commit(row: Mapping[str, Any], endpoint: str, body: Any, parsed: Parsed) -> Response:
    """Store ``parsed.action`` as the game's next event, through the group committer.

    Returns the 201 response (or the stored first response of a retried
    ``Idempotency-Key``), sent only once the event is committed. Raises ``ApiError``: 422
    ``idempotency_key_reused``, 422 ``validation_failed``, 412 ``version_mismatch``, 409
    with the rules code; ``store.StorageUnavailable`` (503) when the storage cannot take it.
    """
    game_id, rules = row["id"], games.rules_of(dict(row))
    key = http.idempotency_key()
    fingerprint = http.request_hash(endpoint, body)
    if_match = request.headers.get("If-Match")
    cache = games.cache()

    def write(db: Database) -> tuple[int, dict[str, Any], replay.Folded | None]:
        version = store.version_of(db, game_id)
        if version is None:  # pragma: no cover - games are never deleted
            raise ApiError(404, "game_not_found", f"There is no game {game_id!r}.")
        if key is not None:
            seen = store.remembered(db, game_id, key)
            if seen is not None and seen["request_hash"] == fingerprint:
                return seen["status"], seen["response"], None
            if seen is not None:
                raise ApiError(422, "idempotency_key_reused",
                               "This Idempotency-Key was used before with a different request.", version=version)
        if parsed.errors is not None or parsed.action is None:
            raise ApiError(422, "validation_failed", "The action does not fit its schema.",
                           errors=parsed.errors or {}, version=version)
        http.check_if_match(version, if_match)
        before = cache.get(db, rules, game_id, version)
        seq = version + 1
        target = streams.target(before.stream, parsed.action["type"])
        try:
            after = replay.extend(before, seq, parsed.action)
        except RulesError as err:
            raise ApiError(409, err.code, err.message, version=version) from err
        recorded_at = utc_text(datetime.now(UTC))
        data = {k: v for k, v in parsed.action.items() if k != "type"}
        event = store.append(db, game_id, seq, parsed.action["type"], data, recorded_at, parsed.at, key)
        state = after.stream.state
        status = streams.status(after.stream)
        store.set_version(db, game_id, seq, status, secret_from_hand=forks.secret_from_hand(rules, state))
        if status != streams.status(before.stream):  # finished or abandoned, or reopened by an undo
            history.refresh(db, row, after.stream)
        out = {"seq": seq, "version": seq, "event": event, "state": streams.view(after.stream, True)}
        if target is not None:  # undo or redo: what it cancelled or restored
            out["target"] = streams.target_json(rules, target, True)
        # a redo proves again what the action it restores proved
        proof = target.seq if target is not None and parsed.action["type"] == streams.REDO else seq
        out["irregularities"] = audit.proved_by(after, proof, True)
        if key is not None:
            store.remember(db, game_id, key, fingerprint, 201, out, recorded_at)
        return 201, out, after

    try:
        status, out, after = games.writer().run(write)
    except store.StorageUnavailable:  # nothing of the batch is stored: neither is its fold
        cache.discard(game_id)
        raise
    if after is not None:
        cache.put(game_id, after)
    return http.json_response(out, status, version=out.get("version"))


@bp.get("/games/<game_id>/events")
def log(game_id: str) -> Response:
    """The stored log: ``{"events": [{seq, type, data, recorded_at, at, undone}], "version",
    "next_after"}``; query ``after`` (a seq) and ``limit``."""
    row = games.load(game_id)
    full = games.reader_is_full(row)
    try:
        query = EventsQuerySchema().load(request.args.to_dict())
    except ValidationError as err:
        raise invalid(flatten(err.messages), "The query parameters are not valid.") from err
    folded = games.current(row)
    events = store.events(get_db(), game_id, after=query["after"], upto=min(folded.version, query["after"] + query["limit"]))
    page = replay.event_log(folded, events, full)
    more = bool(page) and page[-1]["seq"] < row["version"]
    return http.json_response(
        {"events": page, "version": row["version"], "next_after": page[-1]["seq"] if more else None},
        version=row["version"],
    )


@bp.get("/games/<game_id>/actions")
def actions(game_id: str) -> Response:
    """What can be recorded next: ``{"version", "actions": [{type, player, cards, …}]}``, the
    game's actions and the bookkeeping actions open now (``engine.stream.actions``)."""
    row = games.load(game_id)
    full = games.reader_is_full(row)
    stream = games.current(row).stream
    legal = streams.actions(stream, full)
    return http.json_response({"version": stream.version, "actions": legal}, version=stream.version)
