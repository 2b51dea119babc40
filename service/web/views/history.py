"""Match histories: ``GET /players``, ``GET /players/<name>``, ``GET /players/<name>/games``.

Players are matched by name, trimmed and case-insensitively, across games; forks never
count. Everything is read from the ``player_results`` projection (``service.storage.history``).
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, request

from replays import export
from schemas.common import whole_number
from service import http
from service.problems import ApiError
from service.record import projections, secrecy
from service.storage import history
from service.storage.connections import get_db

bp = Blueprint("history", __name__)

DEFAULT_LIMIT, MAX_LIMIT = 100, 1000
CSV_FIELDS = ("date", "id", "game", "title", "seat", "status", "result", "score", "unit", *history.COUNTERS)


def _limit() -> tuple[int, int]:
    errors: dict[str, list[str]] = {}
    values = {}
    for name, default, top in (("limit", DEFAULT_LIMIT, MAX_LIMIT), ("offset", 0, 2**62)):
        text = request.args.get(name)
        number = whole_number(text)
        if text is None:
            values[name] = default
        elif number is not None and (name == "offset" or number >= 1) and number <= top:
            values[name] = number
        else:
            errors[name] = [f"Give a whole number{' from 1 to ' + str(top) if name == 'limit' else ''}."]
    if errors:
        raise ApiError(422, "validation_failed", "The query parameters are not valid.", errors=errors)
    return values["limit"], values["offset"]


def _player(name: str) -> dict[str, dict[str, object]]:
    stats = history.stats(get_db(), name) if len(name) <= 100 else None
    if stats is None:
        raise ApiError(404, "not_found", f"Nobody called {name.strip()[:40]!r} has played a game here.")
    return stats


@bp.get("/players")
@secrecy.reads("since", "until")
def index() -> Response:
    """Every player seen: ``{"players": [{"name", "games", "finished", "wins", "losses",
    "abandoned", "by_game"}], "since", "until"}``; ``since`` / ``until`` (``YYYY-MM-DD``,
    inclusive) keep the games of a period."""
    since, until = http.period()
    projections.check(since=since, until=until)
    return http.json_response({"players": history.players(get_db(), since, until), "since": since, "until": until})


@bp.get("/players/<player:name>")
@secrecy.reads("limit", "offset")
def show(name: str) -> Response:
    """One player's record: stats per game type and their games, newest first (``limit``,
    ``offset``)."""
    stats = _player(name)
    limit, offset = _limit()
    projections.check(name=name)
    db = get_db()
    played = history.games(db, name, limit, offset)
    projections.check_listed(played)  # the title and players shown come from the games rows
    total = history.count(db, name)
    shown = played[0]["name"] if played else history.games(db, name, 1)[0]["name"]
    return http.json_response({"name": shown, "key": history.key(name), "by_game": stats, "total_games": total,
                               "games": played, "next_offset": offset + limit if offset + limit < total else None})


@bp.get("/players/<player:name>/games")
@secrecy.reads("format")
def games(name: str) -> Response:
    """``GET /players/<name>/games``: the games as ``format=json`` (default) or ``csv``."""
    _player(name)
    fmt = request.args.get("format", "json")
    if fmt not in ("json", "csv"):
        raise ApiError(422, "validation_failed", "The query parameters are not valid.",
                       errors={"format": ["Give json or csv."]})
    projections.check(name=name)
    played = history.games(get_db(), name)
    projections.check_listed(played)
    if fmt == "json":
        return http.json_response({"games": played})
    response = current_app.response_class(export.csv_table(CSV_FIELDS, played), mimetype="text/csv")
    response.headers["Content-Type"] = "text/csv; charset=utf-8"
    return response
