"""Fool! payload schemas (``schemas/fool.py``): shapes and deck facts are 422s, not rules."""

from __future__ import annotations

from typing import Any

import pytest
from marshmallow import ValidationError

from schemas import fool

PLAYERS = ["Anja", "Bettina", "Uwe", "Ilja"]


def load(body: dict[str, Any], visibility: str = "table") -> dict[str, Any]:
    result: dict[str, Any] = fool.ACTIONS[body["type"]](players=PLAYERS, visibility=visibility).load(body)
    return result


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"type": "play", "player": "anja ", "card": " w1"}, {"player": "Anja", "card": "1"}),
        ({"type": "play", "player": "Uwe", "card": "g27"}, {"card": "G27"}),
        ({"type": "reveal", "player": "Uwe", "cards": ["1", "W1", "b2"]}, {"cards": ["1", "1", "B2"]}),
        ({"type": "deal", "dealer": "ilja"}, {"dealer": "Ilja"}),
        ({"type": "adjust", "player": "Uwe", "amount": -5, "reason": "revoke"}, {"amount": -5}),
    ],
    ids=["wild-alias-and-name-case", "card-case", "reveal-two-1s", "dealer-case", "adjust"],
)
def test_accepted(body: dict[str, Any], expected: dict[str, Any]) -> None:
    loaded = load(body)
    for key, value in expected.items():
        assert loaded[key] == value


@pytest.mark.parametrize(
    ("body", "visibility", "field"),
    [
        ({"type": "play", "player": "Uwe", "card": "G28"}, "table", "card"),
        ({"type": "play", "player": "Zed", "card": "G2"}, "table", "player"),
        ({"type": "play", "player": "Uwe", "card": 1}, "table", "card"),
        ({"type": "reveal", "player": "Uwe", "cards": []}, "table", "cards"),
        ({"type": "deal", "hands": {"Uwe": ["G5"]}}, "table", "hands"),
        ({"type": "deal"}, "open", "hands"),
        ({"type": "play", "player": "Uwe", "card": "G5", "cards": ["G5"]}, "table", "cards"),
    ],
    ids=[
        "no-such-card", "unknown-player", "card-as-integer", "empty-reveal",
        "table-deal-with-hands", "open-deal-without-hands", "unknown-field",
    ],
)
def test_refused_with_422(body: dict[str, Any], visibility: str, field: str) -> None:
    with pytest.raises(ValidationError) as info:
        load(body, visibility)
    assert field in info.value.messages


@pytest.mark.parametrize(
    ("body", "visibility"),
    [
        ({"type": "reveal", "player": "Uwe", "cards": ["G5", "g5"]}, "table"),
        ({"type": "reveal", "player": "Uwe", "cards": ["1"] * 7}, "table"),
        ({"type": "deal", "hands": {"Uwe": ["G5"], "Anja": ["G5"]}}, "open"),
    ],
    ids=["coloured-card-twice", "seven-1s", "open-deal-card-twice"],
)
def test_a_card_listed_too_often_is_the_rules_refusal(body: dict[str, Any], visibility: str) -> None:
    """A card listed more times than the deck holds it is ``card_not_available``, the rules'
    409 as in every game (recording.md), not a payload error: the schema lets it through
    (tests/test_refusal_codes_every_game.py answers it over HTTP)."""
    assert load(body, visibility)["type"] == body["type"]


@pytest.mark.parametrize(
    ("options", "ok"),
    [
        ({}, True), ({"hand_size": 5}, True), ({"fools_per_trick": 2}, True), ({"hand_size": 0}, False),
        ({"hand_size": 23}, False), ({"fools_per_trick": 3}, False), ({"hand_size": "5"}, False), ({"limit": 3}, False),
    ],
    ids=["none", "hand-size", "two-fools", "hand-size-0", "hand-size-23", "three-fools", "string", "unknown"],
)
def test_options_schema(options: dict[str, Any], ok: bool) -> None:
    if ok:
        fool.OPTIONS().load(options)
    else:
        with pytest.raises(ValidationError):
            fool.OPTIONS().load(options)
