"""Payload schemas for Toepen: its options and actions (``../shared/spec/rules/toepen.md``).

Shapes and types only; the rules (whose turn, follow suit …) are the engine's.
"""

from __future__ import annotations

from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from engine.cards import SUITS
from engine.toepen import CHOICES, RANKS, parse_card
from schemas.common import (
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
    """Toepen's options; defaults are filled in by ``engine.toepen.resolve_options``."""

    class Meta:
        unknown = RAISE

    limit = fields.Integer(strict=True, validate=validate.Range(min=1, max=99))
    game_end = fields.String(validate=validate.OneOf(CHOICES["game_end"]))
    next_dealer = fields.String(validate=validate.OneOf(CHOICES["next_dealer"]))
    knock_responses = fields.String(validate=validate.OneOf(CHOICES["knock_responses"]))
    folded_last_trick = fields.String(validate=validate.OneOf(CHOICES["folded_last_trick"]))
    laundry_mandatory = StrictBoolean()
    max_stake = fields.Integer(strict=True, allow_none=True, validate=validate.Range(min=2, max=99))


class DealSchema(ActionSchema):
    """``deal``: optional ``dealer``; ``hands`` (name → 4 cards) required in open games only."""

    open_only = ("hands",)

    dealer = PlayerName()
    hands = fields.Dict(
        keys=PlayerName(),
        values=cards(parse_card),
        validate=validate.Length(min=1, max=8),
    )

    @validates_schema
    def _hands(self, data: dict[str, Any], **kwargs: Any) -> None:
        hands = data.get("hands")
        if self.visibility == "open" and hands is None:
            raise ValidationError({"hands": ["An open game's deal lists every player's 4 cards."]})


class PlaySchema(ActionSchema):
    """``play``: ``player``, ``card``."""

    player = PlayerName(required=True)
    card = CardField(parse_card, required=True)


class LaundrySchema(ActionSchema):
    """``laundry``: ``player``; in open games optionally the 4 new ``cards``."""

    open_only = ("cards",)

    player = PlayerName(required=True)
    cards = cards(parse_card)


class ChallengeSchema(ActionSchema):
    """``challenge``: ``player`` (challenger), ``target``, ``cards`` (the 4 laid down).

    ``cards`` is required in table games, where the laid-down hand is not known.
    """

    player = PlayerName(required=True)
    target = PlayerName(required=True)
    cards = cards(parse_card)

    @validates_schema
    def _cards_needed(self, data: dict[str, Any], **kwargs: Any) -> None:
        if self.visibility == "table" and data.get("cards") is None:
            raise ValidationError({"cards": ["Name the 4 cards that were turned face up."]})


class RevealSchema(ActionSchema):
    """``reveal``: ``player``, ``cards`` they are seen to hold now (at most the hand: the rules' count)."""

    player = PlayerName(required=True)
    cards = cards(parse_card, required=True)


OPTIONS = OptionsSchema
ACTIONS: dict[str, type[ActionSchema]] = {
    "deal": DealSchema,
    "play": PlaySchema,
    "knock": PlayerActionSchema,
    "stay": PlayerActionSchema,
    "fold": PlayerActionSchema,
    "laundry": LaundrySchema,
    "challenge": ChallengeSchema,
    "reveal": RevealSchema,
    "note": NoteSchema,
    "abandon": AbandonSchema,
    "adjust": AdjustSchema,
}
