"""Finished hands and rounds are shared from state to state, not copied (issue 23): the
apply that ends round 500 of a game allocates what the one that ends round 10 does.

Measured in bytes allocated (``tracemalloc``), not in time: a ``history`` tuple copied at
the end of every round made that apply allocate 8 more bytes per round already played."""

from __future__ import annotations

import random
import tracemalloc
from typing import Any

from bench.playouts import NAMES, play
from engine import stream as streams


def _allocated(rules: Any, state: Any, action: dict[str, Any]) -> int:
    tracemalloc.start()
    try:
        rules.apply(state, action)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_ending_a_round_costs_the_same_late_in_a_long_game() -> None:
    playout = play("stop_the_bus", random.Random(3), NAMES[:10], {"chips": 99}, "table", max_events=9000)
    rules = playout.rules
    ends = []  # (the state before, the action) of each apply that ends a round
    before = None
    for step in streams.replay(rules, playout.events):
        if before is not None and step.action["type"] not in streams.NOT_GAME_ACTIONS \
                and len(step.stream.state.history) > len(before.state.history):
            ends.append((before.state, {**step.action, "seq": step.seq}))
        before = step.stream
    assert len(ends) > 300
    early = max(_allocated(rules, state, action) for state, action in ends[5:25])
    late = max(_allocated(rules, state, action) for state, action in ends[-20:])
    assert late <= early + 512, f"ending round {len(ends)} allocates {late} bytes, round 25 {early}"
