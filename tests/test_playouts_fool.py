"""Random complete games of Fool! (``bench.playouts``, run by ``tests/test_playouts.py``).

Properties: the game ends; cards are conserved at every step (hand sizes, no card in two
places, at most six ``1`` s, known cards are real cards of that hand); the final scores and
every hand and trick view of the finished game agree with the rules. The driver checks that
``legal_actions`` is never empty while the game runs and that undo then redo restores the
state; ``tests/test_playouts.py`` that rebuilding the log twice gives the same state.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bench.playouts import FoolTable, Playout, play
from engine import fool
from engine.stream import Stream, advance, replay

OPTION_SETS = [
    ("4-players-defaults", 4, {}),
    ("5-players-two-fools-short", 5, {"fools_per_trick": 2, "hand_size": 5}),
    ("6-players-3-cards", 6, {"hand_size": 3}),
    ("7-players-defaults", 7, {}),
    ("8-players-defaults-two-fools", 8, {}),
]
#: ``(id, (fewest, most) players, options, visibility)`` of the games ``tests/test_playouts.py`` plays.
SETUPS = [
    (f"{name}-{visibility}", (players, players), options, visibility)
    for visibility in ("table", "open")
    for name, players, options in OPTION_SETS
]
#: ``bench.playouts.play`` arguments: one action in twenty undone and redone.
PLAY: dict[str, Any] = {"undo_rate": 0.05, "max_events": 20_000}


def check(game: Playout, legal: list[dict[str, Any]]) -> None:
    table: FoolTable = game.table  # type: ignore[assignment]
    conserved(game.stream, table.hands)


def conserved(stream: Stream, hands: list[list[str]]) -> None:
    """Cards are conserved: what the engine knows agrees with the real hands and the deck."""
    state: fool.State = stream.state
    rnd = state.round
    if rnd is None:
        return
    dealt = state.options.hand_size * len(state.names)
    played = [p.card for t in rnd.tricks for p in t.plays]
    assert sum(h.size for h in rnd.holdings) + len(played) == dealt
    known: list[str] = []
    for seat, holding in enumerate(rnd.holdings):
        assert holding.size == len(hands[seat])
        assert not Counter(holding.known) - Counter(hands[seat]), "a known card is not in the real hand"
        if state.visibility == "open":
            assert sorted(holding.known) == sorted(hands[seat])
        known.extend(holding.known)
    everything = Counter(played + known)
    assert everything[fool.WILD] <= fool.WILD_COPIES
    assert all(n == 1 for card, n in everything.items() if card != fool.WILD)
    assert rnd.seen == {c for c in everything if c != fool.WILD}
    assert rnd.wilds_seen == everything[fool.WILD]


def check_end(game: Playout, options: dict[str, Any]) -> None:
    """The winners, the end condition, the totals and every hand and trick view of the finished game."""
    state = game.state
    assert fool.status(state) == "finished", "the game did not end"
    view = fool.view(state, True)
    assert view["winners"] and view["to_act"] == []
    best = max(p["score"] for p in view["players"])
    assert sorted(view["winners"]) == sorted(p["name"] for p in view["players"] if p["score"] == best)
    assert min(p["score"] for p in view["players"]) <= fool.LOSING_TOTAL or max(
        p["tens"] for p in view["players"]
    ) >= fool.TENS_TO_WIN
    # every scored round's points add up with the adjustments to the totals
    for entry in view["players"]:
        adjusted = sum(a.amount for a in state.adjustments if state.names[a.seat] == entry["name"])
        assert sum(entry["round_scores"]) + adjusted == entry["score"]
    # every hand and trick view of the finished game can be built, publicly too
    for number in range(1, fool.hand_number(state) + 1):
        hand = fool.hand_view(state, number, False)
        assert hand is not None and "hands" in hand
        for t in range(1, len(hand["tricks"]) + 1):
            trick = fool.trick_view(state, number, t, False)
            assert trick is not None
            if trick["complete"]:
                assert len(trick["fools"]) == state.options.fools_per_trick
                assert trick["winner"] not in trick["fools"]
                assert trick["winner_reason"] and trick["fools_reason"]


def rebuilt(events: list[tuple[int, dict[str, Any]]]) -> Any:
    last = None
    for step in replay(fool, events):
        last = step.stream
    assert last is not None
    return last


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), cut=st.floats(0, 1))
def test_undo_back_to_any_point_then_redo_everything(seed: int, cut: float) -> None:
    """Undo a run of actions from a rebuilt stream, then redo them all: the state is the one before the undos."""
    game = play("fool", random.Random(seed), [f"P{i}" for i in range(4)], {"hand_size": 4}, "table")
    events = game.events[: max(2, int(len(game.events) * cut))]
    stream = rebuilt(events)
    target = stream.state
    steps = min(5, stream.version - 1)
    for _ in range(steps):
        stream = advance(stream, stream.version + 1, {"type": "undo"})
    for _ in range(steps):
        stream = advance(stream, stream.version + 1, {"type": "redo"})
    assert stream.state == target
