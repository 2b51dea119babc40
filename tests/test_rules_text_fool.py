"""Fool! scenarios written from the rules text, checked against the engine.

Each expectation here comes from ``shared/spec/rules/fool.md`` (the section is named in the
test), not from the engine's own answers: the other engine tests mostly replay outcomes the
engine derived, so a rule misread the same way in both would pass there.
"""

from __future__ import annotations

import random

from engine import fool
from tests.test_engine_fool import deal, new, plays, reveal, trick, view

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
