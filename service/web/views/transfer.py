"""Export and import: ``GET /games/<id>/export?format=``, a night's games as one zip
(``GET /games/export?since=&until=``) and ``POST /games/import``."""

from __future__ import annotations

from datetime import date

from flask import Blueprint, Response, current_app, request, url_for

from replays import export
from schemas.games import NightExportSchema
from service import clubtime, http
from service.problems import ApiError
from service.record import games, projections, secrecy, transfer, writes
from service.storage import backend as store
from service.storage.connections import get_db

bp = Blueprint("transfer", __name__)


@bp.get("/games/<game_id>/export")
@secrecy.reads("format")
def export_game(game_id: str) -> Response:
    """The game in ``format`` ``json`` (default; what import takes), ``jsonl``, ``csv`` or
    ``text``; the public view without the token, everything with it."""
    row = games.load(game_id)
    full = secrecy.reader(row)
    fmt = request.args.get("format", "json")
    if fmt not in export.FORMATS:
        raise ApiError(422, "validation_failed", "The query parameters are not valid.",
                       errors={"format": [f"Give one of: {', '.join(export.FORMATS)}."]})
    folded = games.current(row)
    events = games.events(row, upto=folded.version)
    body = transfer.render(fmt, row, events, folded, full)
    response = current_app.response_class(body, mimetype=export.MEDIA_TYPES[fmt].split(";")[0])
    response.headers["Content-Type"] = export.MEDIA_TYPES[fmt]
    response.headers["ETag"] = http.etag(folded.version)
    response.headers["Vary"] = "Authorization"
    stem = transfer.file_stem(row, clubtime.club_zone())  # named as in a night's zip
    response.headers["Content-Disposition"] = f'inline; filename="{stem}.{export.EXTENSIONS[fmt]}"'
    return response


#: The most games one ``GET /games/export`` packs (a longer period is a 422 asking for a shorter one).
MAX_ARCHIVED = 1000


@bp.get("/games/export")
@secrecy.reads("since", "until")
def export_games() -> Response:
    """A night's games (a period's: ``since`` / ``until``, days ``YYYY-MM-DD`` in club time,
    both inclusive; either left out: no bound) as one zip (``service.record.transfer.archive``): each
    game's ``json`` export, ``csv`` score sheet and ``text`` record, in the public view (a game
    in progress shows no card still in a hand), oldest first; what-if forks are left out. 422
    ``validation_failed`` for a bound that is not a day, ``since`` after ``until``, or a period
    of more than :data:`MAX_ARCHIVED` games; 503 ``record_damaged`` when one game's record is
    not what Kibitz writes (naming it)."""
    since, until = http.period()
    return _night(date.fromisoformat(since) if since else None, date.fromisoformat(until) if until else None, [])


@bp.post("/games/export")
def export_games_with_tokens() -> Response:
    """:func:`export_games` for a reader holding game tokens (the home page sends every token its
    device keeps): body ``{"since", "until", "tokens"}`` (``schemas.games.NightExportSchema``);
    each game whose live token is among ``tokens`` is packed in its full view (so that its
    ``json`` imports back even while a hand is in play), every other one in the public view.
    A token of no game in the period is no error. 400/415/422 for a body that is not such an object."""
    body = NightExportSchema().load(http.require_object(http.read_json()))
    return _night(body["since"], body["until"], body["tokens"])


def _night(since: date | None, until: date | None, tokens: list[str]) -> Response:
    where = clubtime.club_zone()
    low = clubtime.day_bounds(since, since, where)[0] if since else None
    high = clubtime.day_bounds(until, until, where)[1] if until else None
    rows, more = store.list_games(get_db(), limit=MAX_ARCHIVED, created_from=low, created_before=high)
    if more is not None:
        raise ApiError(422, "validation_failed", f"That period holds more than {MAX_ARCHIVED} games: choose a shorter one.",
                       errors={"since": [f"Choose a period of at most {MAX_ARCHIVED} games."]})
    projections.check_listed(rows)
    held = http.token_hashes(tokens)
    chosen = []
    for listed in reversed(rows):  # oldest first
        row = games.load(listed["id"])
        folded = games.current(row)
        chosen.append((row, games.events(row, upto=folded.version), folded, http.holds_token(held, row)))
    body = transfer.archive(chosen, where)
    first, last = (since.isoformat() if since else None), (until.isoformat() if until else None)
    name = "kibitz-games" + (f"-{first}" if first else "") + (f"-to-{last}" if last and last != first else "")
    if not first and not last:
        name += "-all"
    response = current_app.response_class(body, mimetype="application/zip")
    response.headers["Content-Disposition"] = f'attachment; filename="{name}.zip"'
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/games/import")
def import_game() -> Response:
    """Create a game from a ``json`` export, re-validating every event through the rules.

    201 like ``POST /games`` (with the new ``token`` and ``imported_at``); 422
    ``import_invalid`` with ``seq`` and ``rule_code`` for the first event refused; 422
    ``validation_failed`` for a body that is not an export; where the server has a club key,
    401 ``club_key_required`` / 403 ``club_key_invalid`` without it (before any 422). Nothing
    is stored on a refusal.
    """
    doc = http.read_json()
    http.require_club_key()
    imported = writes.import_game(games.writer(), games.cache(), doc)
    out = {**games.body(imported.row, imported.folded.stream, full=True), "imported_at": imported.row["imported_at"],
           "token": imported.token}
    return http.json_response(out, 201, version=imported.folded.version,
                              headers={"Location": url_for("games.show", game_id=imported.id)})
