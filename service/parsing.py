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

from marshmallow import Schema, ValidationError, fields, missing, validate

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


#: The hook every action schema has before loading (``schemas.common``: the Unicode check),
#: which a plain body passes by itself.
PLAIN_HOOKS = {("pre_load", "_valid_unicode")}
#: What a plain field's converter gives for a value it cannot vouch for.
_REFUSED = object()


@lru_cache(maxsize=512)
def plain_loader(schema: Schema) -> Callable[[Mapping[str, Any]], dict[str, Any] | None] | None:
    """A plain check standing in for ``schema.load`` on the bodies of most moves, for an
    action schema whose fields are its ``type``, a seat's name (``PlayerName``), a card
    (``CardField``), a list of cards (``schemas.common.cards``), seats' names to lists of
    cards (a ``deal``'s ``hands``) and the optional ``at``, whose own checks are schema-wide
    ones (``validates_schema``: a ``play``, a ``knock``, a ``deal``, a ``laundry`` …; None
    for any other schema).

    The check returns what ``schema.load`` returns for a body it can vouch for (no ``at``, no
    field the schema does not take, every required field there, each name exactly a seat's
    as seated that no other seat's spelling matches in another case, each card one the
    game's own ``parse`` reads, each list and mapping as long as the field allows, the
    schema's own checks passed: ``{"type", **fields}`` in the schema's order, the cards
    canonical), else None, and then marshmallow loads the body and words its errors
    (``tests/test_plain_action_check.py`` compares the two on every action the playouts
    record, and on bodies each way wrong)."""
    checks: list[str] = []
    for tag, hooks in type(schema)._hooks.items():
        for name, many, options in hooks:
            if (tag, name) in PLAIN_HOOKS:
                continue
            if tag != "validates_schema" or many or options.get("pass_original"):
                return None
            checks.append(name)  # run on what the fields load, as marshmallow runs it (the open-only fields' too)
    players: tuple[str, ...] = getattr(schema, "players", ())
    folded = [name.casefold() for name in players]
    seats = {name: name for name, key in zip(players, folded, strict=True) if folded.count(key) == 1}
    kinds: list[tuple[str, bool, Callable[[Any], Any]]] = []
    for name, field in schema.load_fields.items():
        if field.data_key not in (None, name) or field.attribute is not None:
            return None
        if name == "type" and type(field) is fields.String and not field.validators and not field.allow_none \
                and field.load_default is missing:
            kinds.append((name, field.required, _text))
        elif name == "at" and isinstance(field, UtcDateTime) and not field.required:
            continue  # a body with an ``at`` goes to the schema
        else:
            convert = _plain_field(field, seats)
            if convert is None:
                return None
            kinds.append((name, field.required, convert))
    taken = frozenset(name for name, *_ in kinds)
    validators = [getattr(schema, name) for name in checks]
    partial, unknown = schema.partial, schema.unknown

    def load(body: Mapping[str, Any]) -> dict[str, Any] | None:
        if not taken.issuperset(body):
            return None
        out: dict[str, Any] = {}
        for name, required, convert in kinds:
            if name not in body:
                if required:
                    return None
                continue
            value = convert(body[name])
            if value is _REFUSED:
                return None
            out[name] = value
        for check in validators:
            try:
                check(out, partial=partial, many=False, unknown=unknown)
            except ValidationError:
                return None
        return out

    return load


def _text(value: Any) -> Any:
    return value if type(value) is str else _REFUSED


def _plain_field(field: fields.Field[Any], seats: Mapping[str, str]) -> Callable[[Any], Any] | None:
    """The plain converter of one field of an action schema (:func:`plain_loader`): a value
    it vouches for becomes what the field loads it as, any other :data:`_REFUSED`; None
    when the field is none of the kinds it knows."""
    if field.allow_none or field.load_default is not missing:
        return None
    bounds = _bounds(field)
    if bounds is None:
        return None
    low, high = bounds
    if type(field) is PlayerName and low is None and high is None:
        def seat(value: Any) -> Any:
            found = seats.get(value) if type(value) is str else None
            return _REFUSED if found is None else found
        return seat
    if type(field) is CardField and low is None and high is None:
        parse = field.parse

        def card(value: Any) -> Any:
            if type(value) is not str and type(value) is not int:  # a card may be a number, never a bool
                return _REFUSED
            try:
                return parse(value)
            except (ValueError, TypeError):
                return _REFUSED
        return card
    if type(field) is fields.List:
        inner = _plain_field(field.inner, seats)
        if inner is None:
            return None

        def items(value: Any) -> Any:
            if type(value) is not list or (low is not None and len(value) < low) or (high is not None and len(value) > high):
                return _REFUSED
            out = []
            for each in value:
                loaded = inner(each)
                if loaded is _REFUSED:
                    return _REFUSED
                out.append(loaded)
            return out
        return items
    if type(field) is fields.Dict and field.key_field is not None and field.value_field is not None:
        key = _plain_field(field.key_field, seats)
        values = _plain_field(field.value_field, seats)
        if key is None or values is None:
            return None

        def mapping(value: Any) -> Any:
            if type(value) is not dict:
                return _REFUSED
            out = {}
            for name, each in value.items():
                loaded_key, loaded = key(name), values(each)
                if loaded_key is _REFUSED or loaded is _REFUSED or loaded_key in out:  # two spellings of one seat
                    return _REFUSED
                out[loaded_key] = loaded
            if (low is not None and len(out) < low) or (high is not None and len(out) > high):
                return _REFUSED
            return out
        return mapping
    return None


def _bounds(field: fields.Field[Any]) -> tuple[int | None, int | None] | None:
    """The least and most items a field's validators allow (one ``validate.Length`` at
    most, without ``equal``; ``(None, None)`` without one), or None for other validators."""
    if not field.validators:
        return None, None
    if len(field.validators) != 1 or type(field.validators[0]) is not validate.Length \
            or field.validators[0].equal is not None:
        return None
    return field.validators[0].min, field.validators[0].max


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
