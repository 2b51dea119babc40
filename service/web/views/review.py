"""Reviewing a game: ``timeline``, ``irregularities`` and what-if ``fork`` (issue 6).

Reads follow ``api.md`` "Views and secrets" (the public view without the token); a fork is
a write on the original game (its token required) that creates a new game.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, request, url_for

from replays import audit, timeline
from schemas.games import ForkSchema, TimelineQuerySchema
from service import http
from service.problems import ApiError
from service.record import games, secrecy, writes
from service.storage.connections import get_db

bp = Blueprint("review", __name__)


@bp.get("/games/<game_id>/timeline")
@secrecy.reads("hand")
def show_timeline(game_id: str) -> Response:
    """Every event with a summary: ``{"game", "version", "hand", "steps": [...]}``; ``?hand=n``
    keeps hand n's steps (404 for a hand that was never dealt)."""
    row = games.load(game_id)
    full = secrecy.reader(row)
    query = TimelineQuerySchema().load(request.args.to_dict())
    rules = games.rules_of(row)
    version = row["version"]
    steps = timeline.timeline(rules, games.events(row, upto=version), full)
    hand = query["hand"]
    if hand is not None:
        if hand > rules.hand_number(games.current(row).stream.state) and not any(s["hand"] == hand for s in steps):
            raise ApiError(404, "not_found", f"This game has no {rules.HAND_WORD} {hand}.", version=version)
        steps = timeline.for_hand(steps, hand)
    return http.json_response({"game": game_id, "version": version, "hand": hand, "steps": steps}, version=version)


@bp.get("/games/<game_id>/irregularities")
@secrecy.reads()
def irregularities(game_id: str) -> Response:
    """Revokes proven by later knowledge, for the whole game: ``{"version", "irregularities"}``."""
    row = games.load(game_id)
    full = secrecy.reader(row)
    found = audit.irregularities(games.current(row), full)
    return http.json_response({"version": row["version"], "irregularities": found}, version=row["version"])


@bp.post("/games/<game_id>/fork")
def fork(game_id: str) -> Response:
    """A new game from the actions effective right after event ``seq`` (api.md "Replay and
    audit"; recording.md: the state at ``seq``), re-validated through the rules.

    201 with the new game, its own token and ``forked_from``; 422 for a ``seq`` outside the
    log; 409 with the rules code if an action no longer passes the rules.
    """
    body = http.require_object(http.read_json())
    row = games.load(game_id)
    http.require_token(row)
    seq = ForkSchema().load(body)["seq"]
    new = writes.fork(games.writer(), games.cache(), get_db(), row, seq)
    out: dict[str, Any] = {**games.body(new.row, new.folded.stream, full=True), "token": new.token}
    return http.json_response(out, 201, version=new.folded.version,
                              headers={"Location": url_for("games.show", game_id=new.id)})
