"""The OpenAPI 3 document, built with apispec and its MarshmallowPlugin in one place.

Request and response bodies come from the marshmallow schemas (``schemas/``); each game's
action schemas are listed under ``<game>_<type>`` and offered as ``oneOf`` for
``POST /games/<id>/events``. A test checks that every Flask route is documented here.
"""

from __future__ import annotations

from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin

import schemas
from schemas import responses
from schemas.common import ReasonSchema
from schemas.games import CreateGameSchema, EventsQuerySchema, ListQuerySchema

TITLE, VERSION = "Kibitz", "1"
JSON = "application/json"
PROBLEM = "application/problem+json"

GAME_ID = {"in": "path", "name": "game_id", "required": True, "schema": {"type": "string"}}
TOKEN_READ = {"in": "header", "name": "Authorization", "required": False, "schema": {"type": "string"},
              "description": "Bearer <token>: the full view with a live token of this game; the server's club "
                             "key gets the public view; any other token (a revoked one) is a 403."}
TOKEN_WRITE = {"in": "header", "name": "Authorization", "required": True, "schema": {"type": "string"},
               "description": "Bearer <token> (the game's write token)."}
CLUB_KEY = {"in": "header", "name": "Authorization", "required": False, "schema": {"type": "string"},
            "description": "Bearer <club key>: needed where the server has a club key (kibitz serve "
                           "--club-key-file, KIBITZ_CLUB_KEY); ignored where it has none."}
IF_MATCH = {"in": "header", "name": "If-Match", "required": False, "schema": {"type": "string"},
            "description": 'Refuse with 412 unless the game is at this version ("7", 7 or W/"7").'}
IDEMPOTENCY_KEY = {"in": "header", "name": "Idempotency-Key", "required": False, "schema": {"type": "string"},
                   "description": "A retry with the same key and a JSON-equal body returns the first 201."}

#: Problem statuses by kind of operation.
READ_ERRORS = (403, 404, 422)
WRITE_ERRORS = (400, 401, 403, 404, 409, 412, 413, 415, 422, 503)


def _number(name: str) -> dict[str, Any]:
    return {"in": "path", "name": name, "required": True, "schema": {"type": "integer", "minimum": 0}}


def _ok(schema: str, status: int = 200, description: str = "OK") -> dict[str, Any]:
    return {str(status): {"description": description, "content": {JSON: {"schema": schema}}}}


def _problems(statuses: tuple[int, ...]) -> dict[str, Any]:
    return {str(status): {"$ref": "#/components/responses/Problem"} for status in statuses}


def _club_key_problems() -> dict[str, Any]:
    """The 401 and 403 of the creating routes (``POST /games``, ``POST /games/import``)."""
    def answer(description: str) -> dict[str, Any]:
        return {"description": description, "content": {PROBLEM: {"schema": {"$ref": "#/components/schemas/Problem"}}}}

    return {"401": answer("club_key_required: the server has a club key and the request carries no "
                          "Authorization: Bearer <club key>; nothing is created"),
            "403": answer("club_key_invalid: the bearer token is not the server's club key; nothing is created")}


def _action_components(spec: APISpec) -> list[dict[str, str]]:
    names: dict[type, str] = {}
    for game, module in sorted(schemas.GAMES.items()):
        for kind, schema_class in sorted(module.ACTIONS.items()):
            if schema_class not in names:  # one component per class (knock/stay/fold share one)
                names[schema_class] = f"{game}_{kind}"
                spec.components.schema(names[schema_class], schema=schema_class(players=(), visibility="open"))
    return [{"$ref": f"#/components/schemas/{name}"} for name in names.values()]


def build() -> dict[str, Any]:
    """Return the OpenAPI 3 document as a dict."""
    spec = APISpec(title=TITLE, version=VERSION, openapi_version="3.0.3", plugins=[MarshmallowPlugin()],
                   info={"description": "Record physical card games as events; replay and audit them."})
    for name in ("Problem", "ForkedFrom", "GameSummary", "Game", "CreatedGame", "GameList", "StoredEvent", "LoggedEvent",
                 "EventLog", "UndoTarget", "Recorded", "LegalAction", "Actions", "StateAt", "Target", "Correction", "Hand",
                 "Play", "Trick", "Health", "Fork", "TimelineStep", "Timeline", "Irregularity",
                 "Irregularities"):
        spec.components.schema(name, schema=getattr(responses, f"{name}Schema"))
    spec.components.schema("CreateGame", schema=CreateGameSchema)
    spec.components.schema("Reason", schema=ReasonSchema)
    spec.components.response("Problem", {"description": "An RFC 9457 problem",
                                         "content": {PROBLEM: {"schema": "Problem"}}})
    actions = _action_components(spec)

    spec.components.security_scheme("clubKey", {
        "type": "http", "scheme": "bearer",
        "description": "The server's club key, where it has one: creating and importing games need it."})
    creating = {"parameters": [CLUB_KEY], "security": [{"clubKey": []}, {}]}
    spec.path(path="/games", operations={
        "post": {"summary": "Create a game", **creating, "requestBody": {"required": True, "content": {JSON: {
            "schema": "CreateGame"}}}, "responses": {**_ok("CreatedGame", 201, "Created"),
                                                     **_problems((400, 413, 415, 422)), **_club_key_problems()}},
        "get": {"summary": "List games, newest first", "parameters": [{"in": "query", "schema": ListQuerySchema}],
                "responses": {**_ok("GameList"), **_problems((422,))}},
    })
    spec.path(path="/games/{game_id}", operations={
        "get": {"summary": "One game and its state", "parameters": [GAME_ID, TOKEN_READ],
                "responses": {**_ok("Game"), **_problems(READ_ERRORS)}},
    })
    write = [GAME_ID, TOKEN_WRITE, IF_MATCH, IDEMPOTENCY_KEY]
    spec.path(path="/games/{game_id}/events", operations={
        "post": {"summary": "Record an action", "parameters": write,
                 "requestBody": {"required": True, "content": {JSON: {"schema": {"oneOf": actions}}}},
                 "responses": {**_ok("Recorded", 201, "Recorded"), **_problems(WRITE_ERRORS)}},
        "get": {"summary": "The stored event log, with undone", "parameters": [
            GAME_ID, TOKEN_READ, {"in": "query", "schema": EventsQuerySchema}],
            "responses": {**_ok("EventLog"), **_problems(READ_ERRORS)}},
    })
    for verb in ("undo", "redo"):
        spec.path(path=f"/games/{{game_id}}/{verb}", operations={
            "post": {"summary": f"Record an {verb}", "parameters": write,
                     "requestBody": {"required": False, "content": {JSON: {"schema": "Reason"}}},
                     "responses": {**_ok("Recorded", 201, "Recorded"), **_problems(WRITE_ERRORS)}},
        })
    spec.path(path="/games/{game_id}/actions", operations={
        "get": {"summary": "What can be recorded next", "parameters": [GAME_ID, TOKEN_READ],
                "responses": {**_ok("Actions"), **_problems(READ_ERRORS)}},
    })
    spec.path(path="/games/{game_id}/states/{seq}", operations={
        "get": {"summary": "The state right after event seq", "parameters": [GAME_ID, _number("seq"), TOKEN_READ],
                "responses": {**_ok("StateAt"), **_problems(READ_ERRORS)}},
    })
    spec.path(path="/games/{game_id}/hands/{n}", operations={
        "get": {"summary": "Hand or round n", "parameters": [GAME_ID, _number("n"), TOKEN_READ],
                "responses": {**_ok("Hand"), **_problems(READ_ERRORS)}},
    })
    spec.path(path="/games/{game_id}/hands/{n}/tricks/{t}", operations={
        "get": {"summary": "Trick t of hand n", "parameters": [GAME_ID, _number("n"), _number("t"), TOKEN_READ],
                "responses": {**_ok("Trick"), **_problems(READ_ERRORS)}},
    })
    spec.path(path="/games/{game_id}/timeline", operations={
        "get": {"summary": "Every step with a one-line summary (undone actions marked)",
                "parameters": [GAME_ID, TOKEN_READ, {"in": "query", "name": "hand", "required": False,
                                                     "schema": {"type": "integer", "minimum": 0},
                                                     "description": "only this hand/round"}],
                "responses": {**_ok("Timeline"), **_problems(READ_ERRORS)}},
    })
    spec.path(path="/games/{game_id}/irregularities", operations={
        "get": {"summary": "Revokes proven by later knowledge, whole game", "parameters": [GAME_ID, TOKEN_READ],
                "responses": {**_ok("Irregularities"), **_problems(READ_ERRORS)}},
    })
    spec.path(path="/games/{game_id}/fork", operations={
        "post": {"summary": "A what-if fork: a new game from the actions effective at seq",
                 "parameters": [GAME_ID, TOKEN_WRITE],
                 "requestBody": {"required": True, "content": {JSON: {"schema": "Fork"}}},
                 "responses": {**_ok("CreatedGame", 201, "Created"), **_problems((400, 401, 403, 404, 409, 413, 415,
                                                                                   422))}},
    })
    spec.path(path="/health", operations={"get": {"summary": "Liveness", "responses": _ok("Health")}})
    spec.path(path="/openapi.json", operations={
        "get": {"summary": "This document", "responses": {"200": {"description": "OpenAPI 3 document"}}},
    })
    _transfer_and_history(spec)
    document: dict[str, Any] = spec.to_dict()
    return document


def _transfer_and_history(spec: APISpec) -> None:
    """Export, import (docs/export.schema.json) and match histories."""
    export_doc = {"type": "object", "description": "A json export (docs/export.schema.json)",
                  "required": ["kibitz_export", "game", "events"]}
    spec.path(path="/games/{game_id}/export", operations={
        "get": {"summary": "The game as json (what import takes), jsonl, csv or text; public view without the token",
                "parameters": [GAME_ID, TOKEN_READ, {"in": "query", "name": "format", "required": False,
                                                     "schema": {"type": "string", "default": "json",
                                                                "enum": ["json", "jsonl", "csv", "text"]}}],
                "responses": {"200": {"description": "The export", "content": {
                    JSON: {"schema": export_doc}, "application/x-ndjson": {"schema": {"type": "string"}},
                    "text/csv": {"schema": {"type": "string"}}, "text/plain": {"schema": {"type": "string"}}}},
                    **_problems(READ_ERRORS)}},
    })
    spec.path(path="/games/import", operations={
        "post": {"summary": "Create a game from a json export, re-validating every event (422 import_invalid "
                            "names the first refused seq and its rule_code; 409 already_imported names in "
                            "game_id the stored game when the export's game is already stored here)",
                 "parameters": [CLUB_KEY], "security": [{"clubKey": []}, {}],
                 "requestBody": {"required": True, "content": {JSON: {"schema": export_doc}}},
                 "responses": {**_ok("CreatedGame", 201, "Imported"), **_problems((400, 409, 413, 415, 422)),
                               **_club_key_problems()}},
    })
    name = {"in": "path", "name": "name", "required": True, "schema": {"type": "string"},
            "description": "matched trimmed and case-insensitively"}
    paging = [{"in": "query", "name": "limit", "required": False, "schema": {"type": "integer", "minimum": 1,
                                                                             "maximum": 1000, "default": 100}},
              {"in": "query", "name": "offset", "required": False, "schema": {"type": "integer", "minimum": 0}}]
    obj = {"type": "object"}
    spec.path(path="/players", operations={
        "get": {"summary": "Every player seen, with games played, won, lost and abandoned per game type (forks "
                           "never count); since/until keep the games of a period",
                "parameters": [{"in": "query", "name": bound, "required": False,
                                "schema": {"type": "string", "format": "date"},
                                "description": f"YYYY-MM-DD (UTC, inclusive): {words}"}
                               for bound, words in (("since", "games from this day"), ("until", "games up to this day"))],
                "responses": {**_ok(obj), **_problems((422,))}},  # type: ignore[arg-type]
    })
    spec.path(path="/players/{name}", operations={
        "get": {"summary": "A player's games and stats per game type", "parameters": [name, *paging],
                "responses": {**_ok(obj), **_problems((404, 422))}},  # type: ignore[arg-type]
    })
    spec.path(path="/players/{name}/games", operations={
        "get": {"summary": "A player's games as json or csv", "parameters": [name, {
            "in": "query", "name": "format", "required": False, "schema": {"type": "string", "enum": ["json", "csv"]}}],
            "responses": {"200": {"description": "OK", "content": {JSON: {"schema": obj},
                                                                   "text/csv": {"schema": {"type": "string"}}}},
                          **_problems((404, 422))}},
    })
