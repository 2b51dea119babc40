"""Fool! (Foppen) rules, engine only (no Flask, no database): ``../shared/spec/rules/fool.md``.

Tests read as histories: given these events, when this action, then these outcomes.
Seats are A, B, C, D (, E …) clockwise; unless said otherwise the last seat deals, so A
leads the first trick.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine import fool
from engine.core import OptionError, RulesError
from engine.stream import Stream, advance, start

SEATS = "ABCDEFGH"


def new(players: int = 4, visibility: str = "table", dealer: str | None = None, **options: Any) -> Stream:
    names = list(SEATS[:players])
    return start(fool, {
        "players": names,
        "options": fool.resolve_options(options, names),
        "visibility": visibility,
        "dealer": dealer or names[-1],
        "rules_version": fool.RULES_VERSION,
    })


def act(stream: Stream, action: dict[str, Any]) -> Stream:
    return advance(stream, stream.version + 1, action)


def deal(stream: Stream, hands: dict[str, str] | None = None, **extra: Any) -> Stream:
    action: dict[str, Any] = {"type": "deal", **extra}
    if hands is not None:
        action["hands"] = {name: cards.split() for name, cards in hands.items()}
    return act(stream, action)


def plays(stream: Stream, script: str) -> Stream:
    """Record ``"A:G10 B:G3 …"`` as plays, in order."""
    for token in script.split():
        player, card = token.split(":")
        stream = act(stream, {"type": "play", "player": player, "card": card})
    return stream


def reveal(stream: Stream, player: str, cards: str) -> Stream:
    return act(stream, {"type": "reveal", "player": player, "cards": cards.split()})


def adjust(stream: Stream, player: str, amount: int) -> Stream:
    return act(stream, {"type": "adjust", "player": player, "amount": amount, "reason": "ruling"})


def refusal(stream: Stream, action: dict[str, Any]) -> RulesError:
    with pytest.raises(RulesError) as info:
        act(stream, action)
    return info.value


def view(stream: Stream, full: bool = True) -> dict[str, Any]:
    return fool.view(stream.state, full)


def player(stream: Stream, name: str, full: bool = True) -> dict[str, Any]:
    return next(p for p in view(stream, full)["players"] if p["name"] == name)


def trick(stream: Stream, t: int, n: int = 1) -> dict[str, Any]:
    out = fool.trick_view(stream.state, n, t, True)
    assert out is not None
    return out


def hand(stream: Stream, n: int = 1) -> dict[str, Any]:
    out = fool.hand_view(stream.state, n, True)
    assert out is not None
    return out


def short_round() -> Stream:
    """The fool-round-end example: 3 cards each; A and D go out, A is the last trick's Fool."""
    stream = deal(new(hand_size=3))
    return plays(stream, "A:G10 B:G3 C:R4 D:G12 D:Y8 A:Y2 B:1 D:B7 A:B3 C:B9")


def long_round() -> Stream:
    """4 cards each; C is the Fool of tricks 1 and 3, so holds 2 cards at the end, Y20 known.

    A and D go out in trick 4, D as its Fool (R2)."""
    stream = reveal(deal(new(hand_size=4)), "C", "Y20")
    return plays(stream, "A:G10 B:G3 C:R4 D:G12 D:Y8 A:Y2 B:1 D:B7 A:B8 C:B3 A:R9 B:R10 D:R2")


# --------------------------------------------------------------------------- cards


@pytest.mark.parametrize(
    ("given", "code"),
    [
        ("G7", "G7"), ("g7", "G7"), (" r23 ", "R23"), ("Y2", "Y2"), ("Y21", "Y21"), ("B15", "B15"),
        ("G27", "G27"), ("G2", "G2"), ("1", "1"), ("W1", "1"), (" w1 ", "1"),
    ],
    ids=lambda v: repr(v),
)
def test_parse_card_accepts(given: str, code: str) -> None:
    assert fool.parse_card(given) == code


@pytest.mark.parametrize(
    "given",
    ["G1", "G28", "R24", "Y22", "B16", "X5", "", "G", "G07", "10", "W2", "1G", "GG5", "R-3", 1, None, 7.0, ["G5"]],
    ids=lambda v: repr(v),
)
def test_parse_card_refuses(given: object) -> None:
    with pytest.raises(ValueError):
        fool.parse_card(given)


def test_deck_has_88_cards_with_six_wild_ones() -> None:
    assert len(fool.DECK) == 88
    assert fool.DECK.count("1") == 6
    assert len(set(fool.DECK)) == 83
    assert {c[0] for c in fool.DECK if c != "1"} == set("GRYB")


@pytest.mark.parametrize(
    ("card", "points"),
    [("1", 5), ("G2", 2), ("G27", 27), ("R23", 23), ("Y21", 21), ("B15", 15)],
    ids=["wild-1-costs-5", "G2", "G27", "R23", "Y21", "B15"],
)
def test_penalty_of_a_card_left_in_hand(card: str, points: int) -> None:
    assert fool.penalty(card) == points


# --------------------------------------------------------------------------- options


@pytest.mark.parametrize(
    ("players", "hand_size", "fools"),
    [(4, 12, 1), (5, 12, 1), (6, 12, 1), (7, 12, 2), (8, 11, 2)],
    ids=["4-players", "5-players", "6-players", "7-players", "8-players"],
)
def test_default_options_by_player_count(players: int, hand_size: int, fools: int) -> None:
    names = list(SEATS[:players])
    assert fool.resolve_options({}, names) == {"hand_size": hand_size, "fools_per_trick": fools}


@pytest.mark.parametrize(
    ("players", "options", "field"),
    [
        (3, {}, "players"),
        (9, {}, "players"),
        (4, {"fools_per_trick": 2}, "fools_per_trick"),
        (4, {"fools_per_trick": 3}, "fools_per_trick"),
        (6, {"fools_per_trick": 0}, "fools_per_trick"),
        (4, {"hand_size": 0}, "hand_size"),
        (4, {"hand_size": 23}, "hand_size"),
        (8, {"hand_size": 12}, "hand_size"),
        (7, {"hand_size": 13}, "hand_size"),
        (4, {"hand_size": True}, "hand_size"),
        (4, {"hand_size": "12"}, "hand_size"),
        (4, {"jokers": 2}, "jokers"),
    ],
    ids=[
        "3-players", "9-players", "2-fools-need-5-players", "3-fools", "0-fools", "hand-size-0",
        "hand-size-23-with-4", "hand-size-12-with-8", "hand-size-13-with-7", "hand-size-bool",
        "hand-size-string", "unknown-option",
    ],
)
def test_bad_options_are_refused(players: int, options: dict[str, Any], field: str) -> None:
    with pytest.raises(OptionError) as info:
        fool.resolve_options(options, [f"P{i}" for i in range(players)])
    assert info.value.field == field


@pytest.mark.parametrize(
    ("players", "options"),
    [
        (5, {"fools_per_trick": 2}),
        (7, {"fools_per_trick": 1}),
        (4, {"hand_size": 22}),
        (6, {"hand_size": 14}),
        (8, {"hand_size": 11, "fools_per_trick": 1}),
        (4, {"hand_size": None}),
    ],
    ids=["2-fools-with-5", "1-fool-with-7", "22-cards-with-4", "14-cards-with-6", "8-players-1-fool", "null-is-default"],
)
def test_good_options_are_kept(players: int, options: dict[str, Any]) -> None:
    out = fool.resolve_options(options, list(SEATS[:players]))
    for name, value in options.items():
        if value is not None:
            assert out[name] == value


def test_dealer_must_be_a_player() -> None:
    with pytest.raises(OptionError):
        fool.initial_state({"players": list("ABCD"), "options": {}, "dealer": "Z"})


# --------------------------------------------------------------------------- a trick


FOUR_PLAYER_TRICKS = [
    # (id, plays A B C D in order, lead colour, winner, fool)
    ("everyone-follows-lowest-is-fool", "G10 G3 G12 G5", "G", "C", "B"),
    ("off-colour-is-fool", "G10 G3 R4 G12", "G", "D", "C"),
    ("high-off-colour-worse-than-low-follower", "G10 G3 R20 G12", "G", "D", "C"),
    ("lowest-of-two-off-colours", "G10 R5 Y4 G12", "G", "D", "C"),
    ("tied-off-colours-later-is-worse", "G10 R6 Y6 G12", "G", "D", "C"),
    ("tied-off-colours-across-trick", "G10 Y6 G2 R6", "G", "A", "D"),
    ("wild-1-is-lowest-follower", "G10 1 G3 G12", "G", "D", "B"),
    ("two-1s-later-is-worse", "G10 1 1 G12", "G", "D", "C"),
    ("1-led-next-coloured-sets-lead", "1 G5 R3 G7", "G", "D", "C"),
    ("all-1s-first-wins-last-is-fool", "1 1 1 1", None, "A", "D"),
    ("1s-led-then-colour", "1 1 Y5 B2", "Y", "C", "D"),
    ("1-never-off-colour", "G10 1 R2 G3", "G", "A", "C"),
    ("off-colour-worse-than-a-1", "G10 B2 1 G3", "G", "A", "B"),
    ("higher-off-colour-cannot-win", "G2 R27 B15 Y21", "G", "A", "C"),
    ("off-colour-numbers-only-compare-among-off", "G6 R6 G4 Y2", "G", "A", "D"),
    ("everyone-else-off-equal-numbers", "G2 R3 Y3 B3", "G", "A", "D"),
    ("1-led-all-others-follow-a-1", "1 G9 G8 1", "G", "B", "D"),
    ("lead-1-is-worst-following", "1 R9 R12 R2", "R", "C", "A"),
]


@pytest.mark.parametrize(
    ("cards", "lead", "winner", "fool_"),
    [case[1:] for case in FOUR_PLAYER_TRICKS],
    ids=[case[0] for case in FOUR_PLAYER_TRICKS],
)
def test_four_player_trick(cards: str, lead: str | None, winner: str, fool_: str) -> None:
    stream = deal(new())
    stream = plays(stream, " ".join(f"{p}:{c}" for p, c in zip("ABCD", cards.split(), strict=True)))
    got = trick(stream, 1)
    assert (got["lead_colour"], got["winner"], got["fools"]) == (lead, winner, [fool_])
    assert got["complete"] and got["sitting_out"] == []
    assert got["winner_reason"] and got["fools_reason"]
    assert view(stream)["to_act"] == [winner]
    assert [p["name"] for p in view(stream)["players"] if p["is_fool"]] == [fool_]


FIVE_PLAYER_TRICKS = [
    # (id, plays A B C D E, winner, fools worst first)
    ("two-lowest-followers", "G10 G3 G12 G5 G7", "C", ["B", "D"]),
    ("two-off-colours", "G10 R5 G2 Y4 G12", "E", ["D", "B"]),
    ("off-colour-then-lowest-follower", "G10 R5 G2 G3 G12", "E", ["B", "C"]),
    ("all-1s", "1 1 1 1 1", "A", ["E", "D"]),
    ("two-1s-following", "G10 1 G2 1 G3", "A", ["D", "B"]),
    ("three-tied-off-colours", "G10 R6 Y6 B6 G11", "E", ["D", "C"]),
]


@pytest.mark.parametrize(
    ("cards", "winner", "fools"),
    [case[1:] for case in FIVE_PLAYER_TRICKS],
    ids=[case[0] for case in FIVE_PLAYER_TRICKS],
)
def test_two_fools_per_trick(cards: str, winner: str, fools: list[str]) -> None:
    stream = deal(new(5, fools_per_trick=2))
    stream = plays(stream, " ".join(f"{p}:{c}" for p, c in zip("ABCDE", cards.split(), strict=True)))
    got = trick(stream, 1)
    assert (got["winner"], got["fools"]) == (winner, fools)
    assert "second Fool" in got["fools_reason"]


def test_fools_sit_out_the_next_trick_and_play_again_after() -> None:
    stream = plays(deal(new(5, fools_per_trick=2)), "A:G10 B:G3 C:G12 D:G5 E:G7")  # Fools B and D
    assert view(stream)["sitting_out"] == ["B", "D"]
    assert view(stream)["to_act"] == ["C"]
    for fool_name in ("B", "D"):
        err = refusal(stream, {"type": "play", "player": fool_name, "card": "Y3"})
        assert err.code == "not_your_turn" and "sits out" in err.message
    stream = plays(stream, "C:Y9")
    assert view(stream)["to_act"] == ["E"]
    stream = plays(stream, "E:Y2 A:Y4")  # trick 2: C, E, A; Fools E and A
    assert trick(stream, 2)["sitting_out"] == ["B", "D"]
    assert trick(stream, 2)["fools"] == ["E", "A"]
    assert view(stream)["to_act"] == ["C"]
    stream = plays(stream, "C:R9 D:R2 B:R3")
    assert trick(stream, 3)["sitting_out"] == ["E", "A"]
    assert trick(stream, 3)["fools"] == ["D", "B"]


def test_nobody_sits_out_the_first_trick_of_a_round() -> None:
    stream = deal(new())
    assert view(stream)["sitting_out"] == []
    assert view(stream)["to_act"] == ["A"]


def test_trick_reasons_in_words() -> None:
    stream = plays(deal(new()), "A:Y9 B:G6 C:B6 D:Y2")
    got = trick(stream, 1)
    assert "lowest off-colour card; Blue 6 was played after Green 6" in got["fools_reason"]
    assert got["fools_reason"].startswith("C is the Fool with Blue 6")
    assert "Yellow 9 (A) is the highest yellow card" in got["winner_reason"]
    assert "Green 6, Blue 6 did not follow" in got["winner_reason"]
    stream = plays(deal(new()), "A:G10 B:1 C:1 D:G12")
    got = trick(stream, 1)
    assert "C's Wild 1 was played after B's Wild 1" in got["fools_reason"]
    stream = plays(deal(new()), "A:1 B:1 C:1 D:1")
    got = trick(stream, 1)
    assert "the first one, played by A, wins" in got["winner_reason"]
    assert "every card is a Wild 1" in got["fools_reason"]


def test_incomplete_trick_has_no_winner_yet() -> None:
    stream = plays(deal(new()), "A:G10 B:G3")
    got = trick(stream, 1)
    assert got["winner"] is None and got["fools"] == [] and not got["complete"]
    assert got["winner_reason"] is None and got["fools_reason"] is None
    assert view(stream)["lead_colour"] == "G"
    assert view(stream)["to_act"] == ["C"]


# --------------------------------------------------------------------------- following


def test_must_follow_when_known_to_hold_the_lead_colour_open() -> None:
    stream = deal(new(visibility="open", hand_size=2), {"A": "G10 R2", "B": "G3 R4", "C": "Y5 Y6", "D": "1 B2"})
    stream = plays(stream, "A:G10")
    err = refusal(stream, {"type": "play", "player": "B", "card": "R4"})
    assert err.code == "must_follow_suit" and "Green 3" in err.message
    assert fool.legal_actions(stream.state, True)[0]["cards"] == ["G3"]


def test_a_1_may_always_be_played() -> None:
    stream = deal(new(visibility="open", hand_size=2), {"A": "G10 R2", "B": "G3 1", "C": "Y5 Y6", "D": "1 B2"})
    stream = plays(stream, "A:G10")
    assert sorted(fool.legal_actions(stream.state, True)[0]["cards"]) == ["1", "G3"]
    stream = plays(stream, "B:1")
    assert trick(stream, 1)["plays"][1]["card"] == "1"


def test_without_the_lead_colour_any_card() -> None:
    stream = deal(new(visibility="open", hand_size=2), {"A": "G10 R2", "B": "G3 1", "C": "Y5 R6", "D": "1 B2"})
    stream = plays(stream, "A:G10 B:G3")
    assert sorted(fool.legal_actions(stream.state, True)[0]["cards"]) == ["R6", "Y5"]


def test_no_lead_colour_yet_after_a_led_1() -> None:
    stream = deal(new(visibility="open", hand_size=2), {"A": "1 R2", "B": "G3 R4", "C": "Y5 R6", "D": "1 B2"})
    stream = plays(stream, "A:1")
    assert sorted(fool.legal_actions(stream.state, True)[0]["cards"]) == ["G3", "R4"]
    stream = plays(stream, "B:G3")
    assert view(stream)["lead_colour"] == "G"


def test_must_follow_in_table_game_after_a_partial_reveal() -> None:
    stream = reveal(deal(new()), "B", "G5")
    stream = plays(stream, "A:G10")
    assert refusal(stream, {"type": "play", "player": "B", "card": "R3"}).code == "must_follow_suit"
    plays(stream, "B:1")  # a 1 is always allowed
    plays(stream, "B:G5")


def test_table_game_cannot_enforce_following_for_unknown_cards() -> None:
    stream = plays(deal(new()), "A:G10 B:R3")
    assert trick(stream, 1)["plays"][1]["card"] == "R3"


# --------------------------------------------------------------------------- revokes


SHED_GREEN = "A:G10 B:R3 C:G4 D:G12"  # B sheds green (event 4) and is the Fool; D wins
THEN_B_PLAYS = "D:Y20 A:Y21 C:Y5 A:B2 B:{card} D:B3"  # trick 2 without B; B plays in trick 3


def test_revoke_proven_by_a_later_play_is_flagged_with_the_proving_seq() -> None:
    stream = plays(plays(deal(new()), SHED_GREEN), THEN_B_PLAYS.format(card="G5"))
    got = trick(stream, 1)["irregularities"]
    assert len(got) == 1
    flag = got[0]
    assert (flag["player"], flag["trick"], flag["seq"], flag["proof_seq"], flag["card"]) == ("B", 1, 4, 11, "G5")
    assert "revoke" in flag["detail"] and "played" in flag["detail"]
    assert trick(stream, 3)["irregularities"] == []
    assert hand(stream)["irregularities"] == got
    assert trick(stream, 3)["plays"][1]["card"] == "G5"  # history is not rewritten


def test_revoke_proven_by_a_reveal() -> None:
    stream = reveal(plays(deal(new()), SHED_GREEN), "B", "Y4 G7")
    flag = trick(stream, 1)["irregularities"][0]
    assert (flag["player"], flag["card"], flag["proof_seq"]) == ("B", "G7", 7)
    assert "revealed" in flag["detail"]


@pytest.mark.parametrize(
    ("first", "later"),
    [
        ("A:G10 B:1 C:G4 D:G12", THEN_B_PLAYS.format(card="G5")),
        ("A:1 B:R3 C:G4 D:R12", "D:G20 A:G21 B:R5"),
        (SHED_GREEN, THEN_B_PLAYS.format(card="R5")),
    ],
    ids=["a-1-is-not-a-shed", "setting-the-lead-is-not-a-shed", "another-colour-is-no-proof"],
)
def test_no_revoke(first: str, later: str) -> None:
    stream = plays(plays(deal(new()), first), later)
    assert hand(stream)["irregularities"] == []


def test_a_revoke_is_flagged_once() -> None:
    stream = plays(plays(deal(new()), SHED_GREEN), THEN_B_PLAYS.format(card="G5"))
    stream = reveal(stream, "B", "G7")
    assert len(hand(stream)["irregularities"]) == 1


def test_revokes_belong_to_their_round() -> None:
    stream = plays(deal(new(hand_size=2)), SHED_GREEN + " D:Y2 A:Y3 C:Y4")  # A, C, D out; B holds 1
    stream = reveal(stream, "B", "G2")  # proves the shed of round 1
    assert len(hand(stream, 1)["irregularities"]) == 1
    stream = plays(deal(stream), "B:G5 C:G6 D:G7 A:G8")
    assert hand(stream, 2)["irregularities"] == []


# --------------------------------------------------------------------------- conservation


@pytest.mark.parametrize(
    ("setup", "action", "why"),
    [
        ("A:G10 B:G3 C:G4 D:G12", {"type": "play", "player": "D", "card": "G10"}, "A played it in trick 1"),
        ("", {"type": "reveal", "player": "B", "cards": ["G10"]}, None),
        ("A:1 B:1 C:1 D:1 A:1 B:1", {"type": "play", "player": "C", "card": "1"}, "only 0 of the 6 1s"),
        ("A:1 B:1 C:1 D:1", {"type": "reveal", "player": "B", "cards": ["1", "1", "1"]}, "4 played"),
    ],
    ids=["played-card-again", "revealed-after-played", "seventh-1-played", "seventh-1-revealed"],
)
def test_card_not_available(setup: str, action: dict[str, Any], why: str | None) -> None:
    stream = plays(deal(new()), setup)
    if action["type"] == "reveal" and not setup:
        stream = plays(stream, "A:G10")
    err = refusal(stream, action)
    assert err.code == "card_not_available"
    if why:
        assert why in err.message


def test_card_known_in_another_hand_is_not_available() -> None:
    stream = reveal(deal(new()), "C", "G5")
    assert refusal(stream, {"type": "play", "player": "A", "card": "G5"}).code == "card_not_available"
    assert refusal(stream, {"type": "reveal", "player": "B", "cards": ["G5"]}).code == "card_not_available"


def test_card_not_in_a_fully_known_hand() -> None:
    stream = deal(new(visibility="open", hand_size=1), {"A": "G10", "B": "G3", "C": "Y5", "D": "1"})
    err = refusal(stream, {"type": "play", "player": "A", "card": "G11"})
    assert err.code == "card_not_available" and "known to hold Green 10" in err.message


def test_six_1s_may_all_be_seen() -> None:
    stream = plays(deal(new()), "A:1 B:1 C:1 D:1")  # A wins, D is the Fool
    stream = reveal(stream, "A", "1 1")
    assert player(stream, "A")["cards_known"] == ["1", "1"]
    stream = plays(stream, "A:1 B:G2 C:G3")  # A's known 1
    assert refusal(stream, {"type": "reveal", "player": "B", "cards": ["1"]}).code == "card_not_available"


# --------------------------------------------------------------------------- reveals


def test_partial_reveals_merge_and_count_copies_of_1() -> None:
    stream = deal(new())
    stream = reveal(stream, "B", "1")
    stream = reveal(stream, "B", "1 1 G5")
    stream = reveal(stream, "B", "G5 1")
    got = player(stream, "B")
    assert got["cards_known"] == ["1", "1", "G5"] and got["cards_unknown"] == 9 and got["hand_size"] == 12


def test_long_round_leaves_c_two_cards() -> None:
    stream = long_round()
    assert [p["hand_size"] for p in view(stream)["players"]] == [0, 1, 2, 0]
    assert view(stream)["to_act"] == ["B", "C"]


WRONG_COUNTS = [
    ("mid-round-more-than-the-hand-holds", lambda: reveal(deal(new(hand_size=3)), "B", "G5 R3"),
     {"player": "B", "cards": ["Y2", "Y3"]}),
    ("more-cards-than-the-hand", lambda: deal(new(hand_size=3)), {"player": "B", "cards": ["Y2", "Y3", "Y4", "Y5"]}),
    ("end-of-round-too-many", short_round, {"player": "C", "cards": ["1", "G5"]}),
    ("end-of-round-too-few", long_round, {"player": "C", "cards": ["G5"]}),
    ("end-of-round-none", short_round, {"player": "C", "cards": []}),
    ("end-of-round-leaves-out-a-known-card", long_round, {"player": "C", "cards": ["G5", "G6"]}),
    ("empty-hand", short_round, {"player": "A", "cards": ["G5"]}),
]


@pytest.mark.parametrize(("build", "action"), [w[1:] for w in WRONG_COUNTS], ids=[w[0] for w in WRONG_COUNTS])
def test_wrong_card_count_on_reveal(build: Any, action: dict[str, Any]) -> None:
    assert refusal(build(), {"type": "reveal", **action}).code == "wrong_card_count"


def test_end_of_round_reveal_may_repeat_known_cards() -> None:
    stream = reveal(long_round(), "C", "G5 Y20")
    assert view(stream)["to_act"] == ["B"]
    stream = reveal(stream, "B", "B15")
    assert hand(stream)["result"] == {"A": 10, "B": -15, "C": -25, "D": 0}  # D: R2, Fool of the last trick


def test_reveal_needs_a_dealt_round() -> None:
    assert refusal(new(), {"type": "reveal", "player": "A", "cards": ["G5"]}).code == "wrong_phase"


def test_reveal_after_the_round_is_scored_is_hand_over() -> None:
    stream = plays(deal(new(hand_size=1)), "A:G10 B:G3 C:R4 D:G12")
    assert view(stream)["phase"] == "deal"
    assert refusal(stream, {"type": "reveal", "player": "A", "cards": ["G5"]}).code == "hand_over"


# --------------------------------------------------------------------------- end of a round


def test_round_ends_after_the_trick_that_empties_a_hand() -> None:
    stream = short_round()
    state = view(stream)
    assert state["phase"] == "reveal"
    assert state["to_act"] == ["B", "C"]
    assert [p["hand_size"] for p in state["players"]] == [0, 1, 1, 0]
    assert state["sitting_out"] == [] and not any(p["is_fool"] for p in state["players"])
    assert refusal(stream, {"type": "play", "player": "B", "card": "G5"}).code == "wrong_phase"
    assert refusal(stream, {"type": "deal"}).code == "wrong_phase"
    assert [a["type"] for a in fool.legal_actions(stream.state, True)] == ["reveal", "reveal"]
    assert hand(stream)["result"] is None
    assert hand(stream)["awaiting_reveal"] == ["B", "C"]


def test_round_is_scored_once_every_remaining_hand_is_known() -> None:
    stream = reveal(short_round(), "B", "R20")
    assert view(stream)["phase"] == "reveal" and view(stream)["to_act"] == ["C"]
    stream = reveal(stream, "C", "1")
    assert hand(stream)["result"] == {"A": 0, "B": -20, "C": -5, "D": 10}
    state = view(stream)
    assert state["phase"] == "deal" and state["to_act"] == [] and state["next_dealer"] == "A"
    assert [(p["score"], p["tens"], p["round_scores"]) for p in state["players"]] == [
        (0, 0, [0]), (-20, 0, [-20]), (-5, 0, [-5]), (10, 1, [10]),
    ]
    assert state["last_result"] == {"A": 0, "B": -20, "C": -5, "D": 10}
    assert fool.hand_over(stream.state, 1)


def test_a_hand_revealed_earlier_in_the_round_counts() -> None:
    stream = deal(new(hand_size=3))
    stream = reveal(stream, "C", "R4 B9 1")
    stream = plays(stream, "A:G10 B:G3 C:R4 D:G12 D:Y8 A:Y2 B:1 D:B7 A:B3 C:B9")
    assert view(stream)["to_act"] == ["B"]
    stream = reveal(stream, "B", "G9")
    assert hand(stream)["result"] == {"A": 0, "B": -9, "C": -5, "D": 10}


def test_open_game_is_scored_right_after_the_last_trick() -> None:
    hands = {"A": "G10 Y2 B3", "B": "G3 1 R20", "C": "R4 1 B9", "D": "G12 Y8 B7"}
    stream = deal(new(visibility="open", hand_size=3), hands)
    stream = plays(stream, "A:G10 B:G3 C:R4 D:G12 D:Y8 A:Y2 B:1 D:B7 A:B3 C:B9")
    assert hand(stream)["result"] == {"A": 0, "B": -20, "C": -5, "D": 10}


def test_both_fools_who_went_out_score_zero() -> None:
    stream = deal(new(5, hand_size=1, fools_per_trick=2))
    stream = plays(stream, "A:G10 B:G3 C:G12 D:G5 E:G7")
    assert hand(stream)["result"] == {"A": 10, "B": 0, "C": 10, "D": 0, "E": 10}


def test_ones_left_in_hand_cost_five_each() -> None:
    hands = {"A": "G10 1 1", "B": "G3 1 R20", "C": "G4 Y5 B9", "D": "G12 Y8 B7"}
    stream = deal(new(visibility="open", hand_size=3), hands)
    # trick 1: Fool B; trick 2 (no B): A's 1 is the lowest follower; trick 3 (no A): B's R20 is off-colour
    stream = plays(stream, "A:G10 B:G3 C:G4 D:G12 D:Y8 A:1 C:Y5 D:B7 B:R20 C:B9")
    assert trick(stream, 3)["fools"] == ["B"]
    assert hand(stream)["result"] == {"A": -5, "B": -5, "C": 10, "D": 10}


def test_dealer_moves_left_and_left_of_dealer_leads() -> None:
    stream = reveal(reveal(short_round(), "B", "R20"), "C", "1")
    assert refusal(stream, {"type": "deal", "dealer": "D"}).code == "wrong_dealer"
    stream = deal(stream, dealer="A")
    state = view(stream)
    assert (state["round_number"], state["dealer"], state["to_act"]) == (2, "A", ["B"])
    assert [p["hand_size"] for p in state["players"]] == [3, 3, 3, 3]
    assert state["tricks"] == [] and state["sitting_out"] == []


def test_wrong_dealer_on_the_first_deal() -> None:
    err = refusal(new(), {"type": "deal", "dealer": "A"})
    assert err.code == "wrong_dealer" and "D deals" in err.message


def test_first_dealer_defaults_to_the_first_seat() -> None:
    stream = start(fool, {"players": list("ABCD"), "options": fool.resolve_options({}, list("ABCD"))})
    assert view(stream)["dealer"] == "A"
    assert view(deal(stream))["to_act"] == ["B"]


# --------------------------------------------------------------------------- deals


@pytest.mark.parametrize(
    ("hands", "code"),
    [
        ({"A": "G10 R2", "B": "G3 R4", "C": "Y5 Y6"}, "wrong_card_count"),
        ({"A": "G10 R2", "B": "G3 R4", "C": "Y5 Y6", "D": "1"}, "wrong_card_count"),
        ({"A": "G10 R2", "B": "G3 R4", "C": "Y5 Y6", "D": "1 B2 B3"}, "wrong_card_count"),
        ({"A": "G10 R2", "B": "G10 R4", "C": "Y5 Y6", "D": "1 B2"}, "card_not_available"),
        ({"A": "1 1", "B": "1 1", "C": "1 1", "D": "1 B2"}, "card_not_available"),
        (None, "wrong_card_count"),
    ],
    ids=["player-missing", "short-hand", "long-hand", "coloured-card-twice", "seven-1s", "no-hands"],
)
def test_open_deal_refusals(hands: dict[str, str] | None, code: str) -> None:
    stream = new(visibility="open", hand_size=2)
    action: dict[str, Any] = {"type": "deal"}
    if hands is not None:
        action["hands"] = {n: c.split() for n, c in hands.items()}
    assert refusal(stream, action).code == code


def test_open_deal_with_six_1s_is_fine() -> None:
    stream = deal(new(visibility="open", hand_size=2), {"A": "1 1", "B": "1 1", "C": "1 1", "D": "G2 B2"})
    assert player(stream, "A")["cards_known"] == ["1", "1"]


def test_deal_while_a_round_is_played() -> None:
    assert refusal(deal(new()), {"type": "deal"}).code == "wrong_phase"


# --------------------------------------------------------------------------- refusal codes


REFUSALS = [
    ("play-before-deal", lambda: new(), {"type": "play", "player": "A", "card": "G5"}, "wrong_phase"),
    ("out-of-turn", lambda: deal(new()), {"type": "play", "player": "B", "card": "G5"}, "not_your_turn"),
    ("fool-plays", lambda: plays(deal(new()), "A:G10 B:G3 C:R4 D:G12"),
     {"type": "play", "player": "C", "card": "G5"}, "not_your_turn"),
    ("follow-known", lambda: plays(reveal(deal(new()), "B", "G5"), "A:G10"),
     {"type": "play", "player": "B", "card": "R5"}, "must_follow_suit"),
    ("card-seen", lambda: plays(deal(new()), "A:G10"), {"type": "play", "player": "B", "card": "G10"}, "card_not_available"),
    ("reveal-too-many", lambda: deal(new(hand_size=2)),
     {"type": "reveal", "player": "B", "cards": ["G5", "G6", "G7"]}, "wrong_card_count"),
    ("wrong-dealer", lambda: new(), {"type": "deal", "dealer": "B"}, "wrong_dealer"),
    ("deal-before-scored", short_round, {"type": "deal"}, "wrong_phase"),
    ("play-after-last-trick", short_round, {"type": "play", "player": "B", "card": "G5"}, "wrong_phase"),
    ("play-after-scored", lambda: plays(deal(new(hand_size=1)), "A:G10 B:G3 C:R4 D:G12"),
     {"type": "play", "player": "A", "card": "G5"}, "wrong_phase"),
    ("reveal-after-scored", lambda: plays(deal(new(hand_size=1)), "A:G10 B:G3 C:R4 D:G12"),
     {"type": "reveal", "player": "A", "cards": ["G5"]}, "hand_over"),
    ("unknown-action", lambda: deal(new()), {"type": "knock", "player": "A"}, "wrong_phase"),
    ("undo-at-start", lambda: new(), {"type": "undo"}, "nothing_to_undo"),
    ("redo-without-undo", lambda: deal(new()), {"type": "redo"}, "nothing_to_redo"),
]


@pytest.mark.parametrize(
    ("build", "action", "code"), [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS]
)
def test_refusal_codes(build: Any, action: dict[str, Any], code: str) -> None:
    stream = build()
    err = refusal(stream, action)
    assert err.code == code
    assert err.message and err.message[0].isupper() and err.message.endswith(".")


@pytest.mark.parametrize(
    "action",
    [
        {"type": "deal"},
        {"type": "play", "player": "A", "card": "G5"},
        {"type": "reveal", "player": "A", "cards": ["G5"]},
        {"type": "adjust", "player": "A", "amount": 5, "reason": "late"},
    ],
    ids=["deal", "play", "reveal", "adjust"],
)
def test_game_over_refuses_everything(action: dict[str, Any]) -> None:
    stream = adjust(deal(new()), "B", -80)
    assert view(stream)["status"] == "finished"
    assert refusal(stream, action).code == "game_over"


# --------------------------------------------------------------------------- end of the game


def test_game_ends_at_minus_80_after_a_round() -> None:
    stream = adjust(new(hand_size=3), "B", -70)
    stream = reveal(reveal(plays(deal(stream), "A:G10 B:G3 C:R4 D:G12 D:Y8 A:Y2 B:1 D:B7 A:B3 C:B9"), "B", "R20"), "C", "1")
    state = view(stream)
    assert state["status"] == "finished" and state["phase"] == "game_over"
    assert state["winners"] == ["D"]
    assert state["to_act"] == [] and fool.legal_actions(stream.state, True) == []
    assert "B reached -80" in state["end_reason"]


def one_card_round(stream: Stream) -> Stream:
    """hand_size 1: everyone plays once; the last card (G7) makes its player the Fool (0)."""
    stream = deal(stream)
    first = "ABCD".index(view(stream)["to_act"][0])
    order = [SEATS[(first + k) % 4] for k in range(4)]
    return plays(stream, " ".join(f"{p}:G{10 - k}" for k, p in enumerate(order)))


def test_six_tens_end_the_game() -> None:
    stream = new(hand_size=1)
    for _ in range(6):  # Fools D, A, B, C, D, A: nobody has six +10 rounds yet
        stream = one_card_round(stream)
    assert view(stream)["status"] == "in_progress"
    assert [p["tens"] for p in view(stream)["players"]] == [4, 5, 5, 4]
    stream = one_card_round(stream)  # Fool B: C scores +10 for the sixth time
    state = view(stream)
    assert state["status"] == "finished" and state["winners"] == ["C"]
    assert [p["tens"] for p in state["players"]] == [5, 5, 6, 5]
    assert [p["score"] for p in state["players"]] == [50, 50, 60, 50]
    assert player(stream, "B")["round_scores"] == [10, 10, 0, 10, 10, 10, 0]
    assert "C scored +10 in 6 rounds" in state["end_reason"]


def test_adjust_adds_points_and_rechecks_the_end_mid_round() -> None:
    stream = plays(deal(new()), "A:G10 B:G3")
    stream = adjust(stream, "A", 7)
    assert player(stream, "A")["score"] == 7
    stream = adjust(stream, "C", -80)
    state = view(stream)
    assert state["status"] == "finished" and state["winners"] == ["A"]
    assert hand(stream)["abandoned"] and hand(stream)["result"] is None
    assert fool.hand_over(stream.state, 1)
    reopened = act(stream, {"type": "undo"})
    assert view(reopened)["status"] == "in_progress" and view(reopened)["to_act"] == ["C"]


def test_adjust_between_rounds_and_equal_totals_share_the_win() -> None:
    stream = adjust(adjust(new(), "A", 5), "B", 5)
    stream = adjust(stream, "C", -80)
    assert sorted(view(stream)["winners"]) == ["A", "B"]


def test_adjust_is_listed_in_its_round() -> None:
    stream = adjust(deal(new()), "B", -3)
    assert hand(stream)["adjustments"] == [{"player": "B", "seq": 3, "amount": -3, "reason": "ruling"}]


# --------------------------------------------------------------------------- views and legal actions


def test_view_fields() -> None:
    stream = plays(deal(new()), "A:G10 B:G3 C:R4 D:G12 D:Y8")
    state = view(stream)
    for key in ("status", "phase", "to_act", "players", "round_number", "dealer", "tricks", "sitting_out"):
        assert key in state
    for key in ("name", "score", "round_scores", "tens", "hand_size", "is_fool"):
        assert key in state["players"][0]
    first = state["tricks"][0]
    assert first["plays"][0] == {"player": "A", "card": "G10", "seq": 3}
    assert (first["lead_colour"], first["winner"], first["fools"], first["sitting_out"]) == ("G", "D", ["C"], [])
    assert state["tricks"][1]["sitting_out"] == ["C"]
    assert state["round_number"] == 1 and state["dealer"] == "D"
    assert player(stream, "C")["is_fool"] and player(stream, "C")["hand_size"] == 11


def test_view_before_the_first_deal() -> None:
    state = view(new())
    assert (state["phase"], state["to_act"], state["round_number"], state["dealer"]) == ("deal", [], 0, "D")
    assert fool.legal_actions(new().state, True) == [{"type": "deal", "player": "D", "cards": None}]


def test_open_game_hides_hands_from_the_public() -> None:
    stream = deal(new(visibility="open", hand_size=1), {"A": "G10", "B": "G3", "C": "Y5", "D": "1"})
    assert "cards_known" not in player(stream, "A", full=False)
    assert player(stream, "A")["cards_known"] == ["G10"]
    assert "hands" not in fool.hand_view(stream.state, 1, False)  # type: ignore[operator]
    assert fool.legal_actions(stream.state, False)[0]["cards"] is None
    assert fool.legal_actions(stream.state, True)[0]["cards"] == ["G10"]
    action = {"type": "deal", "hands": {"A": ["G10"]}, "dealer": "D"}
    assert fool.redact(action) == {"type": "deal", "dealer": "D"}
    assert action["hands"]  # the stored action is not touched
    stream = plays(stream, "A:G10 B:G3 C:Y5 D:1")
    assert "hands" in fool.hand_view(stream.state, 1, False)  # type: ignore[operator]


def test_table_game_legal_actions() -> None:
    stream = deal(new())
    legal = fool.legal_actions(stream.state, False)
    assert legal[0] == {"type": "play", "player": "A", "cards": None}
    assert sorted(a["player"] for a in legal if a["type"] == "reveal") == list("ABCD")


def test_missing_hands_and_tricks_are_none() -> None:
    stream = plays(deal(new()), "A:G10")
    assert fool.hand_view(stream.state, 2, True) is None
    assert fool.hand_view(stream.state, 0, True) is None
    assert fool.trick_view(stream.state, 1, 2, True) is None
    assert fool.trick_view(stream.state, 2, 1, True) is None
    assert fool.hand_number(stream.state) == 1 and fool.hand_number(new().state) == 0
    assert not fool.hand_over(stream.state, 1)


def test_trick_view_fields() -> None:
    got = trick(plays(deal(new()), "A:G10 B:G3 C:R4 D:G12"), 1)
    for key in ("plays", "lead_colour", "winner", "winner_reason", "fools", "fools_reason", "sitting_out", "irregularities"):
        assert key in got
    assert all("seq" in play for play in got["plays"])


def test_apply_is_pure() -> None:
    stream = deal(new())
    before = stream.state
    plays(stream, "A:G10")
    assert stream.state == before
    with pytest.raises(RulesError):
        plays(stream, "B:G10")
    assert stream.state == before
