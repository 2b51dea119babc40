"""``/games``: create a game, list games, read one game."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, Response, request, url_for
from marshmallow import ValidationError
from sqlite_utils import Database

import engine
import schemas
from engine import stream as streams
from engine.core import OptionError
from replays import replay
from schemas.common import utc_text
from schemas.games import CreateGameSchema, ListQuerySchema, flatten, seat
from service import games, history, http, store
from service.db import get_db
from service.problems import ApiError

bp = Blueprint("games", __name__)

#: The field of ``POST /games`` that names who starts, unless the engine names another.
STARTER_FIELDS = ("dealer", "first_player")


def invalid(errors: dict[str, list[str]], detail: str = "The request body is not valid.") -> ApiError:
    """A 422 ``validation_failed`` with ``errors`` (field -> messages)."""
    return ApiError(422, "validation_failed", detail, errors=errors)


@bp.post("/games")
def create() -> Response:
    """Create a game from ``CreateGameSchema``; 201 with ``Location``, the token and the state.
    Where the server has a club key, 401 ``club_key_required`` / 403 ``club_key_invalid``
    without it (after the body's 413/415/400, before its 422s: api.md's order of checks)."""
    raw = http.read_json()
    http.require_club_key()
    body = http.require_object(raw)
    try:
        loaded = CreateGameSchema().load(body)
    except ValidationError as err:
        raise invalid(flatten(err.messages)) from err
    created = created_data(loaded)
    rules = engine.GAMES[created["game"]]
    try:
        folded = replay.fold(rules, [{"seq": 1, "type": streams.CREATED, "data": created}])
    except OptionError as err:
        raise invalid({_option_field(err.field): [err.message]}) from err
    game_id, (token, token_hash) = http.new_game_id(), http.new_token()
    created_at = utc_text(datetime.now(UTC))
    def write(db: Database) -> dict[str, Any]:
        store.insert_game(db, game_id, created, token_hash, created_at, streams.status(folded.stream))
        store.append(db, game_id, 1, streams.CREATED, created, created_at)
        history.refresh(db, {"id": game_id, "game": created["game"], "created_at": created_at}, folded.stream)
        row = store.get_game(db, game_id)
        assert row is not None
        return row

    row = games.writer().run(write)  # with the moves being recorded: one writer per process
    games.cache().put(game_id, folded)
    out = {**games.body(row, folded.stream, full=True), "token": token}
    return http.json_response(out, 201, version=1, headers={"Location": url_for("games.show", game_id=game_id)})


def created_data(loaded: dict[str, Any]) -> dict[str, Any]:
    """The ``game_created`` event data from a loaded ``POST /games`` body.

    Checks the options with the game's ``OPTIONS`` schema and ``resolve_options`` (422 on
    failure). Who starts is stored under the engine's ``STARTER`` field (``dealer`` or
    ``first_player``), the first seat by default.
    """
    name, players = loaded["game"], loaded["players"]
    rules, shapes = engine.GAMES[name], schemas.GAMES[name]
    starter = rules.STARTER
    errors = {
        field: [f"This game names who starts with '{starter}'."]
        for field in STARTER_FIELDS
        if field != starter and loaded.get(field) is not None
    }
    if errors:
        raise invalid(errors)
    try:
        options = shapes.OPTIONS().load(loaded["options"])
    except ValidationError as err:
        raise invalid(flatten(err.messages, "options")) from err
    try:
        resolved = rules.resolve_options(options, players)
    except OptionError as err:
        raise invalid({_option_field(err.field): [err.message]}) from err
    created: dict[str, Any] = {
        "game": name,
        "players": players,
        "visibility": loaded["visibility"],
        starter: seat(players, loaded[starter]) if loaded.get(starter) else players[0],
        "options": resolved,
        "rules_version": rules.RULES_VERSION,
    }
    if loaded.get("title") is not None:
        created["title"] = loaded["title"]
    return created


def _option_field(field: str) -> str:
    return field if field in CreateGameSchema().fields else f"options.{field}"


@bp.get("/games")
def index() -> Response:
    """List games newest first: ``{"games": [...], "next_cursor": str | null}``."""
    try:
        query = ListQuerySchema().load(request.args.to_dict())
    except ValidationError as err:
        raise invalid(flatten(err.messages), "The query parameters are not valid.") from err
    try:
        rows, next_cursor = store.list_games(get_db(), **query)
    except ValueError as err:
        raise invalid({"cursor": [str(err)]}, "The query parameters are not valid.") from err
    return http.json_response({"games": [games.summary(row) for row in rows], "next_cursor": next_cursor})


@bp.get("/games/<game_id>")
def show(game_id: str) -> Response:
    """One game with its state (full view with the token, public view without)."""
    row = games.load(game_id)
    full = games.reader_is_full(row)
    stream = games.current(row).stream
    return http.json_response(games.body(row, stream, full), version=stream.version)
