"""Stop the Bus read aloud: scenarios built from the rules text, with answers worked out by hand.

Every expectation here comes from ``../shared/spec/rules/stop_the_bus.md`` (section quoted in
each test; Brag's "Hand ranks" too), never from running the engine. The stop rule is also
checked against a second, deliberately plain reading of "Turns" and "Showdown" over many
seeded random rounds (:func:`_plain_stop_the_bus`).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import stop_the_bus as stb
from engine.brag import rank
from engine.core import RulesError
from engine.stream import Stream, advance, start

# --------------------------------------------------------------------------- Brag: "Hand ranks"


def stronger(a: str, b: str, prial_order: str = "aces_high", ace_low_run: str = "invalid") -> int:
    """1 if hand ``a`` beats ``b``, -1 if it loses, 0 if equal."""
    ka = rank(a.split(), prial_order, ace_low_run).key
    kb = rank(b.split(), prial_order, ace_low_run).key
    return (ka > kb) - (ka < kb)


@pytest.mark.parametrize(("ace_low_run", "category", "vs_qka", "vs_234"),
                         [("invalid", "high_card", -1, -1), ("top", "run", 1, 1), ("bottom", "run", -1, -1)])
def test_a23_under_each_ace_low_run(ace_low_run: str, category: str, vs_qka: int, vs_234: int) -> None:
    assert rank(["AS", "2D", "3H"], ace_low_run=ace_low_run).category == category
    assert stronger("AS 2D 3H", "QC KD AH", ace_low_run=ace_low_run) == vs_qka
    assert stronger("AS 2D 3H", "2C 3D 4H", ace_low_run=ace_low_run) == vs_234


@pytest.mark.parametrize("ace_low_run", ["invalid", "top", "bottom"])
def test_k_a_2_is_never_a_run_and_q_k_a_is_the_best_ordinary_run(ace_low_run: str) -> None:
    assert rank(["KS", "AD", "2H"], ace_low_run=ace_low_run).category == "high_card"
    assert rank(["KS", "AS", "2S"], ace_low_run=ace_low_run).category == "flush"
    assert stronger("QC KD AH", "JC QD KH", ace_low_run=ace_low_run) == 1
    assert stronger("2C 3D 4H", "AS KH QD", ace_low_run=ace_low_run) == -1  # 2-3-4 still a run


@pytest.mark.parametrize(("a", "b", "prial_order", "expected"), [
    ("3C 3D 3H", "AC AD AH", "aces_high", -1),
    ("3C 3D 3H", "AC AD AH", "threes_high", 1),
    ("2C 2D 2H", "AC AD AH", "threes_high", -1),
    ("2C 2D 2H", "AS KS QS", "aces_high", 1),       # the worst prial beats the best running flush
    ("2S 3S 4S", "AC KD QH", "aces_high", 1),       # running flush over run
    ("2C 3D 4H", "AS KS 9S", "aces_high", 1),       # run over flush
    ("2S 3S 5S", "AC AD KH", "aces_high", 1),       # flush over pair
    ("2C 2D 3H", "AS KD JH", "aces_high", 1),       # pair over high card
    ("8C 8D 2H", "7C 7D AH", "aces_high", 1),       # the pair first...
    ("8C 8D AH", "8S 8H KH", "aces_high", 1),       # ...then the odd card
    ("8C 8D AH", "8S 8H AS", "aces_high", 0),       # suits never break ties
    ("KS 9S 2S", "KH 8H 7H", "aces_high", 1),       # flushes: highest, then middle...
    ("KS 9S 3S", "KH 9H 2H", "aces_high", 1),       # ...then lowest
    ("AC 5D 2H", "KC QD 9S", "aces_high", 1),       # high card: highest first
    ("AC 5D 3H", "AD 5S 3C", "aces_high", 0),
])
def test_brag_comparisons(a: str, b: str, prial_order: str, expected: int) -> None:
    assert stronger(a, b, prial_order) == expected


# --------------------------------------------------------------------------- Stop the Bus helpers


def bus(players: list[str], dealer: str, visibility: str = "table", **options: Any) -> Stream:
    return start(stb, {"players": players, "options": stb.resolve_options(options, players),
                       "visibility": visibility, "dealer": dealer, "rules_version": stb.RULES_VERSION})


def record(stream: Stream, *lines: str) -> Stream:
    for line in lines:
        kind, *args = line.split()
        action: dict[str, Any]
        if kind == "deal":
            action = {"type": "deal", "centre": args}
        elif kind == "swap":
            action = {"type": "swap", "player": args[0], "take": args[1], "give": args[2]}
        elif kind == "show":
            action = {"type": "show", "player": args[0], "cards": args[1:]}
        else:
            action = {"type": kind, "player": args[0]}
        stream = advance(stream, stream.version + 1, action)
    return stream


def chips(stream: Stream) -> dict[str, int]:
    return {p["name"]: p["chips"] for p in stb.view(stream.state, True)["players"]}


#: Ann, Bob, Cas; Cas deals, Ann (left of Cas) stops at once, Bob and Cas take their last turn.
ROUND = ("deal QS 4H 9D", "stop Ann", "swap Bob QS 2C", "swap Cas 4H 3D")
#: Three hands of identical rank (Q-7-4 high card, different suits).
TIED = ("show Ann QC 7D 4S", "show Bob QS 7H 4D", "show Cas QD 7C 4H")


def test_tied_weakest_hands_all_lose_a_chip_and_the_deal_passes_left() -> None:
    stream = record(bus(["Ann", "Bob", "Cas"], "Cas", chips=2), *ROUND, *TIED)
    assert chips(stream) == {"Ann": 1, "Bob": 1, "Cas": 1}
    assert stb.view(stream.state, True)["next_dealer"] == "Ann"


@pytest.mark.parametrize(("all_out", "status", "winners", "left", "dealer"), [
    ("shared_win", "finished", ["Ann", "Bob", "Cas"], 0, None),
    ("replay_round", "in_progress", None, 1, "Cas"),  # no winners while in progress (api.md)
])
def test_last_players_all_out_at_once(all_out: str, status: str, winners: list[str] | None, left: int,
                                      dealer: str | None) -> None:
    stream = record(bus(["Ann", "Bob", "Cas"], "Cas", chips=1, all_out=all_out), *ROUND, *TIED)
    view = stb.view(stream.state, True)
    assert (view["status"], view.get("winners"), view["next_dealer"]) == (status, winners, dealer)
    assert set(chips(stream).values()) == {left}
    if all_out == "replay_round":
        stream = record(stream, "deal 2C 3C 4C")
        assert stb.view(stream.state, True)["round_number"] == 2
        assert stb.view(stream.state, True)["to_act"] == ["Ann"]


def test_eliminated_player_is_skipped_by_the_deal_and_the_turn() -> None:
    """Four seats, Cas deals, Dee (left of Cas) starts. Dee loses her only chip: the deal passes
    from Cas to the next player on the left still in (Ann, skipping Dee), and Bob starts."""
    stream = record(bus(["Ann", "Bob", "Cas", "Dee"], "Cas", chips=1),
                    "deal QS 4H 9D", "stop Dee", "swap Ann QS 2C", "swap Bob 4H 3D", "swap Cas 9D 5D",
                    "show Dee 2H 3S 5S", "show Ann QS 7H 4D", "show Bob 4H 7C 9C", "show Cas 9D AH AS")
    view = stb.view(stream.state, True)
    assert [p["out"] for p in view["players"]] == [False, False, False, True]
    assert view["next_dealer"] == "Ann"
    stream = record(stream, "deal 2C 3C 4C")
    assert stb.view(stream.state, True)["to_act"] == ["Bob"]
    assert stb.view(stream.state, True)["players"][3]["in_round"] is False


def test_winner_is_the_only_player_with_chips() -> None:
    stream = record(bus(["Ann", "Bob"], "Bob", chips=1), "deal QS 4H 9D", "stop Ann", "swap Bob QS 2C",
                    "show Ann 2H 3S 5D", "show Bob QS 7H 4D")
    view = stb.view(stream.state, True)
    assert (view["status"], view["winners"]) == ("finished", ["Bob"])


# --------------------------------------------------------------------------- Stop the Bus: a plain second reading


def _refused(stream: Stream, action: dict[str, Any]) -> str | None:
    try:
        stb.apply(stream.state, {**action, "seq": 10**6})
    except RulesError as err:
        return err.code
    return None


def _plain_stop_the_bus(seed: int) -> int:
    """Play random open games by hand from the rules text and check the engine agrees.

    "Turns": the player left of the dealer starts; clockwise over players still in; a stop is
    allowed to the player who just swapped (until the next player acts), and without a swap
    to the player whose turn it is per ``stop_without_swap``; after the stop everyone else in
    the round takes one turn from the stopper's left, nobody may stop. "Showdown": the weakest
    (ties all) lose a chip; ``all_out``; the deal passes left over players still in.
    Returns the number of winners.
    """
    rng = random.Random(seed)
    count = rng.randint(2, 6)
    names = [f"P{i}" for i in range(count)]
    opts = {"chips": rng.randint(1, 3), "allow_return": rng.random() < 0.5, "swap_all": rng.random() < 0.5,
            "stop_without_swap": rng.choice(["first_turn", "never", "always"]),
            "all_out": rng.choice(["shared_win", "replay_round"]),
            "prial_order": rng.choice(["aces_high", "threes_high"]),
            "ace_low_run": rng.choice(["invalid", "top", "bottom"])}
    dealer = rng.randrange(count)
    stream = bus(names, names[dealer], "open", **opts)

    def post(action: dict[str, Any]) -> None:
        nonlocal stream
        stream = advance(stream, stream.version + 1, action)

    held = [opts["chips"]] * count
    for _ in range(200):
        seated = [s for s in range(count) if held[s] > 0]
        assert stb.view(stream.state, True)["next_dealer"] == names[dealer]
        deck = list(stb.DECK)
        rng.shuffle(deck)
        centre = deck[:3]
        hands = {s: deck[3 + 3 * i: 6 + 3 * i] for i, s in enumerate(seated)}
        post({"type": "deal", "centre": centre, "hands": {names[s]: hands[s] for s in seated}})
        order = [s for s in ((dealer + i) % count for i in range(1, count + 1)) if s in seated]
        turns = dict.fromkeys(seated, 0)
        just_swapped: int | None = None
        stopper: int | None = None
        i = 0
        while stopper is None:
            now = order[i % len(order)]
            assert stb.to_act(stream.state) == [now]
            may = {just_swapped} if just_swapped is not None else set()
            rule = opts["stop_without_swap"]
            if rule == "always" or (rule == "first_turn" and turns[now] == 0):
                may.add(now)
            assert {s for s in seated if _refused(stream, {"type": "stop", "player": names[s]}) is None} == may
            if now in may and rng.random() < 0.15:
                post({"type": "stop", "player": names[now]})
                stopper = now
                break
            if opts["swap_all"] and rng.random() < 0.2:
                hands[now], centre = centre, hands[now]
                post({"type": "swap", "player": names[now], "take_all": True, "give": centre})
            else:
                t, g = rng.randrange(3), rng.randrange(3)
                take, give = centre[t], hands[now][g]
                back = _refused(stream, {"type": "swap", "player": names[now], "take": take, "give": take})
                assert back == (None if opts["allow_return"] else "return_not_allowed")
                hands[now][g], centre[t] = take, give
                post({"type": "swap", "player": names[now], "take": take, "give": give})
            turns[now] += 1
            just_swapped = now
            if rng.random() < 0.3:
                post({"type": "stop", "player": names[now]})
                stopper = now
            i += 1
        k = order.index(stopper)
        for j in range(1, len(order)):
            now = order[(k + j) % len(order)]
            assert stb.to_act(stream.state) == [now]
            assert _refused(stream, {"type": "stop", "player": names[now]}) == "stop_not_allowed"
            t, g = rng.randrange(3), rng.randrange(3)
            take, give = centre[t], hands[now][g]
            hands[now][g], centre[t] = take, give
            post({"type": "swap", "player": names[now], "take": take, "give": give})
        keys = {s: rank(hands[s], opts["prial_order"], opts["ace_low_run"]).key for s in seated}
        losers = [s for s in seated if keys[s] == min(keys.values())]
        after = [c - (s in losers) for s, c in enumerate(held)]
        survivors = [s for s in range(count) if after[s] > 0]
        state = stream.state
        if not survivors and opts["all_out"] == "replay_round":
            assert list(state.chips) == held  # nobody loses a chip, the same dealer deals again
            continue
        held = after
        assert list(state.chips) == held
        if len(survivors) <= 1:
            assert state.finished
            assert list(state.winners) == (survivors or losers)
            return len(state.winners)
        dealer = next(s for s in ((dealer + i) % count for i in range(1, count + 1)) if held[s] > 0)
    raise AssertionError(f"seed {seed}: no end in 200 rounds")


def test_stop_the_bus_agrees_with_a_plain_reading_of_the_rules() -> None:
    winners = [_plain_stop_the_bus(seed) for seed in range(300)]
    assert 1 in winners
