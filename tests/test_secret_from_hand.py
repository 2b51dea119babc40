"""``service.storage.forks.secret_from_hand`` (kept on every write): the first hand not over, found
without asking every hand of a long game (issue 23: an append's cost must not grow with the
game's length)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bench.playouts import NAMES, play
from engine import stream as streams
from engine.interface import GameRules
from service.storage import forks

SHAPES: list[tuple[str, int, dict[str, Any], str]] = [
    ("toepen", 4, {"limit": 15}, "table"),
    ("fool", 4, {}, "table"),
    ("fuji_flush", 4, {}, "open"),
    ("stop_the_bus", 5, {"chips": 4}, "table"),
]


def linear(rules: GameRules, state: Any) -> int | None:
    """The definition, hand by hand from the first."""
    for number in range(1, rules.hand_number(state) + 2):
        if not rules.hand_over(state, number):
            return number
    return None


class Counted:
    """The real rules module, with the calls of its ``hand_over`` counted."""

    def __init__(self, rules: GameRules) -> None:
        self.rules, self.calls = rules, 0

    def hand_number(self, state: Any) -> int:
        return self.rules.hand_number(state)

    def hand_over(self, state: Any, number: int) -> bool:
        self.calls += 1
        return self.rules.hand_over(state, number)


@pytest.mark.parametrize(("game", "players", "options", "visibility"), SHAPES)
def test_the_first_hand_not_over_on_every_state_of_a_game(game: str, players: int, options: dict[str, Any],
                                                           visibility: str) -> None:
    playout = play(game, random.Random(5), NAMES[:players], options, visibility)
    for step in streams.replay(playout.rules, playout.events):
        state = step.stream.state
        assert forks.secret_from_hand(playout.rules, state) == linear(playout.rules, state)


def test_a_long_game_asks_a_few_hands_not_every_one() -> None:
    playout = play("stop_the_bus", random.Random(3), NAMES[:10], {"chips": 99}, "table", max_events=6000)
    rules = playout.rules
    hands = rules.hand_number(playout.state)
    assert hands > 200
    counted = Counted(rules)
    assert forks.secret_from_hand(counted, playout.state) == linear(rules, playout.state)  # type: ignore[arg-type]
    assert counted.calls <= 2 * hands.bit_length() + 2, f"{counted.calls} hands asked of {hands}"
