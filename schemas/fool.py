"""Payload schemas for Fool! (Foppen): its options and actions (``../shared/spec/rules/fool.md``).

Shapes and types only; the rules (whose turn, following, hand sizes, conservation against
what has been seen, a card listed more times than the deck holds it …) are the engine's.
"""

from __future__ import annotations

from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from engine.fool import COLOURS, MAX_HAND, WILD, parse_card
from schemas.common import (
    AbandonSchema,
    ActionSchema,
    AdjustSchema,
    CardField,
    NoteSchema,
    PlayerName,
    card_pattern,
    cards,
)

__all__ = ["ACTIONS", "CARD_SCHEMA", "OPTIONS", "parse_card"]

#: What ``parse_card`` accepts, for the OpenAPI document: a colour letter and a number in any
#: case, or a wild ``1`` (``W1``), surrounding spaces allowed (cards.md).
CARD_SCHEMA = {"type": "string", "pattern": card_pattern(
    [WILD, "W1", *(f"{colour}{number}" for colour, top in COLOURS.items() for number in range(2, top + 1))])}


class OptionsSchema(Schema):
    """Fool!'s options; defaults (by seat count) and cross-checks are in ``engine.fool.resolve_options``."""

    class Meta:
        unknown = RAISE

    hand_size = fields.Integer(strict=True, allow_none=True, validate=validate.Range(min=1, max=MAX_HAND))
    fools_per_trick = fields.Integer(strict=True, allow_none=True, validate=validate.OneOf((1, 2)))


def card_list(**kwargs: Any) -> fields.List[Any]:
    """A list of Fool! cards (``schemas.common.cards``)."""
    return cards(parse_card, **kwargs)


class DealSchema(ActionSchema):
    """``deal``: optional ``dealer``; ``hands`` (name → cards) required in open games only."""

    open_only = ("hands",)

    dealer = PlayerName()
    hands = fields.Dict(keys=PlayerName(), values=card_list(), validate=validate.Length(min=1, max=8))

    @validates_schema
    def _hands(self, data: dict[str, Any], **kwargs: Any) -> None:
        hands = data.get("hands")
        if self.visibility == "open" and hands is None:
            raise ValidationError({"hands": ["An open game's deal lists every player's cards."]})


class PlaySchema(ActionSchema):
    """``play``: ``player``, ``card``."""

    player = PlayerName(required=True)
    card = CardField(parse_card, required=True)


class RevealSchema(ActionSchema):
    """``reveal``: ``player``, ``cards`` they are seen to hold now (the whole hand after the
    round's last trick, some of it in a dispute mid-round)."""

    player = PlayerName(required=True)
    cards = card_list(required=True)


OPTIONS = OptionsSchema
ACTIONS: dict[str, type[ActionSchema]] = {
    "deal": DealSchema,
    "play": PlaySchema,
    "reveal": RevealSchema,
    "note": NoteSchema,
    "abandon": AbandonSchema,
    "adjust": AdjustSchema,
}
