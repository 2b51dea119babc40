"""Fuji Flush rebuild throughput: events folded per second by ``engine.stream.replay``.

Usage: ``python bench/rebuild_fuji_flush.py [--games 200] [--seed 7]``. Plays random legal
games in open visibility (every drawn card named by a ``draw`` event, drawn as from a real
shuffled pile; about one play in ten undone and redone), then times folding whole logs from
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

from bench.timing import fold_rate  # noqa: E402
from engine import fuji_flush, stream  # noqa: E402

Log = list[tuple[int, dict[str, Any]]]


def random_game(rng: random.Random, players: list[str], options: dict[str, Any] | None = None) -> Log:
    """One random legal game to its end, as ``(seq, action)`` pairs from ``game_created``."""
    resolved = fuji_flush.resolve_options(options or {}, players)
    created = {"players": players, "options": resolved, "visibility": "open",
               "first_player": players[0], "rules_version": fuji_flush.RULES_VERSION}
    cards = [int(v) for v, n in resolved["deck"].items() for _ in range(n)]
    rng.shuffle(cards)
    size = resolved["hand_size"]
    log: Log = [(1, {"type": "game_created", **created})]
    current = stream.start(fuji_flush, created)

    def record(action: dict[str, Any]) -> None:
        nonlocal current
        current = stream.advance(current, current.version + 1, action)
        log.append((current.version, action))

    record({"type": "deal", "hands": {p: cards[i * size:(i + 1) * size] for i, p in enumerate(players)}})
    while True:
        legal = fuji_flush.legal_actions(current.state, True)
        if not legal:
            return log
        draws = [a for a in legal if a["type"] == "draw"]
        if draws:  # every drawn card named at once: the unplaced copies are exactly the draw pile
            weights = [fuji_flush.unplaced(current.state, c) for c in draws[0]["cards"]]
            record({"type": "draw", "player": draws[0]["player"], "card": rng.choices(draws[0]["cards"], weights)[0]})
            continue
        move = legal[0]
        record({"type": "play", "player": move["player"], "card": rng.choice(move["cards"])})
        if rng.random() < 0.1:
            record({"type": "undo"})
            record({"type": "redo"})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    logs = [random_game(rng, [f"P{i}" for i in range(3 + n % 6)]) for n in range(args.games)]
    total, best = fold_rate(fuji_flush, logs)
    print(f"fuji_flush: {len(logs)} games, {total} events, {total / len(logs):.0f} events/game")
    print(f"rebuild: {total / best:,.0f} events/s on one core (best of 3: {best:.3f} s)")
    deck = {str(v): 20 for v in range(2, 21)}
    long_game = random_game(rng, [f"P{i}" for i in range(8)], {"deck": deck, "hand_size": 30})
    total, best = fold_rate(fuji_flush, [long_game])
    print(f"long game: {total} events, rebuilt at {total / best:,.0f} events/s ({best * 1000:.1f} ms)")


if __name__ == "__main__":
    main()
