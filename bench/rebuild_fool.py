"""Fool! rebuild throughput: events folded per second by ``engine.stream.replay`` (one core).

Usage: ``python bench/rebuild_fool.py [--games 40] [--players 8] [--seed 7]``. Plays random
legal Fool! games (table visibility, with mid-round reveals, revokes, undo/redo and rulings),
then times folding each whole log from its ``game_created`` event, the way the service
rebuilds a game it has not cached. Then the same for the longest of a few long games, where
rulings lift negative totals back to 0 before each deal so the game runs for many rounds:
the cost per event does not grow with the length of the game.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.playouts import play  # noqa: E402
from bench.timing import fold_rate  # noqa: E402
from engine import fool  # noqa: E402

UNDO: dict[str, Any] = {"undo_rate": 0.05, "undo_depth": 1, "note_rate": 0}  # one action in twenty undone and redone


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--players", type=int, default=8)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    players = [f"P{i}" for i in range(args.players)]
    logs = [play("fool", rng, players, {}, "table", **UNDO).events for _ in range(args.games)]
    longest = max((play("fool", rng, players, {}, "table", **UNDO, rescue_below=0).events for _ in range(5)), key=len)
    total, best = fold_rate(fool, logs)
    _long_total, long_best = fold_rate(fool, [longest])
    print(f"fool: {len(logs)} games of {args.players} players, {total} events, {total / len(logs):.0f} events/game")
    print(f"rebuild: {total / best:,.0f} events/s on one core (CPU time, best of 3: {best:.3f} s)")
    rounds = sum(1 for _, a in longest if a["type"] == "deal")
    print(
        f"long game: {len(longest)} events over {rounds} rounds, "
        f"{len(longest) / long_best:,.0f} events/s (best of 3: {long_best:.3f} s)"
    )


if __name__ == "__main__":
    main()
