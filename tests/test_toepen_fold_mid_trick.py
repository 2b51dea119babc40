"""Toepen: folds in the middle of a trick, under both ``knock_responses`` modes (issue 10, 1).

``rules/toepen.md``, "Answering a knock": a fold takes the player out of the hand at once and
"cards they already played stay where they are"; in ``explicit`` mode every other player still
in answers the knock, in seat order from the knocker's left, before any card or knock. "A
hand" 3: a trick is played by the players still in the hand, so it is complete when every
one of them has played to it, whatever answers are still due, and never before. The
expectations below come from that text, not from the engine's answers.

The deal (Ann deals, Bob leads): in trick 1 hearts are led and Cas's 9♥ is the best card of
the trick (T 9 8 7 A K Q J), so Bob is its leader and Cas its current winner once two cards
are down.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.test_engine_toepen import P3, P4, Game, fill_hands

HANDS = {
    "Ann": ["KH", "7C", "8C", "9C"],
    "Bob": ["7H", "7D", "8D", "9D"],
    "Cas": ["9H", "7S", "8S", "9S"],
    "Dee": ["AH", "TC", "TD", "TS"],
}
#: Tricks 1-3 of HANDS: Cas wins trick 1 (9♥), Dee tricks 2 (T♠) and 3 (T♣); Dee leads trick 4.
FIRST_THREE = (
    "Bob:7H", "Cas:9H", "Dee:AH", "Ann:KH",
    "Cas:7S", "Dee:TS", "Ann:7C", "Bob:7D",
    "Dee:TC", "Ann:9C", "Bob:8D", "Cas:8S",
)  # fmt: skip
MODES = ["implicit", "explicit"]


def dealt(mode: str, **options: Any) -> Game:
    return Game(P4, "open", knock_responses=mode, **options).deal(HANDS)


def answer(game: Game, knocker: str, folder: str) -> Game:
    """``knocker`` knocks and ``folder`` folds on it; in ``explicit`` mode everyone else
    due to answer stays, those before the folder first and those after it last."""
    game.knock(knocker)
    if game.created["options"]["knock_responses"] == "implicit":
        return game.fold(folder)
    due = list(game.view()["answers_due"])
    assert folder in due
    before, after = due[: due.index(folder)], due[due.index(folder) + 1 :]
    game.stay(*before).fold(folder)
    # The fold is recorded while other answers are still due: the trick must not move on.
    assert game.view()["answers_due"] == after
    assert game.to_act() == after[:1]
    if after:
        assert game.view()["phase"] == "answering"
        assert game.code("play", player=game.to_act()[0], card=HANDS[game.to_act()[0]][-1]) == "wrong_phase"
    return game.stay(*after)


def plays(game: Game, trick: int = 1) -> list[str]:
    return [f"{p['player']}:{p['card']}" for p in game.trick(trick)["plays"]]


# (cards down before the knock, knocker, folder, who must play next, the rest of trick 1)
CASES = [
    # Dee has played (neither leader nor winner); Ann still has to.
    pytest.param(("Bob:7H", "Cas:9H", "Dee:AH"), "Cas", "Dee", ["Ann:KH"], id="folder_has_played"),
    # Dee has not played yet: she is skipped, Ann plays and completes the trick.
    pytest.param(("Bob:7H", "Cas:9H"), "Cas", "Dee", ["Ann:KH"], id="folder_has_not_played"),
    # Cas holds the best card so far; Dee and Ann still play, and Cas's 9♥ still wins.
    pytest.param(("Bob:7H", "Cas:9H"), "Ann", "Cas", ["Dee:AH", "Ann:KH"], id="folder_is_current_winner"),
    # Bob led 7♥; Dee and Ann still play.
    pytest.param(("Bob:7H", "Cas:9H"), "Ann", "Bob", ["Dee:AH", "Ann:KH"], id="folder_is_the_leader"),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("down", "knocker", "folder", "rest"), CASES)
def test_a_fold_mid_trick_leaves_the_trick_to_the_players_still_in(
    mode: str, down: tuple[str, ...], knocker: str, folder: str, rest: list[str]
) -> None:
    game = dealt(mode).play(*down)
    answer(game, knocker, folder)
    trick = game.trick(1)
    assert not trick["complete"] and trick["winner"] is None
    assert plays(game) == list(down)  # the folder's card, if any, stays where it is
    assert game.view()["phase"] == "playing"
    first = rest[0].split(":")[0]
    assert game.to_act() == [first]
    assert game.code("play", player=folder, card=HANDS[folder][-1]) == "not_your_turn"
    for move in rest:
        assert not game.trick(1)["complete"]
        player = move.split(":")[0]
        assert game.to_act() == [player]
        game.play(move)
    trick = game.trick(1)
    assert trick["complete"] and plays(game) == [*down, *rest]
    assert trick["winner"] == "Cas"  # 9♥, folded or not ("A trick's own winner ...")
    assert [f["player"] for f in trick["folded"]] == [folder]
    # The winner leads trick 2; if Cas folded, the next player on the left still in (Dee).
    assert game.to_act() == (["Dee"] if folder == "Cas" else ["Cas"])
    assert game.lost()[folder] == 1
    assert game.hand()["result"] is None and len(game.hand()["tricks"]) == 1


@pytest.mark.parametrize("mode", MODES)
def test_the_last_player_to_play_folds_and_the_trick_is_complete(mode: str) -> None:
    """Ann alone has not played to trick 1; she folds: everyone still in has played."""
    game = dealt(mode).play("Bob:7H", "Cas:9H", "Dee:AH")
    game.knock("Dee")
    if mode == "explicit":  # Ann answers first (left of Dee), then Bob and Cas
        game.fold("Ann")
        assert game.trick(1)["complete"] and game.trick(1)["winner"] == "Cas"
        assert game.to_act() == ["Bob"]  # answers first, then Cas leads
        game.stay("Bob", "Cas")
    else:
        game.fold("Ann")
    assert game.trick(1)["complete"] and plays(game) == ["Bob:7H", "Cas:9H", "Dee:AH"]
    assert [f["player"] for f in game.trick(1)["folded"]] == ["Ann"]
    assert game.to_act() == ["Cas"]
    assert game.trick(1)["winner"] == "Cas"


@pytest.mark.parametrize("mode", MODES)
def test_the_player_due_to_lead_folds_and_the_next_player_on_the_left_leads(mode: str) -> None:
    """Cas won trick 1 and must lead trick 2; she folds before leading: Dee leads."""
    game = dealt(mode).play(*FIRST_THREE[:4])
    assert game.to_act() == ["Cas"]
    answer(game, "Bob", "Cas")
    assert game.to_act() == ["Dee"]
    assert game.code("play", player="Cas", card="7S") == "not_your_turn"
    game.play("Dee:TS", "Ann:7C", "Bob:7D")
    assert game.trick(2)["complete"] and game.trick(2)["winner"] == "Dee"
    assert game.trick(2)["leader"] == "Dee"
    assert [f["player"] for f in game.trick(2)["folded"]] == ["Cas"]
    assert [f["player"] for f in game.trick(1)["folded"]] == []


@pytest.mark.parametrize("mode", MODES)
def test_the_reproduction_of_issue_10_plays_on(mode: str) -> None:
    """The outside tester's game (6 players, dealer Cas, limit 3): Ann and Cas still play to
    trick 1 after Bob and Fay fold, and Dee wins it with T♠."""
    names = ("Ann", "Bob", "Cas", "Dee", "Eva", "Fay")
    hands = {
        "Ann": ["8D", "KH", "9H", "7C"], "Bob": ["JC", "8S", "7S", "KD"], "Cas": ["9S", "8H", "QH", "7D"],
        "Dee": ["KC", "AH", "TS", "JD"], "Eva": ["AC", "TH", "AD", "8C"], "Fay": ["QD", "AS", "TD", "KS"],
    }  # fmt: skip
    game = Game(names, "open", dealer="Cas", limit=3, knock_responses=mode).deal(hands)
    game.play("Dee:TS", "Eva:TH", "Fay:KS").knock("Ann").fold("Bob")
    if mode == "explicit":
        game.stay("Cas", "Dee", "Eva")
    game.fold("Fay")
    assert game.view()["answers_due"] == []
    assert not game.trick(1)["complete"]
    assert game.to_act() == ["Ann"]
    game.play("Ann:7C")
    assert game.to_act() == ["Cas"]
    assert game.code("play", player="Cas", card="8H") == "must_follow_suit"
    game.play("Cas:9S")
    trick = game.trick(1)
    assert trick["complete"] and trick["winner"] == "Dee"
    assert plays(game) == ["Dee:TS", "Eva:TH", "Fay:KS", "Ann:7C", "Cas:9S"]
    assert game.to_act() == ["Dee"]
    assert game.view()["status"] == "in_progress" and game.view()["hand_number"] == 1
    assert game.lost() == {"Ann": 0, "Bob": 1, "Cas": 0, "Dee": 0, "Eva": 0, "Fay": 1}


# =========================================================================== the last trick


def test_explicit_a_fold_completing_trick_4_waits_for_the_other_answers() -> None:
    """Trick 4: Dee, Ann and Bob have played, Bob knocks; Cas (still to play) folds first. The
    trick is complete (everyone still in has played), but Dee and Ann still answer Bob's
    knock ("every other player still in the hand answers"): Ann folds for 1, not 2."""
    game = dealt("explicit").play(*FIRST_THREE, "Dee:TD", "Ann:8C", "Bob:9D").knock("Bob")
    assert game.view()["answers_due"] == ["Cas", "Dee", "Ann"]
    game.fold("Cas")
    trick = game.trick(4)
    assert trick["complete"] and trick["winner"] == "Dee"
    assert game.hand()["result"] is None
    assert game.view()["phase"] == "answering" and game.to_act() == ["Dee"]
    assert game.code("knock", player="Dee") == "wrong_phase"
    game.stay("Dee")
    assert game.hand()["result"] is None and game.to_act() == ["Ann"]
    game.fold("Ann")
    result = game.hand()["result"]
    assert result["winner"] == "Dee"
    assert result["losses"] == {"Ann": 1, "Bob": 2, "Cas": 1, "Dee": 0}
    assert game.view()["phase"] == "deal" and game.view()["next_dealer"] == "Dee"
    assert [f["player"] for f in game.trick(4)["folded"]] == ["Cas", "Ann"]


def test_explicit_the_last_answer_after_trick_4_scores_the_hand_when_it_is_a_stay() -> None:
    game = dealt("explicit").play(*FIRST_THREE, "Dee:TD", "Ann:8C", "Bob:9D").knock("Bob")
    game.fold("Cas").stay("Dee", "Ann")
    result = game.hand()["result"]
    assert result["winner"] == "Dee"
    assert result["losses"] == {"Ann": 2, "Bob": 2, "Cas": 1, "Dee": 0}
    assert game.to_act() == []


def test_implicit_a_fold_completing_trick_4_ends_the_hand_at_once() -> None:
    """Implicit answers: the fold window closes with the hand; whoever has not folded stayed."""
    game = dealt("implicit").play(*FIRST_THREE, "Dee:TD", "Ann:8C", "Bob:9D").knock("Bob").fold("Cas")
    result = game.hand()["result"]
    assert result["winner"] == "Dee"
    assert result["losses"] == {"Ann": 2, "Bob": 2, "Cas": 1, "Dee": 0}
    assert game.code("fold", player="Ann") == "hand_over"


@pytest.mark.parametrize(
    ("rule", "winner", "losses"),
    [
        ("all_lose", None, {"Ann": 2, "Bob": 2, "Cas": 2, "Dee": 1}),
        ("best_active", "Bob", {"Ann": 2, "Bob": 0, "Cas": 2, "Dee": 1}),
    ],
)
@pytest.mark.parametrize("mode", MODES)
def test_trick_4_leader_and_winner_folds_with_answers_due_the_others_still_play(
    mode: str, rule: str, winner: str | None, losses: dict[str, int]
) -> None:
    """Dee leads T♦ (the best diamond) and Ann plays; Bob knocks and Dee folds before Ann has
    answered: Bob and Cas still play, Dee's T♦ wins the trick, and ``folded_last_trick``
    decides the hand ("End of the hand")."""
    game = dealt(mode, folded_last_trick=rule).play(*FIRST_THREE, "Dee:TD", "Ann:8C")
    answer(game, "Bob", "Dee")
    assert not game.trick(4)["complete"] and game.hand()["result"] is None
    assert game.to_act() == ["Bob"]
    game.play("Bob:9D")
    assert game.hand()["result"] is None and game.to_act() == ["Cas"]
    game.play("Cas:9S")
    assert game.trick(4)["winner"] == "Dee" and plays(game, 4) == ["Dee:TD", "Ann:8C", "Bob:9D", "Cas:9S"]
    result = game.hand()["result"]
    assert result["winner"] == winner
    assert result["losses"] == losses


@pytest.mark.parametrize("mode", MODES)
def test_everyone_but_one_folds_mid_trick_the_hand_ends_at_once(mode: str) -> None:
    """"If everyone else folds, the last player in wins the hand at once": mid-trick, with
    cards of folded players on the table, and the remaining tricks are not played."""
    game = dealt(mode).play("Bob:7H", "Cas:9H").knock("Dee").fold("Ann", "Bob", "Cas")
    result = game.hand()["result"]
    assert result["winner"] == "Dee"
    assert result["losses"] == {"Ann": 1, "Bob": 1, "Cas": 1, "Dee": 0}
    assert plays(game) == ["Bob:7H", "Cas:9H"] and not game.trick(1)["complete"]
    assert game.view()["phase"] == "deal" and game.to_act() == []


def test_explicit_an_elimination_while_answers_are_due_leaves_one_player_in() -> None:
    """Elimination with answers due: Ann knocks, Bob folds, and a ruling takes Cas (still to
    answer) to the limit: Ann is the last player in and wins the hand at once."""
    hands = fill_hands(P3)
    game = Game(P3, "open", game_end="elimination", knock_responses="explicit").deal(hands)
    game.knock("Ann").fold("Bob")
    assert game.view()["answers_due"] == ["Cas"]
    game.adjust("Cas", 10)
    result = game.hand()["result"]
    assert result["winner"] == "Ann"
    assert game.view()["status"] == "in_progress" and game.view()["phase"] == "deal"


@pytest.mark.parametrize("mode", MODES)
def test_an_elimination_mid_trick_does_not_complete_it_for_the_others(mode: str) -> None:
    """Bob (leader, played) is eliminated by a ruling mid-trick: Dee and Ann still play."""
    game = Game(P4, "open", game_end="elimination", knock_responses=mode).deal(HANDS)
    game.play("Bob:7H", "Cas:9H").knock("Dee")
    if mode == "explicit":
        game.stay("Ann")
    game.adjust("Bob", 10)
    if mode == "explicit":
        assert game.view()["answers_due"] == ["Cas"]
        assert not game.trick(1)["complete"]
        game.stay("Cas")
    assert not game.trick(1)["complete"] and game.to_act() == ["Dee"]
    game.play("Dee:AH", "Ann:KH")
    assert game.trick(1)["complete"] and game.trick(1)["winner"] == "Cas"
