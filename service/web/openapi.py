"""The OpenAPI 3.1 document, built with apispec and its MarshmallowPlugin in one place.

Request and response bodies come from the marshmallow schemas (``schemas/``), so the
document says what the service really accepts (api.md, "Other"):

- ``POST /games`` takes one of the per-game bodies ``CreateGame_<game>`` (``anyOf``): each
  fixes ``game`` and describes that game's ``options`` (``<game>_options``) and who starts.
- ``POST /games/<id>/events`` takes one of the action bodies (``anyOf``): one component per
  action type and game (``<game>_<type>``), or one per type where every game takes the same
  body (``note``, ``knock`` …), each with its ``type`` fixed. The same body can be valid in
  several games (``{"type": "deal"}``), hence ``anyOf`` and not ``oneOf``. Fields only an
  ``open`` game takes, and player names (the seats), depend on the game and are checked by
  the service (422).
- Custom fields describe themselves: a field with a ``json_schema`` attribute (a player
  name, a client time, a Stop the Bus ``give`` …) and a card field (the game module's
  ``CARD_SCHEMA`` for its ``parse_card``).

The tests keep it exact: every request example of the spec and the README validates against
it, every response of the test suite validates against its schema, and a bounded
schemathesis run against a real ``kibitz serve`` finds no failure (tests/test_openapi_*).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any, cast

import marshmallow
from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from apispec.ext.marshmallow.field_converter import FieldConverterMixin

import engine
import schemas
from schemas import responses
from schemas.common import CardField, CorrectSchema, ReasonSchema
from schemas.games import (
    ActionsQuerySchema,
    CreateGameSchema,
    DryRunQuerySchema,
    EventsQuerySchema,
    ForkSchema,
    ListQuerySchema,
    NightExportSchema,
    TimelineQuerySchema,
)

TITLE, VERSION = "Kibitz", "1"
OPENAPI_VERSION = "3.1.0"
JSON = "application/json"
PROBLEM = "application/problem+json"
#: The largest number a path segment or query may name (``service.record.games.MAX_PATH_NUMBER``).
BIG = 2**62

#: Where an operation takes the game's token or the club key, its parameters name one of these
#: three; :func:`_bearer_security` turns each into the operation's ``security`` (the bearer
#: schemes ``gameToken`` and ``clubKey``), never an ``Authorization`` header parameter, which
#: OpenAPI tells tools to ignore (api.md, "Other").
GAME_ID = {"in": "path", "name": "game_id", "required": True, "schema": {"type": "string", "minLength": 1}}
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
IDEMPOTENCY_KEY = {"in": "header", "name": "Idempotency-Key", "required": False,
                   "schema": {"type": "string", "minLength": 1, "maxLength": 200},
                   "description": "A retry with the same key and a JSON-equal body returns the first 201 "
                                  "(1 to 200 printable characters)."}

#: Response headers the service always sends with these responses.
ETAG = {"ETag": {"description": 'The game\'s version, "<version>"', "required": True,
                 "schema": {"type": "string", "pattern": '^"[0-9]+"$'}}}
LOCATION = {"Location": {"description": "The new game: /games/<id>", "required": True,
                         "schema": {"type": "string", "pattern": "^/games/[^/]+$"}}}

#: Problem statuses by kind of operation.
READ_ERRORS = (401, 403, 404, 422, 503)  # 503 record_damaged: the game's stored record is damaged
WRITE_ERRORS = (400, 401, 403, 404, 409, 412, 413, 415, 422, 503)
CREATE_ERRORS = (400, 401, 403, 409, 413, 415, 422, 503)


def _number(name: str) -> dict[str, Any]:
    return {"in": "path", "name": name, "required": True, "schema": {"type": "integer", "minimum": 0, "maximum": BIG}}


def _ok(schema: str | dict[str, Any], status: int = 200, description: str = "OK",
        headers: dict[str, Any] | None = None) -> dict[str, Any]:
    response: dict[str, Any] = {"description": description, "content": {JSON: {"schema": schema}}}
    if headers:
        response["headers"] = headers
    return {str(status): response}


def _problems(statuses: tuple[int, ...]) -> dict[str, Any]:
    return {str(status): {"$ref": "#/components/responses/Problem"} for status in statuses}


def _club_key_problems() -> dict[str, Any]:
    """The 401 and 403 of the creating routes (``POST /games``, ``POST /games/import``)."""
    def answer(description: str) -> dict[str, Any]:
        return {"description": description, "content": {PROBLEM: {"schema": {"$ref": "#/components/schemas/Problem"}}}}

    return {"401": answer("club_key_required: the server has a club key and the request carries no "
                          "Authorization: Bearer <club key>; nothing is created"),
            "403": answer("club_key_invalid: the bearer token is not the server's club key; nothing is created")}


def _too_many() -> dict[str, Any]:
    """The 429 of the creating routes where the server has no club key (``kibitz serve
    --create-limit``, docs/crowds.md)."""
    return {"429": {"description": "too_many_requests: this address created as many games this minute as the server "
                                   "allows without a club key (kibitz serve --create-limit); nothing is created",
                    "headers": {"Retry-After": {"description": "whole seconds until one more is allowed",
                                                "schema": {"type": "integer", "minimum": 1}}},
                    "content": {PROBLEM: {"schema": {"$ref": "#/components/schemas/Problem"}}}}}


def _jsonschema(plugin: MarshmallowPlugin, schema: marshmallow.Schema) -> dict[str, Any]:
    """The JSON Schema of a marshmallow ``schema`` (apispec's converter, which is untyped)."""
    assert plugin.converter is not None
    convert = cast(Callable[[marshmallow.Schema], dict[str, Any]], plugin.converter.schema2jsonschema)
    return convert(schema)


def _card_schema(field: CardField) -> dict[str, Any]:
    for module in schemas.GAMES.values():
        if module.parse_card is field.parse:
            return copy.deepcopy(dict(module.CARD_SCHEMA))
    raise LookupError(f"no CARD_SCHEMA for the card parser {field.parse!r}")  # pragma: no cover


def _described(self: FieldConverterMixin, field: marshmallow.fields.Field[Any], ret: dict[str, Any],
               **kwargs: Any) -> dict[str, Any]:
    """apispec attribute function: the JSON Schema of the project's own fields."""
    if isinstance(field, CardField):
        ret.clear()
        return _card_schema(field)
    own = getattr(field, "json_schema", None)
    if own is not None:
        ret.clear()
        return copy.deepcopy(dict(own))
    if isinstance(field, marshmallow.fields.Dict):  # apispec gives a Length on a Dict as minLength
        out: dict[str, Any] = {}
        for length, count in (("minLength", "minProperties"), ("maxLength", "maxProperties")):
            if length in ret:
                out[count] = ret.pop(length)
        return out
    return {}


def _plugin() -> MarshmallowPlugin:
    plugin = MarshmallowPlugin()
    return plugin


def _action_components(spec: APISpec, plugin: MarshmallowPlugin) -> list[dict[str, str]]:
    """One component per action type, or per type and game where the games' bodies differ."""
    assert plugin.converter is not None
    bodies: dict[str, dict[str, list[str]]] = {}  # type -> body JSON -> games
    for game, module in sorted(schemas.GAMES.items()):
        for kind, schema_class in sorted(module.ACTIONS.items()):
            body = _jsonschema(plugin, schema_class(players=(), visibility="open"))
            body["properties"]["type"] = {"type": "string", "enum": [kind]}
            body.setdefault("required", [])
            bodies.setdefault(kind, {}).setdefault(json.dumps(body, sort_keys=True), []).append(game)
    refs = []
    for kind, variants in sorted(bodies.items()):
        for text, games in variants.items():
            name = kind if len(variants) == 1 else f"{games[0]}_{kind}"
            body = json.loads(text)
            body["description"] = f"`{kind}` in {', '.join(games)}"
            spec.components.schema(name, component=body)
            refs.append({"$ref": f"#/components/schemas/{name}"})
    return refs


def _create_components(spec: APISpec, plugin: MarshmallowPlugin) -> list[dict[str, str]]:
    """``POST /games``: one body per game, with that game's options and starter field."""
    assert plugin.converter is not None
    base = _jsonschema(plugin, CreateGameSchema())
    refs = []
    for game, module in sorted(schemas.GAMES.items()):
        options = _jsonschema(plugin, module.OPTIONS())
        spec.components.schema(f"{game}_options", component=options)
        body = copy.deepcopy(base)
        body["description"] = f"A new {game} game"
        body["properties"]["game"] = {"type": "string", "enum": [game]}
        body["properties"]["options"] = {"$ref": f"#/components/schemas/{game}_options"}
        starter = getattr(engine.GAMES[game], "STARTER", "dealer")
        for field in ("dealer", "first_player"):
            if field != starter:
                del body["properties"][field]
        spec.components.schema(f"CreateGame_{game}", component=body)
        refs.append({"$ref": f"#/components/schemas/CreateGame_{game}"})
    return refs


def build() -> dict[str, Any]:
    """Return the OpenAPI 3.1 document as a dict."""
    plugin = _plugin()
    spec = APISpec(title=TITLE, version=VERSION, openapi_version=OPENAPI_VERSION, plugins=[plugin],
                   info={"description": "Record physical card games as events; replay and audit them."})
    assert plugin.converter is not None
    add_attribute_function = cast(Callable[[Callable[..., dict[str, Any]]], None],
                                  plugin.converter.add_attribute_function)  # apispec is untyped
    add_attribute_function(_described)
    for name in responses.COMPONENTS:
        spec.components.schema(name, schema=getattr(responses, f"{name}Schema"))
    spec.components.schema("Reason", schema=ReasonSchema)
    spec.components.schema("Fork", schema=ForkSchema)
    spec.components.schema("NightExport", schema=NightExportSchema)
    spec.components.response("Problem", {"description": "An RFC 9457 problem",
                                         "content": {PROBLEM: {"schema": "Problem"}}})
    actions = _action_components(spec, plugin)
    creates = _create_components(spec, plugin)

    spec.components.security_scheme("gameToken", {
        "type": "http", "scheme": "bearer",
        "description": "The game's write token (shown once, in the 201 of POST /games, fork and import; kibitz "
                       "token issues more): required to record, undo, redo and fork; on reads it gives the full "
                       "view (the server's club key gets the public view; any other token is a 403)."})
    spec.components.security_scheme("clubKey", {
        "type": "http", "scheme": "bearer",
        "description": "The server's club key, where it has one (kibitz serve --club-key-file, KIBITZ_CLUB_KEY): "
                       "creating and importing games need it; ignored where the server has none."})
    creating = {"parameters": [CLUB_KEY]}
    spec.path(path="/games", operations={
        "post": {"summary": "Create a game", **creating, "requestBody": {"required": True, "content": {JSON: {
            "schema": {"anyOf": creates}}}},
            "responses": {**_ok("CreatedGame", 201, "Created", {**ETAG, **LOCATION}), **_problems(CREATE_ERRORS),
                          **_club_key_problems(), **_too_many()}},
        "get": {"summary": "List games, newest first", "parameters": [{"in": "query", "schema": ListQuerySchema}],
                "responses": {**_ok("GameList"), **_problems((422, 503))}},
    })
    spec.path(path="/games/{game_id}", operations={
        "get": {"summary": "One game and its state", "parameters": [GAME_ID, TOKEN_READ],
                "responses": {**_ok("Game", headers=ETAG), **_problems(READ_ERRORS)}},
    })
    write = [GAME_ID, TOKEN_WRITE, IF_MATCH, IDEMPOTENCY_KEY, {"in": "query", "schema": DryRunQuerySchema}]
    dry = _ok("DryRun", 200, "dry_run=true: every check run, nothing stored or remembered", ETAG)
    spec.path(path="/games/{game_id}/events", operations={
        "post": {"summary": "Record an action", "parameters": write,
                 "requestBody": {"required": True, "content": {JSON: {"schema": {"anyOf": actions}}}},
                 "responses": {**_ok("Recorded", 201, "Recorded", ETAG), **dry, **_problems(WRITE_ERRORS)}},
        "get": {"summary": "The stored event log, with undone", "parameters": [
            GAME_ID, TOKEN_READ, {"in": "query", "schema": EventsQuerySchema}],
            "responses": {**_ok("EventLog", headers=ETAG), **_problems(READ_ERRORS)}},
    })
    for verb in ("undo", "redo"):
        spec.path(path=f"/games/{{game_id}}/{verb}", operations={
            "post": {"summary": f"Record an {verb}", "parameters": write,
                     "requestBody": {"required": False, "content": {JSON: {"schema": "Reason"}}},
                     "responses": {**_ok("Recorded", 201, "Recorded", ETAG), **dry, **_problems(WRITE_ERRORS)}},
        })
    correct = _jsonschema(plugin, CorrectSchema())
    correct["properties"]["action"] = {"anyOf": [ref for ref in actions if ref["$ref"].rsplit("/", 1)[-1].rsplit(
        "_", 1)[-1] not in ("note", "adjust", "abandon")], "description": "the action that should have been recorded "
        "there: one game action, as for POST …/events (never a bookkeeping one)"}
    spec.components.schema("Correct", component=correct)
    spec.path(path="/games/{game_id}/correct", operations={
        "post": {"summary": "Correct an earlier entry without undoing what came after it (409 nothing_to_correct, "
                            "the replacement's rules code, or correction_conflict with conflicts_with)",
                 "parameters": write,
                 "requestBody": {"required": True, "content": {JSON: {"schema": "Correct"}}},
                 "responses": {**_ok("Recorded", 201, "Recorded", ETAG), **dry, **_problems(WRITE_ERRORS)}},
    })
    spec.path(path="/games/{game_id}/actions", operations={
        "get": {"summary": "What can be recorded next (before=<seq>: what could have been recorded in place of "
                           "event seq)",
                "parameters": [GAME_ID, TOKEN_READ, {"in": "query", "schema": ActionsQuerySchema}],
                "responses": {**_ok("Actions", headers=ETAG), **_problems(READ_ERRORS)}},
    })
    spec.path(path="/games/{game_id}/states/{seq}", operations={
        "get": {"summary": "The state right after event seq", "parameters": [GAME_ID, _number("seq"), TOKEN_READ],
                "responses": {**_ok("StateAt", headers=ETAG), **_problems(READ_ERRORS)}},
    })
    spec.path(path="/games/{game_id}/hands/{n}", operations={
        "get": {"summary": "Hand or round n", "parameters": [GAME_ID, _number("n"), TOKEN_READ],
                "responses": {**_ok("Hand", headers=ETAG), **_problems(READ_ERRORS)}},
    })
    spec.path(path="/games/{game_id}/hands/{n}/tricks/{t}", operations={
        "get": {"summary": "Trick t of hand n", "parameters": [GAME_ID, _number("n"), _number("t"), TOKEN_READ],
                "responses": {**_ok("Trick", headers=ETAG), **_problems(READ_ERRORS)}},
    })
    spec.path(path="/games/{game_id}/timeline", operations={
        "get": {"summary": "Every step with a one-line summary (undone actions marked)",
                "parameters": [GAME_ID, TOKEN_READ, {"in": "query", "schema": TimelineQuerySchema}],
                "responses": {**_ok("Timeline", headers=ETAG), **_problems(READ_ERRORS)}},
    })
    spec.path(path="/games/{game_id}/irregularities", operations={
        "get": {"summary": "Revokes proven by later knowledge, whole game", "parameters": [GAME_ID, TOKEN_READ],
                "responses": {**_ok("Irregularities", headers=ETAG), **_problems(READ_ERRORS)}},
    })
    spec.path(path="/games/{game_id}/fork", operations={
        "post": {"summary": "A what-if fork: a new game from the actions effective at seq",
                 "parameters": [GAME_ID, TOKEN_WRITE],
                 "requestBody": {"required": True, "content": {JSON: {"schema": "Fork"}}},
                 "responses": {**_ok("CreatedGame", 201, "Created", {**ETAG, **LOCATION}),
                               **_problems((400, 401, 403, 404, 409, 413, 415, 422, 503))}},
    })
    spec.path(path="/health", operations={"get": {
        "summary": "Liveness, and whether the database answers",
        "description": "200 while the database answers as far as this server knows without asking it; 503 "
                       "storage_unavailable (with Retry-After, and database: not answering or cannot be reached) "
                       "while it does not, for a load balancer. Never waits on the database.",
        "responses": {**_ok("Health"), **_problems((503,))}}})
    spec.path(path="/openapi.json", operations={
        "get": {"summary": "This document", "responses": _ok({"type": "object", "required": ["openapi", "paths"]},
                                                             description="OpenAPI 3.1 document")},
    })
    _transfer_and_history(spec)
    document: dict[str, Any] = spec.to_dict()
    _bearer_security(document)
    return document


#: Each ``Authorization`` marker of an operation's parameters -> the operation's ``security``:
#: required on writes, optional on reads (``{}``: no token at all), optional for creating
#: (a server without a club key takes none).
SECURITY: list[tuple[dict[str, Any], list[dict[str, list[str]]]]] = [
    (TOKEN_WRITE, [{"gameToken": []}]),
    (TOKEN_READ, [{}, {"gameToken": []}]),
    (CLUB_KEY, [{}, {"clubKey": []}]),
]


def _bearer_security(document: dict[str, Any]) -> None:
    """Replace, in every operation of ``document``, the ``Authorization`` header parameter
    (one of :data:`SECURITY`'s markers) with the matching ``security`` requirement."""
    for operations in document["paths"].values():
        for operation in operations.values():
            kept = []
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "header" and str(parameter.get("name", "")).lower() == "authorization":
                    operation["security"] = next(rule for marker, rule in SECURITY if marker == parameter)
                else:
                    kept.append(parameter)
            if "parameters" in operation:
                operation["parameters"] = kept
                if not kept:
                    del operation["parameters"]


#: What ``POST /games/import`` checks of an export before re-validating its events
#: (``service.record.transfer.check_shape``); ``docs/export.schema.json`` describes the whole export.
IMPORT_BODY: dict[str, Any] = {
    "type": "object", "description": "A json export (docs/export.schema.json); import reads its events",
    "required": ["kibitz_export", "events"],
    "properties": {
        "kibitz_export": {"const": 1},
        "events": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["seq", "type", "data", "recorded_at"],
            "properties": {
                "seq": {"type": "integer", "minimum": 1},
                "type": {"type": "string", "minLength": 1},
                "data": {"type": "object"},
                "recorded_at": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$"},
                "at": {"type": ["string", "null"]},
                "salt": {"type": "string", "pattern": "^[0-9a-f]{32}$"},
                "hash": {"type": "string", "pattern": "^[0-9a-f]{64}$",
                         "description": "with salt on every event: the chain is checked and kept "
                                        "(422 import_invalid, rule_code hash_mismatch, names the first "
                                        "event whose hash does not follow); an export with a hash or a "
                                        "salt on any event needs both on every event (422 import_invalid, "
                                        "rule_code hash_missing); none at all: a fresh chain"},
            }}},
    },
}


def _transfer_and_history(spec: APISpec) -> None:
    """Export, import (docs/export.schema.json) and match histories."""
    export_doc = {"type": "object", "description": "A json export (docs/export.schema.json)",
                  "required": ["kibitz_export", "view", "game", "events", "results"]}
    text = {"schema": {"type": "string"}}
    spec.path(path="/games/{game_id}/export", operations={
        "get": {"summary": "The game as json (what import takes), jsonl, csv or text; public view without the token",
                "parameters": [GAME_ID, TOKEN_READ, {"in": "query", "name": "format", "required": False,
                                                     "schema": {"type": "string", "default": "json",
                                                                "enum": ["json", "jsonl", "csv", "text"]}}],
                "responses": {"200": {"description": "The export", "headers": ETAG, "content": {
                    JSON: {"schema": export_doc}, "application/x-ndjson": text, "text/csv": text,
                    "text/plain": text}}, **_problems(READ_ERRORS)}},
    })
    days = [{"in": "query", "name": bound, "required": False,
             "schema": {"anyOf": [{"type": "string", "format": "date"}, {"type": "string", "maxLength": 0}]},
             "description": f"YYYY-MM-DD, a day in club time (kibitz serve --timezone), inclusive: {words}; "
                            "left out or empty: no bound"}
            for bound, words in (("since", "games started from this day"), ("until", "games started up to this day"))]
    spec.path(path="/games/export", operations={
        "get": {"summary": "A night's (a period's) games as one zip: each game's json export (what import takes), "
                           "csv score sheet and text record, in the public view; what-if forks left out; at most "
                           "1000 games (a longer period is a 422)",
                "parameters": days,
                "responses": {"200": {"description": "A zip of the games, oldest first", "headers": {
                    "Content-Disposition": {"description": 'attachment; filename="kibitz-games-….zip"',
                                            "required": True, "schema": {"type": "string"}}},
                    "content": {"application/zip": {"schema": {"type": "string", "format": "binary"}}}},
                    **_problems((422, 503))}},
        "post": {"summary": "The same zip for a reader holding game tokens (a device's keyring): each game whose "
                            "live token is among tokens in its full view, every other one in the public view; "
                            "a token of no game in the period is no error",
                 "requestBody": {"required": True, "content": {JSON: {"schema": "NightExport"}}},
                 "responses": {"200": {"description": "A zip of the games, oldest first", "headers": {
                     "Content-Disposition": {"description": 'attachment; filename="kibitz-games-….zip"',
                                             "required": True, "schema": {"type": "string"}}},
                     "content": {"application/zip": {"schema": {"type": "string", "format": "binary"}}}},
                     **_problems((400, 413, 415, 422, 503))}},
    })
    spec.path(path="/games/import", operations={
        "post": {"summary": "Create a game from a json export, re-validating every event (422 import_invalid "
                            "names the first refused seq and its rule_code; 409 already_imported names in "
                            "game_id the stored game when the export's game is already stored here)",
                 "parameters": [CLUB_KEY],
                 "requestBody": {"required": True, "content": {JSON: {"schema": IMPORT_BODY}}},
                 "responses": {**_ok("CreatedGame", 201, "Imported", {**ETAG, **LOCATION}),
                               **_problems(CREATE_ERRORS), **_club_key_problems(), **_too_many()}},
    })
    name = {"in": "path", "name": "name", "required": True, "schema": {"type": "string", "minLength": 1},
            "description": "matched trimmed, in NFC, case-insensitively and ignoring the joiners U+200C/U+200D; "
                           "in the path a ~ is written ~~, a / is written ~s, and a name of dots only gets ~d "
                           "in front (/players/~d..), so that every name has an address"}
    paging = [{"in": "query", "name": "limit", "required": False, "schema": {"type": "integer", "minimum": 1,
                                                                             "maximum": 1000, "default": 100}},
              {"in": "query", "name": "offset", "required": False, "schema": {"type": "integer", "minimum": 0,
                                                                              "maximum": BIG}}]
    spec.path(path="/players", operations={
        "get": {"summary": "Every player seen, with games played, won, lost and abandoned per game type (forks "
                           "never count); since/until keep the games of a period",
                "parameters": [{"in": "query", "name": bound, "required": False,
                                "schema": {"anyOf": [{"type": "string", "format": "date"},
                                                     {"type": "string", "maxLength": 0}]},
                                "description": f"YYYY-MM-DD (UTC, inclusive): {words}; empty: no bound"}
                               for bound, words in (("since", "games from this day"), ("until", "games up to this day"))],
                "responses": {**_ok("PlayerList"), **_problems((422, 503))}},
    })
    spec.path(path="/players/{name}", operations={
        "get": {"summary": "A player's games and stats per game type", "parameters": [name, *paging],
                "responses": {**_ok("PlayerRecord"), **_problems((404, 422, 503))}},
    })
    spec.path(path="/players/{name}/games", operations={
        "get": {"summary": "A player's games as json or csv", "parameters": [name, {
            "in": "query", "name": "format", "required": False,
            "schema": {"type": "string", "default": "json", "enum": ["json", "csv"]}}],
            "responses": {"200": {"description": "OK", "content": {JSON: {"schema": "PlayerGames"},
                                                                   "text/csv": text}},
                          **_problems((404, 422, 503))}},
    })
