"""Timing shared by the rebuild benchmarks: how fast a game's logs fold on one core."""

from __future__ import annotations

import time
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from engine import stream

Log = Sequence[tuple[int, Any]]


def fold_rate(rules: ModuleType, logs: Sequence[Log], repeats: int = 3) -> tuple[int, float]:
    """Fold every log from its ``game_created`` with ``engine.stream.replay``.

    ``logs`` are ``(seq, action)`` lists of the game ``rules``; returns the number of events
    and the best wall time (seconds) of ``repeats`` runs over all of them.
    """
    total = sum(len(log) for log in logs)
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        for log in logs:
            for _step in stream.replay(rules, log):
                pass
        best = min(best, time.perf_counter() - started)
    return total, best
