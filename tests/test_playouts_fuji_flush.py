"""Random complete games of Fuji Flush, checked against an independent simulation.

``bench.playouts.FujiFlushTable`` plays a real game with real shuffled cards (a second,
deliberately plain reading of ``../shared/spec/rules/fuji_flush.md``); the engine is fed only
what a scorekeeper records (plays; in open games the deal and ``draw`` events naming every
drawn card) and must agree with the simulation after every play and its draws: hand sizes,
table cards, pile sizes, whose turn it is and who won. Along the way the driver checks that
``legal_actions`` are never empty and offer the real cards (open) or none (table) and each
real draw, and that undo then redo restores the state; here, that cards are conserved and
that the finished game's views rebuild the same. ``tests/test_playouts.py`` plays the setups.
"""

from __future__ import annotations

import sys
from collections import Counter
from typing import Any

from bench.playouts import FujiFlushTable, Playout
from engine import fuji_flush as ff
from tests.conftest import checked_playout, rebuilt
from tests.test_engine_fuji_flush import conserved

SMALL_DECK = {"2": 8, "3": 6, "5": 4, "9": 3, "13": 2, "20": 1}
OPTION_SETS = [
    ("defaults", {}),
    ("3-cards", {"hand_size": 3}),
    ("small-deck", {"hand_size": 2, "deck": SMALL_DECK}),
    ("1-card", {"hand_size": 1}),
    ("powers-of-2", {"deck": {"2": 30, "4": 15, "8": 10, "16": 5}, "hand_size": 4}),
]
#: ``(id, (fewest, most) players, options, visibility)`` of the games ``tests/test_playouts.py`` plays.
SETUPS = [(f"{visibility}-{name}", (3, 8), options, visibility) for visibility in ("table", "open") for name, options in OPTION_SETS]
#: ``bench.playouts.play`` arguments: about one action in seven undone and redone; a game
#: longer than this counts as not ending (random games take 30-250 plays).
PLAY: dict[str, Any] = {"undo_rate": 0.15, "max_events": 6000}


def check(game: Playout, legal: list[dict[str, Any]]) -> None:
    """Once a play's draws are all recorded: the engine agrees with the real table, cards are conserved."""
    table: FujiFlushTable = game.table  # type: ignore[assignment]
    state: ff.State = game.state
    if not state.dealt or table.pending:
        return
    check_agrees(state, table, full=True)
    conserved(state)


def check_agrees(state: ff.State, real: FujiFlushTable, full: bool) -> None:
    view = ff.view(state, full)
    assert [p["hand_size"] for p in view["players"]] == [len(h) for h in real.hands]
    assert [p["table_card"] for p in view["players"]] == real.table
    assert view["draw_pile_size"] == len(real.pile)
    assert view["discard_size"] == len(real.discard)
    if real.winners:
        assert view["status"] == "finished" and view["to_act"] == []
        assert view["winners"] == [state.names[s] for s in real.winners]
    else:
        assert view["status"] == "in_progress" and view["to_act"] == [state.names[real.active]]
    if full and state.visibility == "open" and not real.winners:  # every drawn card was named: the engine knows every hand
        assert [sorted(p["cards_known"]) for p in view["players"]] == [sorted(h) for h in real.hands]


def check_end(game: Playout, options: dict[str, Any]) -> None:
    """The game ended with the real winners; the physical cards are all there; views rebuild the same."""
    real: FujiFlushTable = game.table  # type: ignore[assignment]
    state: ff.State = game.state
    assert real.winners, "the game does not end"
    assert ff.status(state) == "finished" and ff.legal_actions(state, True) == []
    assert state.winners
    deck = game.created["options"]["deck"]
    physical = sum(len(h) for h in real.hands) + len(real.pile) + len(real.discard) + sum(c is not None for c in real.table)
    assert physical == sum(deck.values())
    assert Counter(c for h in real.hands for c in h) + Counter(real.pile) + Counter(real.discard) + Counter(
        c for c in real.table if c is not None) == Counter({int(v): n for v, n in deck.items()})
    again = rebuilt(game)
    assert ff.view(again, True) == ff.view(state, True)
    assert ff.hand_view(again, 1, False) == ff.hand_view(state, 1, False)


def play_game(seed: int, seats: int, visibility: str, options: dict[str, Any]) -> ff.State:
    """One random game of ``seats`` players, checked all the way; its final state."""
    final: ff.State = checked_playout(sys.modules[__name__], "fuji_flush", seed, (seats, seats), options, visibility).state
    return final


def test_published_deck_every_table_size() -> None:
    for seats in range(3, 9):
        for visibility in ("table", "open"):
            play_game(seats * 101, seats, visibility, {})


def test_playouts_reach_the_rare_cases() -> None:
    """Seeded games that reshuffle the discard and end with several winners at once."""
    finals = [play_game(seed, 3 + seed % 6, "table", OPTION_SETS[seed % len(OPTION_SETS)][1]) for seed in range(60)]
    assert any(state.reshuffles > 0 for state in finals)
    assert any(len(state.winners) > 1 for state in finals)
    assert any(turn.pushed is not None and len(turn.pushed.seats) > 1 for state in finals for turn in ff._items(state.turns))
