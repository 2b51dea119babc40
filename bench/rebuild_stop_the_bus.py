"""Rebuild throughput for Stop the Bus: events folded per second by ``engine.stream.replay``.

Usage: ``python bench/rebuild_stop_the_bus.py [--games 20] [--chips 30] [--seed 7]``. Plays
random legal table-visibility games (6 players, many chips so games are long, a swap-all
option on), then times folding their whole logs from the ``game_created`` event, the way
the service rebuilds a game it has not cached. Also reports the time per event in the
first and last tenth of the longest log, to show that ``apply`` does not slow down as the
game grows.
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.playouts import NAMES, play  # noqa: E402
from bench.timing import fold_rate  # noqa: E402
from engine import stop_the_bus, stream  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--chips", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    players = NAMES[:6]
    options = {"chips": args.chips, "swap_all": True}
    logs = [play("stop_the_bus", rng, players, options, "table", stop_chance=0.2).events for _ in range(args.games)]
    total, best = fold_rate(stop_the_bus, logs)
    longest = max(logs, key=len)
    tenth = len(longest) // 10
    current = stream.start(stop_the_bus, {k: v for k, v in longest[0][1].items() if k != "type"})
    timings = []
    gc.disable()  # the cyclic collector's pauses would swamp the per-event times measured here
    for seq, action in longest[1:]:
        start = time.perf_counter()
        current = stream.advance(current, seq, action)
        timings.append(time.perf_counter() - start)
    gc.enable()
    early, late = sum(timings[:tenth]) / tenth, sum(timings[-tenth:]) / tenth
    print(f"stop_the_bus: {len(logs)} games, {total} events, {total / len(logs):.0f} events/game")
    print(f"rebuild: {total / best:,.0f} events/s on one core (CPU time, best of 3: {best:.3f} s)")
    print(f"longest game {len(longest)} events: {early * 1e6:.1f} us/event in its first tenth, "
          f"{late * 1e6:.1f} us/event in its last tenth")


if __name__ == "__main__":
    main()
