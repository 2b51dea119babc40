"""Rebuild throughput: events folded per second by ``engine.stream.replay`` (one core).

Usage: ``python bench/rebuild.py [--games 200] [--seed 7]``. Plays random legal Toepen games
(4 players, limit 30 so games are long), then times folding their whole logs from the
``game_created`` event, the way the service rebuilds a game it has not cached.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.playouts import play  # noqa: E402
from bench.timing import fold_rate  # noqa: E402
from engine import toepen  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    players = ["Ann", "Bob", "Cas", "Dee"]
    # open games; knock, fold or launder now and then (12% of the actions), as real tables do
    logs = [play("toepen", rng, players, {"limit": 30}, side_rate=(0.12, 0.12)).events for _ in range(args.games)]
    total, best = fold_rate(toepen, logs)
    print(f"toepen: {len(logs)} games, {total} events, {total / len(logs):.0f} events/game")
    print(f"rebuild: {total / best:,.0f} events/s on one core (CPU time, best of 3: {best:.3f} s)")


if __name__ == "__main__":
    main()
