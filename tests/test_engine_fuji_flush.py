"""Fuji Flush engine tests: no Flask, no database (``../shared/spec/rules/fuji_flush.md``).

Most tests are tables: a deal, some plays, and what the rules say must follow. Open games
let a test fix every hand; table games check conservation without known hands.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from marshmallow import ValidationError

from engine import fuji_flush as ff
from engine.core import OptionError, RulesError
from engine.stream import Stream, advance, start
from schemas import fuji_flush as shapes

FOUR = ["Ann", "Bob", "Cas", "Dee"]


# --------------------------------------------------------------------------- helpers


def new_game(
    hands: Mapping[str, list[int]] | None = None,
    *,
    players: list[str] | None = None,
    first: str | None = None,
    options: Mapping[str, Any] | None = None,
    visibility: str | None = None,
) -> ff.State:
    """A dealt game: ``hands`` makes an open game with those hands (hand size from them)."""
    players = list(hands) if hands is not None else (players or FOUR)
    opts = dict(options or {})
    if hands is not None:
        opts.setdefault("hand_size", len(next(iter(hands.values()))))
    visibility = visibility or ("open" if hands is not None else "table")
    created = {
        "players": players,
        "options": ff.resolve_options(opts, players),
        "visibility": visibility,
        "first_player": first or players[0],
        "rules_version": ff.RULES_VERSION,
    }
    state = ff.initial_state(created)
    deal: dict[str, Any] = {"type": "deal", "seq": 2}
    if hands is not None and visibility == "open":
        deal["hands"] = {name: list(cards) for name, cards in hands.items()}
    return ff.apply(state, deal)


def play(state: ff.State, *moves: tuple[str, int]) -> ff.State:
    """Apply ``(player, card)`` plays in order (seqs continue from the last turn)."""
    for name, card in moves:
        seq = 3 + (state.turns.size if state.turns is not None else 0) + (state.named.size if state.named else 0)
        state = ff.apply(state, {"type": "play", "player": name, "card": card, "seq": seq})
    return state


def parse(moves: str) -> list[tuple[str, int]]:
    """``"Ann 6, Bob 8"`` -> ``[("Ann", 6), ("Bob", 8)]``."""
    out = []
    for move in moves.split(","):
        name, card = move.split()
        out.append((name, int(card)))
    return out


def player(state: ff.State, name: str, full: bool = True) -> dict[str, Any]:
    entry: dict[str, Any] = next(p for p in ff.view(state, full)["players"] if p["name"] == name)
    return entry


def last_turn(state: ff.State) -> dict[str, Any]:
    turns: list[dict[str, Any]] = ff.view(state, True)["turns"]
    return turns[-1]


def refusal(state: ff.State, action: dict[str, Any]) -> RulesError:
    with pytest.raises(RulesError) as info:
        ff.apply(state, action)
    return info.value


def conserved(state: ff.State) -> None:
    """Every card is somewhere: hands + table + draw pile + discard = the deck."""
    hands = sum(h.size for h in state.holdings)
    table = sum(1 for c in state.table if c is not None)
    assert hands + table + state.draw_pile + state.discard_size == state.options.deck_size
    for value in range(ff.LOW, ff.HIGH + 1):
        located = sum(h.known.count(value) for h in state.holdings) + state.table.count(value) + state.discard[value]
        assert located == state.seen[value] <= state.options.deck[value]


# --------------------------------------------------------------------------- cards


@pytest.mark.parametrize(
    ("value", "card"),
    [(2, 2), (20, 20), (14, 14), ("14", 14), (" 7 ", 7), ("07", 7), ("2", 2)],
    ids=["int-low", "int-high", "int-mid", "digit-string", "spaces", "leading-zero", "string-low"],
)
def test_parse_card_accepts(value: object, card: int) -> None:
    assert ff.parse_card(value) == card
    assert shapes.parse_card(value) == card


@pytest.mark.parametrize(
    "value",
    [1, 21, 0, -3, True, False, 7.0, 7.5, "7.0", "seven", "", " ", "+7", "-7", None, [7], {"7": 1}, "１４", "99999"],
    ids=["one", "twenty-one", "zero", "negative", "true", "false", "float", "half", "float-string", "word",
         "empty", "space", "plus", "minus", "none", "list", "dict", "fullwidth-digits", "huge"],
)
def test_parse_card_refuses(value: object) -> None:
    with pytest.raises(ValueError):
        ff.parse_card(value)


def test_published_deck_has_90_cards() -> None:
    assert sum(ff.PUBLISHED_DECK.values()) == 90
    assert sorted(ff.PUBLISHED_DECK) == list(range(2, 21))


# --------------------------------------------------------------------------- options


@pytest.mark.parametrize(("count", "size"), [(3, 6), (4, 6), (5, 6), (6, 6), (7, 5), (8, 5)], ids=lambda v: str(v))
def test_default_hand_size(count: int, size: int) -> None:
    players = [f"P{i}" for i in range(count)]
    resolved = ff.resolve_options({}, players)
    assert resolved["hand_size"] == size
    assert resolved["deck"] == {str(v): c for v, c in ff.PUBLISHED_DECK.items()}


@pytest.mark.parametrize(
    ("raw", "count", "expected"),
    [
        ({"hand_size": 4}, 4, {"hand_size": 4}),
        ({"hand_size": 22}, 4, {"hand_size": 22}),
        ({"deck": {"3": 10, "2": 10}}, 3, {"deck": {"2": 10, "3": 10}, "hand_size": 6}),
        ({"deck": {" 5": 18}}, 3, {"deck": {"5": 18}}),
        ({"deck": {"2": 16, "3": 12, "4": 9}, "hand_size": 5}, 7, {"deck": {"2": 16, "3": 12, "4": 9}}),
        ({"deck": None}, 3, {"deck": {str(v): c for v, c in ff.PUBLISHED_DECK.items()}}),
    ],
    ids=["hand-size", "hand-size-large", "deck-sorted", "deck-key-trimmed", "deck-exactly-enough-7p", "deck-null-default"],
)
def test_resolve_options(raw: dict[str, Any], count: int, expected: dict[str, Any]) -> None:
    players = [f"P{i}" for i in range(count)]
    resolved = ff.resolve_options(raw, players)
    for key, value in expected.items():
        assert resolved[key] == value
    assert ff.resolve_options(resolved, players) == resolved  # idempotent: game_created holds resolved options


@pytest.mark.parametrize(
    ("raw", "count", "field"),
    [
        ({}, 2, "players"),
        ({}, 9, "players"),
        ({"limit": 10}, 4, "limit"),
        ({"hand_size": 0}, 4, "hand_size"),
        ({"hand_size": 31}, 4, "hand_size"),
        ({"hand_size": True}, 4, "hand_size"),
        ({"hand_size": "6"}, 4, "hand_size"),
        ({"hand_size": 23}, 4, "deck"),
        ({"deck": {"1": 40}}, 3, "deck"),
        ({"deck": {"21": 40}}, 3, "deck"),
        ({"deck": {"x": 40}}, 3, "deck"),
        ({"deck": {"2": 0, "3": 40}}, 3, "deck"),
        ({"deck": {"2": -1, "3": 40}}, 3, "deck"),
        ({"deck": {"2": 1.5, "3": 40}}, 3, "deck"),
        ({"deck": {"2": True, "3": 40}}, 3, "deck"),
        ({"deck": {"2": 1000}}, 3, "deck"),
        ({"deck": {"7": 20, "07": 20}}, 3, "deck"),
        ({"deck": {"2": 17}}, 3, "deck"),
        ({"deck": {}}, 3, "deck"),
        ({"deck": [2, 3]}, 3, "deck"),
    ],
    ids=["two-players", "nine-players", "unknown-option", "hand-size-0", "hand-size-31", "hand-size-bool",
         "hand-size-string", "published-deck-too-small", "value-1", "value-21", "value-word", "copies-0",
         "copies-negative", "copies-float", "copies-bool", "copies-huge", "value-twice", "deck-too-small",
         "deck-empty", "deck-not-object"],
)
def test_resolve_options_refuses(raw: dict[str, Any], count: int, field: str) -> None:
    with pytest.raises(OptionError) as info:
        ff.resolve_options(raw, [f"P{i}" for i in range(count)])
    assert info.value.field == field


@pytest.mark.parametrize(
    ("created", "field"),
    [
        ({"first_player": "Zed"}, "first_player"),
        ({"dealer": "Ann"}, "dealer"),
        ({"rules_version": 99}, "rules_version"),
    ],
    ids=["first-player-not-seated", "dealer-given", "unknown-rules-version"],
)
def test_initial_state_refuses(created: dict[str, Any], field: str) -> None:
    base = {"players": FOUR, "options": {}, "visibility": "table"}
    with pytest.raises(OptionError) as info:
        ff.initial_state({**base, **created})
    assert info.value.field == field


def test_first_player_defaults_to_first_seat() -> None:
    state = ff.apply(ff.initial_state({"players": FOUR, "options": {}}), {"type": "deal", "seq": 2})
    assert ff.view(state, True)["to_act"] == ["Ann"]
    assert ff.view(state, True)["first_player"] == "Ann"


def test_first_player_starts() -> None:
    state = new_game(first="Cas")
    assert ff.view(state, True)["to_act"] == ["Cas"]
    state = play(state, ("Cas", 5))
    assert ff.view(state, True)["to_act"] == ["Dee"]
    state = play(state, ("Dee", 4))
    assert ff.view(state, True)["to_act"] == ["Ann"]


# --------------------------------------------------------------------------- the deal


@pytest.mark.parametrize(
    ("count", "options", "hand_size", "pile"),
    [(3, {}, 6, 72), (4, {}, 6, 66), (6, {}, 6, 54), (7, {}, 5, 55), (8, {}, 5, 50),
     (4, {"hand_size": 3}, 3, 78), (3, {"deck": {"2": 20}, "hand_size": 2}, 2, 14)],
    ids=["3p", "4p", "6p", "7p", "8p", "hand-size-3", "custom-deck"],
)
def test_deal_table(count: int, options: dict[str, Any], hand_size: int, pile: int) -> None:
    state = new_game(players=[f"P{i}" for i in range(count)], options=options)
    view = ff.view(state, False)
    assert view["phase"] == "playing"
    assert view["draw_pile_size"] == pile
    assert view["discard_size"] == 0
    assert all(p["hand_size"] == hand_size and p["table_card"] is None for p in view["players"])
    assert all(p["pushed_through"] == 0 and p["drawn"] == 0 for p in view["players"])
    conserved(state)


def test_deal_open_knows_the_hands() -> None:
    hands = {"Ann": [2, 20], "Bob": [3, 3], "Cas": [15, 15]}
    state = new_game(hands)
    assert player(state, "Bob")["cards_known"] == [3, 3]
    assert "cards_known" not in player(state, "Bob", full=False)
    assert ff.unplaced(state, 15) == 0 and ff.unplaced(state, 20) == 0 and ff.unplaced(state, 3) == 10
    conserved(state)


OPEN = {"Ann": [2, 20], "Bob": [3, 3], "Cas": [15, 15]}


@pytest.mark.parametrize(
    ("hands", "code"),
    [
        ({"Ann": [2, 20], "Bob": [3, 3]}, "wrong_card_count"),
        ({"Ann": [2, 20], "Bob": [3, 3], "Cas": [15]}, "wrong_card_count"),
        ({"Ann": [2, 20], "Bob": [3, 3], "Cas": [15, 15, 2]}, "wrong_card_count"),
        ({"Ann": [2, 20], "Bob": [3, 20], "Cas": [15, 4]}, "card_not_available"),
        ({"Ann": [15, 20], "Bob": [3, 15], "Cas": [15, 4]}, "card_not_available"),
        (None, "wrong_card_count"),
    ],
    ids=["player-missing", "too-few", "too-many", "second-20", "third-15", "no-hands"],
)
def test_open_deal_refused(hands: dict[str, list[int]] | None, code: str) -> None:
    created = {"players": list(OPEN), "options": {"hand_size": 2}, "visibility": "open"}
    state = ff.initial_state(created)
    action: dict[str, Any] = {"type": "deal"}
    if hands is not None:
        action["hands"] = hands
    assert refusal(state, action).code == code


def test_open_deal_within_a_custom_deck() -> None:
    created = {"players": ["A", "B", "C"], "options": {"hand_size": 1, "deck": {"13": 3}}, "visibility": "open"}
    state = ff.initial_state(created)
    assert refusal(state, {"type": "deal", "hands": {"A": [2], "B": [13], "C": [13]}}).code == "card_not_available"
    state = ff.apply(state, {"type": "deal", "hands": {"A": [13], "B": [13], "C": [13]}})
    assert ff.view(state, True)["draw_pile_size"] == 0


# --------------------------------------------------------------------------- a turn: groups, flushes, draws

H = {"Ann": [2, 3, 4], "Bob": [5, 6, 7], "Cas": [8, 9, 10], "Dee": [11, 12, 13]}

#: (moves, hands, first player, expected table after, flushed players of the last turn in draw order)
TURN_CASES = [
    pytest.param("Ann 6, Bob 8", {"Ann": [6, 2], "Bob": [8, 2], "Cas": [3, 4]}, None,
                 {"Ann": None, "Bob": 8}, ["Ann"], id="higher-card-flushes-lower"),
    pytest.param("Ann 8, Bob 6", {"Ann": [8, 2], "Bob": [6, 2], "Cas": [3, 4]}, None,
                 {"Ann": 8, "Bob": 6}, [], id="lower-card-leaves-higher-alone"),
    pytest.param("Ann 10, Bob 3, Cas 2", {"Ann": [10, 2], "Bob": [3, 2], "Cas": [2, 4]}, None,
                 {"Ann": 10, "Bob": 3, "Cas": 2}, [], id="cards-on-table-never-flush-a-new-lower-card"),
    pytest.param("Ann 8, Bob 4, Cas 4", {"Ann": [8, 2], "Bob": [4, 2], "Cas": [4, 3]}, None,
                 {"Ann": 8, "Bob": 4, "Cas": 4}, [], id="equal-strength-does-nothing"),
    pytest.param("Ann 9, Bob 5, Cas 5", {"Ann": [9, 2], "Bob": [5, 2], "Cas": [5, 3]}, None,
                 {"Ann": None, "Bob": 5, "Cas": 5}, ["Ann"], id="joining-forces-flushes"),
    pytest.param("Ann 5, Bob 5", {"Ann": [5, 2], "Bob": [5, 2], "Cas": [3, 4]}, None,
                 {"Ann": 5, "Bob": 5}, [], id="same-number-joins"),
    pytest.param("Ann 7, Bob 7, Cas 14", {"Ann": [7, 2], "Bob": [7, 2], "Cas": [14, 4]}, None,
                 {"Ann": 7, "Bob": 7, "Cas": 14}, [], id="card-equal-to-a-total-does-not-join"),
    pytest.param("Ann 7, Bob 7, Cas 2, Dee 14", {"Ann": [7, 2], "Bob": [7, 2], "Cas": [2, 4], "Dee": [14, 4]}, None,
                 {"Ann": 7, "Bob": 7, "Cas": None, "Dee": 14}, ["Cas"], id="total-equal-stays-weaker-flushed"),
    pytest.param("Ann 8, Bob 3, Cas 9", {"Ann": [8, 2], "Bob": [3, 2], "Cas": [9, 4]}, None,
                 {"Ann": None, "Bob": None, "Cas": 9}, ["Ann", "Bob"], id="one-card-flushes-several-groups"),
    pytest.param("Ann 6, Bob 3, Cas 3", {"Ann": [6, 2], "Bob": [3, 2], "Cas": [3, 4]}, None,
                 {"Ann": 6, "Bob": 3, "Cas": 3}, [], id="group-equal-to-single-stays"),
    pytest.param("Ann 3, Bob 3, Cas 4", {"Ann": [3, 2], "Bob": [3, 2], "Cas": [4, 5]}, None,
                 {"Ann": 3, "Bob": 3, "Cas": 4}, [], id="single-weaker-than-group-flushes-nothing"),
    pytest.param("Ann 4, Bob 4, Cas 9", {"Ann": [4, 2], "Bob": [4, 2], "Cas": [9, 5]}, None,
                 {"Ann": None, "Bob": None, "Cas": 9}, ["Ann", "Bob"], id="whole-group-flushed-each-draws"),
    pytest.param("Dee 3, Ann 2, Bob 9", {"Ann": [2, 3], "Bob": [9, 2], "Cas": [4, 5], "Dee": [3, 6]}, "Dee",
                 {"Ann": None, "Bob": 9, "Dee": None}, ["Dee", "Ann"], id="draw-order-starts-left-of-active"),
    pytest.param("Ann 2, Bob 2, Cas 2, Dee 5", {"Ann": [2, 3], "Bob": [2, 3], "Cas": [2, 4], "Dee": [5, 6]}, None,
                 {"Ann": 2, "Bob": 2, "Cas": 2, "Dee": 5}, [], id="three-2s-beat-nothing-equal-total-6-vs-5"),
    pytest.param("Ann 2, Bob 2, Cas 2, Dee 7", {"Ann": [2, 3], "Bob": [2, 3], "Cas": [2, 4], "Dee": [7, 6]}, None,
                 {"Ann": None, "Bob": None, "Cas": None, "Dee": 7}, ["Ann", "Bob", "Cas"], id="7-beats-three-2s"),
]


@pytest.mark.parametrize(("moves", "hands", "first", "table", "flushed"), TURN_CASES)
def test_turn(moves: str, hands: dict[str, list[int]], first: str | None, table: dict[str, int | None],
              flushed: list[str]) -> None:
    if set(hands) <= {name for name, _ in parse(moves)}:  # a player who does not play: no push-through yet
        hands = {**hands, "Eve": [11, 12]}
    state = play(new_game(hands, first=first), *parse(moves))
    for name, card in table.items():
        assert player(state, name)["table_card"] == card, name
    turn = last_turn(state)
    assert turn["flushed"] == flushed
    assert turn["drew"] == flushed
    for name in hands:
        entry = player(state, name)
        played = sum(1 for who, _ in parse(moves) if who == name)
        assert entry["hand_size"] == len(hands[name]) - played + entry["drawn"]
        assert entry["drawn"] == sum(t["flushed"].count(name) for t in ff.view(state, True)["turns"])
    conserved(state)


def test_groups_in_view() -> None:
    hands = {"Ann": [7, 2], "Bob": [7, 2], "Cas": [14, 4], "Dee": [3, 4], "Eve": [2, 2]}
    state = play(new_game(hands), *parse("Ann 7, Bob 7, Cas 14, Dee 3"))
    assert ff.view(state, True)["groups"] == [
        {"number": 3, "players": ["Dee"], "strength": 3},
        {"number": 7, "players": ["Ann", "Bob"], "strength": 14},
        {"number": 14, "players": ["Cas"], "strength": 14},
    ]


def test_turn_record() -> None:
    state = play(new_game({"Ann": [9, 2], "Bob": [5, 2], "Cas": [5, 3]}), *parse("Ann 9, Bob 5, Cas 5"))
    turn = last_turn(state)
    assert turn["seq"] == 5 and turn["number"] == 3 and turn["player"] == "Cas" and turn["card"] == 5
    assert turn["group"] == {"number": 5, "players": ["Bob", "Cas"], "strength": 10}
    assert turn["joined"] == {"number": 5, "players": ["Bob"], "strength": 5}
    assert turn["flushed_groups"] == [{"number": 9, "players": ["Ann"], "strength": 9}]
    assert turn["next_player"] == "Ann" and turn["pushed_through"] is None and turn["winners"] == []


def test_flushed_cards_reach_the_discard_before_the_draws() -> None:
    """A draw pile of 1 and two flushed players: the second draw reshuffles the flushed cards."""
    hands = {"Ann": [2, 2], "Bob": [3, 2], "Cas": [20, 3]}
    state = new_game(hands, options={"deck": {"2": 4, "3": 2, "20": 1}})
    assert ff.view(state, True)["draw_pile_size"] == 1
    state = play(state, *parse("Ann 2, Bob 3"))  # Bob's 3 flushes Ann's 2: Ann draws the last card
    view = ff.view(state, True)
    assert (view["draw_pile_size"], view["discard_size"], view["reshuffles"]) == (0, 1, 0)
    state = play(state, ("Cas", 20))  # flushes Bob's 3: the discard (2, 3) becomes the draw pile
    view = ff.view(state, True)
    assert last_turn(state)["flushed"] == ["Bob"] and last_turn(state)["reshuffled"] is True
    assert (view["draw_pile_size"], view["discard_size"], view["reshuffles"]) == (1, 0, 1)
    assert ff.unplaced(state, 2) == 2 and ff.unplaced(state, 3) == 1  # Ann's draw, Bob's draw + the pile
    conserved(state)


def test_no_card_is_drawn_when_both_piles_are_empty() -> None:
    """Unreachable through plays (flushed cards always refill the discard), so checked directly."""
    state = new_game(players=["A", "B", "C"])
    work = ff.Work.of(dataclasses.replace(state, draw_pile=0, discard=(0,) * (ff.HIGH + 1)))
    assert ff._draw(work, 0) is False
    assert (work.draw_pile, work.drawn[0], work.holdings[0].size, work.reshuffles) == (0, 0, 6, 0)


# --------------------------------------------------------------------------- push through and winning


def test_push_through_at_the_start_of_a_turn() -> None:
    state = play(new_game({"Ann": [8, 2], "Bob": [3, 2], "Cas": [2, 4]}), *parse("Ann 8, Bob 3, Cas 2"))
    ann = player(state, "Ann")
    assert ann["table_card"] is None and ann["pushed_through"] == 1 and ann["hand_size"] == 1 and ann["drawn"] == 0
    assert ff.view(state, True)["to_act"] == ["Ann"]
    assert last_turn(state)["pushed_through"] == {"number": 8, "players": ["Ann"], "strength": 8}
    assert ff.view(state, True)["discard_size"] == 1
    conserved(state)


def test_push_through_takes_the_whole_group() -> None:
    state = play(new_game({"Ann": [5, 2], "Bob": [5, 2], "Cas": [2, 4]}), *parse("Ann 5, Bob 5, Cas 2"))
    assert [player(state, n)["pushed_through"] for n in ("Ann", "Bob", "Cas")] == [1, 1, 0]
    assert [player(state, n)["table_card"] for n in ("Ann", "Bob", "Cas")] == [None, None, 2]
    assert [player(state, n)["hand_size"] for n in ("Ann", "Bob", "Cas")] == [1, 1, 1]
    assert ff.view(state, True)["draw_pile_size"] == ff.view(new_game({"Ann": [5, 2], "Bob": [5, 2], "Cas": [2, 4]}), True)["draw_pile_size"]


def test_group_pushed_through_on_another_members_turn() -> None:
    hands = {"Ann": [2, 2], "Bob": [5, 3], "Cas": [5, 4]}
    state = play(new_game(hands), *parse("Ann 2, Bob 5, Cas 5, Ann 2"))
    assert ff.view(state, True)["to_act"] == ["Bob"]
    assert player(state, "Cas")["pushed_through"] == 1 and player(state, "Cas")["table_card"] is None
    assert last_turn(state)["pushed_through"] == {"number": 5, "players": ["Bob", "Cas"], "strength": 10}


@pytest.mark.parametrize(
    ("hands", "moves", "winners"),
    [
        pytest.param({"Ann": [8], "Bob": [3], "Cas": [2]}, "Ann 8, Bob 3, Cas 2", ["Ann"], id="last-card-pushed-through"),
        pytest.param({"Ann": [5], "Bob": [5], "Cas": [2]}, "Ann 5, Bob 5, Cas 2", ["Ann", "Bob"],
                     id="two-win-together-one-during-anothers-turn"),
        pytest.param({"Ann": [4], "Bob": [4], "Cas": [4]}, "Ann 4, Bob 4, Cas 4", ["Ann", "Bob", "Cas"],
                     id="everyone-wins-together"),
        pytest.param({"Ann": [3, 2], "Bob": [3, 9], "Cas": [3, 9]}, "Ann 3, Bob 3, Cas 3", [],
                     id="cards-left-in-hand-no-winner"),
    ],
)
def test_winners(hands: dict[str, list[int]], moves: str, winners: list[str]) -> None:
    state = play(new_game(hands), *parse(moves))
    view = ff.view(state, True)
    if winners:
        assert view["status"] == "finished" and view["phase"] == "game_over" and view["to_act"] == []
        assert view["winners"] == winners
        assert view["losers"] == [n for n in hands if n not in winners]
        assert last_turn(state)["winners"] == winners
        assert ff.legal_actions(state, True) == []
    else:
        assert view["status"] == "in_progress" and "winners" not in view


def test_flushed_player_with_no_cards_draws_and_plays_on() -> None:
    state = play(new_game({"Ann": [3], "Bob": [8], "Cas": [2]}), *parse("Ann 3, Bob 8, Cas 2"))
    assert ff.status(state) == "in_progress"
    ann = player(state, "Ann")
    assert ann["hand_size"] == 1 and ann["drawn"] == 1 and ann["cards_unknown"] == 1
    assert ff.view(state, True)["to_act"] == ["Ann"]


def test_empty_hand_with_card_on_table_has_not_won_yet() -> None:
    state = play(new_game({"Ann": [9], "Bob": [3], "Cas": [2]}), ("Ann", 9))
    assert ff.status(state) == "in_progress"
    assert player(state, "Ann")["hand_size"] == 0 and player(state, "Ann")["won"] is False


# --------------------------------------------------------------------------- conservation (table visibility)


def test_conservation_table_visibility() -> None:
    state = play(new_game(), *parse("Ann 15, Bob 15"))
    error = refusal(state, {"type": "play", "player": "Cas", "card": 15})
    assert error.code == "card_not_available"
    assert "Cas cannot have a 15" in error.message and "Ann and Bob" in error.message
    state = play(new_game(), ("Ann", 20))
    assert "the only one" in refusal(state, {"type": "play", "player": "Bob", "card": 20}).message


def test_reshuffled_cards_can_be_played_again() -> None:
    state = new_game(players=["Ann", "Bob", "Cas"], options={"deck": {"2": 6, "3": 3, "20": 1}, "hand_size": 3})
    assert ff.view(state, True)["draw_pile_size"] == 1
    state = play(state, *parse("Ann 20, Bob 3, Cas 2"))  # Ann's 20 is pushed through: in the discard
    error = refusal(state, {"type": "play", "player": "Ann", "card": 20})
    assert error.code == "card_not_available" and "discard pile" in error.message
    state = play(state, *parse("Ann 3, Bob 2, Cas 3"))  # the second flush finds the pile empty
    assert ff.view(state, True)["reshuffles"] == 1
    assert ff.legal_actions(state, True) == [{"type": "play", "player": "Ann", "cards": None}]
    state = play(state, ("Ann", 20))
    assert player(state, "Ann")["table_card"] == 20
    conserved(state)


def test_card_missing_from_a_custom_deck() -> None:
    state = new_game(players=["A", "B", "C"], options={"deck": {"2": 10, "3": 10}})
    error = refusal(state, {"type": "play", "player": "A", "card": 13})
    assert error.code == "card_not_available" and "no 13" in error.message


# --------------------------------------------------------------------------- refusal codes


def _dealt_open() -> ff.State:
    return new_game({"Ann": [2, 20], "Bob": [3, 3], "Cas": [15, 15]})


def _finished() -> ff.State:
    return play(new_game({"Ann": [8], "Bob": [3], "Cas": [2]}), *parse("Ann 8, Bob 3, Cas 2"))


def _undealt() -> ff.State:
    return ff.initial_state({"players": FOUR, "options": {}, "visibility": "table"})


def _with_draw() -> ff.State:
    return play(new_game({"Ann": [2, 20], "Bob": [3, 3], "Cas": [15, 15]}), *parse("Ann 2, Bob 3"))


REFUSALS = [
    pytest.param(_undealt, {"type": "play", "player": "Ann", "card": 5}, "wrong_phase", id="play-before-deal"),
    pytest.param(_dealt_open, {"type": "deal"}, "wrong_phase", id="second-deal"),
    pytest.param(_dealt_open, {"type": "play", "player": "Bob", "card": 3}, "not_your_turn", id="out-of-turn"),
    pytest.param(_dealt_open, {"type": "play", "player": "Ann", "card": 5}, "card_not_available", id="not-in-known-hand"),
    pytest.param(_dealt_open, {"type": "play", "player": "Ann", "card": 15}, "card_not_available",
                 id="in-anothers-known-hand"),
    pytest.param(_finished, {"type": "play", "player": "Bob", "card": 3}, "game_over", id="play-after-win"),
    pytest.param(_finished, {"type": "deal"}, "game_over", id="deal-after-win"),
    pytest.param(_finished, {"type": "draw", "player": "Bob", "card": 3}, "game_over", id="draw-after-win"),
    pytest.param(_undealt, {"type": "draw", "player": "Ann", "card": 3}, "wrong_phase", id="draw-before-deal"),
    pytest.param(_dealt_open, {"type": "draw", "player": "Ann", "card": 4}, "wrong_phase", id="draw-nothing-drawn"),
    pytest.param(_with_draw, {"type": "draw", "player": "Ann", "card": 15}, "card_not_available",
                 id="draw-names-card-known-elsewhere"),
    pytest.param(_with_draw, {"type": "draw", "player": "Bob", "card": 4}, "wrong_phase", id="draw-for-player-who-did-not-draw"),
    pytest.param(lambda: new_game(), {"type": "draw", "player": "Ann", "card": 4}, "wrong_phase", id="draw-in-table-game"),
    pytest.param(_dealt_open, {"type": "adjust", "player": "Ann", "amount": 1, "reason": "x"}, "wrong_phase",
                 id="adjust-no-score"),
    pytest.param(_undealt, {"type": "deal", "hands": {"Ann": [2]}}, "wrong_phase", id="table-deal-with-hands"),
]


@pytest.mark.parametrize(("setup", "action", "code"), REFUSALS)
def test_refusals(setup: Any, action: dict[str, Any], code: str) -> None:
    state = setup()
    error = refusal(state, action)
    assert error.code == code
    assert error.message.endswith(".") and len(error.message) > 20


def test_refusal_codes_cover_the_rules_file() -> None:
    codes = {p.values[2] for p in REFUSALS} | {"nothing_to_undo", "nothing_to_redo"}
    assert {"not_your_turn", "card_not_available", "wrong_phase", "game_over"} <= codes


def _stream() -> tuple[Stream, int]:
    created = {"players": FOUR, "options": ff.resolve_options({}, FOUR), "visibility": "table",
               "first_player": "Ann", "rules_version": 1}
    return start(ff, created), 1


def test_undo_redo_codes() -> None:
    stream, _ = _stream()
    with pytest.raises(RulesError) as info:
        advance(stream, 2, {"type": "undo"})
    assert info.value.code == "nothing_to_undo"
    with pytest.raises(RulesError) as info:
        advance(stream, 2, {"type": "redo"})
    assert info.value.code == "nothing_to_redo"


def test_undo_reopens_a_finished_game() -> None:
    created = {"players": ["Ann", "Bob", "Cas"], "options": ff.resolve_options({"hand_size": 1}, ["Ann", "Bob", "Cas"]),
               "visibility": "open", "first_player": "Ann", "rules_version": 1}
    stream = start(ff, created)
    actions = [{"type": "deal", "hands": {"Ann": [8], "Bob": [3], "Cas": [2]}},
               {"type": "play", "player": "Ann", "card": 8}, {"type": "play", "player": "Bob", "card": 3},
               {"type": "play", "player": "Cas", "card": 2}]
    for seq, action in enumerate(actions, 2):
        stream = advance(stream, seq, action)
    assert ff.status(stream.state) == "finished"
    before = stream.state
    stream = advance(stream, 6, {"type": "undo"})
    assert ff.status(stream.state) == "in_progress" and ff.view(stream.state, True)["to_act"] == ["Cas"]
    stream = advance(stream, 7, {"type": "redo"})
    assert stream.state == before


# --------------------------------------------------------------------------- draws (open visibility)


def test_draw_names_a_drawn_card() -> None:
    state = _with_draw()  # Bob's 3 flushed Ann's 2: Ann drew an unknown card
    assert player(state, "Ann")["cards_unknown"] == 1
    assert ff.legal_actions(state, True) == [
        {"type": "play", "player": "Cas", "cards": [15]},
        {"type": "draw", "player": "Ann", "cards": [c for c in range(2, 21) if c not in (15, 20)]},
    ]
    assert ff.legal_actions(state, False)[1] == {"type": "draw", "player": "Ann", "cards": None}
    state = ff.apply(state, {"type": "draw", "player": "Ann", "card": 9, "seq": 5})
    ann = player(state, "Ann")
    assert ann["cards_known"] == [9, 20] and ann["cards_unknown"] == 0 and ann["hand_size"] == 2
    assert ff.hand_view(state, 1, True)["draws"] == [{"seq": 5, "player": "Ann", "card": 9}]
    assert "draws" not in ff.hand_view(state, 1, False)
    assert refusal(state, {"type": "draw", "player": "Ann", "card": 9}).code == "wrong_phase"
    conserved(state)


def test_unnamed_draw_leaves_play_cards_open() -> None:
    state = play(_with_draw(), ("Cas", 15))
    assert ff.legal_actions(state, True)[0] == {"type": "play", "player": "Ann", "cards": None}
    state = play(state, ("Ann", 11))  # the unknown drawn card was an 11
    assert player(state, "Ann")["cards_known"] == [20] and player(state, "Ann")["cards_unknown"] == 0


def test_last_copy_drawn_cannot_be_named_twice() -> None:
    hands = {"Ann": [2, 2], "Bob": [3, 9], "Cas": [9, 9]}
    state = new_game(hands, options={"deck": {"2": 2, "3": 2, "9": 4, "20": 1}})
    state = play(state, *parse("Ann 2, Bob 3"))
    state = ff.apply(state, {"type": "draw", "player": "Ann", "card": 9, "seq": 9})
    assert ff.legal_actions(state, True)[0]["cards"] == [9]
    error = refusal(play(state, ("Cas", 9)), {"type": "play", "player": "Ann", "card": 20})
    assert error.code == "card_not_available"


# --------------------------------------------------------------------------- legal actions


def test_legal_actions_flow() -> None:
    assert ff.legal_actions(_undealt(), True) == [{"type": "deal", "player": None, "cards": None}]
    assert ff.legal_actions(new_game(), True) == [{"type": "play", "player": "Ann", "cards": None}]
    assert ff.legal_actions(_dealt_open(), True) == [{"type": "play", "player": "Ann", "cards": [2, 20]}]
    assert ff.legal_actions(_dealt_open(), False) == [{"type": "play", "player": "Ann", "cards": None}]
    assert ff.legal_actions(_finished(), True) == []


# --------------------------------------------------------------------------- views


def test_view_before_the_deal() -> None:
    view = ff.view(_undealt(), False)
    assert view["status"] == "in_progress" and view["phase"] == "deal" and view["to_act"] == []
    assert view["hand_number"] == 0 and view["groups"] == [] and view["turns"] == []
    assert ff.hand_view(_undealt(), 1, True) is None


def test_view_fields() -> None:
    view = ff.view(play(new_game(), ("Ann", 9)), False)
    assert set(view) >= {"status", "phase", "to_act", "players", "groups", "draw_pile_size", "discard_size", "turns"}
    assert set(view["players"][0]) >= {"name", "hand_size", "table_card", "pushed_through", "drawn"}
    assert view["players"][0]["table_card"] == 9 and view["players"][0]["hand_size"] == 5


def test_open_game_hides_hands_until_the_end() -> None:
    state = _dealt_open()
    assert "cards_known" not in player(state, "Ann", full=False)
    finished = _finished()
    assert "cards_known" in player(finished, "Ann", full=False)
    assert "hands" in ff.hand_view(finished, 1, False)
    assert "hands" not in ff.hand_view(state, 1, False)
    assert ff.hand_view(state, 1, True)["hands"]["Ann"] == {"known": [2, 20], "unknown": 0}


@pytest.mark.parametrize(
    ("hands", "moves", "first", "text"),
    [
        pytest.param({"Yeonsu": [3, 2], "Jisu": [20, 2], "Nami": [6, 2], "Gahee": [3, 4]},
                     "Nami 6, Gahee 3, Yeonsu 3, Jisu 20", "Nami",
                     "Jisu played 20: Nami, Gahee and Yeonsu are flushed and draw.", id="several-flushed"),
        pytest.param({"Ann": [6, 2], "Bob": [8, 2], "Cas": [3, 4]}, "Ann 6, Bob 8", None,
                     "Bob played 8: Ann is flushed and draws.", id="one-flushed"),
        pytest.param({"Ann": [8, 2], "Bob": [6, 2], "Cas": [3, 4]}, "Ann 8, Bob 6", None,
                     "Bob played 6: nothing is flushed.", id="nothing"),
        pytest.param({"Ann": [9, 2], "Bob": [5, 2], "Cas": [5, 3]}, "Ann 9, Bob 5, Cas 5", None,
                     "Cas played 5, joining Bob's 5 (strength 10): Ann is flushed and draws.", id="joining"),
        pytest.param({"Ann": [7, 2], "Bob": [7, 2], "Cas": [14, 4]}, "Ann 7, Bob 7, Cas 14", None,
                     "Cas played 14: nothing is flushed; 14 does not join the 7s of Ann and Bob, whose total is 14: "
                     "only equal numbers join; the 7s of Ann and Bob are as strong (14) and stay. Ann's 7 survived "
                     "a full round: the 7s of Ann and Bob are pushed through together, and nobody draws.",
                     id="total-not-joined-and-pushed"),
        pytest.param({"Ann": [8], "Bob": [3], "Cas": [2]}, "Ann 8, Bob 3, Cas 2", None,
                     "Cas played 2: nothing is flushed. Ann's 8 survived a full round: it is pushed through. "
                     "Ann has no cards left and wins.", id="win"),
        pytest.param({"Ann": [5], "Bob": [5], "Cas": [2]}, "Ann 5, Bob 5, Cas 2", None,
                     "Cas played 2: nothing is flushed. Ann's 5 survived a full round: the 5s of Ann and Bob are "
                     "pushed through together, and nobody draws. Ann and Bob have no cards left and win.",
                     id="two-win"),
    ],
)
def test_explanations(hands: dict[str, list[int]], moves: str, first: str | None, text: str) -> None:
    state = play(new_game(hands, first=first), *parse(moves))
    hand = ff.hand_view(state, 1, True)
    assert hand is not None
    assert hand["turns"][-1]["explanation"] == text


def test_hand_view_is_the_whole_game() -> None:
    state = _finished()
    hand = ff.hand_view(state, 1, False)
    assert hand is not None
    assert [t["seq"] for t in hand["turns"]] == [3, 4, 5]
    assert hand["result"]["winners"] == ["Ann"] and hand["result"]["seq"] == 5
    assert hand["irregularities"] == []
    assert ff.hand_view(state, 2, True) is None and ff.hand_view(state, 0, True) is None
    assert ff.trick_view(state, 1, 1, True) is None


@pytest.mark.parametrize(
    ("state", "number", "over"),
    [(_undealt, 1, False), (_dealt_open, 1, False), (_finished, 1, True), (_finished, 2, False)],
    ids=["undealt", "running", "finished", "no-hand-2"],
)
def test_hand_number_and_hand_over(state: Any, number: int, over: bool) -> None:
    assert ff.hand_over(state(), number) is over
    assert ff.hand_number(state()) == (0 if state is _undealt else 1)


@pytest.mark.parametrize(
    ("action", "public"),
    [
        ({"type": "deal", "hands": {"Ann": [2]}}, {"type": "deal"}),
        ({"type": "draw", "player": "Ann", "card": 9}, {"type": "draw", "player": "Ann"}),
        ({"type": "play", "player": "Ann", "card": 9}, {"type": "play", "player": "Ann", "card": 9}),
    ],
    ids=["deal", "draw", "play"],
)
def test_redact(action: dict[str, Any], public: dict[str, Any]) -> None:
    assert ff.redact(action) == public


# --------------------------------------------------------------------------- schemas


def load(kind: str, body: dict[str, Any], visibility: str = "table") -> dict[str, Any]:
    result: dict[str, Any] = shapes.ACTIONS[kind](players=FOUR, visibility=visibility).load(body)
    return result


@pytest.mark.parametrize(
    ("kind", "body", "visibility"),
    [
        ("play", {"type": "play", "player": "Ann", "card": 21}, "table"),
        ("play", {"type": "play", "player": "Ann", "card": "x"}, "table"),
        ("play", {"type": "play", "player": "Ann", "card": True}, "table"),
        ("play", {"type": "play", "player": "Ann", "card": 7.0}, "table"),
        ("play", {"type": "play", "player": "Ann"}, "table"),
        ("play", {"type": "play", "player": "Zed", "card": 7}, "table"),
        ("play", {"type": "play", "player": "Ann", "card": 7, "cards": [7]}, "table"),
        ("draw", {"type": "draw", "player": "Ann", "card": 7}, "table"),
        ("draw", {"type": "draw", "player": "Ann"}, "open"),
        ("deal", {"type": "deal", "hands": {n: [2] for n in FOUR}}, "table"),
        ("deal", {"type": "deal"}, "open"),
        ("deal", {"type": "deal", "hands": {**{n: [2] for n in FOUR}, "Ann": [21]}}, "open"),
        ("deal", {"type": "deal", "dealer": "Ann"}, "table"),
    ],
    ids=["card-21", "card-word", "card-bool", "card-float", "card-missing", "unknown-player", "unknown-field",
         "draw-in-table-game", "draw-without-card", "table-deal-with-hands", "open-deal-without-hands",
         "open-deal-bad-card", "deal-with-dealer"],
)
def test_schema_refuses(kind: str, body: dict[str, Any], visibility: str) -> None:
    with pytest.raises(ValidationError):
        load(kind, body, visibility)


def test_schema_accepts() -> None:
    assert load("play", {"type": "play", "player": "ann", "card": "14"}) == {"type": "play", "player": "Ann", "card": 14}
    assert load("draw", {"type": "draw", "player": "Bob", "card": 3}, "open")["card"] == 3
    hands = {n: [2, "3"] for n in FOUR}
    assert load("deal", {"type": "deal", "hands": hands}, "open")["hands"]["Dee"] == [2, 3]
    assert load("deal", {"type": "deal"}) == {"type": "deal"}
    assert "adjust" not in shapes.ACTIONS and "note" in shapes.ACTIONS


@pytest.mark.parametrize(
    "options",
    [{"limit": 3}, {"hand_size": "6"}, {"hand_size": 0}, {"deck": {"2": 0}}, {"deck": {"1": 5}}, {"deck": []},
     {"deck": {}}, {"deck": {"2": True}}],
    ids=["unknown", "hand-size-string", "hand-size-0", "copies-0", "value-1", "deck-list", "deck-empty", "copies-bool"],
)
def test_options_schema_refuses(options: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        shapes.OPTIONS().load(options)


def test_engine_imports_no_web_or_storage() -> None:
    source = Path(ff.__file__).read_text()
    for name in ("flask", "sqlite", "marshmallow"):
        assert f"import {name}" not in source and f"from {name}" not in source
