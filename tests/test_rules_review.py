"""Rules review: scenarios written from the rules text, checked against the engines.

Each expectation here comes from ``shared/spec/rules/toepen.md`` or ``rules/fool.md`` (the
section is named in the test), not from the engine's own answers: the other engine tests
mostly replay outcomes the engine derived, so a rule misread the same way in both would
pass there.
"""

from __future__ import annotations

import random

from engine import fool, toepen
from tests.test_engine_fool import deal, new, plays, reveal, trick, view
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


# =========================================================================== Fool!


def _oracle(cards: list[str], fools: int) -> tuple[int, list[int]]:
    """The winner and Fools of a trick, straight from "A trick" in rules/fool.md."""
    lead = next((c[0] for c in cards if c != "1"), None)
    value = [1 if c == "1" else int(c[1:]) for c in cards]
    coloured = [i for i, c in enumerate(cards) if lead is not None and c[0] == lead]
    winner = max(coloured, key=lambda i: value[i]) if coloured else 0  # all 1s: the first 1 wins
    follows = [c == "1" or lead is None or c[0] == lead for c in cards]
    left = list(range(len(cards)))
    out: list[int] = []
    for _ in range(fools):
        off = [i for i in left if not follows[i]]
        pool = off or left  # any off-colour card is worse than any following card
        low = min(value[i] for i in pool)
        worst = max(i for i in pool if value[i] == low)  # of equal cards the later is worse
        out.append(worst)
        left.remove(worst)
    return winner, out


def test_trick_winner_and_fools_match_the_rules_text_on_random_tricks() -> None:
    rng = random.Random(20240601)
    deck = list(fool.DECK)
    for _ in range(3000):
        cards = rng.sample(deck, rng.randint(3, 8))
        lead = next((c[0] for c in cards if c != "1"), None)
        plays_ = tuple(fool.Play(i, c, i + 1) for i, c in enumerate(cards))
        done = fool.Trick(1, 0, (), plays_, lead)
        winner, fools = _oracle(cards, 2)
        assert fool.trick_winner(done).seat == winner, cards
        assert [p.seat for p in fool.worst_first(done)[:2]] == fools, cards


def test_a_1_led_lets_the_next_coloured_card_set_the_lead_colour() -> None:
    """"A trick": A leads a 1, B's G5 sets green; D's 1 ties A's and is worse (later)."""
    stream = plays(deal(new()), "A:1 B:G5 C:G3 D:1")
    done = trick(stream, 1)
    assert (done["lead_colour"], done["winner"], done["fools"]) == ("G", "B", ["D"])


def test_off_colour_cards_are_worse_than_any_follower_and_the_later_tie_is_worse() -> None:
    """"A trick", worst card: R3 and Y3 are off-colour (same number): Y3, played later, is worse."""
    stream = plays(deal(new()), "A:G5 B:R3 C:Y3 D:G9")
    assert trick(stream, 1)["fools"] == ["C"]


def test_fools_sit_out_the_next_trick_only() -> None:
    """"A trick": the Fool sits out the next trick; the previous Fool plays again."""
    stream = plays(deal(new(5)), "A:G5 B:G3 C:G7 D:G9 E:G10")  # B is the Fool, E leads
    stream = plays(stream, "E:R5 A:R6 C:R7 D:R8")  # E is the Fool, D leads
    assert trick(stream, 2)["sitting_out"] == ["B"]
    stream = plays(stream, "D:Y5 A:Y6 B:Y7 C:Y8")
    assert trick(stream, 3)["sitting_out"] == ["E"]


def test_round_scoring_and_the_dealer_moving_left() -> None:
    """"End of a round and scoring": D went out (+10); A went out as the last trick's Fool (0);
    B holds G20 (−20), C a 1 (−5). D dealt, so A deals next."""
    stream = deal(new(hand_size=3))
    stream = plays(stream, "A:G10 B:G3 C:R4 D:G12 D:Y8 A:Y2 B:1 D:B7 A:B3 C:B9")
    stream = reveal(reveal(stream, "B", "G20"), "C", "1")
    scores = {p["name"]: (p["score"], p["tens"]) for p in view(stream)["players"]}
    assert scores == {"A": (0, 0), "B": (-20, 0), "C": (-5, 0), "D": (10, 1)}
    assert view(stream)["next_dealer"] == "A"
