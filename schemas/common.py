"""Payload pieces every game shares: cards, player names, client times, action schemas.

An action schema is built for one game instance: it knows the seats (``players``) and the
``visibility``, so a body that names an unknown player, or carries a card field that only
``open`` games allow, fails here with a 422 before any rule is checked
(``../shared/spec/api.md``, "Order of checks").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, pre_load, validate, validates_schema

#: Fields every action may carry besides its own: ``type`` and the client's time ``at``.
ENVELOPE = ("type", "at")

NOT_UNICODE = "The text is not valid Unicode (it holds a lone surrogate such as \\ud83d): send UTF-8 text."
NOT_UNICODE_NAME = "This field name is not valid Unicode (it holds a lone surrogate): send UTF-8 text."


def is_unicode(text: str) -> bool:
    """True when ``text`` can be written as UTF-8: it holds no lone surrogate code point
    (JSON lets a body spell one, ``"\\ud83d"``, but it is not a character)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def unicode_errors(value: Any, path: str = "") -> dict[str, list[str]]:
    """``{"players.1": ["…"], "text": ["…"]}`` for every string in the JSON ``value``
    (object keys included) that is not valid Unicode (:func:`is_unicode`); ``{}`` if none.

    ``path`` names ``value`` itself (dotted, list items by index), as 422 ``errors`` do.
    """
    errors: dict[str, list[str]] = {}
    stack: list[tuple[str, Any]] = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            if not is_unicode(item):
                errors[where or "_schema"] = [NOT_UNICODE]
        elif isinstance(item, Mapping):
            for key, child in item.items():
                name = str(key)
                if not is_unicode(name):
                    name = name.encode("utf-8", "backslashreplace").decode("utf-8")
                    errors[f"{where}.{name}" if where else name] = [NOT_UNICODE_NAME]
                    continue
                stack.append((f"{where}.{name}" if where else name, child))
        elif isinstance(item, list | tuple):
            stack.extend((f"{where}.{index}" if where else str(index), child) for index, child in enumerate(item))
    return errors


def scrub(value: Any) -> Any:
    """``value`` (decoded JSON) with every lone surrogate in its strings (keys included)
    replaced by U+FFFD; the same object when there is none.

    For readers of text stored before such text was refused: whatever a database holds,
    every read and export can be written as UTF-8.
    """
    if isinstance(value, str):
        return value if is_unicode(value) else value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, Mapping):
        return {scrub(key): scrub(child) for key, child in value.items()}
    if isinstance(value, list):
        return [scrub(child) for child in value]
    return value


class UnicodeSchema(Schema):
    """A schema that refuses, before any field is loaded, a body holding text that is not
    valid Unicode anywhere (a field, a list item, a nested option, a field name): a
    ``ValidationError`` naming each such field (:func:`unicode_errors`).

    Every request schema derives from it, so each text field of each route (and each action
    added later) is covered without a check of its own.
    """

    @pre_load
    def _valid_unicode(self, data: Any, **kwargs: Any) -> Any:
        errors = unicode_errors(data)
        if errors:
            raise ValidationError(errors)
        return data


class CardField(fields.Field):
    """A card code, parsed by the game's ``parse`` function into its canonical string.

    ``parse(value) -> code`` raises ``ValueError`` for anything that is not a card of the
    game; that becomes the field's 422 message. Output is the canonical code.
    """

    def __init__(self, parse: Callable[[Any], Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.parse = parse

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> Any:
        if isinstance(value, bool):
            raise ValidationError(f"{value!r} is not a card code.")
        try:
            return self.parse(value)
        except (ValueError, TypeError) as err:
            raise ValidationError(str(err)) from err


class StrictBoolean(fields.Boolean):
    """A JSON ``true`` or ``false`` and nothing else.

    marshmallow's ``Boolean(truthy={True}, falsy={False})`` still lets ``1``, ``0`` and
    ``1.0`` through (they are equal to ``True``/``False`` in Python); a number is a wrong
    type here, a 422 like a string or a null.
    """

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


def cards(parse: Callable[[Any], Any], count: int | None = None, **kwargs: Any) -> fields.List:
    """A list of card codes; ``count`` fixes its length when given."""
    length = validate.Length(equal=count) if count is not None else validate.Length(min=1, max=100)
    return fields.List(CardField(parse), validate=length, **kwargs)


class UtcDateTime(fields.Field):
    """An ISO 8601 time with a zone; stored and shown in UTC with a ``Z``."""

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> str:
        if not isinstance(value, str) or len(value) > 64:
            raise ValidationError("Give the time as an ISO 8601 string, e.g. 2026-11-29T20:15:00Z.")
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError as err:
            raise ValidationError("Not an ISO 8601 time, e.g. 2026-11-29T20:15:00Z.") from err
        if moment.tzinfo is None:
            raise ValidationError("The time needs a zone, e.g. 2026-11-29T20:15:00Z.")
        try:
            return utc_text(moment)
        except OverflowError as err:  # e.g. 9999-12-31T23:59:59-23:59 is past year 9999 in UTC
            raise ValidationError("The time is out of range.") from err


def utc_text(moment: datetime) -> str:
    """Format ``moment`` as UTC ISO 8601 with a ``Z`` and millisecond precision."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class PlayerName(fields.String):
    """A seat's name, matched case-insensitively and trimmed; output is the name as seated."""

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        schema = self.parent
        while schema is not None and not isinstance(schema, ActionSchema):
            schema = getattr(schema, "parent", None)
        seats: Sequence[str] = schema.players if isinstance(schema, ActionSchema) else ()
        wanted = text.strip().casefold()
        for name in seats:
            if name.casefold() == wanted:
                return name
        raise ValidationError(f"{text!r} is not a player in this game ({', '.join(seats)}).")


class ActionSchema(UnicodeSchema):
    """Base of every action schema: unknown fields are refused; ``at`` is optional.

    Build it with the game's ``players`` (seat order) and ``visibility``; subclasses list the
    fields that only ``open`` games allow in ``open_only``.
    """

    open_only: tuple[str, ...] = ()

    class Meta:
        unknown = RAISE

    type = fields.String(required=True)
    at = UtcDateTime()

    def __init__(self, *args: Any, players: Sequence[str] = (), visibility: str = "table", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.players = tuple(players)
        self.visibility = visibility

    @validates_schema
    def _visibility(self, data: Mapping[str, Any], **kwargs: Any) -> None:
        if self.visibility == "open":
            return
        errors = {
            name: [f"'{name}' names cards only an open game may record; this game has table visibility."]
            for name in self.open_only
            if data.get(name) is not None
        }
        if errors:
            raise ValidationError(errors)


class NoteSchema(ActionSchema):
    """``note``: ``text`` (1–2000 characters), optional ``player`` (recording.md)."""

    text = fields.String(required=True, validate=validate.Length(min=1, max=2000))
    player = PlayerName()


class AdjustSchema(ActionSchema):
    """``adjust``: ``player``, integer ``amount`` in the game's scoring unit, ``reason``."""

    player = PlayerName(required=True)
    amount = fields.Integer(required=True, strict=True, validate=validate.Range(min=-1000, max=1000))
    reason = fields.String(required=True, validate=validate.Length(min=1, max=2000))


class PlayerActionSchema(ActionSchema):
    """An action with just a ``player`` (knock, fold, stay, stop …)."""

    player = PlayerName(required=True)


class ReasonSchema(UnicodeSchema):
    """The optional body of ``undo`` and ``redo``: ``{"reason": "…"}``."""

    class Meta:
        unknown = RAISE

    reason = fields.String(validate=validate.Length(max=2000))
    at = UtcDateTime()
