"""Timing shared by the rebuild benchmarks: how fast a game's logs fold on one core.

Timed in CPU time (``time.process_time``): the fold is single-threaded, so on a quiet machine
it is the wall time, and on a machine shared by several developers it leaves out the time the
process waited for a core.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from engine import stream
from engine.interface import GameRules

Log = Sequence[tuple[int, Any]]


def fold_rate(rules: GameRules, logs: Sequence[Log], repeats: int = 3) -> tuple[int, float]:
    """Fold every log from its ``game_created`` with ``engine.stream.replay``.

    ``logs`` are ``(seq, action)`` lists of the game ``rules``; returns the number of events
    and the best CPU time (seconds) of ``repeats`` runs over all of them.
    """
    total = sum(len(log) for log in logs)
    best = float("inf")
    for _ in range(repeats):
        started = time.process_time()
        for log in logs:
            for _step in stream.replay(rules, log):
                pass
        best = min(best, time.process_time() - started)
    return total, best
