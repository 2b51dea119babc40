"""Fuji Flush rebuild throughput: events folded per second by ``engine.stream.replay``.

Usage: ``python bench/rebuild_fuji_flush.py [--games 200] [--seed 7]``. Plays random legal
games in open visibility (every drawn card named by a ``draw`` event, drawn from a real
shuffled pile; about one action in ten undone and redone), then times folding whole logs from
``game_created``, the way the service rebuilds a game it has not cached:

- many ordinary games (the published deck, 3-8 players);
- one long game (8 players, 30 cards each from a 380-card deck), to show that a fold does
  not get slower as the game grows.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.playouts import Log, play  # noqa: E402
from bench.timing import fold_rate  # noqa: E402
from engine import fuji_flush  # noqa: E402


def random_game(rng: random.Random, players: list[str], options: dict[str, Any] | None = None) -> Log:
    """One random legal open game to its end, as ``(seq, action)`` pairs from ``game_created``."""
    return play("fuji_flush", rng, players, options, "open", undo_rate=0.1, undo_depth=1, note_rate=0).events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    logs = [random_game(rng, [f"P{i}" for i in range(3 + n % 6)]) for n in range(args.games)]
    total, best = fold_rate(fuji_flush, logs)
    print(f"fuji_flush: {len(logs)} games, {total} events, {total / len(logs):.0f} events/game")
    print(f"rebuild: {total / best:,.0f} events/s on one core (CPU time, best of 3: {best:.3f} s)")
    deck = {str(v): 20 for v in range(2, 21)}
    long_game = random_game(rng, [f"P{i}" for i in range(8)], {"deck": deck, "hand_size": 30})
    total, best = fold_rate(fuji_flush, [long_game])
    print(f"long game: {total} events, rebuilt at {total / best:,.0f} events/s ({best * 1000:.1f} ms)")


if __name__ == "__main__":
    main()
