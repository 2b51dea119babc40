"""What several bench scripts share: a free loopback port, the nearest-rank percentile, a
figure printed for the reports, and the random Toepen games the write benches replay.

Run as scripts, the benches put the repository on ``sys.path`` first and import this as
``bench._common``; it imports only ``bench.playouts`` of the project."""

from __future__ import annotations

import random
import socket
from typing import Any

from bench.playouts import play

#: Every bench server listens here, on loopback.
HOST = "127.0.0.1"
#: The four players of the benches' Toepen games.
PLAYERS = ["Ann", "Bob", "Cas", "Dee"]
#: Knocks, folds and laundries now and then (12% of the actions each), as real tables do.
SIDE_RATE = (0.12, 0.12)


def free_port() -> int:
    """A TCP port free on :data:`HOST` right now (the kernel's choice)."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def percentile(values: list[float], q: float) -> float | None:
    """The ``q`` quantile (0..1) of ``values`` by the nearest-rank method; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(-(-q * len(ordered) // 1))))
    return ordered[rank - 1]


def fmt(value: Any) -> str:
    """A figure as the reports print it: ``not measured`` for None, one decimal for a float,
    ``a/b/c`` (two decimals) for a sequence, else as it is."""
    if value is None:
        return "not measured"
    if isinstance(value, float):
        return f"{value:.1f}"
    if isinstance(value, (list, tuple)):
        return "/".join(f"{v:.2f}" for v in value)
    return str(value)


def toepen_games(moves: int, seed: int) -> list[list[dict[str, Any]]]:
    """Random legal open Toepen games for :data:`PLAYERS` (lives 10, :data:`SIDE_RATE`), their
    actions after ``game_created``, holding at least ``moves`` moves in all; the same for the
    same ``seed``."""
    rng = random.Random(seed)
    logs: list[list[dict[str, Any]]] = []
    total = 0
    while total < moves:
        actions = play("toepen", rng, PLAYERS, {"limit": 10}, side_rate=SIDE_RATE).actions
        logs.append(actions)
        total += len(actions)
    return logs
