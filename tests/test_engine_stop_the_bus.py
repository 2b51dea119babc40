"""Stop the Bus engine tests: no Flask, no database (``../shared/spec/rules/stop_the_bus.md``).

Tests read as a history: given these recorded actions, when this action, then this state
or this refusal. Actions are written as short lines (``"swap Ann QS 2C"``) and parsed by
:func:`parse`.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from typing import Any

import pytest
from marshmallow import ValidationError

from engine import stop_the_bus as stb
from engine.brag import CATEGORIES, rank
from engine.core import OptionError, RulesError
from engine.stream import Stream, advance, start
from schemas import stop_the_bus as schemas

PLAYERS = ["Ann", "Bob", "Cas"]


# --------------------------------------------------------------------------- helpers


def parse(line: str) -> dict[str, Any]:
    """``"deal QS 4H 9D"``, ``"deal QS 4H 9D | Ann: 2C 3C 4C | …"`` (open), ``"deal … dealer=Bob"``,
    ``"swap Ann QS 2C"``, ``"swapall Ann 2C 3C 4C"``, ``"stop Ann"``, ``"show Ann 2C 3D 4H"``,
    ``"adjust Ann -1"``, ``"undo"``, ``"redo"``."""
    head, *hands = [part.strip() for part in line.split("|")]
    kind, *args = head.split()
    if kind == "deal":
        action: dict[str, Any] = {"type": "deal", "centre": [a for a in args if "=" not in a]}
        action.update(a.split("=", 1) for a in args if "=" in a)
        if hands:
            action["hands"] = {name.strip(): cards.split() for name, cards in (h.split(":") for h in hands)}
        return action
    if kind == "swap":
        return {"type": "swap", "player": args[0], "take": args[1], "give": args[2]}
    if kind == "swapall":
        return {"type": "swap", "player": args[0], "take_all": True, "give": args[1:]}
    if kind == "show":
        return {"type": "show", "player": args[0], "cards": args[1:]}
    if kind == "adjust":
        return {"type": "adjust", "player": args[0], "amount": int(args[1]), "reason": "ruling"}
    if kind in ("undo", "redo"):
        return {"type": kind}
    return {"type": kind, "player": args[0]}


def new_game(players: list[str] | None = None, dealer: str | None = "Cas", visibility: str = "table",
             **options: Any) -> Stream:
    seats = players or PLAYERS
    return start(stb, {"players": seats, "options": stb.resolve_options(options, seats),
                       "visibility": visibility, "dealer": dealer if dealer in seats else seats[0],
                       "rules_version": stb.RULES_VERSION})


def record(stream: Stream, *lines: str) -> Stream:
    for line in lines:
        stream = advance(stream, stream.version + 1, parse(line))
    return stream


def play(lines: list[str] | tuple[str, ...], players: list[str] | None = None, visibility: str = "table",
         dealer: str | None = "Cas", **options: Any) -> Stream:
    return record(new_game(players, dealer, visibility, **options), *lines)


def refusal(stream: Stream, line: str) -> RulesError:
    with pytest.raises(RulesError) as caught:
        record(stream, line)
    return caught.value


def view(stream: Stream, full: bool = True) -> dict[str, Any]:
    return stb.view(stream.state, full)


def player(stream: Stream, name: str, full: bool = True) -> dict[str, Any]:
    return next(p for p in view(stream, full)["players"] if p["name"] == name)


#: Ann, Bob, Cas; Cas deals, Ann stops at once, Bob and Cas take their last turn: the showdown.
TO_SHOWDOWN = ("deal QS 4H 9D", "stop Ann", "swap Bob QS 2C", "swap Cas 4H 3D")


# --------------------------------------------------------------------------- hand ranks

DECK = stb.DECK
OPTION_SETS = {
    "default": ("aces_high", "invalid"),
    "pagat": ("threes_high", "top"),
    "ace_low_bottom": ("aces_high", "bottom"),
    "threes_high_invalid": ("threes_high", "invalid"),
}
COUNTS = {
    "default": {"prial": 52, "running_flush": 44, "run": 660, "flush": 1100, "pair": 3744, "high_card": 16500},
    "pagat": {"prial": 52, "running_flush": 48, "run": 720, "flush": 1096, "pair": 3744, "high_card": 16440},
    "ace_low_bottom": {"prial": 52, "running_flush": 48, "run": 720, "flush": 1096, "pair": 3744, "high_card": 16440},
}
COUNTS["threes_high_invalid"] = COUNTS["default"]  # prial order changes no category count


@pytest.fixture(scope="module")
def all_ranks() -> dict[str, list[Any]]:
    hands = list(combinations(DECK, 3))
    return {name: [rank(hand, *opts) for hand in hands] for name, opts in OPTION_SETS.items()}


@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_category_counts_over_all_22100_hands(all_ranks: dict[str, list[Any]], name: str) -> None:
    ranks = all_ranks[name]
    assert len(ranks) == 22_100
    assert Counter(r.category for r in ranks) == COUNTS[name]


@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_741_distinct_strengths(all_ranks: dict[str, list[Any]], name: str) -> None:
    assert len({r.key for r in all_ranks[name]}) == 741


@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_categories_are_ordered_by_key(all_ranks: dict[str, list[Any]], name: str) -> None:
    lowest: dict[str, tuple[int, ...]] = {}
    highest: dict[str, tuple[int, ...]] = {}
    for r in all_ranks[name]:
        lowest[r.category] = min(lowest.get(r.category, r.key), r.key)
        highest[r.category] = max(highest.get(r.category, r.key), r.key)
    for weaker, stronger in zip(CATEGORIES, CATEGORIES[1:], strict=False):
        assert highest[weaker] < lowest[stronger]


HIGHER, LOWER, EQUAL = ">", "<", "="
TRAPS = [
    # (id, hand a, hand b, prial_order, ace_low_run, a vs b)
    ("A32-vs-KQJ-invalid", "AH 3S 2C", "KD QC JH", "aces_high", "invalid", LOWER),
    ("A32-vs-KQJ-top", "AH 3S 2C", "KD QC JH", "aces_high", "top", HIGHER),
    ("A32-vs-KQJ-bottom", "AH 3S 2C", "KD QC JH", "aces_high", "bottom", LOWER),
    ("A23-top-beats-QKA", "AH 2S 3C", "QD KC AS", "threes_high", "top", HIGHER),
    ("A23-bottom-below-234", "AH 2S 3C", "2D 3H 4S", "aces_high", "bottom", LOWER),
    ("A23-bottom-above-best-flush", "AH 2S 3C", "AD KD JD", "aces_high", "bottom", HIGHER),
    ("A23-invalid-is-high-card-below-pair", "AH 2S 3C", "2D 2H 4S", "aces_high", "invalid", LOWER),
    ("QKA-best-run", "QD KC AS", "JD QC KH", "aces_high", "invalid", HIGHER),
    ("234-worst-run-beats-best-flush", "2D 3H 4S", "AD KD JD", "aces_high", "invalid", HIGHER),
    ("KA2-never-a-run-invalid", "KH AS 2C", "2D 3H 5S", "aces_high", "invalid", HIGHER),
    ("KA2-never-a-run-top", "KH AS 2C", "2D 3H 4S", "threes_high", "top", LOWER),
    ("KA2-never-a-run-bottom", "KH AS 2C", "2D 3H 4S", "aces_high", "bottom", LOWER),
    ("running-flush-beats-run", "4H 5H 6H", "QD KC AS", "aces_high", "invalid", HIGHER),
    ("prial-beats-running-flush", "2H 2S 2C", "QS KS AS", "aces_high", "invalid", HIGHER),
    ("AAA-best-aces-high", "AH AS AC", "KH KS KC", "aces_high", "invalid", HIGHER),
    ("333-below-AAA-aces-high", "3H 3S 3C", "AH AS AD", "aces_high", "invalid", LOWER),
    ("333-best-threes-high", "3H 3S 3C", "AH AS AD", "threes_high", "top", HIGHER),
    ("222-worst-threes-high", "2H 2S 2C", "4H 4S 4D", "threes_high", "top", LOWER),
    ("pair-kicker-decides", "9D 9C 5S", "9H 9S 4D", "aces_high", "invalid", HIGHER),
    ("pair-rank-before-kicker", "9D 9C 2S", "8H 8S AD", "aces_high", "invalid", HIGHER),
    ("pair-same-cards-other-suits-equal", "9D 9C 5S", "9H 9S 5D", "aces_high", "invalid", EQUAL),
    ("flush-high-card-first", "AH 5H 3H", "KD QD 9D", "aces_high", "invalid", HIGHER),
    ("flush-middle-card-next", "KH 9H 4H", "KD 8D 7D", "aces_high", "invalid", HIGHER),
    ("flush-lowest-card-last", "KH 9H 4H", "KD 9D 3D", "aces_high", "invalid", HIGHER),
    ("flush-suits-never-break-ties", "KH 9H 4H", "KS 9S 4S", "aces_high", "invalid", EQUAL),
    ("flush-beats-pair", "2H 4H 6H", "AD AC KS", "aces_high", "invalid", HIGHER),
    ("high-card-compare-high-mid-low", "AH KS 4C", "AD 3H 2S", "aces_high", "invalid", HIGHER),
    ("high-card-lowest-card-decides", "AH KS 5C", "AD KH 4S", "aces_high", "invalid", HIGHER),
    ("high-card-suits-never-break-ties", "AH KS 4C", "AD KH 4S", "aces_high", "invalid", EQUAL),
    ("A23-suited-invalid-is-a-flush", "AH 2H 3H", "KD QC JH", "aces_high", "invalid", LOWER),
    ("A23-suited-top-is-best-running-flush", "AH 2H 3H", "QS KS AS", "threes_high", "top", HIGHER),
]


@pytest.mark.parametrize(("a", "b", "prial", "ace_low", "expected"), [t[1:] for t in TRAPS], ids=[t[0] for t in TRAPS])
def test_ranking_traps(a: str, b: str, prial: str, ace_low: str, expected: str) -> None:
    key_a, key_b = rank(a.split(), prial, ace_low).key, rank(b.split(), prial, ace_low).key
    assert {HIGHER: key_a > key_b, LOWER: key_a < key_b, EQUAL: key_a == key_b}[expected]


WORDS = [
    ("KD QC JH", "aces_high", "invalid", "run", "run, K-Q-J"),
    ("AH 3S 2C", "aces_high", "invalid", "high_card", "high card, A-3-2"),
    ("AH 3S 2C", "aces_high", "top", "run", "run, A-2-3"),
    ("AH 3H 2H", "aces_high", "bottom", "running_flush", "running flush, A-2-3"),
    ("9D 5S 9C", "aces_high", "invalid", "pair", "pair, 9-9-5"),
    ("TD TS 5C", "aces_high", "invalid", "pair", "pair, 10-10-5"),
    ("KH 4H 9H", "aces_high", "invalid", "flush", "flush, K-9-4"),
    ("7C 7D 7S", "aces_high", "invalid", "prial", "prial, 7-7-7"),
    ("KH AS 2C", "threes_high", "top", "high_card", "high card, A-K-2"),
]


@pytest.mark.parametrize(("cards", "prial", "ace_low", "category", "words"), WORDS, ids=[w[4] for w in WORDS])
def test_rank_category_and_words(cards: str, prial: str, ace_low: str, category: str, words: str) -> None:
    result = rank(cards.split(), prial, ace_low)
    assert (result.category, result.words) == (category, words)


@pytest.mark.parametrize("cards", [["AH", "AH", "2C"], ["AH", "2C"], ["AH", "2C", "3D", "4S"]], ids=["twice", "two", "four"])
def test_rank_needs_three_different_cards(cards: list[str]) -> None:
    with pytest.raises(ValueError):
        rank(cards)


# --------------------------------------------------------------------------- options


def test_default_options() -> None:
    assert stb.resolve_options({}, PLAYERS) == {
        "chips": 3, "allow_return": False, "swap_all": False, "stop_without_swap": "first_turn",
        "all_out": "shared_win", "prial_order": "aces_high", "ace_low_run": "invalid",
    }


BAD_OPTIONS = [
    ("one-player", {}, ["Ann"], "players"),
    ("eleven-players", {}, [f"P{i}" for i in range(11)], "players"),
    ("unknown-option", {"limit": 3}, PLAYERS, "limit"),
    ("zero-chips", {"chips": 0}, PLAYERS, "chips"),
    ("chips-not-int", {"chips": "3"}, PLAYERS, "chips"),
    ("chips-bool", {"chips": True}, PLAYERS, "chips"),
    ("stop-without-swap-choice", {"stop_without_swap": "sometimes"}, PLAYERS, "stop_without_swap"),
    ("all-out-choice", {"all_out": "nobody"}, PLAYERS, "all_out"),
    ("prial-order-choice", {"prial_order": "twos_high"}, PLAYERS, "prial_order"),
    ("ace-low-run-choice", {"ace_low_run": "middle"}, PLAYERS, "ace_low_run"),
    ("allow-return-not-bool", {"allow_return": "yes"}, PLAYERS, "allow_return"),
    ("swap-all-not-bool", {"swap_all": 1}, PLAYERS, "swap_all"),
]


@pytest.mark.parametrize(("options", "players", "field"), [b[1:] for b in BAD_OPTIONS], ids=[b[0] for b in BAD_OPTIONS])
def test_bad_options(options: dict[str, Any], players: list[str], field: str) -> None:
    with pytest.raises(OptionError) as caught:
        stb.resolve_options(options, players)
    assert caught.value.field == field


@pytest.mark.parametrize("count", [2, 10])
def test_player_count_bounds(count: int) -> None:
    seats = [f"P{i}" for i in range(count)]
    assert stb.resolve_options({}, seats)["chips"] == 3


def test_unknown_rules_version_and_dealer() -> None:
    base = {"players": PLAYERS, "options": {}, "visibility": "table"}
    with pytest.raises(OptionError):
        stb.initial_state({**base, "rules_version": 99})
    with pytest.raises(OptionError):
        stb.initial_state({**base, "dealer": "Zed"})


# --------------------------------------------------------------------------- refusals

REFUSALS = [
    # (id, options, visibility, history, action, code)
    ("swap-before-any-deal", {}, "table", [], "swap Ann QS 2C", "wrong_phase"),
    ("stop-before-any-deal", {}, "table", [], "stop Ann", "wrong_phase"),
    ("show-before-any-deal", {}, "table", [], "show Ann 2C 3C 4C", "wrong_phase"),
    ("deal-by-wrong-dealer", {}, "table", [], "deal QS 4H 9D dealer=Ann", "wrong_dealer"),
    ("deal-centre-card-twice", {}, "table", [], "deal QS QS 9D", "card_not_available"),
    ("deal-centre-two-cards", {}, "table", [], "deal QS 9D", "wrong_card_count"),
    ("deal-while-round-in-play", {}, "table", ["deal QS 4H 9D"], "deal 2C 3C 4C", "wrong_phase"),
    ("table-deal-lists-hands", {}, "table", [], "deal QS 4H 9D | Ann: 2C 3C 4C", "wrong_phase"),
    ("open-deal-without-hands", {}, "open", [], "deal QS 4H 9D", "wrong_card_count"),
    ("open-deal-missing-a-player", {}, "open", [], "deal QS 4H 9D | Ann: 2C 3C 4C | Bob: 2D 3D 4D",
     "wrong_card_count"),
    ("open-deal-two-cards", {}, "open", [], "deal QS 4H 9D | Ann: 2C 3C | Bob: 2D 3D 4D | Cas: 2H 3H 4H",
     "wrong_card_count"),
    ("open-deal-card-twice", {}, "open", [], "deal QS 4H 9D | Ann: 2C 3C 4C | Bob: 2D 3D 4D | Cas: 2H 3H QS",
     "card_not_available"),
    ("swap-out-of-turn", {}, "table", ["deal QS 4H 9D"], "swap Bob QS 2C", "not_your_turn"),
    ("swap-dealer-first", {}, "table", ["deal QS 4H 9D"], "swap Cas QS 2C", "not_your_turn"),
    ("take-not-in-middle", {}, "table", ["deal QS 4H 9D"], "swap Ann KS 2C", "card_not_available"),
    ("take-card-just-taken-by-other", {}, "table", ["deal QS 4H 9D", "swap Ann QS 2C"], "swap Bob QS 5S",
     "card_not_available"),
    ("give-card-just-taken", {}, "table", ["deal QS 4H 9D"], "swap Ann QS QS", "return_not_allowed"),
    ("give-card-in-middle", {}, "table", ["deal QS 4H 9D"], "swap Ann QS 9D", "card_not_available"),
    ("give-card-known-in-other-hand", {}, "table", ["deal QS 4H 9D", "swap Ann QS 2C"], "swap Bob 4H QS",
     "card_not_available"),
    ("give-card-not-in-known-hand-open", {}, "open",
     ["deal QS 4H 9D | Ann: 2C 3C 4C | Bob: 2D 3D 4D | Cas: 2H 3H 5H"], "swap Ann QS 5S", "card_not_available"),
    ("give-other-players-card-open", {}, "open",
     ["deal QS 4H 9D | Ann: 2C 3C 4C | Bob: 2D 3D 4D | Cas: 2H 3H 5H"], "swap Ann QS 2D", "card_not_available"),
    ("swap-all-when-off", {}, "table", ["deal QS 4H 9D"], "swapall Ann 2C 3C 4C", "swap_all_not_allowed"),
    ("swap-all-card-twice", {"swap_all": True}, "table", ["deal QS 4H 9D"], "swapall Ann 2C 2C 4C",
     "card_not_available"),
    ("swap-all-leaves-known-card", {"swap_all": True}, "table",
     ["deal QS 4H 9D", "swap Ann QS 2C", "swap Bob 4H 3C", "swap Cas 9D 4C"], "swapall Ann 5C 6C 7C",
     "card_not_available"),
    ("swap-all-gives-middle-card", {"swap_all": True}, "table", ["deal QS 4H 9D"], "swapall Ann QS 3C 4C",
     "card_not_available"),
    ("stop-second-turn-without-swap", {}, "table",
     ["deal QS 4H 9D", "swap Ann QS 2C", "swap Bob 2C 3C", "swap Cas 3C 4C"], "stop Ann", "stop_not_allowed"),
    ("stop-without-swap-never", {"stop_without_swap": "never"}, "table", ["deal QS 4H 9D"], "stop Ann",
     "stop_not_allowed"),
    ("stop-out-of-turn", {}, "table", ["deal QS 4H 9D"], "stop Bob", "not_your_turn"),
    ("stop-after-next-player-acted", {}, "table", ["deal QS 4H 9D", "swap Ann QS 2C", "swap Bob 2C 3C"],
     "stop Ann", "not_your_turn"),
    ("second-stop", {}, "table", ["deal QS 4H 9D", "stop Ann"], "stop Bob", "stop_not_allowed"),
    ("stopper-stops-again", {}, "table", ["deal QS 4H 9D", "swap Ann QS 2C", "stop Ann"], "stop Ann",
     "not_your_turn"),  # recording.md: the stopper after a stop
    ("stopper-swaps-after-stop", {}, "table", ["deal QS 4H 9D", "swap Ann QS 2C", "stop Ann"],
     "swap Ann 2C 3C", "not_your_turn"),
    ("final-turn-out-of-order", {}, "table", ["deal QS 4H 9D", "stop Ann"], "swap Cas QS 2C", "not_your_turn"),
    ("stopper-swaps-in-final-turns", {}, "table", ["deal QS 4H 9D", "stop Ann", "swap Bob QS 2C"],
     "swap Ann 2C 3C", "not_your_turn"),
    ("swap-at-showdown", {}, "table", list(TO_SHOWDOWN), "swap Ann 2C 5C", "wrong_phase"),
    ("stop-at-showdown", {}, "table", list(TO_SHOWDOWN), "stop Bob", "stop_not_allowed"),
    ("show-before-showdown", {}, "table", ["deal QS 4H 9D", "stop Ann"], "show Ann 2C 3C 4C", "wrong_phase"),
    ("show-twice", {}, "table", [*TO_SHOWDOWN, "show Ann 5C 6C 7C"], "show Ann 5C 6C 7C", "not_your_turn"),
    ("show-card-twice", {}, "table", list(TO_SHOWDOWN), "show Ann 5C 5C 7C", "card_not_available"),
    ("show-two-cards", {}, "table", list(TO_SHOWDOWN), "show Ann 5C 6C", "wrong_card_count"),
    ("show-without-card-taken", {}, "table", list(TO_SHOWDOWN), "show Bob 5C 6C 7C", "card_not_available"),
    ("show-card-in-middle", {}, "table", list(TO_SHOWDOWN), "show Ann 2C 6C 7C", "card_not_available"),
    ("show-card-in-other-hand", {}, "table", list(TO_SHOWDOWN), "show Ann QS 6C 7C", "card_not_available"),
    ("show-card-another-showed", {}, "table", [*TO_SHOWDOWN, "show Ann 5C 6C 7C"], "show Cas 4H 5C 8C",
     "card_not_available"),
    ("show-in-open-game", {}, "open",
     ["deal QS 4H 9D | Ann: 2C 3C 4C | Bob: 2D 3D 4D | Cas: 2H 3H 5H", "stop Ann"], "show Ann 2C 3C 4C",
     "wrong_phase"),
    ("swap-between-rounds", {}, "table", [*TO_SHOWDOWN, "show Ann 5C 6C 7C", "show Bob QS 8C 9C",
                                          "show Cas 4H TC JC"], "swap Bob QS 2C", "hand_over"),
    ("deal-by-old-dealer", {}, "table", [*TO_SHOWDOWN, "show Ann 5C 6C 7C", "show Bob QS 8C 9C",
                                         "show Cas 4H TC JC"], "deal QS 4H 9D dealer=Cas", "wrong_dealer"),
]


@pytest.mark.parametrize(("options", "visibility", "history", "line", "code"), [r[1:] for r in REFUSALS],
                         ids=[r[0] for r in REFUSALS])
def test_refusals(options: dict[str, Any], visibility: str, history: list[str], line: str, code: str) -> None:
    stream = play(history, visibility=visibility, **options)
    error = refusal(stream, line)
    assert error.code == code
    assert error.message.endswith(".") and len(error.message) > 20


def test_refused_action_leaves_state_unchanged() -> None:
    stream = play(["deal QS 4H 9D"])
    refusal(stream, "swap Ann KS 2C")
    assert view(stream)["to_act"] == ["Ann"]


@pytest.mark.parametrize("line", ["swap Ann QS 2C", "stop Ann", "deal QS 4H 9D", "show Ann 2C 3C 4C", "adjust Ann 1"])
def test_game_over_refuses_everything(line: str) -> None:
    stream = play(["adjust Bob -3", "adjust Cas -3"])
    assert stb.status(stream.state) == "finished"
    assert refusal(stream, line).code == "game_over"


@pytest.mark.parametrize(("line", "code"), [("undo", "nothing_to_undo"), ("redo", "nothing_to_redo")])
def test_nothing_to_undo_or_redo(line: str, code: str) -> None:
    assert refusal(new_game(), line).code == code


# --------------------------------------------------------------------------- allowed cases

ALLOWED = [
    # (id, options, history, action)
    ("stop-after-own-swap", {}, ["deal QS 4H 9D", "swap Ann QS 2C"], "stop Ann"),
    ("stop-on-first-turn-without-swap", {}, ["deal QS 4H 9D"], "stop Ann"),
    ("stop-on-later-first-turn", {}, ["deal QS 4H 9D", "swap Ann QS 2C"], "stop Bob"),
    ("stop-without-swap-always", {"stop_without_swap": "always"},
     ["deal QS 4H 9D", "swap Ann QS 2C", "swap Bob 2C 3C", "swap Cas 3C 4C"], "stop Ann"),
    ("stop-after-swap-never", {"stop_without_swap": "never"}, ["deal QS 4H 9D", "swap Ann QS 2C"], "stop Ann"),
    ("return-allowed", {"allow_return": True}, ["deal QS 4H 9D"], "swap Ann QS QS"),
    ("swap-all", {"swap_all": True}, ["deal QS 4H 9D"], "swapall Ann 2C 3C 4C"),
    ("swap-all-with-known-card", {"swap_all": True},
     ["deal QS 4H 9D", "swap Ann QS 2C", "swap Bob 4H 3C", "swap Cas 9D 4C"], "swapall Ann QS 5C 6C"),
    ("give-taken-card-back-later", {}, ["deal QS 4H 9D", "swap Ann QS 2C", "swap Bob 4H 3C", "swap Cas 9D 4C"],
     "swap Ann 2C QS"),
    ("take-what-another-gave", {}, ["deal QS 4H 9D", "swap Ann QS 2C"], "swap Bob 2C 5S"),
    ("deal-naming-right-dealer", {}, [], "deal QS 4H 9D dealer=Cas"),
]


@pytest.mark.parametrize(("options", "history", "line"), [a[1:] for a in ALLOWED], ids=[a[0] for a in ALLOWED])
def test_allowed(options: dict[str, Any], history: list[str], line: str) -> None:
    record(play(history, **options), line)


# --------------------------------------------------------------------------- turns and the stop


def test_deal_starts_left_of_dealer_and_goes_clockwise() -> None:
    stream = play(["deal QS 4H 9D"])
    assert view(stream)["to_act"] == ["Ann"]
    assert view(stream)["phase"] == "swapping"
    stream = record(stream, "swap Ann QS 2C")
    assert view(stream)["to_act"] == ["Bob"]
    assert view(stream)["can_stop"] == ["Ann", "Bob"]  # Ann after her swap, Bob on his first turn
    stream = record(stream, "swap Bob 2C 3C", "swap Cas 3C 4C")
    assert view(stream)["to_act"] == ["Ann"]
    assert view(stream)["centre"] == ["4C", "4H", "9D"]


def test_swap_puts_card_in_place_of_the_one_taken() -> None:
    stream = play(["deal QS 4H 9D", "swap Ann 4H 2C"])
    assert view(stream)["centre"] == ["QS", "2C", "9D"]
    assert player(stream, "Ann")["hand_known"] == ["4H"]


def test_stop_then_one_more_turn_each_then_showdown() -> None:
    stream = play(["deal QS 4H 9D", "swap Ann QS 2C", "stop Ann"])
    state = view(stream)
    assert (state["stopped_by"], state["final_turns_left"], state["to_act"], state["phase"]) == (
        "Ann", 2, ["Bob"], "final_turns")
    stream = record(stream, "swap Bob 2C 3C")
    assert (view(stream)["final_turns_left"], view(stream)["to_act"]) == (1, ["Cas"])
    stream = record(stream, "swap Cas 3C 4C")
    state = view(stream)
    assert (state["phase"], state["final_turns_left"]) == ("showdown", 0)
    assert state["to_act"] == ["Ann", "Bob", "Cas"]


def test_stop_by_second_player_gives_the_first_a_final_turn() -> None:
    stream = play(["deal QS 4H 9D", "swap Ann QS 2C", "swap Bob 2C 3C", "stop Bob"])
    assert view(stream)["to_act"] == ["Cas"]
    stream = record(stream, "swap Cas 3C 4C")
    assert view(stream)["to_act"] == ["Ann"]
    stream = record(stream, "swap Ann 4C 5C")
    assert view(stream)["phase"] == "showdown"


def test_two_players_stop_without_swap() -> None:
    stream = play(["deal QS 4H 9D", "stop Bob"], players=["Ann", "Bob"], dealer="Ann")
    assert view(stream)["to_act"] == ["Ann"]
    stream = record(stream, "swap Ann QS 2C")
    assert view(stream)["phase"] == "showdown"


def test_stop_window_closes_when_next_player_acts() -> None:
    stream = play(["deal QS 4H 9D", "swap Ann QS 2C"])
    assert "Ann" in view(stream)["can_stop"]
    stream = record(stream, "swap Bob 2C 3C")
    assert "Ann" not in view(stream)["can_stop"]


def test_swap_all_exchanges_hand_and_middle() -> None:
    stream = play(["deal QS 4H 9D", "swapall Ann 2C 3C 4C"], swap_all=True)
    assert view(stream)["centre"] == ["2C", "3C", "4C"]
    assert player(stream, "Ann")["hand_known"] == ["4H", "9D", "QS"]
    turn = stb.hand_view(stream.state, 1, True)["turns"][0]
    assert turn.pop("explanation").startswith("Ann exchanged the whole hand: took Q♠ 4♥ 9♦")
    assert turn == {"player": "Ann", "seq": 3, "type": "swap_all", "final": False, "take_all": True,
                    "take": ["QS", "4H", "9D"], "give": ["2C", "3C", "4C"]}


def test_returning_the_card_changes_nothing_with_allow_return() -> None:
    stream = play(["deal QS 4H 9D", "swap Ann QS QS"], allow_return=True)
    assert view(stream)["centre"] == ["QS", "4H", "9D"]
    assert player(stream, "Ann")["hand_known"] == []


# --------------------------------------------------------------------------- showdown and chips

SHOWDOWNS = [
    # (id, shows for Ann, Bob, Cas after TO_SHOWDOWN, losers)
    ("single-loser-pair-below-runs", "5C 6D 7H", "QS 9C 9H", "4H 2S 3S", ["Bob"]),
    ("tie-for-lowest-all-lose", "QD 4C 2S", "QS 8C 9H", "4H QH 2D", ["Ann", "Cas"]),
    ("A23-not-a-run-by-default", "AC 2D 3C", "QS 4C 6D", "4H 5C 7D", ["Cas"]),
    ("prial-wins", "5C 5D 5H", "QS QC 2D", "4H 2S 3S", ["Bob"]),
    ("everyone-ties", "QD 4C 2S", "QS 4D 2H", "4H QH 2D", ["Ann", "Bob", "Cas"]),
]


@pytest.mark.parametrize(("ann", "bob", "cas", "losers"), [s[1:] for s in SHOWDOWNS], ids=[s[0] for s in SHOWDOWNS])
def test_weakest_hands_lose_a_chip(ann: str, bob: str, cas: str, losers: list[str]) -> None:
    stream = play([*TO_SHOWDOWN, f"show Ann {ann}", f"show Bob {bob}", f"show Cas {cas}"])
    result = stb.hand_view(stream.state, 1, True)["result"]
    assert sorted(result["losers"]) == losers
    assert {p["name"]: p["chips"] for p in view(stream)["players"]} == {
        name: 2 if name in losers else 3 for name in PLAYERS}
    assert "weakest hand" in result["reason"]


def test_a23_top_is_best() -> None:
    stream = play([*TO_SHOWDOWN, "show Ann AC 2D 3C", "show Bob QS KC AD", "show Cas 4H 5C 7D"], ace_low_run="top")
    assert stb.hand_view(stream.state, 1, True)["result"]["losers"] == ["Cas"]


def test_shows_in_any_order_and_ranks_on_players() -> None:
    stream = play([*TO_SHOWDOWN, "show Cas 3S 4H 2S"])
    assert view(stream)["to_act"] == ["Ann", "Bob"]
    assert player(stream, "Cas")["hand_rank"] == {"category": "run", "key": [3, 4], "words": "run, 4-3-2"}
    assert player(stream, "Ann")["hand_rank"] is None


def test_show_known_cards_again() -> None:
    stream = play(["deal QS 4H 9D", "stop Ann", "swap Bob QS 2C", "swap Cas 4H 3D"])
    record(stream, "show Bob 9C QS 5S")  # QS is known in Bob's hand; shown in any order


def test_elimination_and_deal_skips_player_out() -> None:
    history = [*TO_SHOWDOWN, "show Ann 5C 6D 7H", "show Bob QS 9C 9H", "show Cas 4H 2S 3S"]
    stream = play(history, chips=1)
    state = view(stream)
    assert player(stream, "Bob")["out"] is True
    assert state["next_dealer"] == "Ann"
    assert stb.hand_view(stream.state, 1, True)["result"]["eliminated"] == ["Bob"]
    stream = record(stream, "deal 2C 3C 4C")
    assert view(stream)["to_act"] == ["Cas"]  # Ann deals; Bob is out, so Cas starts
    assert refusal(stream, "swap Bob 2C 5S").code == "not_your_turn"


def test_deal_passes_left_over_players_out() -> None:
    players = ["Ann", "Bob", "Cas", "Dee"]
    stream = play(["adjust Bob -3", "deal QS 4H 9D dealer=Ann"], players=players, dealer="Ann")
    assert view(stream)["to_act"] == ["Cas"]
    stream = record(stream, "stop Cas", "swap Dee QS 2C", "swap Ann 4H 3C",
                    "show Ann 4H 5C 6C", "show Cas 7C 8C 2D", "show Dee QS 3D 5D")
    assert view(stream)["next_dealer"] == "Cas"


def test_last_player_with_chips_wins() -> None:
    history = [*TO_SHOWDOWN, "show Ann 5C 6D 7H", "show Bob QS 9C 9H", "show Cas 4H 2S 3S"]
    stream = play(history, chips=1)
    assert view(stream)["status"] == "in_progress"
    stream = record(stream, "deal 2C 3C 4C", "stop Cas", "swap Ann 2C 5H",
                    "show Ann 2C KD KH", "show Cas 8S 9D 2H")
    state = view(stream)
    assert (state["status"], state["phase"], state["winners"], state["losers"]) == (
        "finished", "game_over", ["Ann"], ["Bob", "Cas"])
    assert stb.status(stream.state) == "finished"


@pytest.mark.parametrize("all_out", ["shared_win", "replay_round"])
def test_all_out_when_last_players_lose_together(all_out: str) -> None:
    players = ["Ann", "Bob"]
    stream = play(["deal QS 4H 9D", "stop Bob", "swap Ann QS 2C", "show Ann QS 5C 7D", "show Bob QD 5H 7S"],
                  players=players, dealer="Ann", chips=1, all_out=all_out)
    state = view(stream)
    result = stb.hand_view(stream.state, 1, True)["result"]
    if all_out == "shared_win":
        assert (state["status"], sorted(state["winners"]), sorted(result["losers"])) == (
            "finished", ["Ann", "Bob"], ["Ann", "Bob"])
        assert [p["chips"] for p in state["players"]] == [0, 0]
    else:
        assert (state["status"], result["losers"], result["replayed"]) == ("in_progress", [], True)
        assert [p["chips"] for p in state["players"]] == [1, 1]
        assert state["next_dealer"] == "Ann"  # the same dealer deals again
        stream = record(stream, "deal 2C 3C 4C")
        assert (view(stream)["round_number"], view(stream)["dealer"], view(stream)["to_act"]) == (2, "Ann", ["Bob"])


def test_replay_round_after_dealer_went_out_passes_the_deal_left() -> None:
    stream = play(["deal QS 4H 9D", "adjust Cas -1", "stop Ann", "swap Bob QS 2C",
                   "show Ann QD 5C 7D", "show Bob QS 5H 7S"], chips=1, all_out="replay_round")
    state = view(stream)
    assert (state["status"], state["next_dealer"]) == ("in_progress", "Ann")
    assert stb.hand_view(stream.state, 1, True)["result"]["replayed"] is True


def test_all_out_not_triggered_when_someone_keeps_chips() -> None:
    stream = play([*TO_SHOWDOWN, "show Ann QD 4C 2S", "show Bob QS 8C 9H", "show Cas 4H QH 2D"],
                  chips=1, all_out="replay_round")
    state = view(stream)
    assert (state["status"], state["winners"]) == ("finished", ["Bob"])


# --------------------------------------------------------------------------- open visibility


OPEN_DEAL = "deal QS 4H 9D | Ann: 2C 3C 4C | Bob: 2D 3D 5D | Cas: 2H 7H 9H"


def test_open_game_needs_no_show() -> None:
    stream = play([OPEN_DEAL, "stop Ann", "swap Bob QS 5D", "swap Cas 4H 9H"], visibility="open")
    result = stb.hand_view(stream.state, 1, True)["result"]
    assert result["losers"] == ["Bob"]  # Ann: running flush; Cas: flush 7-4-2 hearts; Bob: Q-3-2
    assert result["ranks"]["Ann"]["words"] == "running flush, 4-3-2"
    assert view(stream)["phase"] == "deal"


def test_open_game_hides_dealt_cards_from_the_public() -> None:
    stream = play([OPEN_DEAL, "swap Ann QS 2C"], visibility="open")
    assert player(stream, "Ann", full=True)["hand_known"] == ["3C", "4C", "QS"]
    assert player(stream, "Ann", full=False)["hand_known"] == ["QS"]
    public = stb.hand_view(stream.state, 1, False)["hands"]
    assert public["Ann"] == {"known": ["QS"], "unknown": 2}
    assert public["Bob"] == {"known": [], "unknown": 3}
    assert stb.legal_actions(stream.state, False)[0]["cards"] is None
    assert stb.legal_actions(stream.state, True)[0]["cards"] == ["2D", "3D", "5D"]


def test_open_round_over_shows_hands_to_everyone() -> None:
    stream = play([OPEN_DEAL, "stop Ann", "swap Bob QS 5D", "swap Cas 4H 9H"], visibility="open")
    assert stb.hand_over(stream.state, 1)
    assert stb.hand_view(stream.state, 1, False)["hands"]["Bob"] == {"known": ["2D", "3D", "QS"], "unknown": 0}


def test_redact_drops_dealt_hands_only() -> None:
    deal = parse(OPEN_DEAL)
    assert stb.redact(deal) == {"type": "deal", "centre": ["QS", "4H", "9D"]}
    swap = parse("swap Ann QS 2C")
    assert stb.redact(swap) == swap


# --------------------------------------------------------------------------- adjust


ADJUSTS = [
    # (id, lines, chips after)
    ("gain", ["adjust Ann 2"], [5, 3, 3]),
    ("lose", ["adjust Ann -1"], [2, 3, 3]),
    ("never-below-zero", ["adjust Ann -9"], [0, 3, 3]),
    ("revive", ["adjust Ann -3", "adjust Ann 1"], [1, 3, 3]),
]


@pytest.mark.parametrize(("lines", "chips"), [a[1:] for a in ADJUSTS], ids=[a[0] for a in ADJUSTS])
def test_adjust_chips(lines: list[str], chips: list[int]) -> None:
    stream = play(lines)
    assert [p["chips"] for p in view(stream)["players"]] == chips
    assert [p["out"] for p in view(stream)["players"]] == [c == 0 for c in chips]


def test_adjust_ends_the_game_at_once_even_mid_round() -> None:
    stream = play(["deal QS 4H 9D", "swap Ann QS 2C", "adjust Bob -3", "adjust Cas -3"])
    state = view(stream)
    assert (state["status"], state["winners"]) == ("finished", ["Ann"])
    assert stb.hand_view(stream.state, 1, True)["result"]["abandoned"] is True


def test_adjust_out_mid_round_leaves_the_round() -> None:
    players = ["Ann", "Bob", "Cas", "Dee"]
    stream = play(["deal QS 4H 9D", "stop Ann", "adjust Bob -3"], players=players, dealer="Dee")
    assert view(stream)["to_act"] == ["Cas"]
    assert view(stream)["final_turns_left"] == 2
    stream = record(stream, "swap Cas QS 2C", "swap Dee 2C 3C")
    assert view(stream)["to_act"] == ["Ann", "Cas", "Dee"]


def test_adjust_out_at_showdown_completes_it() -> None:
    players = ["Ann", "Bob", "Cas", "Dee"]
    stream = play(["deal QS 4H 9D", "stop Ann", "swap Bob QS 2C", "swap Cas 2C 3C", "swap Dee 3C 4C",
                   "show Ann 5C 6C 7C", "show Bob QS 8C 9C", "show Cas 2C TC JC", "adjust Dee -3"],
                  players=players, dealer="Dee")
    result = stb.hand_view(stream.state, 1, True)["result"]
    assert result["losers"] == ["Bob"]  # high card Q-9-8 below Cas's flush J-10-2
    assert "Dee" not in result["ranks"]


def test_adjust_listed_in_round() -> None:
    stream = play(["deal QS 4H 9D", "adjust Bob 1"])
    assert stb.hand_view(stream.state, 1, True)["adjustments"] == [
        {"player": "Bob", "seq": 3, "amount": 1, "applied": 1, "reason": "ruling"}]


# --------------------------------------------------------------------------- views


def test_view_before_deal() -> None:
    state = view(new_game())
    assert state["status"] == "in_progress"
    assert state["phase"] == "deal"
    assert state["to_act"] == []
    assert (state["round_number"], state["dealer"], state["centre"], state["stopped_by"]) == (0, "Cas", [], None)
    assert state["players"][0] == {"name": "Ann", "seat": 1, "chips": 3, "out": False, "in_round": None,
                                   "hand_size": 0, "hand_known": [], "hand_rank": None}
    assert "winners" not in state and "losers" not in state  # api.md: when finished
    assert stb.legal_actions(new_game().state, True) == [{"type": "deal", "player": "Cas", "cards": None}]


def test_hand_view_after_showdown() -> None:
    stream = play([*TO_SHOWDOWN, "show Ann 5C 6D 7H", "show Bob QS 9C 9H", "show Cas 4H 2S 3S"])
    hand = stb.hand_view(stream.state, 1, True)
    assert hand["dealer"] == "Cas"
    assert hand["centre_dealt"] == ["QS", "4H", "9D"]
    assert [t["type"] for t in hand["turns"]] == ["stop", "swap", "swap"]
    assert [t["final"] for t in hand["turns"]] == [False, True, True]
    assert hand["stopped_by"] == "Ann"
    assert hand["shows"][1]["rank"]["words"] == "pair, 9-9-Q"
    assert hand["result"]["ranks"]["Ann"] == {"category": "run", "key": [3, 7], "words": "run, 7-6-5"}
    assert hand["result"]["reason"].startswith("Bob has the weakest hand (pair, 9-9-Q), below run, 4-3-2 (Cas)")
    assert stb.hand_view(stream.state, 2, True) is None
    assert stb.hand_view(stream.state, 0, True) is None
    assert stb.trick_view(stream.state, 1, 1, True) is None
    assert stb.hand_number(stream.state) == 1 and stb.hand_over(stream.state, 1)


def test_legal_actions_follow_the_round() -> None:
    stream = play(["deal QS 4H 9D"], swap_all=True)
    legal = stb.legal_actions(stream.state, True)
    assert legal == [
        {"type": "swap", "player": "Ann", "take": ["QS", "4H", "9D"], "take_all": True, "cards": None},
        {"type": "stop", "player": "Ann", "cards": None},
    ]
    stream = record(stream, *TO_SHOWDOWN[1:])
    legal = stb.legal_actions(stream.state, True)
    assert [(a["type"], a["player"]) for a in legal] == [("show", "Ann"), ("show", "Bob"), ("show", "Cas")]


def test_every_listed_stop_is_accepted() -> None:
    stream = play(["deal QS 4H 9D", "swap Ann QS 2C"])
    for entry in stb.legal_actions(stream.state, True):
        if entry["type"] == "stop":
            record(stream, f"stop {entry['player']}")


def test_undo_redo_through_the_stream() -> None:
    stream = play(["deal QS 4H 9D", "swap Ann QS 2C", "stop Ann"])
    before = stream.state
    stream = record(stream, "undo")
    assert view(stream)["stopped_by"] is None and view(stream)["can_stop"] == ["Ann", "Bob"]
    stream = record(stream, "redo")
    assert stream.state == before


# --------------------------------------------------------------------------- schemas

SCHEMA_ERRORS = [
    ("swap-without-take", "swap", {"player": "Ann", "give": "2C"}, "table", "take"),
    ("take-all-with-one-card", "swap", {"player": "Ann", "take_all": True, "give": "2C"}, "table", "give"),
    ("take-all-with-take", "swap", {"player": "Ann", "take_all": True, "take": "QS", "give": ["2C", "3C", "4C"]},
     "table", "take"),
    ("swap-list-give", "swap", {"player": "Ann", "take": "QS", "give": ["2C", "3C", "4C"]}, "table", "give"),
    ("unknown-card", "swap", {"player": "Ann", "take": "1S", "give": "2C"}, "table", "take"),
    ("unknown-player", "stop", {"player": "Zed"}, "table", "player"),
    ("deal-without-centre", "deal", {}, "table", "centre"),
    ("table-deal-with-hands", "deal", {"centre": ["QS", "4H", "9D"], "hands": {"Ann": ["2C", "3C", "4C"]}},
     "table", "hands"),
    ("open-deal-without-hands", "deal", {"centre": ["QS", "4H", "9D"]}, "open", "hands"),
    ("adjust-without-reason", "adjust", {"player": "Ann", "amount": 1}, "table", "reason"),
    ("unknown-field", "stop", {"player": "Ann", "card": "2C"}, "table", "card"),
]


@pytest.mark.parametrize(("kind", "body", "visibility", "field"), [s[1:] for s in SCHEMA_ERRORS],
                         ids=[s[0] for s in SCHEMA_ERRORS])
def test_schema_errors(kind: str, body: dict[str, Any], visibility: str, field: str) -> None:
    with pytest.raises(ValidationError) as caught:
        schemas.ACTIONS[kind](players=PLAYERS, visibility=visibility).load({"type": kind, **body})
    assert field in caught.value.messages


def test_schema_canonical_cards_and_names() -> None:
    loaded = schemas.ACTIONS["swap"](players=PLAYERS).load({"type": "swap", "player": " ann ", "take": "10h",
                                                            "give": "qs"})
    assert loaded == {"type": "swap", "player": "Ann", "take": "TH", "give": "QS"}
    loaded = schemas.ACTIONS["swap"](players=PLAYERS).load({"type": "swap", "player": "Bob", "take_all": True,
                                                            "give": ["2c", "3c", "4c"]})
    assert loaded["give"] == ["2C", "3C", "4C"]


@pytest.mark.parametrize("options", [{"chips": 0}, {"chips": "3"}, {"swap_all": "yes"}, {"ace_low_run": "x"},
                                     {"nope": 1}], ids=["chips-0", "chips-str", "flag-str", "choice", "unknown"])
def test_options_schema_refuses(options: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        schemas.OPTIONS().load(options)
