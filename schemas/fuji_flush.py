"""Payload schemas for Fuji Flush: its options and actions (``../shared/spec/rules/fuji_flush.md``).

Shapes and types only; the rules (whose turn, how many copies of a card exist …) are the
engine's. There is no ``adjust``: Fuji Flush has no score, so that action is a 422 here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from engine.fuji_flush import HIGH, LOW, MAX_COPIES, MAX_HAND_SIZE, MAX_PLAYERS, parse_card
from schemas.common import AbandonSchema, ActionSchema, CardField, NoteSchema, PlayerName, card_pattern, cards

__all__ = ["ACTIONS", "CARD_SCHEMA", "OPTIONS", "parse_card"]

#: What ``parse_card`` accepts, for the OpenAPI document: an integer 2..20, or a string of at
#: most 4 ASCII digits naming one, surrounding spaces allowed (cards.md).
CARD_SCHEMA = {"anyOf": [
    {"type": "integer", "minimum": LOW, "maximum": HIGH},
    {"type": "string", "pattern": card_pattern(
        [f"{'0' * zeros}{number}" for number in range(LOW, HIGH + 1) for zeros in range(4 - len(str(number)) + 1)])},
]}


class DeckField(fields.Field[dict[str, int]]):
    """Option ``deck``: an object from value (a string "2".."20") to copies (a positive integer)."""

    json_schema = {"type": "object", "minProperties": 1, "additionalProperties": False,
                   "patternProperties": {CARD_SCHEMA["anyOf"][1]["pattern"]: {  # type: ignore[index]
                       "type": "integer", "minimum": 1, "maximum": MAX_COPIES}}}

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> dict[str, int]:
        if not isinstance(value, Mapping) or not value:
            raise ValidationError('Give the deck as an object from value to copies, e.g. {"2": 16, "3": 12}.')
        out: dict[str, int] = {}
        for key, copies in value.items():
            try:
                card = parse_card(key)
            except ValueError as err:
                raise ValidationError(f"{key!r} is not a card value: values are {LOW} to {HIGH}.") from err
            if str(card) in out:
                raise ValidationError(f"Value {card} is listed twice.")
            if isinstance(copies, bool) or not isinstance(copies, int) or not 1 <= copies <= MAX_COPIES:
                raise ValidationError(f"The number of {card}s must be a whole number from 1 to {MAX_COPIES}.")
            out[str(card)] = copies
        return out


class OptionsSchema(Schema):
    """Fuji Flush's options; defaults are filled in by ``engine.fuji_flush.resolve_options``."""

    class Meta:
        unknown = RAISE

    hand_size = fields.Integer(strict=True, validate=validate.Range(min=1, max=MAX_HAND_SIZE))
    deck = DeckField()


class DealSchema(ActionSchema):
    """``deal``: ``hands`` (name -> cards) required in open games, refused in table games."""

    open_only = ("hands",)

    hands = fields.Dict(
        keys=PlayerName(),
        values=cards(parse_card),
        validate=validate.Length(min=1, max=MAX_PLAYERS),
    )

    @validates_schema
    def _hands(self, data: Mapping[str, Any], **kwargs: Any) -> None:
        hands = data.get("hands")
        if self.visibility == "open" and hands is None:
            raise ValidationError({"hands": ["An open game's deal lists every player's cards."]})


class PlaySchema(ActionSchema):
    """``play``: ``player``, ``card`` (an integer 2..20 or a string of digits)."""

    player = PlayerName(required=True)
    card = CardField(parse_card, required=True)


class DrawSchema(ActionSchema):
    """``draw``: ``player``, ``card`` they drew; open games only (a 422 in table games)."""

    open_only = ("card",)

    player = PlayerName(required=True)
    card = CardField(parse_card, required=True)


OPTIONS = OptionsSchema
ACTIONS: dict[str, type[ActionSchema]] = {
    "deal": DealSchema,
    "play": PlaySchema,
    "draw": DrawSchema,
    "note": NoteSchema,
    "abandon": AbandonSchema,
}
