"""Fuji Flush read aloud: scenarios built from the rules text, with answers worked out by hand.

Every expectation here comes from ``../shared/spec/rules/fuji_flush.md`` (section quoted in
each test), never from running the engine.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine import fuji_flush as ff
from engine.core import OptionError, RulesError
from engine.stream import Stream, advance, start

# --------------------------------------------------------------------------- Fuji Flush helpers


def fuji(hands: dict[str, list[int]], first: str | None = None, deck: dict[str, int] | None = None) -> Stream:
    """An open game dealt ``hands`` (hand size from them), ``first`` to play."""
    names = list(hands)
    options: dict[str, Any] = {"hand_size": len(next(iter(hands.values())))}
    if deck is not None:
        options["deck"] = deck
    stream = start(ff, {"players": names, "options": ff.resolve_options(options, names), "visibility": "open",
                        "first_player": first or names[0], "rules_version": ff.RULES_VERSION})
    return advance(stream, 2, {"type": "deal", "hands": hands})


def plays(stream: Stream, moves: str) -> Stream:
    """``"Ann 6, Bob 8"``: each a recorded ``play``."""
    for move in moves.split(","):
        name, card = move.split()
        stream = advance(stream, stream.version + 1, {"type": "play", "player": name, "card": int(card)})
    return stream


def table(stream: Stream) -> dict[str, int | None]:
    return {p["name"]: p["table_card"] for p in ff.view(stream.state, True)["players"]}


def turn(stream: Stream) -> dict[str, Any]:
    last: dict[str, Any] = ff.view(stream.state, True)["turns"][-1]
    return last


# --------------------------------------------------------------------------- Fuji Flush: "A turn", 4


def test_a_card_equal_to_a_groups_total_stays_alone_and_the_group_keeps_its_number() -> None:
    """Two 2s total 4; a 4 does not join them (its own group, strength 4 = 4: nothing). A third
    2 then joins the 2s by printed number (strength 6) and flushes the lone 4 ("A turn", 4)."""
    stream = fuji({"Ann": [2, 9], "Bob": [2, 9], "Cas": [4, 9], "Dee": [2, 9]})
    stream = plays(stream, "Ann 2, Bob 2, Cas 4")
    groups = ff.view(stream.state, True)["groups"]
    assert groups == [{"number": 2, "players": ["Ann", "Bob"], "strength": 4},
                      {"number": 4, "players": ["Cas"], "strength": 4}]
    assert turn(stream)["flushed"] == [] and turn(stream)["joined"] is None
    stream = plays(stream, "Dee 2")
    assert turn(stream)["joined"] == {"number": 2, "players": ["Ann", "Bob"], "strength": 4}
    assert turn(stream)["flushed"] == ["Cas"]
    # Then Ann's turn began: her 2 survived a round, and its whole group goes with it.
    assert turn(stream)["pushed_through"] == {"number": 2, "players": ["Ann", "Bob", "Dee"], "strength": 6}
    assert table(stream) == {"Ann": None, "Bob": None, "Cas": None, "Dee": None}


def test_only_the_new_cards_group_flushes_and_old_cards_never_flush_a_lower_new_card() -> None:
    """Ann's 10 is on the table; Bob's lower 3 stays (old cards flush nothing). Cas's 4 flushes
    the weaker 3 but not the stronger 10; Dee's 2 (weaker than everything) flushes nothing."""
    stream = fuji({"Ann": [10, 9], "Bob": [3, 9], "Cas": [4, 9], "Dee": [2, 9]})
    stream = plays(stream, "Ann 10, Bob 3")
    assert table(stream) == {"Ann": 10, "Bob": 3, "Cas": None, "Dee": None}
    stream = plays(stream, "Cas 4")
    assert turn(stream)["flushed"] == ["Bob"]
    stream = plays(stream, "Dee 2")
    assert turn(stream)["flushed"] == []
    # Ann's turn began: her 10 survived a full round and was pushed through alone.
    assert table(stream) == {"Ann": None, "Bob": None, "Cas": 4, "Dee": 2}
    assert turn(stream)["pushed_through"] == {"number": 10, "players": ["Ann"], "strength": 10}


def test_flushed_players_draw_in_turn_order_from_the_active_players_left() -> None:
    """Five seats; Cas's 6 flushes Eve's 5 and the 2s of Ann and Bob (strength 4); Dee's 20 is
    stronger. Draws: left of Cas is Dee (not flushed), then Eve, Ann, Bob."""
    hands = {"Ann": [2, 9], "Bob": [2, 9], "Cas": [6, 9], "Dee": [20, 9], "Eve": [5, 8]}
    stream = fuji(hands, first="Dee")
    pile = stream.state.draw_pile
    stream = plays(stream, "Dee 20, Eve 5, Ann 2, Bob 2, Cas 6")
    assert turn(stream)["flushed"] == ["Eve", "Ann", "Bob"]
    assert turn(stream)["drew"] == ["Eve", "Ann", "Bob"]
    assert stream.state.draw_pile == pile - 3
    # Then Dee's turn began: the 20 is pushed through, nobody draws for it.
    assert turn(stream)["pushed_through"] == {"number": 20, "players": ["Dee"], "strength": 20}
    assert [p["drawn"] for p in ff.view(stream.state, True)["players"]] == [1, 1, 0, 0, 1]
    assert stream.state.discard_size == 4  # 5, 2, 2 flushed and 20 pushed


# --------------------------------------------------------------------------- Fuji Flush: "A turn", 1-2


def test_push_through_takes_the_whole_group_nobody_draws_and_everyone_empty_wins_at_once() -> None:
    """One card each. Bob's 5 joins Ann's; the 2s of Cas and Dee are weaker. At the start of
    Ann's turn the 5s of Ann *and* Bob are pushed through (each counts one), nobody draws, and
    both win at once: Bob during Ann's turn. Cas and Dee still have a card on the table."""
    stream = fuji({"Ann": [5], "Bob": [5], "Cas": [2], "Dee": [2]})
    pile = stream.state.draw_pile
    stream = plays(stream, "Ann 5, Bob 5, Cas 2, Dee 2")
    view = ff.view(stream.state, True)
    assert view["status"] == "finished"
    assert view["winners"] == ["Ann", "Bob"]
    assert [p["pushed_through"] for p in view["players"]] == [1, 1, 0, 0]
    assert [p["drawn"] for p in view["players"]] == [0, 0, 0, 0]
    assert stream.state.draw_pile == pile
    assert table(stream) == {"Ann": None, "Bob": None, "Cas": 2, "Dee": 2}


def test_a_group_joined_just_before_its_owners_turn_is_pushed_through_whole() -> None:
    """Dee's 7 joins Ann's 7 on the turn before Ann's: at the start of Ann's turn the group (both
    7s) is pushed through; Dee's card goes too although it lay for one turn only ("A turn", 1)."""
    stream = fuji({"Ann": [7, 9], "Bob": [2, 9], "Cas": [3, 9], "Dee": [7, 9]})
    stream = plays(stream, "Ann 7, Bob 2, Cas 3, Dee 7")
    assert turn(stream)["pushed_through"] == {"number": 7, "players": ["Ann", "Dee"], "strength": 14}
    assert [p["pushed_through"] for p in ff.view(stream.state, True)["players"]] == [1, 0, 0, 1]
    assert ff.view(stream.state, True)["to_act"] == ["Ann"]


def test_a_draw_from_an_empty_pile_reshuffles_the_discard_with_the_cards_just_flushed() -> None:
    """A six-card deck dealt out: the draw pile is empty. Bob's 3 flushes Ann's 2, which goes to
    the discard *before* Ann draws, so the discard (just that 2) becomes the new pile and Ann
    draws it."""
    deck = {"2": 1, "3": 1, "4": 1, "5": 1, "6": 1, "7": 1}
    stream = fuji({"Ann": [2, 5], "Bob": [3, 6], "Cas": [4, 7]}, deck=deck)
    assert stream.state.draw_pile == 0
    stream = plays(stream, "Ann 2, Bob 3")
    assert turn(stream)["drew"] == ["Ann"] and turn(stream)["reshuffled"] is True
    assert (stream.state.draw_pile, stream.state.discard_size) == (0, 0)
    assert ff.unplaced(stream.state, 2) == 1  # the 2 is Ann's unknown drawn card now
    assert stream.state.holdings[0].size == 2


# --------------------------------------------------------------------------- Fuji Flush: "Setup", "Cards"


@pytest.mark.parametrize(("count", "size"), [(3, 6), (4, 6), (5, 6), (6, 6), (7, 5), (8, 5)])
def test_hand_size_default_by_player_count(count: int, size: int) -> None:
    players = [f"P{i}" for i in range(count)]
    resolved = ff.resolve_options({}, players)
    assert resolved["hand_size"] == size
    assert sum(resolved["deck"].values()) == 90
    assert resolved["deck"]["2"] == 16 and resolved["deck"]["20"] == 1


@pytest.mark.parametrize("deck", [{"1": 30}, {"21": 30}, {"2": 0, "3": 30}, {"2": -1, "3": 30}, {"2": 1.5, "3": 30},
                                  {"2": True, "3": 30}, [30], {"x": 30}, {"2": 10}])
def test_bad_deck_option_is_refused(deck: object) -> None:
    with pytest.raises(OptionError) as info:
        ff.resolve_options({"deck": deck}, ["Ann", "Bob", "Cas"])
    assert info.value.field == "deck"


def test_deck_option_replaces_the_whole_deck() -> None:
    resolved = ff.resolve_options({"deck": {"5": 30}}, ["Ann", "Bob", "Cas"])
    assert resolved["deck"] == {"5": 30}
    state = ff.apply(ff.initial_state({"players": ["Ann", "Bob", "Cas"], "options": resolved}), {"type": "deal"})
    assert state.draw_pile == 30 - 18
    with pytest.raises(RulesError):
        ff.apply(state, {"type": "play", "player": "Ann", "card": 2})  # no 2 in this deck
