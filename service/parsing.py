"""Parsing write payloads into what the write functions of ``service.record.writes`` take.

Nothing here reads or writes the database: each function takes a decoded JSON body (or a
loaded ``POST /games`` body) and returns the parsed action or the ``game_created`` data,
with the payload errors kept (``Parsed.errors``) or raised as a 422 (``invalid``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from marshmallow import Schema, ValidationError, fields

import engine
import schemas
from engine import stream as streams
from engine.core import OptionError
from engine.interface import GameRules
from schemas.common import CardField, CorrectSchema, PlayerName, ReasonSchema, UtcDateTime
from schemas.games import CreateGameSchema, flatten, seat
from service.problems import ApiError

#: The fields of ``POST /games`` that can name who starts; each game uses its ``STARTER``.
STARTER_FIELDS = ("dealer", "first_player")


def invalid(errors: dict[str, list[str]], detail: str = "The request body is not valid.") -> ApiError:
    """A 422 ``validation_failed`` with ``errors`` (field -> messages)."""
    return ApiError(422, "validation_failed", detail, errors=errors)


@dataclass(frozen=True)
class Parsed:
    """A write's payload after the schema: the action (``{"type", **fields}``), its ``at``
    (the client's UTC time or None), or the errors (field -> messages)."""

    action: dict[str, Any] | None
    at: str | None
    errors: dict[str, list[str]] | None


def parse_action(row: Mapping[str, Any], body: Any) -> Parsed:
    """Load ``body`` with the game's action schema for its ``type``; errors are kept.

    ``row`` needs ``game``, ``players`` and ``visibility`` (a ``games`` row will do).
    """
    if not isinstance(body, dict):
        return Parsed(None, None, {"_schema": ["The body must be a JSON object."]})
    actions = schemas.GAMES[row["game"]].ACTIONS
    kind = body.get("type")
    if not isinstance(kind, str) or kind not in actions:
        known = ", ".join(sorted(actions))
        return Parsed(None, None, {"type": [f"Give the action's type, one of: {known}."]})
    schema = action_schema(row["game"], kind, tuple(row["players"]), row["visibility"])
    plain = plain_loader(schema)
    loaded = plain(body) if plain is not None else None
    if loaded is not None:  # what the schema would load
        return Parsed(loaded, None, None)
    try:
        loaded = dict(schema.load(body))
    except ValidationError as err:
        return Parsed(None, None, flatten(err.messages))
    at = loaded.pop("at", None)
    loaded.pop("type", None)
    return Parsed({"type": kind, **loaded}, at, None)


@lru_cache(maxsize=512)
def action_schema(game: str, kind: str, players: tuple[str, ...], visibility: str) -> Schema:
    """The action schema of ``kind`` for one table (seats, visibility), built once and reused.

    Building a marshmallow schema costs more than loading a body with it; a loaded schema
    keeps no state between loads, so one instance serves every request of that table.
    """
    schema: Schema = schemas.GAMES[game].ACTIONS[kind](players=players, visibility=visibility)
    return schema


#: The hooks every action schema has (``schemas.common``: the Unicode check before loading,
#: the open-only fields' check after), which a plain body passes by itself.
PLAIN_HOOKS = {("pre_load", "_valid_unicode"), ("validates_schema", "_visibility")}


@lru_cache(maxsize=512)
def plain_loader(schema: Schema) -> Callable[[Mapping[str, Any]], dict[str, Any] | None] | None:
    """A plain check standing in for ``schema.load`` on the bodies of most moves, for an
    action schema whose fields are its ``type``, a seat's name (``PlayerName``), a card
    (``CardField``) and the optional ``at``, with no check of its own (a ``play``, a
    ``knock``, a ``stop`` …; None for any other schema).

    The check returns what ``schema.load`` returns for a body it can vouch for (no ``at``, no
    field the schema does not take, every required field there, each name exactly a seat's
    as seated that no other seat's spelling matches in another case, each card one the
    game's own ``parse`` reads: ``{"type", **fields}`` in the schema's order, the card
    canonical), else None, and then marshmallow loads the body and words its errors
    (``tests/test_plain_action_check.py`` compares the two on every action the playouts
    record, and on bodies each way wrong)."""
    if {(tag, name) for tag, hooks in type(schema)._hooks.items() for name, *_ in hooks} != PLAIN_HOOKS:
        return None
    kinds: list[tuple[str, str, bool, Any]] = []
    for name, field in schema.load_fields.items():
        if field.data_key not in (None, name) or field.attribute is not None or field.validators or field.allow_none:
            return None
        if name == "type" and type(field) is fields.String:
            kinds.append((name, "text", field.required, None))
        elif name == "at" and isinstance(field, UtcDateTime) and not field.required:
            continue  # a body with an ``at`` goes to the schema
        elif type(field) is PlayerName:
            kinds.append((name, "seat", field.required, None))
        elif type(field) is CardField:
            kinds.append((name, "card", field.required, field.parse))
        else:
            return None
    players: tuple[str, ...] = getattr(schema, "players", ())
    folded = [name.casefold() for name in players]
    seats = {name: name for name, key in zip(players, folded, strict=True) if folded.count(key) == 1}
    taken = frozenset(name for name, *_ in kinds)

    def load(body: Mapping[str, Any]) -> dict[str, Any] | None:
        if not taken.issuperset(body):
            return None
        out: dict[str, Any] = {}
        for name, kind, required, parse in kinds:
            if name not in body:
                if required:
                    return None
                continue
            value: Any = body[name]
            if kind == "seat":
                value = seats.get(value) if type(value) is str else None
                if value is None:
                    return None
            elif type(value) is not str and (kind != "card" or type(value) is not int):  # a card may be a number
                return None
            elif kind == "card":
                try:
                    value = parse(value)
                except (ValueError, TypeError):
                    return None
            out[name] = value
        return out

    return load


def parse_reason(kind: str, body: Any) -> Parsed:
    """Load the optional ``{"reason", "at"}`` body of an undo or redo (``kind``); errors are kept."""
    if not isinstance(body, dict):
        return Parsed(None, None, {"_schema": ["The body must be a JSON object."]})
    try:
        loaded = dict(ReasonSchema().load(body))
    except ValidationError as err:
        return Parsed(None, None, flatten(err.messages))
    at = loaded.pop("at", None)
    return Parsed({"type": kind, **loaded}, at, None)


def parse_correct(row: Mapping[str, Any], body: Any) -> Parsed:
    """Load the body of ``POST …/correct`` (``{"target", "action", "reason"?, "at"?}``):
    ``action`` is loaded with the game's action schema for its ``type`` (``parse_action``),
    and must be a game action (never ``note``, ``adjust``, ``abandon``, ``undo``, ``redo``,
    ``correct``). Errors are kept, the action's under ``action.<field>``. The parsed action is
    ``{"type": "correct", "target", "action": {"type", **fields}, "reason"?}``.

    The action is read exactly as ``POST …/events`` reads it, its optional ``at`` included (a
    time that is not one is a 422 ``action.at``). The correction stores one client time, its
    own: the body's ``at``, else the action's (docs/decisions.md).
    """
    if not isinstance(body, dict):
        return Parsed(None, None, {"_schema": ["The body must be a JSON object."]})
    try:
        loaded = dict(CorrectSchema().load(body))
    except ValidationError as err:
        return Parsed(None, None, flatten(err.messages))
    inner = dict(loaded["action"])
    if isinstance(inner.get("type"), str) and inner["type"] in streams.NOT_CORRECTABLE:
        return Parsed(None, None, {"action.type": [
            "A correction puts a game action in place of another: give a game action (a play, a deal, a knock …), "
            "not a bookkeeping one."]})
    parsed = parse_action(row, inner)  # exactly as for POST …/events, its ``at`` included
    if parsed.errors is not None or parsed.action is None:
        return Parsed(None, None, {f"action.{k}" if k != "_schema" else "action": v
                                   for k, v in (parsed.errors or {}).items()})
    at = loaded.pop("at", None)
    return Parsed({"type": streams.CORRECT, **loaded, "action": parsed.action},
                  at if at is not None else parsed.at, None)


def game_created(rules: GameRules, loaded: Mapping[str, Any], options: dict[str, Any],
                 rules_version: int | None = None) -> dict[str, Any]:
    """The ``game_created`` event data: the one place it is built (``POST /games``, import).

    ``loaded`` is a ``CreateGameSchema``-loaded body (``players``, ``visibility``, maybe
    ``title`` and the starter field), ``options`` the resolved options. Who starts is stored
    under the engine's ``STARTER`` (``dealer`` or ``first_player``): the seat named, else the
    first seat. ``rules_version`` defaults to the engine's current ``RULES_VERSION``.
    """
    players = list(loaded["players"])
    starter = rules.STARTER
    created: dict[str, Any] = {
        "game": rules.GAME,
        "players": players,
        "visibility": loaded["visibility"],
        starter: seat(players, loaded[starter]) if loaded.get(starter) else players[0],
        "options": options,
        "rules_version": rules.RULES_VERSION if rules_version is None else rules_version,
    }
    if loaded.get("title") is not None:
        created["title"] = loaded["title"]
    if loaded.get("play_again_of") is not None:  # started with Play again: the game it follows
        created["play_again_of"] = loaded["play_again_of"]
    return created


def created_data(loaded: dict[str, Any]) -> dict[str, Any]:
    """The ``game_created`` event data from a loaded ``POST /games`` body.

    Checks the options with the game's ``OPTIONS`` schema and ``resolve_options``; raises
    ``ApiError`` 422 ``validation_failed`` on failure, or when the body names who starts
    under the other game's field.
    """
    name, players = loaded["game"], loaded["players"]
    rules, shapes = engine.GAMES[name], schemas.GAMES[name]
    errors = {
        field: [f"This game names who starts with '{rules.STARTER}'."]
        for field in STARTER_FIELDS
        if field != rules.STARTER and loaded.get(field) is not None
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
        raise invalid({option_field(err.field): [err.message]}) from err
    return game_created(rules, loaded, resolved)


def option_field(field: str) -> str:
    """The ``errors`` key of an ``OptionError``'s field: top-level fields as they are,
    options under ``options.``."""
    return field if field in CreateGameSchema().fields else f"options.{field}"
