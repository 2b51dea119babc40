"""Random complete Stop the Bus games played from ``legal_actions`` (hypothesis).

Each game is dealt from a shuffled deck and recorded as a scorekeeper would (table games
name no dealt cards and show the real ones). Properties: the game ends; legal_actions is
never empty while it runs; cards are conserved (what the engine knows agrees with the
table); undo then redo restores the state; rebuilding the log twice gives the same state.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.stop_the_bus_games import PLAYERS, Table, choose_action, created
from engine import stop_the_bus as stb
from engine.core import RulesError
from engine.stream import Stream, advance, replay, start

OPTION_SETS = [
    {},
    {"chips": 1},
    {"chips": 2, "swap_all": True, "allow_return": True, "stop_without_swap": "always", "all_out": "replay_round"},
    {"stop_without_swap": "never", "prial_order": "threes_high", "ace_low_run": "top"},
    {"chips": 2, "swap_all": True, "ace_low_run": "bottom", "all_out": "replay_round"},
]
MAX_EVENTS = 4000
CODES = {"not_your_turn", "card_not_available", "stop_not_allowed", "return_not_allowed", "swap_all_not_allowed",
         "wrong_card_count", "wrong_dealer", "wrong_phase", "game_over", "hand_over"}


def check_conservation(state: stb.State, table: Table) -> None:
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


def undo_redo_restores(stream: Stream) -> None:
    undone = advance(stream, stream.version + 1, {"type": "undo"})
    redone = advance(undone, undone.version + 1, {"type": "redo"})
    assert redone.state == stream.state


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


def play_out(rng: random.Random, players: list[str], options: dict[str, Any], visibility: str,
             adjust_chance: float) -> tuple[dict[str, Any], list[dict[str, Any]], Stream]:
    data = created(players, options, visibility)
    stream = start(stb, data)
    table = Table()
    actions: list[dict[str, Any]] = []
    while stb.status(stream.state) == "in_progress":
        assert len(actions) < MAX_EVENTS, "the game did not end"
        legal = stb.legal_actions(stream.state, True)
        assert legal, f"nothing can be recorded in phase {stb.view(stream.state, True)['phase']}"
        if adjust_chance and rng.random() < adjust_chance:
            action = {"type": "adjust", "player": rng.choice(players), "amount": rng.choice([-1, 1]), "reason": "ruling"}
        else:
            action = choose_action(rng, stream.state, legal, table, data["options"], visibility, 0.35)
        stream = advance(stream, stream.version + 1, action)
        actions.append(action)
        check_conservation(stream.state, table)
        undo_redo_restores(stream)
        try_junk(rng, stream.state, players)
        stb.view(stream.state, False)
        stb.hand_view(stream.state, stb.hand_number(stream.state), False)
    assert stb.legal_actions(stream.state, True) == []
    assert stb.view(stream.state, False)["winners"]
    return data, actions, stream


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rng=st.randoms(use_true_random=False),
    count=st.integers(min_value=2, max_value=10),
    options=st.sampled_from(OPTION_SETS),
    visibility=st.sampled_from(["table", "open"]),
    adjust_chance=st.sampled_from([0.0, 0.02]),
)
def test_random_games(rng: random.Random, count: int, options: dict[str, Any], visibility: str,
                      adjust_chance: float) -> None:
    players = PLAYERS[:count]
    data, actions, stream = play_out(rng, players, options, visibility, adjust_chance)
    log = [(1, {"type": "game_created", **data})] + [(seq, a) for seq, a in enumerate(actions, start=2)]
    first = list(replay(stb, log))[-1].stream.state
    second = list(replay(stb, log))[-1].stream.state
    assert first == second == stream.state
    for number in range(1, stb.hand_number(stream.state) + 1):
        hand = stb.hand_view(stream.state, number, False)
        assert hand is not None and hand["result"] is not None
