"""Export and import: ``GET /games/<id>/export?format=`` and ``POST /games/import``."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, request, url_for

from replays import export
from service import games, http, secrecy, transfer, writes
from service.problems import ApiError

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
    response.headers["Content-Disposition"] = f'inline; filename="{game_id}.{export.EXTENSIONS[fmt]}"'
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
