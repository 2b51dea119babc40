"""Recording: ``POST /games/<id>/events``, ``/undo``, ``/redo``; the log and next actions.

A write follows ``api.md``'s order of checks: body (413/415/400), then one read under the
game's write lock (``service.record.writes.record``, ``Writer.move``) and from it: game (404) →
``record_damaged`` (503) → token (401/403) → ``Idempotency-Key`` → payload errors (422) →
``If-Match`` (412) → rules (409) → the append sent with its ``COMMIT`` → 201.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Blueprint, Response, current_app, request

from engine import stream as streams
from replays import replay
from schemas.games import ActionsQuerySchema, DryRunQuerySchema, EventsQuerySchema
from service import http
from service.problems import ApiError
from service.record import games, moves, secrecy

bp = Blueprint("recording", __name__)
#: The write's query schema (a schema keeps no state between loads: one serves every request).
DRY_RUN = DryRunQuerySchema()


@bp.post("/games/<game_id>/events")
def record(game_id: str) -> Response:
    """Record one action (``{"type": ..., ...}``); 201 ``{seq, version, event, state,
    irregularities}`` (the revokes this event proves, as ``GET …/irregularities``)."""
    return commit(game_id, "events", http.read_json())


@bp.post("/games/<game_id>/correct")
def correct(game_id: str) -> Response:
    """Correct an earlier entry (``{"target", "action", "reason"?}``; api.md ``POST …/correct``):
    201 ``{seq, version, event, state, target, replacement, irregularities}``; 409
    ``nothing_to_correct``, the replacement's rules code, or ``correction_conflict`` with
    ``conflicts_with``."""
    return commit(game_id, "correct", http.read_json())


@bp.post("/games/<game_id>/undo")
def undo(game_id: str) -> Response:
    """Record an ``undo`` (optional body ``{"reason"}``): 201 ``{seq, version, event, state,
    target}`` (``target`` ``{seq, type, summary}``: the action cancelled); 409 ``nothing_to_undo``."""
    return commit(game_id, streams.UNDO, http.read_json(allow_empty=True))


@bp.post("/games/<game_id>/redo")
def redo(game_id: str) -> Response:
    """Record a ``redo`` (optional body ``{"reason"}``): 201 with ``target``, the action
    restored; 409 ``nothing_to_redo``."""
    return commit(game_id, streams.REDO, http.read_json(allow_empty=True))


def commit(game_id: str, endpoint: str, body: Any) -> Response:
    """Store what ``body`` asks through ``endpoint`` with this request's token,
    ``Idempotency-Key`` and ``If-Match`` (``service.record.moves.write``: one read, one append); the
    201 (or the stored first response), or with ``?dry_run=true`` the 200 ``{"dry_run": true,
    "state", "irregularities"}`` of a write that stores and remembers nothing. ``kibitz serve``
    answers the common request to these routes itself through the same function
    (``service.web.server``)."""

    def token_read(row: Mapping[str, Any]) -> None:  # where kibitz serve's gate learns the tokens
        request.environ[http.TOKENS_KEY] = http.tokens_seen(row)
        http.varies_with_token()

    def dry_run() -> bool:  # most writes carry no query: only one with a query pays for the schema (and its 422s)
        return bool(request.query_string) and bool(DRY_RUN.load(request.args.to_dict())["dry_run"])

    headers = request.headers
    recorded = moves.write(games.writer(), games.cache(), game_id, endpoint, body,
                           authorization=headers.get("Authorization"), key=headers.get("Idempotency-Key"),
                           if_match=headers.get("If-Match"), club_key=current_app.config.get("CLUB_KEY"),
                           token_read=token_read, dry_run=dry_run)
    return http.json_response(recorded.body, recorded.status, version=moves.etag_version(recorded))


@bp.get("/games/<game_id>/events")
@secrecy.reads("after", "limit")
def log(game_id: str) -> Response:
    """The stored log: ``{"events": [{seq, type, data, recorded_at, at, undone, corrected_by}], "version",
    "next_after"}``; query ``after`` (a seq) and ``limit``."""
    row = games.load(game_id)
    full = secrecy.reader(row)
    query = EventsQuerySchema().load(request.args.to_dict())
    folded = games.current(row)
    events = games.events(row, after=query["after"], upto=min(folded.version, query["after"] + query["limit"]))
    page = replay.event_log(folded, events, full)
    more = bool(page) and page[-1]["seq"] < row["version"]
    return http.json_response(
        {"events": page, "version": row["version"], "next_after": page[-1]["seq"] if more else None},
        version=row["version"],
    )


@bp.get("/games/<game_id>/actions")
@secrecy.reads("before")
def actions(game_id: str) -> Response:
    """What can be recorded next: ``{"version", "actions": [{type, player, cards, …}]}``, the
    game's actions and the bookkeeping actions open now (``engine.stream.actions``).
    ``?before=<seq>``: what could have been recorded in place of event ``seq`` (the moment
    just before it in the current record, ``engine.stream.before``; for an event not in the
    record, undone or bookkeeping, the moment just before it as it was: 401 ``token_required``
    publicly when that moment shows a card back in a hand, ``service.record.secrecy.moment``); 404
    outside 2..version."""
    row = games.load(game_id)
    full = secrecy.reader(row)
    before = ActionsQuerySchema().load(request.args.to_dict())["before"]
    folded = games.current(row)
    stream = folded.stream
    if before is not None:
        if not 2 <= before <= stream.version:
            raise ApiError(404, "not_found", f"This game has no event {before} that could be corrected: its entries "
                                             f"are events 2 to {stream.version}.", version=stream.version)
        past = streams.before(stream, before)
        if past is None:  # not in the current record: the moment as it was when it was recorded
            past = replay.stream_at(folded.stream.rules, games.events(row, upto=before - 1), before - 1)
            if not full:  # refused publicly like states/<seq> when that moment shows a card back in a hand
                secrecy.moment(row, past, f"The moment before event {before}")
        legal = secrecy.actions(row, full, past)
    else:
        legal = secrecy.actions(row, full)
    return http.json_response({"version": stream.version, "actions": legal}, version=stream.version)
