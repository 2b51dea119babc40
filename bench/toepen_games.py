"""Random legal Toepen games for the benchmarks (seeded, open visibility).

``random_game(rng, players, options, max_events)`` returns the actions of one game, each a
dict ready for ``engine.stream.advance`` and for ``POST /games/<id>/events``.
"""

from __future__ import annotations

import random
from typing import Any

from engine import stream, toepen


def created(players: list[str], options: dict[str, Any] | None = None, visibility: str = "open") -> dict[str, Any]:
    """The ``game_created`` data of a game with these seats and options."""
    return {
        "players": players,
        "options": toepen.resolve_options(options or {}, players),
        "visibility": visibility,
        "dealer": players[0],
        "rules_version": toepen.RULES_VERSION,
    }


def random_game(
    rng: random.Random, players: list[str], options: dict[str, Any] | None = None, max_events: int = 100_000
) -> list[dict[str, Any]]:
    """Play one random legal game (knocks and folds included) and return its actions."""
    current = stream.start(toepen, created(players, options))
    actions: list[dict[str, Any]] = []
    stock: list[str] = []
    while len(actions) < max_events:
        state = current.state
        legal = toepen.legal_actions(state, True)
        if not legal:
            break
        choice = _choose(rng, legal)
        if choice["type"] == "deal":
            deck = list(toepen.DECK)
            rng.shuffle(deck)
            dealt = [s for s in range(len(players)) if not state.eliminated[s]]
            action: dict[str, Any] = {
                "type": "deal",
                "dealer": choice["player"],
                "hands": {players[s]: deck[4 * i : 4 * i + 4] for i, s in enumerate(dealt)},
            }
            stock = deck[4 * len(dealt) :]
        elif choice["type"] == "play":
            action = {"type": "play", "player": choice["player"], "card": rng.choice(choice["cards"])}
        elif choice["type"] == "laundry":
            action = {"type": "laundry", "player": choice["player"], "cards": stock[:4]}
            stock = stock[4:]
        elif choice["type"] == "challenge":
            action = {"type": "challenge", "player": choice["player"], "target": choice["target"]}
        else:
            action = {"type": choice["type"], "player": choice["player"]}
        current = stream.advance(current, current.version + 1, action)
        actions.append(action)
    return actions


def _choose(rng: random.Random, legal: list[dict[str, Any]]) -> dict[str, Any]:
    """Mostly play cards; knock, fold or launder now and then, as real tables do."""
    plays = [a for a in legal if a["type"] in ("play", "deal", "stay")]
    others = [a for a in legal if a["type"] not in ("play", "deal", "stay", "reveal")]
    if others and (not plays or rng.random() < 0.12):
        return rng.choice(others)
    return rng.choice(plays or legal)
