"""Replay and audit reads: ``states/<seq>``, ``hands/<n>``, ``hands/<n>/tricks/<t>``."""

from __future__ import annotations

from flask import Blueprint, Response

from replays import audit
from service import http
from service.problems import ApiError
from service.record import games, secrecy

bp = Blueprint("replays", __name__)


@bp.get("/games/<game_id>/states/<int:seq>")
@secrecy.reads()
def state_at(game_id: str, seq: int) -> Response:
    """The state right after event ``seq``: ``{"seq", "version", "state"}``; 404 past the log."""
    row = games.load(game_id)
    full = secrecy.reader(row)
    return http.json_response(secrecy.state_after(row, seq, full), version=row["version"])


@bp.get("/games/<game_id>/hands/<int:n>")
@secrecy.reads()
def hand(game_id: str, n: int) -> Response:
    """Hand/round ``n`` (1-based) as the engine's ``hand_view`` plus ``corrections``."""
    row = games.load(game_id)
    full = secrecy.reader(row)
    games.path_number(n)
    view = audit.hand(games.current(row), games.events(row, upto=row["version"]), n, full)
    if view is None:
        raise ApiError(404, "not_found", f"This game has no {games.rules_of(row).HAND_WORD} {n}.",
                       version=row["version"])
    return http.json_response(view, version=row["version"])


@bp.get("/games/<game_id>/hands/<int:n>/tricks/<int:t>")
@secrecy.reads()
def trick(game_id: str, n: int, t: int) -> Response:
    """Trick ``t`` of hand ``n``: ``trick_view`` plus each play's ``recorded_at`` and the
    hand's ``corrections``."""
    row = games.load(game_id)
    full = secrecy.reader(row)
    view = games.trick_audit(row, n, t, full)
    if view is None:
        raise ApiError(404, "not_found", f"This game has no trick {t} in {games.rules_of(row).HAND_WORD} {n}.", version=row["version"])
    return http.json_response(view, version=row["version"])
