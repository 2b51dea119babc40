"""Replay and audit reads: ``states/<seq>``, ``hands/<n>``, ``hands/<n>/tricks/<t>``."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response

from engine import stream as streams
from replays import audit, replay
from service import games, http, store
from service.db import get_db
from service.problems import ApiError

bp = Blueprint("replays", __name__)


@bp.get("/games/<game_id>/states/<int:seq>")
def state_at(game_id: str, seq: int) -> Response:
    """The state right after event ``seq``: ``{"seq", "version", "state"}``; 404 past the log."""
    row = games.load(game_id)
    full = games.reader_is_full(row)
    return http.json_response(state_after(row, seq, full), version=row["version"])


def state_after(row: dict[str, Any], seq: int, full: bool) -> dict[str, Any]:
    """``{"seq", "version", "state"}``: the state right after event ``seq`` of the game ``row``
    as ``full`` (the token) or public reader sees it (the API's ``states/<seq>`` and the replay page).

    Raises :class:`ApiError` 404 ``not_found`` for a seq outside the log and 401
    ``token_required`` for the public view of an open game's past state whose hand an undo
    has put back in play.
    """
    if not 1 <= games.path_number(seq) <= row["version"]:
        raise ApiError(404, "not_found", f"This game has no event {seq}: its events are 1 to {row['version']}.",
                       version=row["version"])
    rules = games.rules_of(row)
    past = replay.stream_at(rules, store.events(get_db(), row["id"], upto=seq), seq)
    state = past.state
    if not full and row["visibility"] == "open":
        reopened = replay.reopened_hands(rules, state, games.current(row).stream.state)
        if reopened:
            raise ApiError(401, "token_required",
                           f"The state after event {seq} shows the cards of {rules.HAND_WORD} {reopened[0]}, which an undo has "
                           "put back in play: only the scorekeeper (this game's token) may read it.",
                           version=row["version"], headers={"WWW-Authenticate": 'Bearer realm="kibitz"'})
    return {"seq": seq, "version": row["version"], "state": streams.view(past, full)}


@bp.get("/games/<game_id>/hands/<int:n>")
def hand(game_id: str, n: int) -> Response:
    """Hand/round ``n`` (1-based) as the engine's ``hand_view`` plus ``corrections``."""
    row = games.load(game_id)
    full = games.reader_is_full(row)
    games.path_number(n)
    view = audit.hand(games.current(row), store.events(get_db(), game_id, upto=row["version"]), n, full)
    if view is None:
        raise ApiError(404, "not_found", f"This game has no {games.rules_of(row).HAND_WORD} {n}.",
                       version=row["version"])
    return http.json_response(view, version=row["version"])


@bp.get("/games/<game_id>/hands/<int:n>/tricks/<int:t>")
def trick(game_id: str, n: int, t: int) -> Response:
    """Trick ``t`` of hand ``n``: ``trick_view`` plus each play's ``recorded_at`` and the
    hand's ``corrections``."""
    row = games.load(game_id)
    full = games.reader_is_full(row)
    games.path_number(n)
    games.path_number(t)
    events = store.events(get_db(), game_id, upto=row["version"])
    view = audit.trick(games.current(row), events, n, t, full)
    if view is None:
        raise ApiError(404, "not_found", f"This game has no trick {t} in {games.rules_of(row).HAND_WORD} {n}.", version=row["version"])
    return http.json_response(view, version=row["version"])
