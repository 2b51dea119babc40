"""Payload schemas for Stop the Bus: its options and actions (``../shared/spec/rules/stop_the_bus.md``).

Shapes and types only; the rules (whose turn, which card is in the middle …) are the engine's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from engine.cards import SUITS
from engine.stop_the_bus import CHOICES, HAND_CARDS, MAX_CHIPS, MAX_PLAYERS, RANKS, parse_card
from schemas.common import (
    MAX_CARDS,
    AbandonSchema,
    ActionSchema,
    AdjustSchema,
    CardField,
    NoteSchema,
    PlayerActionSchema,
    PlayerName,
    StrictBoolean,
    card_pattern,
    cards,
)

__all__ = ["ACTIONS", "CARD_SCHEMA", "OPTIONS", "parse_card"]

#: What ``parse_card`` accepts, for the OpenAPI document: a rank and a suit in any case
#: (``10`` for ``T``), surrounding spaces allowed (cards.md).
CARD_SCHEMA = {"type": "string", "pattern": card_pattern(
    [rank + suit for rank in (*RANKS, "10") for suit in SUITS])}


class OptionsSchema(Schema):
    """Stop the Bus options; defaults are filled in by ``engine.stop_the_bus.resolve_options``."""

    class Meta:
        unknown = RAISE

    chips = fields.Integer(strict=True, validate=validate.Range(min=1, max=MAX_CHIPS))
    allow_return = StrictBoolean()
    swap_all = StrictBoolean()
    stop_without_swap = fields.String(validate=validate.OneOf(CHOICES["stop_without_swap"]))
    all_out = fields.String(validate=validate.OneOf(CHOICES["all_out"]))
    prial_order = fields.String(validate=validate.OneOf(CHOICES["prial_order"]))
    ace_low_run = fields.String(validate=validate.OneOf(CHOICES["ace_low_run"]))


class DealSchema(ActionSchema):
    """``deal``: optional ``dealer``, ``centre`` (3 cards, required); ``hands`` (name → 3
    cards) required in open games and refused in table games."""

    open_only = ("hands",)

    dealer = PlayerName()
    centre = cards(parse_card, required=True)
    hands = fields.Dict(
        keys=PlayerName(),
        values=cards(parse_card),
        validate=validate.Length(min=1, max=MAX_PLAYERS),
    )

    @validates_schema
    def _cards_once(self, data: Mapping[str, Any], **kwargs: Any) -> None:
        hands = data.get("hands")
        if self.visibility == "open" and hands is None:
            raise ValidationError({"hands": [f"An open game's deal lists every player's {HAND_CARDS} cards."]})


class GiveField(fields.Field[Any]):
    """``give``: one card code, or (with ``take_all``) a list of card codes (the hand's three: a
    count the rules check, ``wrong_card_count``)."""

    json_schema = {"anyOf": [CARD_SCHEMA, {"type": "array", "items": CARD_SCHEMA, "minItems": 1,
                                           "maxItems": MAX_CARDS}]}

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> Any:
        card = CardField(parse_card)
        if isinstance(value, list):
            if not 1 <= len(value) <= MAX_CARDS:
                raise ValidationError(f"Give the {HAND_CARDS} cards of the hand.")
            return [card.deserialize(item) for item in value]
        return card.deserialize(value)


class SwapSchema(ActionSchema):
    """``swap``: ``player``, ``take`` (a middle card), ``give`` (a hand card); or with the
    ``swap_all`` option ``player``, ``take_all: true``, ``give`` (the 3 hand cards)."""

    player = PlayerName(required=True)
    take = CardField(parse_card)
    take_all = StrictBoolean()
    give = GiveField(required=True)

    @validates_schema
    def _shape(self, data: Mapping[str, Any], **kwargs: Any) -> None:
        give = data.get("give")
        if data.get("take_all"):
            if data.get("take") is not None:
                raise ValidationError({"take": ["With take_all the whole middle is taken: leave out 'take'."]})
            if not isinstance(give, list):
                raise ValidationError({"give": [f"With take_all, give the {HAND_CARDS} cards of the hand."]})
            return
        if data.get("take") is None:
            raise ValidationError({"take": ["Name the card taken from the middle."]})
        if isinstance(give, list):
            raise ValidationError({"give": ["A swap gives one card (a list is only for take_all)."]})


class ShowSchema(ActionSchema):
    """``show``: ``player``, ``cards`` (the 3 cards of the hand, in any order)."""

    player = PlayerName(required=True)
    cards = cards(parse_card, required=True)


OPTIONS = OptionsSchema
ACTIONS: dict[str, type[ActionSchema]] = {
    "deal": DealSchema,
    "swap": SwapSchema,
    "stop": PlayerActionSchema,
    "show": ShowSchema,
    "note": NoteSchema,
    "abandon": AbandonSchema,
    "adjust": AdjustSchema,
}
