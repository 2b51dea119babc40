"""Each game's ``irregularities(state, n, full)``: hand n's irregularities exactly as its
``hand_view`` lists them, which a write reads on every move (``replays.audit.proved_by``)
without building the whole hand view: a Fuji Flush game has one hand, whose view lists
every turn of the game, so building it made each write cost more the longer the game."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bench.playouts import NAMES, play
from engine import stream as streams
from engine.interface import GameRules
from replays import audit, replay

SHAPES: list[tuple[str, int, dict[str, Any], str, dict[str, Any]]] = [
    ("toepen", 4, {"limit": 10}, "table", {"side_rate": (0.3, 0.2)}),
    ("fool", 5, {}, "table", {"revoke_rate": 0.3}),
    ("fuji_flush", 4, {}, "open", {}),
    ("stop_the_bus", 4, {"chips": 3}, "table", {}),
]


@pytest.mark.parametrize(("game", "players", "options", "visibility", "table"), SHAPES, ids=[s[0] for s in SHAPES])
def test_the_same_irregularities_as_the_hand_view_on_every_state(game: str, players: int, options: dict[str, Any],
                                                                 visibility: str, table: dict[str, Any]) -> None:
    found = 0
    for seed in range(3):
        playout = play(game, random.Random(seed), NAMES[:players], options, visibility, **table)
        rules = playout.rules
        for step in streams.replay(rules, playout.events):
            state = step.stream.state
            for number in range(0, rules.hand_number(state) + 2):
                for full in (True, False):
                    view = rules.hand_view(state, number, full)
                    listed = rules.irregularities(state, number, full)
                    assert listed == (view["irregularities"] if view is not None else [])
                    found += len(listed)
    if game in ("toepen", "fool"):
        assert found, "the random games proved no revoke: the comparison saw none"


class NoHandView:
    """A game module whose ``hand_view`` may not be called (every other member its own)."""

    def __init__(self, rules: GameRules) -> None:
        self._rules = rules

    def __getattr__(self, name: str) -> Any:
        if name == "hand_view":
            raise AssertionError("the whole hand view was built")
        return getattr(self._rules, name)


@pytest.mark.parametrize("game", ["toepen", "fool", "fuji_flush", "stop_the_bus"])
def test_a_write_reads_the_irregularities_without_the_hand_view(game: str) -> None:
    shape = next(s for s in SHAPES if s[0] == game)
    playout = play(game, random.Random(1), NAMES[:shape[1]], shape[2], shape[3], **shape[4])
    folded = replay.fold(playout.rules, [{"seq": seq, "type": action["type"],
                                          "data": {k: v for k, v in action.items() if k != "type"}}
                                         for seq, action in playout.events])
    watched = replay.Folded(folded.stream._replace(rules=NoHandView(playout.rules)), folded.facts)
    for seq in range(1, folded.version + 1):
        assert audit.proved_by(watched, seq, True) == audit.proved_by(folded, seq, True)
