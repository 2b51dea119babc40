"""``/games``: create a game, list games, read one game."""

from __future__ import annotations

from flask import Blueprint, Response, request, url_for

from schemas.games import CreateGameSchema, ListQuerySchema
from service import http
from service.parsing import created_data, invalid
from service.record import games, projections, secrecy, writes
from service.storage import backend as store
from service.storage.connections import get_db

bp = Blueprint("games", __name__)


@bp.post("/games")
def create() -> Response:
    """Create a game from ``CreateGameSchema``; 201 with ``Location``, the token and the state.
    Where the server has a club key, 401 ``club_key_required`` / 403 ``club_key_invalid``
    without it (after the body's 413/415/400, before its 422s: api.md's order of checks)."""
    raw = http.read_json()
    http.require_club_key()
    body = http.require_object(raw)
    loaded = CreateGameSchema().load(body)
    new = writes.create(games.writer(), games.cache(), created_data(loaded))
    out = {**games.body(new.row, new.folded.stream, full=True), "token": new.token}
    return http.json_response(out, 201, version=1, headers={"Location": url_for("games.show", game_id=new.id)})


@bp.get("/games")
@secrecy.reads("game", "player", "status", "fork", "forked_from", "limit", "cursor")
def index() -> Response:
    """List games newest first: ``{"games": [...], "next_cursor": str | null}``."""
    query = ListQuerySchema().load(request.args.to_dict())
    try:
        rows, next_cursor = store.list_games(get_db(), **query)
    except ValueError as err:
        raise invalid({"cursor": [str(err)]}, "The query parameters are not valid.") from err
    projections.check_listed(rows)
    if query.get("player") is not None:
        projections.check_player(rows, query["player"])
    return http.json_response({"games": [games.summary(row) for row in rows], "next_cursor": next_cursor})


@bp.get("/games/<game:game_id>")
@secrecy.reads()
def show(game_id: str) -> Response:
    """One game with its state (full view with the token, public view without)."""
    row = games.load(game_id)
    full = secrecy.reader(row)
    stream = games.current(row).stream
    return http.json_response(games.body(row, stream, full), version=stream.version)
