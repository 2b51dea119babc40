"""Toepen's rules engine (engine/toepen.py) against ``shared/spec/rules/toepen.md``.

No app, no database: games are folded through ``engine.stream`` exactly as the service does.
Every test reads "given these events, when this action, then these outcomes"; the
:class:`Game` helper records actions and checks every refusal's code and message.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

import pytest

from engine import stream, toepen
from engine.core import RulesError

P3 = ("Ann", "Bob", "Cas")
P4 = ("Ann", "Bob", "Cas", "Dee")
P7 = ("Ann", "Bob", "Cas", "Dee", "Eve", "Fay", "Gus")
P8 = (*P7, "Hal")

#: The deal of shared/examples/toepen-open-hand.json. Ann deals, Bob leads; nobody holds laundry.
HANDS = {
    "Ann": ["TH", "9C", "JD", "QS"],
    "Bob": ["7H", "8C", "AD", "KS"],
    "Cas": ["JH", "8H", "TC", "9S"],
    "Dee": ["AH", "7C", "8D", "TS"],
}
#: HANDS played out: Ann wins trick 1, Cas trick 2, Dee tricks 3 and 4 (8♦ beats A♦).
FULL_HAND = (
    "Bob:7H", "Cas:8H", "Dee:AH", "Ann:TH",
    "Ann:9C", "Bob:8C", "Cas:TC", "Dee:7C",
    "Cas:9S", "Dee:TS", "Ann:QS", "Bob:KS",
    "Dee:8D", "Ann:JD", "Bob:AD", "Cas:JH",
)  # fmt: skip
#: Bob holds laundry (J Q K A only); Cas holds an ordinary hand.
LAUNDRY_HANDS = {
    "Ann": ["TH", "9C", "JD", "QS"],
    "Bob": ["JH", "QH", "KH", "AH"],
    "Cas": ["7H", "8H", "TC", "9S"],
    "Dee": ["8C", "7C", "8D", "TS"],
}
BOB_NEW = ["7S", "8S", "9H", "KC"]  # four cards from the stock of LAUNDRY_HANDS
CAS_NEW = ["9D", "TD", "QD", "KD"]
GENUINE = ["JH", "QH", "KH", "AH"]

NOT_A_SENTENCE = ("frozenset", "None", "Holding(", "Hand(", "{'", "['", "<", "\\n")


def assert_plain_sentence(message: str) -> None:
    """A refusal's message is a plain sentence a scorekeeper understands (api.md)."""
    assert message and message.strip() == message, message
    assert message[0].isupper() or message[0].isdigit() or message[0] == "'", message
    assert message.endswith("."), message
    for bad in NOT_A_SENTENCE:
        assert bad not in message, f"{bad!r} in {message!r}"


def fill_hands(players: Iterable[str], given: dict[str, list[str]] | None = None) -> dict[str, list[str]]:
    """An open deal: ``given`` hands, everyone else gets a plain card first (never laundry)."""
    given = dict(given or {})
    used = {card for cards in given.values() for card in cards}
    free = [card for card in toepen.DECK if card not in used]
    plain = [card for card in free if card[0] in "T987"]
    faces = [card for card in free if card[0] in "JQKA"]
    out = {}
    for name in players:
        if name in given:
            out[name] = given[name]
            continue
        hand = [plain.pop(0)]
        while len(hand) < 4:
            hand.append(faces.pop(0) if faces else plain.pop(0))
        out[name] = hand
    return out


class Game:
    """One game folded through ``engine.stream``, with short verbs for the tests."""

    def __init__(
        self,
        players: Iterable[str] = P4,
        visibility: str = "open",
        dealer: str | None = None,
        **options: Any,
    ) -> None:
        names = list(players)
        self.created = {
            "players": names,
            "options": toepen.resolve_options(options, names),
            "visibility": visibility,
            "dealer": dealer or names[0],
            "rules_version": toepen.RULES_VERSION,
        }
        self.stream = stream.start(toepen, self.created)
        self.log: list[tuple[int, dict[str, Any]]] = [(1, {"type": "game_created", **self.created})]

    # ---------------------------------------------------------------- recording

    @property
    def state(self) -> toepen.State:
        return self.stream.state  # type: ignore[no-any-return]

    @property
    def seq(self) -> int:
        return self.stream.version

    def do(self, kind: str, **fields: Any) -> Game:
        seq = self.seq + 1
        action = {"type": kind, **fields}
        self.stream = stream.advance(self.stream, seq, action)
        self.log.append((seq, action))
        return self

    def refused(self, kind: str, **fields: Any) -> RulesError:
        """Record an action that must be refused; nothing changes and the message is plain."""
        before = self.stream
        with pytest.raises(RulesError) as info:
            self.do(kind, **fields)
        assert self.stream is before
        assert_plain_sentence(info.value.message)
        return info.value

    def code(self, kind: str, **fields: Any) -> str:
        return self.refused(kind, **fields).code

    def deal(self, hands: dict[str, list[str]] | None = None, **fields: Any) -> Game:
        if self.created["visibility"] == "open":
            if hands is None:
                names = [n for n, out in zip(self.names, self.state.eliminated, strict=True) if not out]
                hands = HANDS if names == list(P4) else fill_hands(names)
            fields["hands"] = hands
        return self.do("deal", **fields)

    def play(self, *moves: str) -> Game:
        """``play("Bob:7H", "Cas:8H")``: cards played in this order."""
        for move in moves:
            player, card = move.split(":")
            self.do("play", player=player, card=card)
        return self

    def knock(self, *players: str) -> Game:
        for player in players:
            self.do("knock", player=player)
        return self

    def fold(self, *players: str) -> Game:
        for player in players:
            self.do("fold", player=player)
        return self

    def stay(self, *players: str) -> Game:
        for player in players:
            self.do("stay", player=player)
        return self

    def adjust(self, player: str, amount: int, reason: str = "ruling") -> Game:
        return self.do("adjust", player=player, amount=amount, reason=reason)

    def undo(self) -> Game:
        return self.do("undo")

    def redo(self) -> Game:
        return self.do("redo")

    # ---------------------------------------------------------------- reading

    @property
    def names(self) -> list[str]:
        return list(self.created["players"])

    def view(self, full: bool = True) -> dict[str, Any]:
        return toepen.view(self.state, full)

    def player(self, name: str, full: bool = True) -> dict[str, Any]:
        return next(p for p in self.view(full)["players"] if p["name"] == name)

    def lost(self) -> dict[str, int]:
        return {p["name"]: p["lives_lost"] for p in self.view()["players"]}

    def hand(self, number: int = 1, full: bool = True) -> dict[str, Any]:
        out = toepen.hand_view(self.state, number, full)
        assert out is not None
        return out

    def trick(self, number: int, hand: int = 1) -> dict[str, Any]:
        out = toepen.trick_view(self.state, hand, number, True)
        assert out is not None
        return out

    def to_act(self) -> list[str]:
        return list(self.view()["to_act"])


def table(players: Iterable[str] = P4, **options: Any) -> Game:
    """A ``table`` game (no cards known) with its first hand dealt."""
    return Game(players, "table", **options).deal()


def dealt(hands: dict[str, list[str]] | None = None, **options: Any) -> Game:
    """An ``open`` 4-player game (Ann deals, Bob leads) with ``hands`` (default HANDS) dealt."""
    game = Game(P4, "open", **options)
    return game.deal(fill_hands(P4, hands) if hands else None)


# =========================================================================== cards

ORDER = "T987AKQJ"


@pytest.mark.parametrize(
    ("high", "low"),
    [(h, low) for i, h in enumerate(ORDER) for low in ORDER[i + 1 :]],
    ids=lambda rank: rank,
)
def test_card_order_within_a_suit_is_T_9_8_7_A_K_Q_J(high: str, low: str) -> None:
    assert toepen.beats(high + "S", low + "S")
    assert not toepen.beats(low + "S", high + "S")


@pytest.mark.parametrize(
    ("lower", "higher"),
    [(ORDER[i + 1], ORDER[i]) for i in range(len(ORDER) - 1)],
    ids=[f"{ORDER[i]}_beats_{ORDER[i + 1]}" for i in range(len(ORDER) - 1)],
)
def test_adjacent_ranks_decide_a_trick(lower: str, higher: str) -> None:
    game = table().play(f"Bob:{lower}H", f"Cas:{higher}H", "Dee:7C", "Ann:7D")
    assert game.trick(1)["winner"] == "Cas"


def test_deck_has_32_cards_seven_to_ace() -> None:
    assert len(set(toepen.DECK)) == 32
    assert {card[0] for card in toepen.DECK} == set("789TJQKA")


# =========================================================================== tricks

TRICKS = [
    pytest.param(["Bob:7H", "Cas:8H", "Dee:9H", "Ann:TH"], "Ann", id="ten_is_highest"),
    pytest.param(["Bob:AH", "Cas:TH", "Dee:KH", "Ann:QH"], "Cas", id="ten_beats_ace"),
    pytest.param(["Bob:AH", "Cas:7H", "Dee:KH", "Ann:QH"], "Cas", id="seven_beats_ace"),
    pytest.param(["Bob:JH", "Cas:QH", "Dee:7C", "Ann:7D"], "Cas", id="jack_is_lowest"),
    pytest.param(["Bob:JH", "Cas:TC", "Dee:TS", "Ann:TD"], "Bob", id="off_suit_tens_cannot_win"),
    pytest.param(["Bob:KS", "Cas:AS", "Dee:9S", "Ann:8S"], "Dee", id="nine_beats_eight_and_ace"),
    pytest.param(["Bob:8D", "Cas:AD", "Dee:TC", "Ann:9D"], "Ann", id="last_player_wins"),
]


@pytest.mark.parametrize(("moves", "winner"), TRICKS)
def test_trick_is_won_by_highest_card_of_led_suit(moves: list[str], winner: str) -> None:
    game = table().play(*moves)
    trick = game.trick(1)
    assert trick["winner"] == winner
    assert trick["lead_suit"] == moves[0][-1]
    assert [p["card"] for p in trick["plays"]] == [m.split(":")[1] for m in moves]
    assert game.to_act() == [winner]  # the winner leads the next trick


# =========================================================================== follow suit

OPEN_FOLLOW = [
    pytest.param("Bob:7H", "Cas:TC", "must_follow_suit", id="holds_hearts_plays_club"),
    pytest.param("Bob:7H", "Cas:8H", None, id="follows_hearts"),
    pytest.param("Bob:7H", "Cas:JH", None, id="follows_with_any_heart"),
    pytest.param("Bob:AD", "Cas:TC", None, id="void_in_diamonds_plays_club"),
    pytest.param("Bob:AD", "Cas:JH", None, id="void_in_diamonds_plays_heart"),
    pytest.param("Bob:8C", "Cas:JH", "must_follow_suit", id="holds_club_plays_heart"),
    pytest.param("Bob:KS", "Cas:8H", "must_follow_suit", id="holds_spade_plays_heart"),
]


@pytest.mark.parametrize(("lead", "answer", "code"), OPEN_FOLLOW)
def test_open_game_enforces_follow_suit(lead: str, answer: str, code: str | None) -> None:
    game = dealt().play(lead)
    player, card = answer.split(":")
    if code is None:
        game.play(answer)
        assert game.trick(1)["plays"][-1]["card"] == card
    else:
        error = game.refused("play", player=player, card=card)
        assert error.code == code
        assert "hearts" in error.message or "clubs" in error.message or "spades" in error.message


def test_follow_suit_message_names_the_known_cards() -> None:
    error = dealt().play("Bob:7H").refused("play", player="Cas", card="TC")
    assert error.message == "Cas must follow hearts: they are known to hold 8♥ J♥."


TABLE_FOLLOW = [
    pytest.param([], None, id="nothing_known_anything_goes"),
    pytest.param([("Cas", ["8H"])], "must_follow_suit", id="revealed_heart_must_follow"),
    pytest.param([("Cas", ["8C", "9S"])], None, id="revealed_no_heart"),
    pytest.param([("Dee", ["8H"])], None, id="someone_else_revealed_a_heart"),
]


@pytest.mark.parametrize(("reveals", "code"), TABLE_FOLLOW)
def test_table_game_enforces_follow_suit_only_when_known(
    reveals: list[tuple[str, list[str]]], code: str | None
) -> None:
    game = table()
    for player, cards in reveals:
        game.do("reveal", player=player, cards=cards)
    game.play("Bob:7H")
    if code is None:
        game.play("Cas:TC")
        assert game.hand()["irregularities"] == []
    else:
        assert game.code("play", player="Cas", card="TC") == code


@pytest.mark.parametrize("proof", ["played", "revealed"])
def test_table_revoke_is_flagged_by_later_knowledge_with_proof_seq(proof: str) -> None:
    game = table().play("Bob:7H", "Cas:TC", "Dee:9H", "Ann:TH")  # Cas showed out of hearts
    void_seq = game.trick(1)["plays"][1]["seq"]
    if proof == "played":
        game.play("Ann:7D", "Bob:8D", "Cas:8H")  # Cas did not follow diamonds... and holds a heart
    else:
        game.do("reveal", player="Cas", cards=["8H"])
    proof_seq = game.seq
    flags = [f for f in game.hand()["irregularities"] if f["trick"] == 1]
    assert flags == [
        {
            "kind": "revoke",
            "player": "Cas",
            "trick": 1,
            "seq": void_seq,
            "proof_seq": proof_seq,
            "card": "8H",
            "detail": flags[0]["detail"],
        }
    ]
    assert proof in flags[0]["detail"] and flags[0]["detail"].endswith(".")
    assert game.trick(1)["irregularities"] == flags
    assert game.trick(1)["winner"] == "Ann"  # history is never rewritten


def test_table_revoke_not_flagged_for_another_suit_or_player() -> None:
    game = table().play("Bob:7H", "Cas:TC", "Dee:9H", "Ann:TH")
    game.do("reveal", player="Cas", cards=["8D"])  # not a heart
    game.do("reveal", player="Dee", cards=["8H"])  # Dee followed suit
    assert game.hand()["irregularities"] == []


def test_revoke_is_flagged_once() -> None:
    game = table().play("Bob:7H", "Cas:TC", "Dee:9H", "Ann:TH")
    game.do("reveal", player="Cas", cards=["8H"])
    game.do("reveal", player="Cas", cards=["8H", "JH"])
    assert len(game.hand()["irregularities"]) == 1


# =========================================================================== who leads


@pytest.mark.parametrize(
    ("dealer", "leader"),
    [("Ann", "Bob"), ("Bob", "Cas"), ("Cas", "Dee"), ("Dee", "Ann")],
    ids=["Ann_deals", "Bob_deals", "Cas_deals", "Dee_deals_wraps_round"],
)
def test_player_left_of_dealer_leads_the_first_trick(dealer: str, leader: str) -> None:
    game = Game(P4, "table", dealer=dealer).deal()
    assert game.view()["dealer"] == dealer
    assert game.to_act() == [leader]
    other = next(n for n in P4 if n != leader)
    assert game.code("play", player=other, card="7H") == "not_your_turn"


def test_first_dealer_defaults_to_first_seat() -> None:
    created = {"players": list(P4), "options": toepen.resolve_options({}, list(P4)), "visibility": "table"}
    state = toepen.initial_state(created)
    assert toepen.view(state, True)["dealer"] == "Ann"


LEAD_AFTER_FOLDS = [
    pytest.param([], ["Cas"], ["Bob"], "Cas", id="leader_folded_next_left_leads"),
    pytest.param([], ["Dee"], ["Bob", "Cas"], "Dee", id="two_folded_next_in_leads"),
    pytest.param([], ["Ann"], ["Bob", "Cas"], "Dee", id="knocker_not_next_in"),
    pytest.param(FULL_HAND[:4], ["Bob"], ["Ann"], "Bob", id="trick_winner_folds_lead_passes_left"),
    pytest.param(FULL_HAND[:4], ["Dee"], ["Ann", "Bob"], "Cas", id="trick_winner_and_next_fold"),
    pytest.param(FULL_HAND[:4], ["Ann"], ["Dee"], "Ann", id="someone_else_folds_winner_leads"),
]


@pytest.mark.parametrize(("before", "knocker", "folders", "leader"), LEAD_AFTER_FOLDS)
def test_lead_passes_left_past_folded_players(
    before: tuple[str, ...], knocker: list[str], folders: list[str], leader: str
) -> None:
    game = dealt().play(*before).knock(*knocker).fold(*folders)
    assert game.to_act() == [leader]


def test_folded_player_is_skipped_within_a_trick() -> None:
    game = dealt().play("Bob:7H").knock("Bob").fold("Cas")
    assert game.to_act() == ["Dee"]
    assert game.code("play", player="Cas", card="8H") == "not_your_turn"


def test_last_to_play_folds_and_the_trick_completes() -> None:
    game = dealt().play("Bob:7H", "Cas:8H", "Dee:AH").knock("Dee").fold("Ann")
    assert game.trick(1)["winner"] == "Cas" and game.trick(1)["complete"]
    assert game.to_act() == ["Cas"]


# =========================================================================== knocking

KNOCKS = [
    # (lives lost before the hand, options, knockers in order) -> code of the last knock
    pytest.param({}, {}, ["Bob"], None, id="first_knock"),
    pytest.param({}, {}, ["Bob", "Bob"], "knock_not_allowed", id="not_twice_in_a_row"),
    pytest.param({}, {}, ["Bob", "Cas", "Bob"], None, id="again_after_someone_else"),
    pytest.param({}, {}, ["Ann"], None, id="dealer_may_knock"),
    pytest.param({"Bob": 9}, {}, ["Bob"], "knock_not_allowed", id="9_of_10_lost_no_knock"),
    pytest.param({"Bob": 8}, {}, ["Bob"], None, id="8_of_10_lost_first_knock"),
    pytest.param({"Bob": 8}, {}, ["Cas", "Bob"], "knock_not_allowed", id="8_of_10_lost_not_second_knock"),
    pytest.param({"Bob": 7}, {}, ["Cas", "Bob"], None, id="7_of_10_lost_second_knock"),
    pytest.param({"Bob": 7}, {}, ["Cas", "Dee", "Bob"], "knock_not_allowed", id="7_of_10_lost_not_third"),
    pytest.param({"Bob": 2}, {"limit": 3}, ["Bob"], "knock_not_allowed", id="limit_3_two_lost"),
    pytest.param({"Bob": 1}, {"limit": 3}, ["Bob"], None, id="limit_3_one_lost"),
    pytest.param({}, {"limit": 1}, ["Bob"], "knock_not_allowed", id="limit_1_never_knock"),
    pytest.param({"Cas": 9}, {}, ["Bob"], None, id="others_lives_do_not_matter"),
    pytest.param({}, {"max_stake": 2}, ["Bob"], None, id="max_stake_2_first"),
    pytest.param({}, {"max_stake": 2}, ["Bob", "Cas"], "knock_not_allowed", id="max_stake_2_second"),
    pytest.param({}, {"max_stake": 3}, ["Bob", "Cas"], None, id="max_stake_3_second"),
    pytest.param({}, {"max_stake": 3}, ["Bob", "Cas", "Dee"], "knock_not_allowed", id="max_stake_3_third"),
    pytest.param({}, {}, ["Bob", "Cas", "Dee", "Ann", "Bob", "Cas", "Dee", "Ann", "Bob"], None, id="stake_10"),
    pytest.param({}, {}, ["Bob", "Cas"] * 5, "knock_not_allowed", id="stake_11_above_10_lives"),
]


@pytest.mark.parametrize(("lost", "options", "knockers", "code"), KNOCKS)
def test_knocking_limits(lost: dict[str, int], options: dict[str, Any], knockers: list[str], code: str | None) -> None:
    game = Game(P4, "table", **options)
    for name, amount in lost.items():
        game.adjust(name, amount)
    game.deal().knock(*knockers[:-1])
    stake = game.view()["stake"]
    if code is None:
        game.knock(knockers[-1])
        assert game.view()["stake"] == stake + 1 == len(knockers) + 1
        assert game.view()["last_knocker"] == knockers[-1]
    else:
        assert game.code("knock", player=knockers[-1]) == code
        assert game.view()["stake"] == stake


def test_knock_limit_message_says_lives_left() -> None:
    game = Game(P4, "table").adjust("Bob", 9).deal()
    assert game.refused("knock", player="Bob").message == "Bob has 1 life left and may not raise the stake to 2."


def test_knock_allowed_at_any_moment_of_the_hand() -> None:
    game = dealt().knock("Bob")  # before the first card
    game.play("Bob:7H", "Cas:8H").knock("Ann")  # mid-trick, by a player yet to play
    game.play("Dee:AH", "Ann:TH").knock("Bob")  # between tricks
    assert game.view()["stake"] == 4
    assert [k["player"] for k in game.hand()["knocks"]] == ["Bob", "Ann", "Bob"]


def test_every_hand_starts_fresh_stake_and_knocker() -> None:
    game = dealt().knock("Bob").fold("Cas", "Dee", "Ann")  # Bob wins at once and deals next
    game.deal({"Ann": ["7S", "8S", "9H", "QC"], "Bob": ["JC", "KC", "AC", "9D"],
               "Cas": ["TD", "QD", "KD", "KH"], "Dee": ["7D", "AS", "JS", "QH"]})  # fmt: skip
    assert game.view()["stake"] == 1 and game.view()["last_knocker"] is None
    game.knock("Bob")
    assert game.view()["stake"] == 2


def test_folded_player_cannot_knock() -> None:
    game = dealt().knock("Bob").fold("Cas")
    assert game.code("knock", player="Cas") == "not_your_turn"


# =========================================================================== answering a knock

X = {"knock_responses": "explicit"}
ANSWER_REFUSALS = [
    # (options, setup: list of (type, player)), refused (type, player) -> code
    pytest.param({}, [("knock", "Bob")], ("stay", "Cas"), "wrong_phase", id="implicit_stay_refused"),
    pytest.param({}, [], ("stay", "Cas"), "wrong_phase", id="implicit_stay_no_knock"),
    pytest.param({}, [], ("fold", "Cas"), "cannot_fold", id="implicit_fold_without_knock"),
    pytest.param({}, [("knock", "Bob")], ("fold", "Bob"), "cannot_fold", id="implicit_knocker_cannot_fold"),
    pytest.param(
        {}, [("knock", "Bob"), ("play", "Bob")], ("fold", "Cas"), "cannot_fold", id="implicit_card_closes_folds"
    ),
    pytest.param({}, [("knock", "Bob"), ("fold", "Cas")], ("fold", "Cas"), "not_your_turn", id="implicit_fold_twice"),
    pytest.param(
        {},
        [("knock", "Bob"), ("knock", "Cas")],
        ("fold", "Cas"),
        "cannot_fold",
        id="implicit_latest_knocker_cannot_fold",
    ),
    pytest.param(X, [("knock", "Cas")], ("stay", "Ann"), "not_your_turn", id="explicit_order"),
    pytest.param(X, [("knock", "Cas")], ("fold", "Bob"), "not_your_turn", id="explicit_fold_out_of_order"),
    pytest.param(X, [("knock", "Cas")], ("fold", "Cas"), "cannot_fold", id="explicit_knocker_cannot_fold"),
    pytest.param(X, [("knock", "Cas")], ("stay", "Cas"), "not_your_turn", id="explicit_knocker_does_not_answer"),
    pytest.param(X, [("knock", "Cas")], ("play", "Bob"), "wrong_phase", id="explicit_card_while_answers_pending"),
    pytest.param(X, [("knock", "Cas")], ("knock", "Dee"), "wrong_phase", id="explicit_knock_while_answers_pending"),
    pytest.param(X, [("knock", "Cas")], ("knock", "Bob"), "wrong_phase", id="explicit_reknock_while_pending"),
    pytest.param(X, [], ("stay", "Bob"), "wrong_phase", id="explicit_stay_without_knock"),
    pytest.param(X, [], ("fold", "Bob"), "cannot_fold", id="explicit_fold_without_knock"),
    pytest.param(
        X,
        [("knock", "Cas"), ("stay", "Dee"), ("stay", "Ann"), ("stay", "Bob")],
        ("fold", "Dee"),
        "cannot_fold",
        id="explicit_answered_knock_is_closed",
    ),
    pytest.param(
        X,
        [("knock", "Cas"), ("stay", "Dee"), ("stay", "Ann"), ("stay", "Bob")],
        ("stay", "Dee"),
        "wrong_phase",
        id="explicit_no_second_stay",
    ),
]

BOB_FIRST_CARD = {"Bob": "7H"}


@pytest.mark.parametrize(("options", "setup", "action", "code"), ANSWER_REFUSALS)
def test_answer_refusals(
    options: dict[str, Any], setup: list[tuple[str, str]], action: tuple[str, str], code: str
) -> None:
    game = dealt(**options)
    for kind, player in setup:
        if kind == "play":
            game.do("play", player=player, card=BOB_FIRST_CARD[player])
        else:
            game.do(kind, player=player)
    kind, player = action
    fields = {"card": BOB_FIRST_CARD.get(player, "8H")} if kind == "play" else {}
    assert game.code(kind, player=player, **fields) == code


def test_implicit_folds_in_any_order_until_next_card() -> None:
    game = dealt().knock("Bob")
    assert game.view()["can_fold"] == ["Ann", "Cas", "Dee"]
    game.fold("Dee", "Ann")
    assert game.lost() == {"Ann": 1, "Bob": 0, "Cas": 0, "Dee": 1}
    game.play("Bob:7H")
    assert game.view()["can_fold"] == []  # Cas did not fold: Cas stayed


def test_implicit_earlier_knocker_may_fold_on_a_later_knock() -> None:
    game = dealt().knock("Bob", "Cas").fold("Bob")
    assert game.lost()["Bob"] == 2
    assert game.hand()["folds"] == [{"player": "Bob", "seq": game.seq, "lost": 2}]


def test_implicit_new_knock_reopens_folds_at_the_new_stake() -> None:
    game = dealt().knock("Bob").play("Bob:7H").knock("Cas").fold("Dee")
    assert game.lost()["Dee"] == 2


def test_explicit_answers_in_seat_order_left_of_knocker() -> None:
    game = dealt(knock_responses="explicit").knock("Cas")
    view = game.view()
    assert view["phase"] == "answering"
    assert view["answers_due"] == ["Dee", "Ann", "Bob"]
    assert game.to_act() == ["Dee"]
    game.stay("Dee")
    assert game.to_act() == ["Ann"]
    game.fold("Ann")
    assert game.lost()["Ann"] == 1
    game.stay("Bob")
    assert game.view()["phase"] == "playing"
    assert game.to_act() == ["Bob"]
    game.play("Bob:7H")


def test_explicit_answers_skip_folded_players() -> None:
    game = dealt(knock_responses="explicit").knock("Cas").stay("Dee").fold("Ann").stay("Bob").knock("Dee")
    assert game.view()["answers_due"] == ["Bob", "Cas"]


def test_explicit_legal_actions_offer_stay_and_fold_to_the_answerer_only() -> None:
    game = dealt(knock_responses="explicit").knock("Cas")
    kinds = {(a["type"], a["player"]) for a in toepen.legal_actions(game.state, True)}
    assert ("stay", "Dee") in kinds and ("fold", "Dee") in kinds
    assert not {k for k in kinds if k[0] in ("stay", "fold", "play", "knock") and k[1] != "Dee"}


@pytest.mark.parametrize(
    ("knocks", "lost"),
    [(["Bob"], 1), (["Bob", "Ann"], 2), (["Bob", "Ann", "Bob"], 3), (["Bob", "Ann", "Bob", "Ann"], 4)],
    ids=["first_knock_1", "second_knock_2", "third_knock_3", "fourth_knock_4"],
)
@pytest.mark.parametrize("mode", ["implicit", "explicit"])
def test_fold_loses_the_stake_before_the_knock(knocks: list[str], lost: int, mode: str) -> None:
    game = dealt(knock_responses=mode)
    for number, knocker in enumerate(knocks, 1):
        game.knock(knocker)
        while game.view()["answers_due"] and (number < len(knocks) or game.view()["answers_due"][0] != "Dee"):
            game.stay(game.view()["answers_due"][0])
    game.fold("Dee")
    assert game.lost()["Dee"] == lost
    assert game.player("Dee")["in_hand"] is False
    assert game.hand()["losses"]["Dee"] == lost


@pytest.mark.parametrize("mode", ["implicit", "explicit"])
def test_everyone_else_folds_last_player_wins_at_once_and_loses_nothing(mode: str) -> None:
    game = dealt(knock_responses=mode).play("Bob:7H", "Cas:8H").knock("Cas").fold("Dee", "Ann", "Bob")
    result = game.hand()["result"]
    assert result["winner"] == "Cas"
    assert result["losses"] == {"Ann": 1, "Bob": 1, "Cas": 0, "Dee": 1}
    assert len(game.hand()["tricks"]) == 1  # remaining tricks are not played
    assert game.view()["phase"] == "deal" and game.view()["next_dealer"] == "Cas"
    assert game.code("play", player="Dee", card="AH") == "hand_over"


# =========================================================================== end of the hand


@pytest.mark.parametrize(
    ("knockers", "stake"),
    [([], 1), (["Ann"], 2), (["Ann", "Bob"], 3), (["Ann", "Bob", "Ann"], 4)],
    ids=["no_knock_1", "one_knock_2", "two_knocks_3", "three_knocks_4"],
)
def test_end_of_hand_everyone_but_the_last_trick_winner_loses_the_stake(knockers: list[str], stake: int) -> None:
    game = dealt().knock(*knockers).play(*FULL_HAND)
    assert [game.trick(t)["winner"] for t in (1, 2, 3, 4)] == ["Ann", "Cas", "Dee", "Dee"]
    result = game.hand()["result"]
    assert result["winner"] == "Dee"
    assert result["losses"] == {"Ann": stake, "Bob": stake, "Cas": stake, "Dee": 0}
    assert game.lost() == result["losses"]
    assert game.player("Ann")["lives_left"] == 10 - stake
    assert game.view()["phase"] == "deal" and game.to_act() == []


def trick_four_winner_folds(**options: Any) -> Game:
    """Dee leads 8♦ in trick 4 (the best diamond), then folds on Ann's knock."""
    return dealt(**options).play(*FULL_HAND[:12], "Dee:8D").knock("Ann").fold("Dee").play("Ann:JD", "Bob:AD", "Cas:JH")


@pytest.mark.parametrize(
    ("rule", "winner", "losses"),
    [
        ("all_lose", None, {"Ann": 2, "Bob": 2, "Cas": 2, "Dee": 1}),
        ("best_active", "Bob", {"Ann": 2, "Bob": 0, "Cas": 2, "Dee": 1}),
    ],
)
def test_folded_last_trick_winner(rule: str, winner: str | None, losses: dict[str, int]) -> None:
    game = trick_four_winner_folds(folded_last_trick=rule)
    assert game.trick(4)["winner"] == "Dee"  # the trick's own winner, folded or not
    assert "folded" in game.trick(4)["winner_reason"]
    result = game.hand()["result"]
    assert result["winner"] == winner
    assert result["losses"] == losses
    assert result["reason"].endswith(("wins", "everyone still in loses"))


def test_best_active_with_no_led_suit_among_players_still_in_nobody_wins() -> None:
    game = table(folded_last_trick="best_active").play(
        "Bob:7H", "Cas:8H", "Dee:9H", "Ann:TH",
        "Ann:7S", "Bob:8S", "Cas:9S", "Dee:TS",
        "Dee:7C", "Ann:8C", "Bob:9C", "Cas:TC",
    )  # fmt: skip
    game.play("Cas:8D").knock("Ann").fold("Cas").play("Dee:JS", "Ann:QS", "Bob:KS")
    result = game.hand()["result"]
    assert result["winner"] is None
    assert result["losses"] == {"Ann": 2, "Bob": 2, "Cas": 1, "Dee": 2}
    assert game.view()["next_dealer"] == "Ann"  # nobody won: the same dealer deals again


NEXT_DEALER = [
    pytest.param("winner", "full", "Dee", id="winner_deals"),
    pytest.param("left", "full", "Bob", id="left_passes_one_seat"),
    pytest.param("winner", "nobody", "Ann", id="nobody_won_same_dealer"),
    pytest.param("left", "nobody", "Bob", id="left_also_when_nobody_won"),
    pytest.param("winner", "folds", "Cas", id="winner_by_folds_deals"),
    pytest.param("left", "folds", "Bob", id="left_after_folds"),
]


@pytest.mark.parametrize(("rule", "ending", "dealer"), NEXT_DEALER)
def test_next_dealer(rule: str, ending: str, dealer: str) -> None:
    if ending == "full":
        game = dealt(next_dealer=rule).play(*FULL_HAND)
    elif ending == "nobody":
        game = trick_four_winner_folds(next_dealer=rule)
    else:
        game = dealt(next_dealer=rule).knock("Cas").fold("Dee", "Ann", "Bob")
    assert game.view()["next_dealer"] == dealer
    assert toepen.legal_actions(game.state, True) == [{"type": "deal", "player": dealer, "cards": None}]
    wrong = next(n for n in P4 if n != dealer)
    hands = fill_hands(P4)
    assert game.code("deal", dealer=wrong, hands=hands) == "wrong_dealer"
    game.deal(hands, dealer=dealer)
    assert game.view()["dealer"] == dealer and game.view()["hand_number"] == 2


def test_left_dealer_wraps_round_the_table() -> None:
    game = Game(P4, "table", dealer="Dee", next_dealer="left").deal().knock("Bob").fold("Cas", "Dee", "Ann")
    assert game.view()["next_dealer"] == "Ann"


# =========================================================================== laundry


def test_laundry_exchanges_the_hand_from_the_stock() -> None:
    game = dealt(LAUNDRY_HANDS).do("laundry", player="Bob", cards=BOB_NEW)
    assert game.view()["stock_size"] == 12
    assert game.player("Bob")["cards_known"] == sorted(BOB_NEW)
    assert game.hand()["laundries"] == [
        {"player": "Bob", "seq": game.seq, "challenger": None, "challenge_seq": None, "shown": [], "genuine": None}
    ]
    game.play("Bob:7S")


def test_laundry_without_new_cards_leaves_four_unknown_cards() -> None:
    game = dealt(LAUNDRY_HANDS).do("laundry", player="Bob")
    assert game.hand()["hands"]["Bob"] == {"known": [], "unknown": 4}
    assert game.code("play", player="Bob", card="JH") == "card_not_available"  # laid face down
    game.play("Bob:7S")


LAUNDRY_REFUSALS = [
    pytest.param(P4, [("laundry", "Bob")], ("laundry", "Bob"), "laundry_not_allowed", id="once_per_player_per_hand"),
    pytest.param(P4, [("play", "Bob")], ("laundry", "Cas"), "laundry_not_allowed", id="after_first_card"),
    pytest.param(P8, [], ("laundry", "Bob"), "laundry_not_allowed", id="never_with_8_players"),
    pytest.param(P7, [("laundry", "Bob")], ("laundry", "Cas"), "laundry_not_allowed", id="7_players_stock_used_up"),
    pytest.param(P4, [("knock", "Bob"), ("fold", "Cas")], ("laundry", "Cas"), "not_your_turn", id="folded_player"),
]


@pytest.mark.parametrize(("players", "setup", "action", "code"), LAUNDRY_REFUSALS)
def test_laundry_refusals(
    players: tuple[str, ...], setup: list[tuple[str, str]], action: tuple[str, str], code: str
) -> None:
    game = table(players)
    for kind, player in setup:
        game.do(kind, player=player, **({"card": "7H"} if kind == "play" else {}))
    assert game.code(action[0], player=action[1]) == code


@pytest.mark.parametrize(("players", "stock"), [(P3, 20), (P4, 16), (P7, 4), (P8, 0)], ids=["3", "4", "7", "8"])
def test_stock_is_32_minus_4_per_player(players: tuple[str, ...], stock: int) -> None:
    game = table(players)
    assert game.view()["stock_size"] == stock
    laundries = [a for a in toepen.legal_actions(game.state, True) if a["type"] == "laundry"]
    assert bool(laundries) == (stock >= 4)


def test_seven_players_one_laundry_fits() -> None:
    game = table(P7).do("laundry", player="Cas")
    assert game.view()["stock_size"] == 0


def test_bluff_laundry_of_an_ordinary_hand_is_allowed() -> None:
    game = dealt(LAUNDRY_HANDS).do("laundry", player="Cas", cards=CAS_NEW)
    assert game.player("Cas")["cards_known"] == sorted(CAS_NEW)


def test_laundry_allowed_again_next_hand() -> None:
    game = table().do("laundry", player="Bob").knock("Bob").fold("Cas", "Dee", "Ann")
    game.deal().do("laundry", player="Bob")
    assert len(game.hand(2)["laundries"]) == 1


def test_laundry_new_cards_must_come_from_the_stock() -> None:
    game = dealt(LAUNDRY_HANDS)
    assert game.code("laundry", player="Bob", cards=["TH", "7S", "8S", "9H"]) == "card_not_available"
    assert game.code("laundry", player="Bob", cards=["7S", "8S", "9H"]) == "wrong_card_count"
    assert game.code("laundry", player="Bob", cards=["7S", "7S", "8S", "9H"]) == "card_not_available"  # recording.md
    assert game.code("laundry", player="Bob", cards=["7S", "7S", "8S", "9H", "KC"]) == "wrong_card_count"


CHALLENGES = [
    # (visibility, who launders, challenge cards) -> who loses 1 life, genuine
    pytest.param("open", "Bob", None, "Ann", True, id="open_genuine_challenger_loses"),
    pytest.param("open", "Cas", None, "Cas", False, id="open_bluff_target_loses"),
    pytest.param("open", "Bob", GENUINE, "Ann", True, id="open_genuine_cards_given"),
    pytest.param("table", "Bob", GENUINE, "Ann", True, id="table_genuine_challenger_loses"),
    pytest.param("table", "Bob", ["JH", "QH", "KH", "7H"], "Bob", False, id="table_seven_makes_bluff"),
    pytest.param("table", "Bob", ["JH", "QH", "KH", "TH"], "Bob", False, id="table_ten_makes_bluff"),
    pytest.param("table", "Bob", ["JH", "QH", "9H", "8H"], "Bob", False, id="table_nine_eight_bluff"),
]


@pytest.mark.parametrize(("visibility", "target", "cards", "loser", "genuine"), CHALLENGES)
def test_challenge(visibility: str, target: str, cards: list[str] | None, loser: str, genuine: bool) -> None:
    game = dealt(LAUNDRY_HANDS) if visibility == "open" else table()
    new = {"Bob": BOB_NEW, "Cas": CAS_NEW}[target] if visibility == "open" else None
    game.do("laundry", player=target, **({"cards": new} if new else {}))
    game.do("challenge", player="Ann", target=target, **({"cards": cards} if cards else {}))
    assert {name: n for name, n in game.lost().items() if n} == {loser: 1}
    entry = game.hand()["laundries"][0]
    assert (entry["challenger"], entry["challenge_seq"], entry["genuine"]) == ("Ann", game.seq, genuine)
    assert game.hand()["losses"][loser] == 1
    if new:  # the target keeps the new cards
        assert game.player(target)["cards_known"] == sorted(new)


CHALLENGE_REFUSALS = [
    pytest.param([("laundry", "Bob", {}), ("challenge", "Ann", {"target": "Bob"})],
                 ("challenge", "Cas", {"target": "Bob"}), "challenge_not_allowed", id="one_challenge_per_laundry"),
    pytest.param([("laundry", "Bob", {})], ("challenge", "Bob", {"target": "Bob"}), "challenge_not_allowed",
                 id="own_laundry"),
    pytest.param([], ("challenge", "Ann", {"target": "Bob"}), "challenge_not_allowed", id="no_laundry"),
    pytest.param([("laundry", "Bob", {}), ("play", "Bob", {"card": "7S"})], ("challenge", "Ann", {"target": "Bob"}),
                 "challenge_not_allowed", id="after_first_card"),
    pytest.param([("laundry", "Bob", {}), ("knock", "Cas", {}), ("fold", "Ann", {})],
                 ("challenge", "Ann", {"target": "Bob"}), "not_your_turn", id="folded_challenger"),
    pytest.param([("laundry", "Bob", {})], ("challenge", "Ann", {"target": "Bob", "cards": ["JH", "QH", "KH", "AS"]}),
                 "card_not_available", id="open_cards_differ_from_discard"),
]  # fmt: skip


@pytest.mark.parametrize(("setup", "action", "code"), CHALLENGE_REFUSALS)
def test_challenge_refusals(
    setup: list[tuple[str, str, dict[str, Any]]], action: tuple[str, str, dict[str, Any]], code: str
) -> None:
    game = dealt(LAUNDRY_HANDS)
    for kind, player, fields in setup:
        game.do(kind, player=player, **({"cards": BOB_NEW} if kind == "laundry" else fields))
    kind, player, fields = action
    assert game.code(kind, player=player, **fields) == code


def test_table_challenge_needs_the_cards() -> None:
    game = table().do("laundry", player="Bob")
    assert game.code("challenge", player="Ann", target="Bob") == "wrong_card_count"
    assert game.code("challenge", player="Ann", target="Bob", cards=["JH", "QH", "KH"]) == "wrong_card_count"
    assert (
        game.code("challenge", player="Ann", target="Bob", cards=["JH", "JH", "QH", "KH", "AH"]) == "wrong_card_count"
    )


def test_table_challenge_cards_must_not_be_seen_elsewhere() -> None:
    game = table().do("reveal", player="Cas", cards=["AH"]).do("laundry", player="Bob")
    assert game.code("challenge", player="Ann", target="Bob", cards=GENUINE) == "card_not_available"


def test_challenged_laundry_cards_are_face_up_and_cannot_be_played() -> None:
    game = table().do("laundry", player="Bob").do("challenge", player="Ann", target="Bob", cards=GENUINE)
    assert game.code("play", player="Bob", card="JH") == "card_not_available"


MANDATORY = [
    # (laundry_mandatory, players, setup) -> Bob (the leader, holding laundry) may play JH?
    pytest.param(True, P4, [], "laundry_required", id="mandatory_refuses_play"),
    pytest.param(False, P4, [], None, id="not_mandatory"),
    pytest.param(True, P8, [], None, id="no_stock_no_laundry_possible"),
]


@pytest.mark.parametrize(("mandatory", "players", "setup", "code"), MANDATORY)
def test_laundry_mandatory(mandatory: bool, players: tuple[str, ...], setup: list[Any], code: str | None) -> None:
    game = Game(players, "open", laundry_mandatory=mandatory)
    game.deal(fill_hands(players, {"Bob": GENUINE}))
    if code is None:
        game.play("Bob:JH")
    else:
        assert game.code("play", player="Bob", card="JH") == code
        offered = {a["type"] for a in toepen.legal_actions(game.state, True) if a["player"] == "Bob"}
        assert "laundry" in offered and "play" not in offered


def test_laundry_mandatory_after_exchange_play_is_allowed() -> None:
    game = dealt(LAUNDRY_HANDS).do("laundry", player="Bob", cards=BOB_NEW)
    game.play("Bob:7S")


def test_laundry_mandatory_once_laundered_even_new_laundry_may_be_played() -> None:
    game = dealt(LAUNDRY_HANDS).do("laundry", player="Bob", cards=["JS", "KC", "QC", "AC"])
    game.play("Bob:JS")


def test_laundry_mandatory_only_while_laundry_is_possible_for_non_leaders() -> None:
    game = dealt(fill_hands(P4, {"Cas": GENUINE, "Bob": ["7C", "8C", "9C", "TC"]}))
    game.play("Bob:7C", "Cas:JH")  # the first card was played: no laundry is possible any more


@pytest.mark.parametrize(("revealed", "code"), [(GENUINE, "laundry_required"), (GENUINE[:3], None)],
                         ids=["whole_hand_known", "part_known"])  # fmt: skip
def test_laundry_mandatory_in_table_game_when_hand_known(revealed: list[str], code: str | None) -> None:
    game = table().do("reveal", player="Bob", cards=revealed)
    if code:
        assert game.code("play", player="Bob", card="JH") == code
    else:
        game.play("Bob:JH")


# =========================================================================== end of the game


def test_first_to_limit_ends_mid_hand_and_abandons_it() -> None:
    game = Game(P4, "open", limit=3).adjust("Cas", 2).deal().knock("Bob", "Ann").fold("Cas")
    view = game.view()
    assert view["status"] == "finished" and view["phase"] == "game_over"
    assert view["losers"] == ["Cas"] and view["winners"] == ["Ann", "Bob", "Dee"]
    assert game.lost()["Cas"] == 3  # never above the limit
    result = game.hand()["result"]
    assert result["abandoned"] is True and result["winner"] is None
    assert result["losses"]["Cas"] == 1  # what Cas actually lost, capped
    assert toepen.status(game.state) == "finished"
    assert toepen.legal_actions(game.state, True) == []


def test_first_to_limit_by_a_challenge_before_the_first_card() -> None:
    game = Game(P4, "table", limit=2).adjust("Ann", 1).deal().do("laundry", player="Bob")
    game.do("challenge", player="Ann", target="Bob", cards=GENUINE)
    assert game.view()["losers"] == ["Ann"]


def test_first_to_limit_at_end_of_hand_every_player_at_the_limit_loses() -> None:
    """Regression: losses at the end of a hand are simultaneous (both Ann and Bob reach 3)."""
    game = Game(P4, "open", limit=3).adjust("Ann", 2).adjust("Bob", 2).deal().play(*FULL_HAND)
    view = game.view()
    assert view["status"] == "finished"
    assert view["losers"] == ["Ann", "Bob"] and view["winners"] == ["Cas", "Dee"]
    assert game.lost() == {"Ann": 3, "Bob": 3, "Cas": 1, "Dee": 0}
    result = game.hand()["result"]
    assert result["winner"] == "Dee" and result["abandoned"] is False  # played out, not abandoned
    assert result["losses"] == {"Ann": 1, "Bob": 1, "Cas": 1, "Dee": 0}


def test_elimination_player_leaves_at_once_and_the_hand_goes_on() -> None:
    game = Game(P4, "open", game_end="elimination").adjust("Cas", 9).deal().knock("Bob").fold("Cas")
    assert game.player("Cas")["eliminated"] is True and game.player("Cas")["in_hand"] is False
    assert game.view()["status"] == "in_progress"
    game.play("Bob:7H", "Dee:AH", "Ann:TH", "Ann:9C", "Bob:8C", "Dee:7C")
    game.play("Ann:QS", "Bob:KS", "Dee:TS", "Dee:8D", "Ann:JD", "Bob:AD")
    assert game.hand()["result"]["winner"] == "Dee"
    assert game.lost() == {"Ann": 2, "Bob": 2, "Cas": 10, "Dee": 0}
    hands = {"Ann": ["7S", "8S", "9H", "QC"], "Bob": ["JC", "KC", "AC", "9D"], "Dee": ["7D", "AS", "JS", "QH"]}
    assert game.code("deal", hands={**hands, "Cas": ["TD", "QD", "KD", "KH"]}) == "wrong_card_count"
    game.deal(hands)
    assert game.hand(2)["players"] == ["Ann", "Bob", "Dee"]
    assert game.view()["stock_size"] == 20
    assert game.code("knock", player="Cas") == "not_your_turn"


def test_elimination_removes_an_eliminated_answerer() -> None:
    game = dealt(game_end="elimination", knock_responses="explicit").knock("Cas").adjust("Ann", 10)
    assert game.view()["answers_due"] == ["Dee", "Bob"]


def test_elimination_last_player_standing_wins() -> None:
    game = Game(P3, "table", game_end="elimination").adjust("Bob", 10)
    assert game.view()["status"] == "in_progress"
    game.adjust("Cas", 12)
    view = game.view()
    assert view["status"] == "finished"
    assert view["winners"] == ["Ann"] and view["losers"] == ["Bob", "Cas"]


def test_elimination_eliminated_dealer_passes_the_deal_left() -> None:
    game = Game(P4, "table", game_end="elimination").adjust("Ann", 10)
    assert game.view()["next_dealer"] == "Bob"
    game.deal()
    assert game.to_act() == ["Cas"]


def test_elimination_two_players_out_at_the_same_end_of_hand() -> None:
    """Regression: this used to crash (AssertionError) when the hand ended mid-scoring."""
    game = Game(P4, "open", game_end="elimination", limit=3).adjust("Bob", 2).adjust("Cas", 1).deal()
    game.knock("Cas").fold("Ann")
    game.play("Bob:7H", "Cas:8H", "Dee:AH", "Cas:TC", "Dee:7C", "Bob:8C", "Cas:9S", "Dee:TS", "Bob:KS")
    game.play("Dee:8D", "Bob:AD", "Cas:JH")
    assert game.hand()["result"]["winner"] == "Dee"
    assert game.hand()["result"]["losses"] == {"Ann": 1, "Bob": 1, "Cas": 2, "Dee": 0}
    assert [p["eliminated"] for p in game.view()["players"]] == [False, True, True, False]
    assert game.view()["status"] == "in_progress"
    assert game.view()["next_dealer"] == "Dee"


def test_elimination_everyone_left_out_at_once_nobody_wins() -> None:
    """Decision: when the last players all reach the limit together, the game ends without a winner."""
    game = Game(P3, "table", game_end="elimination", limit=3).adjust("Ann", 1).adjust("Bob", 1).adjust("Cas", 2)
    game.deal().play("Bob:7H", "Cas:8H", "Ann:9H", "Ann:7S", "Bob:8S", "Cas:9S", "Cas:TC", "Ann:8C", "Bob:9C")
    game.play("Cas:TD").knock("Ann").fold("Cas")  # Cas is out of the game; the hand goes on
    assert game.player("Cas")["eliminated"] and game.view()["status"] == "in_progress"
    game.play("Ann:7D", "Bob:8D")  # Cas's 10♦ wins the trick, so all_lose: Ann and Bob lose 2
    view = game.view()
    assert view["status"] == "finished"
    assert view["winners"] == [] and view["losers"] == ["Ann", "Bob", "Cas"]


@pytest.mark.parametrize(
    ("game_end", "lost", "stake_knocks"),
    [
        ("first_to_limit", 9, ["Bob", "Ann"]),
        ("elimination", 9, ["Bob", "Ann"]),
        ("first_to_limit", 8, ["Bob", "Ann", "Bob"]),
    ],
)
def test_lives_lost_never_exceed_the_limit(game_end: str, lost: int, stake_knocks: list[str]) -> None:
    game = Game(P4, "open", game_end=game_end).adjust("Cas", lost).deal().knock(*stake_knocks).fold("Cas")
    assert game.lost()["Cas"] == 10
    assert game.player("Cas")["lives_left"] == 0
    assert game.hand()["losses"]["Cas"] == 10 - lost


# =========================================================================== adjust

ADJUSTS = [
    pytest.param(10, 0, 3, 3, "in_progress", id="adds_lives_lost"),
    pytest.param(10, 2, -5, 0, "in_progress", id="never_below_zero"),
    pytest.param(10, 0, -1, 0, "in_progress", id="negative_from_zero"),
    pytest.param(10, 8, 5, 10, "finished", id="capped_at_limit_ends_game"),
    pytest.param(5, 1, 4, 5, "finished", id="exactly_the_limit"),
    pytest.param(10, 5, -2, 3, "in_progress", id="a_ruling_gives_lives_back"),
]


@pytest.mark.parametrize(("limit", "before", "amount", "after", "status"), ADJUSTS)
def test_adjust_is_kept_within_0_and_limit(limit: int, before: int, amount: int, after: int, status: str) -> None:
    game = Game(P4, "table", limit=limit)
    if before:
        game.adjust("Bob", before)
    game.deal().adjust("Bob", amount, "penalty for a revoke")
    assert game.lost()["Bob"] == after
    assert game.view()["status"] == status
    entry = game.hand()["adjustments"][-1]
    assert entry == {"player": "Bob", "seq": game.seq, "amount": amount, "applied": after - before,
                     "reason": "penalty for a revoke"}  # fmt: skip


def test_adjust_refused_once_the_game_is_over() -> None:
    game = Game(P4, "table", limit=2).adjust("Bob", 2)
    assert game.view()["losers"] == ["Bob"]
    assert game.code("adjust", player="Ann", amount=-1, reason="too late") == "game_over"


def test_adjust_between_hands() -> None:
    game = dealt().play(*FULL_HAND).adjust("Dee", 1)
    assert game.lost()["Dee"] == 1


# =========================================================================== conservation

TABLE_CONSERVATION = [
    pytest.param(["Bob:7H"], [], ("Cas", "7H"), id="played_in_this_trick"),
    pytest.param(["Bob:7H", "Cas:8H", "Dee:9H", "Ann:TH"], [], ("Ann", "7H"), id="played_in_an_earlier_trick"),
    pytest.param([], [("reveal", "Dee", ["AH"])], ("Bob", "AH"), id="revealed_by_another"),
    pytest.param(["Bob:7H"], [("reveal", "Dee", ["AH"])], ("Cas", "AH"), id="revealed_by_another_mid_trick"),
]


@pytest.mark.parametrize(("moves", "events", "attempt"), TABLE_CONSERVATION)
def test_table_conservation(
    moves: list[str], events: list[tuple[str, str, list[str]]], attempt: tuple[str, str]
) -> None:
    game = table()
    for kind, player, cards in events:
        game.do(kind, player=player, cards=cards)
    game.play(*moves)
    error = game.refused("play", player=attempt[0], card=attempt[1])
    assert error.code == "card_not_available"


def test_table_reveal_of_a_card_seen_elsewhere_is_refused() -> None:
    game = table().play("Bob:7H")
    assert game.code("reveal", player="Cas", cards=["7H"]) == "card_not_available"


def test_table_reveal_cannot_exceed_the_hand() -> None:
    """Regression: with 1 known card, a reveal of 4 other cards gave a hand of -1 unknown cards."""
    game = table().do("reveal", player="Cas", cards=["AH"])
    assert game.code("reveal", player="Cas", cards=["7C", "8C", "9C", "TC"]) == "wrong_card_count"
    assert game.code("reveal", player="Cas", cards=["7C", "8C", "9C", "TC", "JC"]) == "wrong_card_count"
    assert game.code("reveal", player="Cas", cards=["7C", "7C"]) == "card_not_available"  # recording.md
    game.do("reveal", player="Cas", cards=["AH", "7C", "8C", "9C"])
    assert game.hand()["hands"]["Cas"] == {"known": ["7C", "8C", "9C", "AH"], "unknown": 0}


def test_open_reveal_of_a_card_not_held_is_refused() -> None:
    game = dealt()
    error = game.refused("reveal", player="Bob", cards=["9H"])
    assert error.code == "card_not_available"
    assert error.message.startswith("Bob cannot have 9♥: Bob is known to hold")
    game.do("reveal", player="Bob", cards=["7H", "KS"])  # what the scorekeeper already knows


def test_table_known_hand_can_only_play_its_cards() -> None:
    game = table().do("reveal", player="Bob", cards=["7H", "8C", "9S", "TD"])
    error = game.refused("play", player="Bob", card="JH")
    assert error.code == "card_not_available"
    assert "Bob is known to hold" in error.message


OPEN_CONSERVATION = [
    pytest.param([], ("Bob", "TH"), "in Ann's hand", id="in_another_hand"),
    pytest.param([], ("Bob", "9H"), "Bob is known to hold", id="still_in_the_stock"),
    pytest.param(["Bob:7H"], ("Cas", "7H"), "Bob played it", id="already_played"),
]


@pytest.mark.parametrize(("moves", "attempt", "why"), OPEN_CONSERVATION)
def test_open_conservation(moves: list[str], attempt: tuple[str, str], why: str) -> None:
    error = dealt().play(*moves).refused("play", player=attempt[0], card=attempt[1])
    assert error.code == "card_not_available"
    assert why in error.message


def test_open_laundered_cards_are_gone() -> None:
    game = dealt(LAUNDRY_HANDS).do("laundry", player="Bob", cards=BOB_NEW)
    error = game.refused("play", player="Bob", card="AH")
    assert error.code == "card_not_available"


# =========================================================================== phases and codes

PHASE_REFUSALS = [
    # (how far the game is) x (action) -> code
    *[
        pytest.param("before_deal", kind, fields, "wrong_phase", id=f"before_deal_{kind}")
        for kind, fields in [("play", {"player": "Bob", "card": "7H"}), ("knock", {"player": "Bob"}),
                             ("fold", {"player": "Bob"}), ("laundry", {"player": "Bob"}),
                             ("reveal", {"player": "Bob", "cards": ["7H"]}),
                             ("challenge", {"player": "Ann", "target": "Bob", "cards": GENUINE})]
    ],
    *[
        pytest.param("hand_over", kind, fields, "hand_over", id=f"hand_over_{kind}")
        for kind, fields in [("play", {"player": "Dee", "card": "7D"}), ("knock", {"player": "Dee"}),
                             ("fold", {"player": "Bob"}), ("laundry", {"player": "Bob"}),
                             ("reveal", {"player": "Bob", "cards": ["7D"]}),
                             ("challenge", {"player": "Ann", "target": "Bob", "cards": GENUINE})]
    ],
    *[
        pytest.param("game_over", kind, fields, "game_over", id=f"game_over_{kind}")
        for kind, fields in [("deal", {}), ("play", {"player": "Bob", "card": "7H"}), ("knock", {"player": "Bob"}),
                             ("fold", {"player": "Bob"}), ("laundry", {"player": "Bob"}),
                             ("reveal", {"player": "Bob", "cards": ["7H"]}),
                             ("adjust", {"player": "Bob", "amount": 1, "reason": "x"})]
    ],
    pytest.param("in_hand", "deal", {}, "wrong_phase", id="deal_while_hand_in_play"),
    pytest.param("in_hand", "shuffle", {"player": "Bob"}, "wrong_phase", id="unknown_action_type"),
    pytest.param("before_deal", "deal", {"dealer": "Bob"}, "wrong_dealer", id="wrong_first_dealer"),
]  # fmt: skip


@pytest.mark.parametrize(("moment", "kind", "fields", "code"), PHASE_REFUSALS)
def test_phase_refusals(moment: str, kind: str, fields: dict[str, Any], code: str) -> None:
    game = Game(P4, "table", limit=2)
    if moment == "in_hand":
        game.deal()
    elif moment == "hand_over":
        game.deal().knock("Dee").fold("Ann", "Bob", "Cas")
    elif moment == "game_over":
        game.adjust("Cas", 2)
    assert game.code(kind, **fields) == code


DEAL_REFUSALS = [
    pytest.param(None, "wrong_card_count", id="open_deal_without_hands"),
    pytest.param({**HANDS, "Dee": ["AH", "7C", "8D"]}, "wrong_card_count", id="three_cards"),
    pytest.param({**HANDS, "Dee": ["AH", "7C", "8D", "TS", "KD"]}, "wrong_card_count", id="five_cards"),
    pytest.param({**HANDS, "Dee": ["AH", "AH", "8D", "TS"]}, "card_not_available", id="same_card_twice_in_a_hand"),
    pytest.param({**HANDS, "Dee": ["AH", "AH", "7C", "8D", "TS"]}, "wrong_card_count", id="five_cards_one_twice"),
    pytest.param({k: v for k, v in HANDS.items() if k != "Dee"}, "wrong_card_count", id="missing_a_player"),
    pytest.param({**HANDS, "Dee": ["TH", "7C", "8D", "TS"]}, "card_not_available", id="card_dealt_twice"),
]


@pytest.mark.parametrize(("hands", "code"), DEAL_REFUSALS)
def test_open_deal_refusals(hands: dict[str, list[str]] | None, code: str) -> None:
    game = Game(P4, "open")
    fields = {} if hands is None else {"hands": hands}
    assert game.code("deal", **fields) == code


# =========================================================================== views


def test_view_exposes_the_fields_of_the_spec() -> None:
    game = dealt().knock("Cas").fold("Ann").play("Bob:7H")
    view = game.view()
    assert {"status", "phase", "to_act", "players", "hand_number", "dealer", "stake", "last_knocker",
            "stock_size", "tricks"} <= set(view)  # fmt: skip
    assert view["status"] == "in_progress" and view["phase"] == "playing"
    assert (view["hand_number"], view["dealer"], view["stake"], view["last_knocker"]) == (1, "Ann", 2, "Cas")
    assert view["stock_size"] == 16 and view["to_act"] == ["Cas"]
    bob = game.player("Bob")
    assert {k: bob[k] for k in ("lives_lost", "lives_left", "in_hand", "hand_size", "eliminated")} == {
        "lives_lost": 0, "lives_left": 10, "in_hand": True, "hand_size": 3, "eliminated": False}  # fmt: skip
    assert game.player("Ann")["in_hand"] is False and game.player("Ann")["lives_lost"] == 1
    trick = view["tricks"][0]
    assert trick["plays"] == [{"player": "Bob", "card": "7H", "seq": game.seq}]
    assert trick["lead_suit"] == "H" and trick["winner"] is None


def test_view_before_the_first_deal() -> None:
    view = Game(P4, "table").view()
    assert view["phase"] == "deal" and view["to_act"] == [] and view["hand_number"] == 0
    assert view["next_dealer"] == "Ann" and view["tricks"] == []
    assert "winners" not in view and "losers" not in view
    assert toepen.hand_number(Game(P4).state) == 0


def test_hand_view_and_trick_view_numbers() -> None:
    game = dealt().play(*FULL_HAND[:5])
    assert toepen.hand_view(game.state, 0, True) is None
    assert toepen.hand_view(game.state, 2, True) is None
    assert toepen.trick_view(game.state, 1, 3, True) is None
    assert toepen.trick_view(game.state, 1, 0, True) is None
    assert toepen.trick_view(game.state, 2, 1, True) is None
    assert game.hand()["result"] is None
    assert not toepen.hand_over(game.state, 1)
    game.play(*FULL_HAND[5:])
    assert toepen.hand_over(game.state, 1)
    assert game.hand()["result"]["winner"] == "Dee"


def test_trick_view_winner_reason() -> None:
    game = dealt().play(*FULL_HAND[:4])
    trick = game.trick(1)
    assert trick["winner"] == "Ann" and trick["hand_number"] == 1
    reason = trick["winner_reason"]
    assert reason.startswith("10♥ is the highest heart, the suit led")
    assert "10 9 8 7 A K Q J" in reason and reason.endswith(".")
    assert [p["seq"] for p in trick["plays"]] == list(range(game.seq - 3, game.seq + 1))
    off = dealt().play(*FULL_HAND[:12], "Dee:8D", "Ann:JD", "Bob:AD", "Cas:JH").trick(4)
    assert "did not follow suit and cannot win" in off["winner_reason"]
    unfinished = dealt().play("Bob:7H").trick(1)
    assert unfinished["winner"] is None and unfinished["winner_reason"] is None


def test_redact_hides_dealt_hands_and_laundry_cards_only() -> None:
    deal = {"type": "deal", "dealer": "Ann", "hands": HANDS, "seq": 2}
    assert toepen.redact(deal) == {"type": "deal", "dealer": "Ann", "seq": 2}
    assert "hands" in deal  # the stored action is not changed
    laundry = {"type": "laundry", "player": "Bob", "cards": BOB_NEW}
    assert toepen.redact(laundry) == {"type": "laundry", "player": "Bob"}
    for public in (
        {"type": "play", "player": "Bob", "card": "7H"},
        {"type": "challenge", "player": "Ann", "target": "Bob", "cards": GENUINE},
        {"type": "reveal", "player": "Bob", "cards": ["7H"]},
    ):
        assert toepen.redact(public) == public


def test_public_view_of_open_game_hides_hands_until_the_hand_is_over() -> None:
    game = dealt().play("Bob:7H")
    public = game.view(full=False)
    assert all("cards_known" not in p for p in public["players"])
    assert public["players"][1]["hand_size"] == 3
    assert "hands" not in game.hand(full=False)
    assert all(a["cards"] is None for a in toepen.legal_actions(game.state, False))
    assert game.player("Cas")["cards_known"] == sorted(HANDS["Cas"])
    assert "hands" in game.hand(full=True)
    game.play(*FULL_HAND[1:])
    shown = game.hand(full=False)["hands"]
    assert shown["Ann"] == {"known": [], "unknown": 0}  # all played: hands visible, now empty


def test_public_view_of_open_game_shows_the_winners_hand_after_the_hand() -> None:
    game = dealt().knock("Bob").fold("Cas", "Dee", "Ann")
    assert game.hand(full=False)["hands"] == {"Bob": {"known": sorted(HANDS["Bob"]), "unknown": 0}}


def test_table_game_public_view_shows_known_cards() -> None:
    game = table().do("reveal", player="Bob", cards=["7H"])
    assert game.player("Bob", full=False)["cards_known"] == ["7H"]


def test_legal_actions_lists_exact_cards_in_open_game() -> None:
    game = dealt().play("Bob:7H")
    plays = [a for a in toepen.legal_actions(game.state, True) if a["type"] == "play"]
    assert plays == [{"type": "play", "player": "Cas", "cards": ["8H", "JH"]}]
    knocks = {a["player"] for a in toepen.legal_actions(game.state, True) if a["type"] == "knock"}
    assert knocks == set(P4)


def test_legal_actions_in_table_game_leave_cards_open() -> None:
    game = table()
    plays = [a for a in toepen.legal_actions(game.state, True) if a["type"] == "play"]
    assert plays == [{"type": "play", "player": "Bob", "cards": None}]
    reveals = {a["player"] for a in toepen.legal_actions(game.state, True) if a["type"] == "reveal"}
    assert reveals == set(P4)


# =========================================================================== undo and redo


def test_undo_undo_redo_redo_step_by_step() -> None:
    game = dealt()
    states = [game.state]
    for move in FULL_HAND[:3]:
        game.play(move)
        states.append(game.state)
    game.undo()
    assert game.state == states[2]
    game.undo()
    assert game.state == states[1] and game.to_act() == ["Cas"]
    game.redo()
    assert game.state == states[2]
    game.redo()
    assert game.state == states[3]
    assert game.code("redo") == "nothing_to_redo"


def test_new_action_after_undo_clears_redo() -> None:
    # do A, undo A, do B, do C, undo C: A cancelled, B in force
    game = dealt()
    game.knock("Bob")
    a = game.seq
    game.undo().knock("Cas")
    b = game.seq
    game.play("Bob:7H")
    c = game.seq
    game.undo()
    assert stream.cancelled(stream.replay(toepen, game.log)) == {a, c}
    assert stream.effective_seqs(game.stream)[-2:] == [2, b]
    assert game.view()["last_knocker"] == "Cas" and game.view()["stake"] == 2
    game.redo()  # C can still come back
    assert stream.cancelled(stream.replay(toepen, game.log)) == {a}
    assert game.code("redo") == "nothing_to_redo"  # A cannot


def test_undo_of_game_created_is_refused() -> None:
    game = Game(P4, "table")
    assert game.code("undo") == "nothing_to_undo"
    game.deal().undo()
    assert game.code("undo") == "nothing_to_undo"
    assert game.view()["phase"] == "deal"


def test_undo_after_game_over_reopens_the_game() -> None:
    game = Game(P4, "open", limit=3).adjust("Cas", 2).deal().knock("Bob").fold("Cas")
    assert game.view()["status"] == "finished"
    game.undo()
    assert game.view()["status"] == "in_progress" and game.player("Cas")["in_hand"]
    game.fold("Dee")
    assert game.view()["status"] == "in_progress"


def test_notes_are_never_undone_and_do_not_clear_redo() -> None:
    game = dealt().knock("Bob")
    knock = game.seq
    game.do("note", text="Bob knocked loudly")
    game.undo()  # undoes the knock, not the note
    assert game.view()["stake"] == 1
    game.do("note", text="a dispute")
    game.redo()
    assert game.view()["stake"] == 2
    assert stream.cancelled(stream.replay(toepen, game.log)) == set()
    steps = list(stream.replay(toepen, game.log))
    assert [s.target for s in steps if s.action["type"] in ("undo", "redo")] == [knock, knock]


def test_undo_of_a_deal_and_of_a_knock() -> None:
    game = Game(P4, "open").deal().knock("Bob")
    game.undo()
    assert game.view()["stake"] == 1
    game.undo()
    assert game.view()["phase"] == "deal"
    game.deal()
    assert game.view()["hand_number"] == 1


def test_replaying_the_log_gives_the_same_state() -> None:
    game = dealt().knock("Bob").play(*FULL_HAND[:6]).undo().undo().redo().do("note", text="x").play(*FULL_HAND[5:])
    first = list(stream.replay(toepen, game.log))[-1].stream.state
    again = list(stream.replay(toepen, game.log))[-1].stream.state
    assert first == again == game.state


# =========================================================================== options and messages


@pytest.mark.parametrize(
    ("options", "players", "field"),
    [
        ({"limit": 0}, P4, "limit"),
        ({"limit": 100}, P4, "limit"),
        ({"max_stake": 1}, P4, "max_stake"),
        ({"game_end": "sudden_death"}, P4, "game_end"),
        ({"next_dealer": "right"}, P4, "next_dealer"),
        ({"knock_responses": "shouted"}, P4, "knock_responses"),
        ({"folded_last_trick": "nobody"}, P4, "folded_last_trick"),
        ({"jack_bonus": True}, P4, "jack_bonus"),
        ({}, ("Ann", "Bob"), "players"),
        ({}, (*P8, "Ida"), "players"),
    ],
)
def test_option_errors(options: dict[str, Any], players: tuple[str, ...], field: str) -> None:
    with pytest.raises(toepen.OptionError) as info:
        toepen.resolve_options(options, list(players))
    assert info.value.field == field


def test_resolve_options_fills_defaults() -> None:
    assert toepen.resolve_options({}, list(P4)) == {
        "limit": 10, "game_end": "first_to_limit", "next_dealer": "winner", "knock_responses": "implicit",
        "folded_last_trick": "all_lose", "laundry_mandatory": True, "max_stake": None,
    }  # fmt: skip


def test_parse_card() -> None:
    assert toepen.parse_card(" 10h ") == "TH"
    assert toepen.parse_card("7c") == "7C"
    for bad in ("6H", "1H", "TX", "", 10, None):
        with pytest.raises(ValueError):
            toepen.parse_card(bad)


@pytest.mark.parametrize("code", sorted({"not_your_turn", "must_follow_suit", "card_not_available", "knock_not_allowed",
                                          "cannot_fold", "laundry_not_allowed", "laundry_required",
                                          "challenge_not_allowed", "wrong_dealer", "wrong_phase", "hand_over",
                                          "game_over", "nothing_to_undo", "nothing_to_redo"}))  # fmt: skip
def test_every_refusal_code_of_the_spec_is_produced(code: str) -> None:
    """Each code of rules/toepen.md "Refusal codes" comes out of at least one real situation."""
    situations = {
        "not_your_turn": lambda: dealt().code("play", player="Cas", card="8H"),
        "must_follow_suit": lambda: dealt().play("Bob:7H").code("play", player="Cas", card="TC"),
        "card_not_available": lambda: dealt().code("play", player="Bob", card="TH"),
        "knock_not_allowed": lambda: dealt().knock("Bob").code("knock", player="Bob"),
        "cannot_fold": lambda: dealt().knock("Bob").code("fold", player="Bob"),
        "laundry_not_allowed": lambda: dealt().play("Bob:7H").code("laundry", player="Cas"),
        "laundry_required": lambda: dealt(LAUNDRY_HANDS).code("play", player="Bob", card="JH"),
        "challenge_not_allowed": lambda: dealt().code("challenge", player="Ann", target="Bob"),
        "wrong_dealer": lambda: Game().code("deal", dealer="Cas", hands=HANDS),
        "wrong_phase": lambda: dealt().code("stay", player="Bob"),
        "hand_over": lambda: dealt().play(*FULL_HAND).code("knock", player="Ann"),
        "game_over": lambda: Game(limit=1).adjust("Ann", 1).code("deal", hands=HANDS),
        "nothing_to_undo": lambda: Game().code("undo"),
        "nothing_to_redo": lambda: Game().code("redo"),
    }
    assert situations[code]() == code


def test_knock_limits_cover_every_pair_of_lives_and_stake() -> None:
    """Exhaustive: a knock to stake s is allowed exactly when s <= limit - lives lost."""
    for lost, knocks in itertools.product(range(10), range(4)):
        game = Game(P4, "table")
        if lost:
            game.adjust("Bob", lost)
        game.deal().knock(*["Cas", "Dee", "Cas"][:knocks])
        stake = knocks + 2
        if stake <= 10 - lost:
            game.knock("Bob")
        else:
            assert game.code("knock", player="Bob") == "knock_not_allowed"


def test_a_trick_lists_only_the_folds_made_while_it_was_played() -> None:
    game = Game(P4, "open").deal().play("Bob:7H", "Cas:8H").knock("Dee").fold("Bob")
    game.play("Dee:AH", "Ann:TH")
    game.knock("Cas").fold("Dee")  # before trick 2's lead: belongs to trick 2
    assert [f["player"] for f in game.trick(1)["folded"]] == ["Bob"]
    game.play("Ann:9C")
    assert [f["player"] for f in game.trick(2)["folded"]] == ["Dee"]


def test_a_hand_ended_by_elimination_says_so() -> None:
    game = Game(P3, "open", game_end="elimination").adjust("Cas", 9)
    game.deal(fill_hands(P3)).knock("Ann").fold("Cas")
    game.knock("Bob").fold("Ann")
    reason = game.hand()["result"]["reason"]
    assert reason == "Ann and Cas folded: Bob is the last player in"  # seat order
    game = Game(P4, "open", game_end="elimination").deal().adjust("Cas", 10).knock("Bob").fold("Ann", "Dee")
    assert game.hand()["result"]["reason"] == "Ann and Dee folded and Cas was eliminated: Bob is the last player in"


def test_an_open_deal_naming_a_stranger_is_refused_with_a_rules_code() -> None:
    game = Game(P3, "open")
    hands = fill_hands(P3)
    hands["Zed"] = hands.pop("Cas")
    assert game.code("deal", hands=hands) == "wrong_card_count"


def test_a_folders_dead_cards_stay_hidden_from_the_public_after_the_hand() -> None:
    game = Game(P4, "open").deal().play("Bob:7H").knock("Cas").fold("Ann", "Bob", "Dee")
    assert game.hand()["result"]["winner"] == "Cas"
    assert set(game.hand(full=False)["hands"]) == {"Cas"}
    assert set(game.hand(full=True)["hands"]) == set(P4)
