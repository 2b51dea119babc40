"""Random legal Stop the Bus games, played with real cards (seeded), for benchmarks and tests.

:class:`Table` keeps the truth of a physical game (every hand, the middle) and records
what a scorekeeper would see; :func:`random_game` plays one game to its end, choosing among
``legal_actions`` and making the cards up from the shuffled deck. In ``table`` visibility
the deal names no hands and the showdown ``show``\\ s the real cards, so an engine that
refuses a truthful recording fails here.
"""

from __future__ import annotations

import random
from typing import Any

from engine import stop_the_bus, stream

PLAYERS = ["Ann", "Bob", "Cas", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon"]


def created(players: list[str], options: dict[str, Any] | None = None, visibility: str = "table") -> dict[str, Any]:
    """The ``game_created`` data of a game with these seats and options."""
    return {
        "players": players,
        "options": stop_the_bus.resolve_options(options or {}, players),
        "visibility": visibility,
        "dealer": players[0],
        "rules_version": stop_the_bus.RULES_VERSION,
    }


class Table:
    """The physical truth of one round: each player's hand and the middle."""

    def __init__(self) -> None:
        self.hands: dict[str, list[str]] = {}
        self.centre: list[str] = []

    def deal(self, rng: random.Random, players: list[str], visibility: str) -> dict[str, Any]:
        deck = list(stop_the_bus.DECK)
        rng.shuffle(deck)
        self.hands = {name: deck[3 * i : 3 * i + 3] for i, name in enumerate(players)}
        self.centre = deck[3 * len(players) : 3 * len(players) + 3]
        action: dict[str, Any] = {"type": "deal", "centre": list(self.centre)}
        if visibility == "open":
            action["hands"] = {name: list(cards) for name, cards in self.hands.items()}
        return action

    def swap(self, rng: random.Random, player: str, allow_return: bool, take_all: bool) -> dict[str, Any]:
        hand = self.hands[player]
        if take_all:
            give = list(hand)
            rng.shuffle(give)
            self.hands[player], self.centre = list(self.centre), give
            return {"type": "swap", "player": player, "take_all": True, "give": list(give)}
        index = rng.randrange(3)
        take = self.centre[index]
        if allow_return and rng.random() < 0.1:
            return {"type": "swap", "player": player, "take": take, "give": take}
        give = rng.choice(hand)
        hand[hand.index(give)] = take
        self.centre[index] = give
        return {"type": "swap", "player": player, "take": take, "give": give}

    def show(self, rng: random.Random, player: str) -> dict[str, Any]:
        cards = list(self.hands[player])
        rng.shuffle(cards)
        return {"type": "show", "player": player, "cards": cards}


def random_game(
    rng: random.Random,
    players: list[str],
    options: dict[str, Any] | None = None,
    visibility: str = "table",
    max_events: int = 100_000,
    stop_chance: float = 0.35,
    adjust_chance: float = 0.0,
) -> list[dict[str, Any]]:
    """Play one random legal game to its end and return its actions (without ``game_created``).

    Each action is a dict ready for ``engine.stream.advance`` and ``POST /games/<id>/events``.
    ``adjust_chance`` adds rulings (chips up or down) now and then.
    """
    data = created(players, options, visibility)
    current = stream.start(stop_the_bus, data)
    opts = data["options"]
    table = Table()
    actions: list[dict[str, Any]] = []
    while len(actions) < max_events:
        state = current.state
        legal = stop_the_bus.legal_actions(state, True)
        if not legal:
            break
        if adjust_chance and rng.random() < adjust_chance:
            name = rng.choice(players)
            action = {"type": "adjust", "player": name, "amount": rng.choice([-2, -1, 1]), "reason": "a ruling"}
        else:
            action = choose_action(rng, state, legal, table, opts, visibility, stop_chance)
        current = stream.advance(current, current.version + 1, action)
        actions.append(action)
    return actions


def choose_action(
    rng: random.Random,
    state: stop_the_bus.State,
    legal: list[dict[str, Any]],
    table: Table,
    opts: dict[str, Any],
    visibility: str,
    stop_chance: float,
) -> dict[str, Any]:
    """Pick one of ``legal`` (mostly swaps, a stop with ``stop_chance``) and make it real on ``table``."""
    kinds = {entry["type"]: entry for entry in legal}
    if "deal" in kinds:
        rnd_players = [state.names[s] for s in range(len(state.names)) if state.chips[s] > 0]
        return table.deal(rng, rnd_players, visibility)
    stops = [entry for entry in legal if entry["type"] == "stop"]
    if stops and rng.random() < stop_chance:
        return {"type": "stop", "player": rng.choice(stops)["player"]}
    shows = [entry for entry in legal if entry["type"] == "show"]
    if shows:
        return table.show(rng, rng.choice(shows)["player"])
    swap = kinds["swap"]
    take_all = bool(swap["take_all"]) and rng.random() < 0.15
    return table.swap(rng, swap["player"], opts["allow_return"], take_all)
