"""The ``correct`` event in ``engine.stream`` (recording.md, "Correcting an earlier entry"):
deals corrected in what they list (Stop the Bus's centre), knocks and folds, the refold's
cost, ``corrected_by`` and ``out_of_record`` over a log, and the words."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from bench.playouts import created
from engine import stop_the_bus, toepen
from engine import stream as streams
from engine.core import RulesError


def fold(rules: Any, game: str, players: list[str], actions: list[dict[str, Any]], visibility: str = "table",
         **options: Any) -> streams.Stream:
    stream = streams.start(rules, created(game, players, options, visibility))
    for seq, action in enumerate(actions, start=2):
        stream = streams.advance(stream, seq, action)
    return stream


def correct(stream: streams.Stream, target: int, action: dict[str, Any]) -> streams.Stream:
    return streams.advance(stream, stream.version + 1, {"type": "correct", "target": target, "action": action})


@pytest.fixture
def bus() -> streams.Stream:
    """Stop the Bus, table visibility: the centre QC 9C QD; Bob takes Q♣, Cas takes 9♣."""
    return fold(stop_the_bus, "stop_the_bus", ["Ann", "Bob", "Cas"], [
        {"type": "deal", "centre": ["QC", "9C", "QD"]},
        {"type": "swap", "player": "Bob", "take": "QC", "give": "9H"},
        {"type": "swap", "player": "Cas", "take": "9C", "give": "2S"},
    ])


def test_a_stop_the_bus_centre_is_corrected(bus):
    after = correct(bus, 2, {"type": "deal", "centre": ["QC", "9C", "KD"]})
    assert stop_the_bus.view(after.state, True)["centre"] == ["9H", "2S", "KD"]
    assert streams.summary(stop_the_bus, after.done.head, True) == "Fix: Ann dealt"


def test_a_centre_card_taken_later_cannot_be_corrected_away(bus):
    with pytest.raises(streams.CorrectionConflict) as refused:
        correct(bus, 2, {"type": "deal", "centre": ["QC", "8C", "QD"]})
    assert refused.value.conflicts_with == 4
    assert refused.value.cause == "card_not_available"
    assert refused.value.message == ("In round 1, turn 2, Cas took 9♣ and gave 2♠, which no longer fits: 9♣ is not in "
                                     "the middle (the middle holds 9♥ 8♣ Q♦).")


def test_the_dealer_is_fixed_by_the_rules(bus):
    with pytest.raises(RulesError) as refused:
        correct(bus, 2, {"type": "deal", "dealer": "Bob", "centre": ["QC", "9C", "QD"]})
    assert refused.value.code == "wrong_dealer"


@pytest.fixture
def knocked() -> streams.Stream:
    """Toepen for four, table visibility: Bob knocks (3), Cas folds (4), Bob leads 7♥ (5)."""
    return fold(toepen, "toepen", ["Ann", "Bob", "Cas", "Dee"], [
        {"type": "deal", "dealer": "Ann"}, {"type": "knock", "player": "Bob"}, {"type": "fold", "player": "Cas"},
        {"type": "play", "player": "Bob", "card": "7H"},
    ])


def in_hand(stream: streams.Stream) -> dict[str, bool]:
    return {p["name"]: p["in_hand"] for p in toepen.view(stream.state, True)["players"]}


def test_a_fold_is_corrected_to_another_players_fold(knocked):
    after = correct(knocked, 4, {"type": "fold", "player": "Dee"})
    assert in_hand(after) == {"Ann": True, "Bob": True, "Cas": True, "Dee": False}


def test_a_play_is_corrected_into_a_fold(knocked):
    after = correct(knocked, 5, {"type": "fold", "player": "Dee"})
    assert in_hand(after) == {"Ann": True, "Bob": True, "Cas": False, "Dee": False}
    assert toepen.view(after.state, True)["to_act"] == ["Bob"]


def test_a_knock_by_someone_else_and_the_fold_that_no_longer_fits(knocked):
    with pytest.raises(streams.CorrectionConflict) as refused:
        correct(knocked, 3, {"type": "knock", "player": "Cas"})
    assert refused.value.conflicts_with == 4
    assert refused.value.message == ("In hand 1, trick 1, Cas folded, which no longer fits: Cas knocked and cannot fold "
                                     "on their own knock.")
    after = correct(knocked, 4, {"type": "knock", "player": "Cas"})  # it was a second knock, not a fold
    assert toepen.view(after.state, True)["stake"] == 3


def test_a_refused_correction_leaves_the_stream_as_it_was(knocked):
    before = knocked
    with pytest.raises(RulesError):
        correct(knocked, 3, {"type": "knock", "player": "Cas"})
    assert knocked == before and knocked.version == 5


@pytest.mark.parametrize(("target", "code"), [(1, "nothing_to_correct"), (9, "nothing_to_correct"),
                                              (0, "nothing_to_correct")])
def test_nothing_to_correct(knocked, target, code):
    with pytest.raises(RulesError) as refused:
        correct(knocked, target, {"type": "knock", "player": "Dee"})
    assert refused.value.code == code


def test_a_bookkeeping_replacement_is_refused(knocked):
    with pytest.raises(RulesError) as refused:
        correct(knocked, 3, {"type": "note", "text": "x"})
    assert refused.value.code == "wrong_phase"


class Counting(SimpleNamespace):
    """A game module whose ``apply`` counts its calls."""


def counting(rules: Any) -> Any:
    calls = {"n": 0}
    members = {name: getattr(rules, name) for name in dir(rules) if not name.startswith("__")}

    def apply(state: Any, action: dict[str, Any]) -> Any:
        calls["n"] += 1
        return rules.apply(state, action)

    module = Counting(**{**members, "apply": apply})
    return module, calls


def test_a_correction_folds_only_the_actions_after_its_target_once():
    rules, calls = counting(toepen)
    stream = streams.start(rules, created("toepen", ["Ann", "Bob", "Cas", "Dee"], {}, "table"))
    actions = [{"type": "deal", "dealer": "Ann"}] + [{"type": "play", "player": p, "card": c} for p, c in
                                                     [("Bob", "7H"), ("Cas", "8H"), ("Dee", "9H"), ("Ann", "TH")]]
    for seq, action in enumerate(actions, start=2):
        stream = streams.advance(stream, seq, action)
    calls["n"] = 0
    after = correct(stream, 4, {"type": "play", "player": "Cas", "card": "JH"})
    assert calls["n"] == 3  # the replacement, then events 5 and 6
    calls["n"] = 0
    streams.advance(after, after.version + 1, {"type": "play", "player": "Ann", "card": "QS"})
    assert calls["n"] == 1  # an ordinary append after a correction: one fold, as before
    calls["n"] = 0
    undone = streams.advance(after, after.version + 1, {"type": "undo"})
    streams.advance(undone, undone.version + 1, {"type": "redo"})
    assert calls["n"] == 0  # undo and redo of a correction refold nothing


def test_corrected_by_and_out_of_record_over_a_log():
    facts = [(1, "game_created", None), (2, "deal", None), (3, "play", None), (4, "correct", 3),
             (5, "correct", 3), (6, "undo", 5), (7, "correct", 2), (8, "correct", 3)]
    assert streams.corrected_by(facts) == {3: 8, 2: 7}
    assert streams.out_of_record(facts) == {3: 8, 2: 7, 4: 8}  # 5 is undone: undone_by's
    assert streams.undone_by(facts) == {5: 6}
    assert streams.corrected_by(facts[:6]) == {3: 4}
    assert streams.corrected_by([*facts, (9, "undo", 8), (10, "undo", 7)]) == {3: 4}


def test_correct_is_listed_while_a_game_action_is_in_force(knocked):
    assert "correct" in [a["type"] for a in streams.actions(knocked, True)]
    fresh = streams.start(toepen, created("toepen", ["Ann", "Bob", "Cas", "Dee"], {}, "table"))
    assert "correct" not in [a["type"] for a in streams.actions(fresh, True)]
    quit_ = streams.advance(knocked, 6, {"type": "abandon", "reason": "late"})
    assert "correct" not in [a["type"] for a in streams.actions(quit_, True)]
    with pytest.raises(RulesError) as refused:
        correct(quit_, 3, {"type": "knock", "player": "Dee"})
    assert refused.value.code == "game_over"


def test_a_ruling_is_not_corrected(knocked):
    ruled = streams.advance(knocked, 6, {"type": "adjust", "player": "Dee", "amount": 1, "reason": "a penalty"})
    with pytest.raises(RulesError) as refused:
        correct(ruled, 6, {"type": "knock", "player": "Dee"})
    assert refused.value.code == "nothing_to_correct"
    assert refused.value.message == "That entry is a ruling, not a game action: it cannot be corrected."


def test_the_folded_games_facts_name_what_a_correction_put_out_of_the_record():
    from replays import replay

    rows = [{"seq": 1, "type": "game_created", "data": created("toepen", ["Ann", "Bob", "Cas", "Dee"], {}, "table")},
            {"seq": 2, "type": "deal", "data": {"dealer": "Ann"}},
            {"seq": 3, "type": "play", "data": {"player": "Bob", "card": "7H"}},
            {"seq": 4, "type": "correct", "data": {"target": 3, "action": {"type": "play", "player": "Bob",
                                                                           "card": "8H"}}},
            {"seq": 5, "type": "correct", "data": {"target": 3, "action": {"type": "play", "player": "Bob",
                                                                           "card": "9H"}}},
            {"seq": 6, "type": "play", "data": {"player": "Cas", "card": "TH"}}]
    folded = replay.fold(toepen, rows)
    assert replay.corrected(folded) == {3: 5}
    assert replay.out_of_record(folded) == {3: 5, 4: 5}  # event 3's 7♥ and event 4's 8♥ are not in the record
    assert replay.hand_of(folded, 5) == 1
    assert [p["card"] for p in toepen.trick_view(folded.stream.state, 1, 1, True)["plays"]] == ["9H", "TH"]
