"""Toepen scenarios written from the rules text, checked against the engine.

Each expectation here comes from ``shared/spec/rules/toepen.md`` (the section is named in the
test), not from the engine's own answers: the other engine tests mostly replay outcomes the
engine derived, so a rule misread the same way in both would pass there.
"""

from __future__ import annotations

from engine import toepen
from tests.test_engine_toepen import P4, P7, P8, Game, table

# =========================================================================== Toepen


def test_a_capped_fold_reports_what_the_folder_actually_lost() -> None:
    """"End of the game": lives lost never exceed the limit, and a hand's losses report what
    each player actually lost (folds included, capped). Dee, 1 life left, folds on the second
    knock (stake before it: 2): she loses 1, and the fold, the hand and the timeline say 1."""
    game = Game(P4, "table", game_end="elimination")
    game.adjust("Dee", 9).deal().knock("Ann", "Bob")
    before = game.state
    game.fold("Dee")
    assert game.lost()["Dee"] == 10
    hand = game.hand()
    assert hand["losses"]["Dee"] == 1
    assert hand["folds"] == [{"player": "Dee", "seq": game.seq, "lost": 1}]
    text = toepen.describe(before, {"type": "fold", "player": "Dee", "seq": game.seq}, game.state, True)
    assert text.startswith("Dee folded and loses 1 life;"), text


def test_trick_order_T_9_8_7_A_K_Q_J_and_off_suit_never_wins() -> None:
    """"Cards" and "A hand" 3: 7 beats A, J is lowest, an off-suit T cannot win."""
    game = table().play("Bob:AH", "Cas:7H", "Dee:TC", "Ann:JH")
    assert game.trick(1)["winner"] == "Cas"
    assert game.to_act() == ["Cas"]


def test_fold_loses_the_stake_before_the_knock_answered() -> None:
    """"Answering a knock": a fold on the third knock costs 3 lives (stake 4 before it was 3)."""
    game = table().knock("Ann", "Bob", "Cas").fold("Dee")
    assert game.lost() == {"Ann": 0, "Bob": 0, "Cas": 0, "Dee": 3}


def test_a_folded_trick_winner_passes_the_lead_left() -> None:
    """"Answering a knock": the winner of a trick folds before the next trick: the next
    player on their left still in leads; the trick stays theirs."""
    game = table().play("Bob:7H", "Cas:TH", "Dee:8H", "Ann:9H").knock("Bob").fold("Cas")
    assert game.trick(1)["winner"] == "Cas"
    assert game.to_act() == ["Dee"]


def test_explicit_answers_start_left_of_the_knocker_and_skip_folded_players() -> None:
    """"Answering a knock", ``explicit``: seat order from the knocker's left, folded players out."""
    game = table(knock_responses="explicit").knock("Bob")
    assert game.view()["answers_due"] == ["Cas", "Dee", "Ann"]
    game.stay("Cas").fold("Dee").stay("Ann").knock("Cas")
    assert game.view()["answers_due"] == ["Ann", "Bob"]


def test_laundry_needs_four_cards_of_stock() -> None:
    """"Laundry": 7 players leave a stock of 4 (one laundry), 8 players none."""
    seven = Game(P7, "table").deal().do("laundry", player="Bob")
    assert seven.code("laundry", player="Cas") == "laundry_not_allowed"
    assert Game(P8, "table").deal().code("laundry", player="Bob") == "laundry_not_allowed"


def test_folded_last_trick_both_ways_and_the_next_dealer() -> None:
    """"End of the hand": Cas plays the best spade in trick 4 and folds to Ann's knock.
    ``all_lose``: nobody wins, everyone still in loses the stake, the previous dealer (Ann)
    deals again. ``best_active``: Ann's 9♠ is the best spade among the players still in."""
    first_three = (
        "Bob:7H", "Cas:8H", "Dee:9H", "Ann:TH", "Ann:7C", "Bob:8C", "Cas:9C", "Dee:TC",
        "Dee:7D", "Ann:8D", "Bob:9D", "Cas:TD", "Cas:TS", "Dee:8S",
    )  # fmt: skip
    expected = {
        "all_lose": (None, {"Ann": 2, "Bob": 2, "Cas": 1, "Dee": 2}, "Ann"),
        "best_active": ("Ann", {"Ann": 0, "Bob": 2, "Cas": 1, "Dee": 2}, "Ann"),
    }
    for rule, (winner, lost, dealer) in expected.items():
        game = table(folded_last_trick=rule).play(*first_three).knock("Ann").fold("Cas").play("Ann:9S", "Bob:7S")
        assert game.trick(4)["winner"] == "Cas"
        assert game.hand()["result"]["winner"] == winner
        assert game.lost() == lost
        assert game.view()["next_dealer"] == dealer
