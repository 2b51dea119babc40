"""Random complete Stop the Bus games (``bench.playouts``, run by ``tests/test_playouts.py``).

Each game is dealt from a shuffled deck and recorded as a scorekeeper would (table games
name no dealt cards and show the real ones). Properties: the game ends; cards are conserved
at every step (what the engine knows agrees with the table); a random action is either
applied or refused with a rules code, never a crash; the public views can be built at every
step; every round of the finished game has its result. The driver checks that legal_actions
is never empty while the game runs and that undo then redo restores the state;
``tests/test_playouts.py`` that rebuilding the log twice gives the same state.
"""

from __future__ import annotations

import random
from typing import Any

from bench.playouts import Playout, StopTheBusTable
from engine import stop_the_bus as stb
from engine.core import RulesError

OPTION_SETS = [
    ("defaults", {}),
    ("1-chip", {"chips": 1}),
    ("swap-all-return-always-replay",
     {"chips": 2, "swap_all": True, "allow_return": True, "stop_without_swap": "always", "all_out": "replay_round"}),
    ("never-threes-high-top", {"stop_without_swap": "never", "prial_order": "threes_high", "ace_low_run": "top"}),
    ("swap-all-bottom-replay", {"chips": 2, "swap_all": True, "ace_low_run": "bottom", "all_out": "replay_round"}),
]
#: ``(id, (fewest, most) players, options, visibility)`` of the games ``tests/test_playouts.py`` plays.
SETUPS = [(f"{visibility}-{name}", (2, 10), options, visibility) for visibility in ("table", "open") for name, options in OPTION_SETS]
#: ``bench.playouts.play`` arguments: rulings and undos now and then; a game longer than this does not end.
PLAY: dict[str, Any] = {"stop_chance": 0.35, "adjust_chance": 0.02, "undo_rate": 0.03, "max_events": 4000}
CODES = {"not_your_turn", "card_not_available", "stop_not_allowed", "return_not_allowed", "swap_all_not_allowed",
         "wrong_card_count", "wrong_dealer", "wrong_phase", "game_over", "hand_over"}


def check(game: Playout, legal: list[dict[str, Any]]) -> None:
    table: StopTheBusTable = game.table  # type: ignore[assignment]
    state: stb.State = game.state
    check_conservation(state, table)
    try_junk(table.rng, state, table.players)
    stb.view(state, False)
    stb.hand_view(state, stb.hand_number(state), False)


def check_conservation(state: stb.State, table: StopTheBusTable) -> None:
    """What the engine knows of the round agrees with the physical table."""
    rnd = state.round
    if rnd is None:
        return
    assert list(rnd.centre) == table.centre
    assert len(set(rnd.centre)) == 3
    placed = set(rnd.centre)
    for seat in rnd.players:
        if not rnd.in_round[seat]:
            continue
        holding = rnd.holdings[seat]
        truth = set(table.hands[state.names[seat]])
        assert holding.size == 3
        assert holding.public <= holding.known <= truth
        if state.visibility == "open":
            assert holding.known == truth
        assert not placed & holding.known
        placed |= holding.known
    assert all(chips >= 0 for chips in state.chips)


def try_junk(rng: random.Random, state: stb.State, players: list[str]) -> None:
    """A random action is either applied or refused with a RulesError, never a crash."""
    kind = rng.choice(["deal", "swap", "swap_all", "stop", "show", "adjust"])
    cards = rng.sample(stb.DECK, 3)
    junk: dict[str, Any] = {"type": kind, "player": rng.choice(players), "seq": 999}
    if kind == "deal":
        junk = {"type": "deal", "centre": cards}
    elif kind == "swap":
        junk.update(take=cards[0], give=cards[1])
    elif kind == "swap_all":
        junk.update(type="swap", take_all=True, give=cards)
    elif kind == "show":
        junk["cards"] = cards
    elif kind == "adjust":
        junk.update(amount=rng.randint(-3, 3), reason="junk")
    try:
        stb.apply(state, junk)
    except RulesError as error:
        assert error.code in CODES, error.code


def check_end(game: Playout, options: dict[str, Any]) -> None:
    """The game ended with winners, and every round has its result."""
    state: stb.State = game.state
    assert stb.status(state) == "finished", "the game did not end"
    assert stb.legal_actions(state, True) == []
    assert stb.view(state, False)["winners"]
    for number in range(1, stb.hand_number(state) + 1):
        hand = stb.hand_view(state, number, False)
        assert hand is not None and hand["result"] is not None
