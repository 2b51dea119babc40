"""Three-card Brag hand ranks, as Stop the Bus uses them.

From ``../shared/spec/rules/stop_the_bus.md``, "Hand ranks, highest category first":

1. ``prial`` (three of a kind): option ``prial_order`` ``aces_high`` (A-A-A best, 2-2-2
   worst) or ``threes_high`` (3-3-3 best, then A-A-A … 2-2-2);
2. ``running_flush`` (three in sequence, one suit); 3. ``run`` (three in sequence);
4. ``flush`` (one suit, not in sequence); 5. ``pair`` (the pair, then the odd card);
6. ``high_card``.

Sequences run from 2-3-4 (worst) to Q-K-A (best); option ``ace_low_run`` says what A-2-3
is: ``invalid`` (not a sequence), ``top`` (above Q-K-A) or ``bottom`` (below 2-3-4).
K-A-2 is never a sequence. Flushes and high cards compare highest, middle, lowest card;
suits never break ties.

:func:`rank` returns a :class:`HandRank` whose ``key`` (a tuple of ints) orders hands:
a bigger key is a stronger hand, equal keys are equal hands.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engine.core import fast_init

RANKS = "23456789TJQKA"
#: Card rank → value, 2 low, A high (14).
VALUES = {rank: value for value, rank in enumerate(RANKS, start=2)}
ACE = 14
#: Category names from weakest to strongest; a key starts with the category's index here.
CATEGORIES = ("high_card", "pair", "flush", "run", "running_flush", "prial")
CATEGORY_INDEX = {name: index for index, name in enumerate(CATEGORIES)}
PRIAL_ORDERS = ("aces_high", "threes_high")
ACE_LOW_RUNS = ("invalid", "top", "bottom")


@fast_init
@dataclass(frozen=True, slots=True)
class HandRank:
    """A hand's ``category`` (API name), its comparable ``key`` and the rank in ``words``.

    ``key[0]`` is the category's index in :data:`CATEGORIES`; the rest breaks ties inside
    the category. Compare hands by ``key`` only.
    """

    category: str
    key: tuple[int, ...]
    words: str


def rank_name(value: int) -> str:
    """Human rank for words: 14 → ``"A"``, 10 → ``"10"``, 7 → ``"7"``."""
    return "10" if value == 10 else RANKS[value - 2]


def sequence_top(values: list[int], ace_low_run: str) -> int | None:
    """The strength of a three-card sequence (its top card), or None if not a sequence.

    ``values`` are three card values sorted high → low. Q-K-A is 14, 2-3-4 is 4; A-2-3 is
    None (``invalid``), 15 (``top``: above Q-K-A) or 3 (``bottom``: below 2-3-4).
    K-A-2 is never a sequence ("Hand ranks", sequences).
    """
    high, mid, low = values
    if high - mid == 1 and mid - low == 1:
        return high
    if values == [ACE, 3, 2]:
        return {"invalid": None, "top": ACE + 1, "bottom": 3}[ace_low_run]
    return None


def rank(cards: Iterable[str], prial_order: str = "aces_high", ace_low_run: str = "invalid") -> HandRank:
    """Rank three cards (canonical codes such as ``"QS"``) under the two rank options.

    Returns the :class:`HandRank`. Raises ``ValueError`` unless given three different cards
    or for an unknown option value ("Hand ranks, highest category first"). Keys: a prial by
    its rank (3-3-3 above A-A-A under ``threes_high``); a run or running flush by
    :func:`sequence_top`; a flush or high card by its cards high, middle, low; a pair by the
    pair, then the odd card. Suits never enter a key, so hands of identical ranks are equal.
    """
    hand = list(cards)
    if len(hand) != 3 or len(set(hand)) != 3:
        raise ValueError("A Brag hand has three different cards.")
    if prial_order not in PRIAL_ORDERS or ace_low_run not in ACE_LOW_RUNS:
        raise ValueError("Unknown prial_order or ace_low_run.")
    values = sorted((VALUES[card[0]] for card in hand), reverse=True)
    one_suit = len({card[1] for card in hand}) == 1
    high, mid, low = values
    shown = "-".join(rank_name(v) for v in values)
    if high == low:
        strength = ACE + 1 if prial_order == "threes_high" and high == 3 else high
        return HandRank("prial", (CATEGORY_INDEX["prial"], strength), f"prial, {shown}")
    top = sequence_top(values, ace_low_run)
    if top is not None:
        category = "running_flush" if one_suit else "run"
        words = "A-2-3" if values == [ACE, 3, 2] else shown
        return HandRank(category, (CATEGORY_INDEX[category], top), f"{category.replace('_', ' ')}, {words}")
    if one_suit:
        return HandRank("flush", (CATEGORY_INDEX["flush"], high, mid, low), f"flush, {shown}")
    if high == mid or mid == low:
        pair, odd = (high, low) if high == mid else (low, high)
        words = "-".join(rank_name(v) for v in (pair, pair, odd))
        return HandRank("pair", (CATEGORY_INDEX["pair"], pair, odd), f"pair, {words}")
    return HandRank("high_card", (CATEGORY_INDEX["high_card"], high, mid, low), f"high card, {shown}")
