"""The ``POST /games`` body and the API's query parameters.

:class:`CreateGameSchema` checks the shape (game, seats, visibility, first dealer or first
player, options, title); the game's own ``OPTIONS`` schema and the engine's
``resolve_options`` check the options and the seat count (``api.md``, ``POST /games``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

from marshmallow import EXCLUDE, RAISE, Schema, ValidationError, fields, validate, validates_schema

from schemas import GAMES
from schemas.common import SPACE, FreeText, UnicodeSchema, WholeNumber, name_key, typed_name, typed_text

#: Bounds every game shares; each engine narrows the seat count (``resolve_options``).
MIN_PLAYERS, MAX_PLAYERS = 2, 20
NAME_LENGTH = 40
TITLE_LENGTH = 200
VISIBILITIES = ("table", "open")


class Name(fields.String):
    """A player name: trimmed, 1–40 characters, stored in NFC with a visible character and
    none of the refused ones (``schemas.common.typed_name``)."""

    json_schema = {"type": "string", "pattern": f"^[{SPACE}]*[^{SPACE}](?:[\\s\\S]{{0,{NAME_LENGTH - 2}}}[^{SPACE}])?[{SPACE}]*$"}

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> str:
        raw = super()._deserialize(value, attr, data, **kwargs)
        typed_text(raw, free=False)  # a control character is refused where it stands, never trimmed away
        text = raw.strip()
        if not 1 <= len(text) <= NAME_LENGTH:
            raise ValidationError(f"A player name has 1 to {NAME_LENGTH} characters.")
        return typed_name(text)


def canonical_game(value: Any) -> str | None:
    """The API game id that ``value`` names, or None: ``"toepen"``, ``" Toepen "``, ``"Fool!"``,
    ``"Fuji Flush"`` and ``"stop the bus"`` are ``toepen``, ``fool``, ``fuji_flush`` and
    ``stop_the_bus`` (any case, surrounding spaces, the display name's ``!`` and spaces)."""
    if not isinstance(value, str) or len(value) > 100:
        return None
    wanted = "_".join(value.replace("!", " ").replace("-", " ").split()).casefold()
    return wanted if wanted in GAMES else None


class GameId(fields.String):
    """A game id, loaded as its canonical spelling (:func:`canonical_game`)."""

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        game = canonical_game(text)
        if game is None:
            raise ValidationError(f"Must be one of: {', '.join(sorted(GAMES))}.")
        return game


class CreateGameSchema(UnicodeSchema):
    """``{"game", "players", "visibility"?, "dealer"? | "first_player"?, "options"?, "title"?,
    "play_again_of"?}``.

    ``load`` returns the body with names trimmed and ``dealer``/``first_player`` spelt as
    seated; it raises ``ValidationError`` for an unknown game, a bad seat list (size,
    duplicate names case-insensitively), a seat that is not a player, unknown fields.
    Options are only checked to be an object here.
    """

    class Meta:
        unknown = RAISE

    game = GameId(required=True, metadata={"enum": sorted(GAMES)})
    players = fields.List(Name(), required=True, validate=validate.Length(
        min=MIN_PLAYERS, max=MAX_PLAYERS, error="A game has {min} to {max} seats, each with a name."))
    visibility = fields.String(load_default="table", validate=validate.OneOf(VISIBILITIES))
    dealer = fields.String(validate=validate.Length(min=1, max=NAME_LENGTH * 2))
    first_player = fields.String(validate=validate.Length(min=1, max=NAME_LENGTH * 2))
    options = fields.Dict(keys=fields.String(), load_default=dict)
    title = FreeText(validate=validate.Length(min=1, max=TITLE_LENGTH), allow_none=True)
    #: The game this one was started from with **Play again** (the table page sends it): the home
    #: page counts a table's games of a night as one series by this link alone.
    play_again_of = fields.String(validate=validate.Regexp(
        r"^[A-Za-z0-9]{16}\Z", error="Give the id of the game played before: 16 letters and digits."),
        metadata={"description": "The id of the game this one is played after (Play again)."})

    @validates_schema
    def _seats(self, data: Mapping[str, Any], **kwargs: Any) -> None:
        players = data.get("players") or []
        seen: dict[str, str] = {}
        for name in players:
            if name_key(name) in seen:
                first = seen[name_key(name)]
                same = f"{name} is at two seats" if first == name else f"{first} and {name} are one name"
                raise ValidationError(f"{same}: give each seat a name of its own (names are compared ignoring "
                                      "case, accents written either way and joiners).", "players")
            seen[name_key(name)] = name
        for field in ("dealer", "first_player"):
            if data.get(field) is not None and players and seat(players, data[field]) is None:
                raise ValidationError(f"{data[field]!r} is not one of the players.", field)


def seat(players: list[str], name: str) -> str | None:
    """The seated spelling of ``name`` (trimmed, compared as ``schemas.common.name_key``), or None."""
    wanted = name_key(name)
    return next((player for player in players if name_key(player) == wanted), None)


def flatten(errors: Any, prefix: str = "") -> dict[str, list[str]]:
    """Turn marshmallow's nested error dict into ``{"options.limit": ["…"], …}``."""
    if isinstance(errors, Mapping):
        out: dict[str, list[str]] = {}
        for key, value in errors.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            out.update(flatten(value, name))
        return out
    if isinstance(errors, list | tuple):
        if all(isinstance(item, str) for item in errors):
            return {prefix or "_schema": [str(item) for item in errors]}
        out = {}
        for item in errors:
            for key, messages in flatten(item, prefix).items():
                out.setdefault(key, []).extend(messages)
        return out
    return {prefix or "_schema": [str(errors)]}


class NfcString(fields.String):
    """A string loaded in Unicode NFC (a name to look up among names stored in NFC)."""

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> str:
        return unicodedata.normalize("NFC", super()._deserialize(value, attr, data, **kwargs))


class ListQuerySchema(Schema):
    """``GET /games`` query: ``game``, ``player``, ``status``, ``fork`` (list what-if forks
    too), ``forked_from`` (only the forks of one game), ``limit`` (1–500), ``cursor``.

    Unknown parameters are ignored (cache busters and the like).
    """

    class Meta:
        unknown = EXCLUDE

    game = fields.String(validate=validate.Length(max=100))
    player = NfcString(validate=validate.Length(min=1, max=NAME_LENGTH * 2),
                       metadata={"description": "a player's name, in any letter case and in NFC or NFD"})
    status = fields.String(validate=validate.OneOf(("in_progress", "finished", "abandoned")))
    fork = fields.Boolean(load_default=False, metadata={"description": "true: list what-if forks too"})
    forked_from = fields.String(validate=validate.Length(min=1, max=100),
                                metadata={"description": "only the forks of this game"})
    limit = WholeNumber(load_default=50, validate=validate.Range(min=1, max=500))
    cursor = fields.String(validate=validate.Regexp(r"^[A-Za-z0-9_-]{1,200}$",
                                                    error="Give a cursor returned by this service (next_cursor)."))


class EventsQuerySchema(Schema):
    """``GET /games/<id>/events`` query: ``after`` (a seq, default 0), ``limit`` (1–1000)."""

    class Meta:
        unknown = EXCLUDE

    after = WholeNumber(load_default=0, validate=validate.Range(min=0, max=2**62))
    limit = WholeNumber(load_default=1000, validate=validate.Range(min=1, max=1000))


class TimelineQuerySchema(Schema):
    """``GET timeline`` query: optional ``hand`` (a hand/round number, 0 for before the first deal)."""

    class Meta:
        unknown = "exclude"

    hand = WholeNumber(validate=validate.Range(min=0, max=2**62), load_default=None, allow_none=True)


class ForkSchema(UnicodeSchema):
    """``POST /games/<id>/fork`` body: ``{"seq": n}``, the event after which the new game
    branches off (a whole number from 1; the view checks it against the game's version).
    The one fork schema: the request's check and the OpenAPI document's component."""

    class Meta:
        unknown = "raise"

    seq = fields.Integer(required=True, strict=True, validate=validate.Range(min=1, max=2**62),
                         metadata={"description": "fork from the state right after this event"})


class NightExportSchema(UnicodeSchema):
    """``POST /games/export`` body: ``{"since", "until", "tokens"}``, the days (``YYYY-MM-DD``,
    club time, inclusive; null or left out: no bound) of the games to pack, and the game tokens
    the reader holds (a device's whole keyring: a game whose live token is among them is
    packed in its full view, every other one in the public view)."""

    class Meta:
        unknown = "raise"

    since = fields.Date(load_default=None, allow_none=True,
                        metadata={"description": "games started from this day (club time)"})
    until = fields.Date(load_default=None, allow_none=True,
                        metadata={"description": "games started up to this day (club time)"})
    tokens = fields.List(fields.String(validate=validate.Length(min=1, max=200)), load_default=list,
                         validate=validate.Length(max=1000),
                         metadata={"description": "game tokens this reader holds (at most 1000)"})

    @validates_schema
    def _ordered(self, data: dict[str, Any], **_kwargs: Any) -> None:
        if data.get("since") and data.get("until") and data["since"] > data["until"]:
            raise ValidationError(f"Give a date on or before {data['until'].isoformat()} (the end of the period).",
                                  "since")


class DryRunQuerySchema(Schema):
    """The query of a write (``POST …/events``, ``/correct``, ``/undo``, ``/redo``):
    ``dry_run`` (``true``: run every check, store and remember nothing; api.md)."""

    class Meta:
        unknown = EXCLUDE

    dry_run = fields.Boolean(load_default=False, truthy={"true", "1"}, falsy={"false", "0"})


class ActionsQuerySchema(Schema):
    """``GET …/actions`` query: optional ``before`` (a seq: what could have been recorded in
    place of that event)."""

    class Meta:
        unknown = EXCLUDE

    before = WholeNumber(validate=validate.Range(min=1, max=2**62), load_default=None, allow_none=True)
