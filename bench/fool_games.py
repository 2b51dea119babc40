"""Random legal Fool! games for the property tests and the benchmarks (seeded).

``play_game(rng, players, options, visibility)`` plays one complete game from
``engine.fool.legal_actions`` and returns a :class:`Playout`: the event log (``(seq,
action)`` pairs from ``game_created``, ready for ``engine.stream.replay`` or ``POST
/games/<id>/events``) and the final stream.

The playout knows the real hands even in ``table`` games (the engine does not): it deals a
shuffled deck, follows the lead colour when the real hand holds it (now and then it
revokes, as real players do, where the engine cannot know), reveals parts of hands mid-round,
reveals the remaining hands after the last trick, records ``adjust`` rulings, and tries
``undo`` + ``redo`` pairs. ``check(stream, hands)`` is called after every step with the
real hands.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine import fool
from engine.core import RulesError
from engine.stream import Stream, advance, start

Check = Callable[[Stream, list[list[str]]], None]


@dataclass
class Playout:
    events: list[tuple[int, dict[str, Any]]]
    stream: Stream
    hands: list[list[str]] = field(default_factory=list)  # the real hands now
    rounds: int = 0


def created(players: list[str], options: dict[str, Any] | None = None, visibility: str = "open") -> dict[str, Any]:
    """The ``game_created`` data of a game with these seats and options (first seat deals)."""
    return {
        "players": players,
        "options": fool.resolve_options(options or {}, players),
        "visibility": visibility,
        "dealer": players[0],
        "rules_version": fool.RULES_VERSION,
    }


def _choose_card(rng: random.Random, state: fool.State, seat: int, hand: list[str], revoke_rate: float) -> list[str]:
    """Cards to try, best first: a real player's legal choice, or now and then a revoke."""
    rnd = state.round
    assert rnd is not None
    trick = rnd.current_trick
    lead = trick.lead_colour if trick is not None else None
    options = list(hand)
    if lead is not None and any(fool.colour_of(c) == lead for c in hand) and rng.random() >= revoke_rate:
        options = [c for c in hand if c == fool.WILD or fool.colour_of(c) == lead]
    rng.shuffle(options)
    return options + [c for c in hand if c not in options]


def play_game(
    rng: random.Random,
    players: list[str],
    options: dict[str, Any] | None = None,
    visibility: str = "open",
    check: Check | None = None,
    max_events: int = 20_000,
    undo_rate: float = 0.05,
    reveal_rate: float = 0.02,
    adjust_rate: float = 0.005,
    revoke_rate: float = 0.05,
    rescue_below: int | None = None,
) -> Playout:
    """Play one random game to its end (or ``max_events``) and return its log and stream.

    ``rescue_below``: before each deal, a ruling (``adjust``) lifts every total below it back
    to 0, so a benchmark game runs for many rounds.
    """
    data = created(players, options, visibility)
    stream = start(fool, data)
    out = Playout([(1, {"type": "game_created", **data})], stream)
    hands: list[list[str]] = [[] for _ in players]
    seat_of = {name: i for i, name in enumerate(players)}

    def record(action: dict[str, Any]) -> None:
        nonlocal stream
        stream = advance(stream, stream.version + 1, action)
        out.events.append((stream.version, action))

    while len(out.events) < max_events:
        state = stream.state
        legal = fool.legal_actions(state, True)
        if fool.status(state) == "finished":
            assert legal == []
            break
        assert legal, "legal_actions is empty while the game runs"
        phase = fool.phase(state)
        if rng.random() < adjust_rate:
            record({"type": "adjust", "player": rng.choice(players), "amount": rng.randint(-15, 15), "reason": "ruling"})
            if check is not None:
                check(stream, hands)
            continue
        if phase == "deal" and rescue_below is not None:
            low = [seat for seat, total in enumerate(state.scores) if total < rescue_below]
            for seat in low:
                record({"type": "adjust", "player": players[seat], "amount": -state.scores[seat], "reason": "rescue"})
            if low:
                continue
        if phase == "deal":
            deck = list(fool.DECK)
            rng.shuffle(deck)
            size = state.options.hand_size
            hands[:] = [sorted(deck[i * size : (i + 1) * size]) for i in range(len(players))]
            action: dict[str, Any] = {"type": "deal", "dealer": legal[0]["player"]}
            if visibility == "open":
                action["hands"] = {name: list(hands[i]) for i, name in enumerate(players)}
            record(action)
            out.rounds += 1
        elif phase == "reveal":
            name = state.names[fool.to_act(state)[0]]
            record({"type": "reveal", "player": name, "cards": list(hands[seat_of[name]])})
        else:
            reveals = [a for a in legal if a["type"] == "reveal"]
            if reveals and rng.random() < reveal_rate:
                name = rng.choice(reveals)["player"]
                held = hands[seat_of[name]]
                record({"type": "reveal", "player": name, "cards": rng.sample(held, rng.randint(1, len(held)))})
                if check is not None:
                    check(stream, hands)
                continue
            entry = next(a for a in legal if a["type"] == "play")
            seat = seat_of[entry["player"]]
            tries = entry["cards"] if entry["cards"] is not None else _choose_card(rng, state, seat, hands[seat], revoke_rate)
            if entry["cards"] is not None:
                tries = list(tries)
                rng.shuffle(tries)
            for card in tries:
                try:
                    record({"type": "play", "player": entry["player"], "card": card})
                except RulesError:
                    continue
                hands[seat].remove(card)
                break
            else:
                raise AssertionError(f"no card of {hands[seat]} could be played by {entry['player']}")
        if rng.random() < undo_rate:
            before = stream.state
            record({"type": "undo"})
            record({"type": "redo"})
            assert stream.state == before, "undo then redo did not restore the state"
        if check is not None:
            check(stream, hands)
    out.stream = stream
    out.hands = hands
    return out
