"""Toepen: the Dutch four-trick game where only the last trick counts.

Rules from ``../shared/spec/rules/toepen.md`` (section names below in quotes), with the
knowledge model and undo of ``../shared/spec/recording.md``:

- 32 cards, 7 to A in four suits; within a suit **T 9 8 7 A K Q J**, high to low ("Cards").
- Each hand: a ``deal`` of 4 cards each, optional ``laundry`` (stock ≥ 4, once per player)
  and ``challenge`` (one per laundry) before the first card, then four tricks. Follow suit if you can; the highest card of the led suit
  wins the trick and leads the next ("A hand").
- Any player still in the hand may ``knock`` (stake + 1), not twice in a row and never
  above their remaining lives; the others ``stay`` or ``fold``, a folder losing the stake
  as it was before that knock ("Knocking", "Answering a knock").
- After the fourth trick its winner loses nothing and everyone else still in loses the
  stake (``folded_last_trick`` when that winner folded); the winner deals next, or the
  previous dealer when nobody won (``next_dealer``: ``left``) ("End of the hand"). The game
  ends at ``limit`` lives lost, at once, or the player leaves it (``game_end``); no loss
  takes a player past the limit ("End of the game").

In ``table`` visibility a hand is *known cards + a count of unknown cards*: rules that need
the hand (follow suit, mandatory laundry) are enforced when the cards are known, and a
revoke that later knowledge proves is flagged, never rewritten.

The state is immutable: finished hands (and rulings) are a persistent vector
(``pyrsistent.PVector``) shared from one state to the next, a finished hand appended without
copying the others, so ``apply`` only rebuilds the current hand and its cost does not grow
with the game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pyrsistent import PVector, pvector

from engine.cards import SUIT_NAMES, SUIT_SINGULAR, parse_french, pretty, suit_of
from engine.core import (
    PAST_TENSE,
    Action,
    OptionError,
    RulesError,
    SheetColumns,
    check_card_list,
    check_seats,
    fast_init,
    finished_status,
    name_list,
    no_upcast,
    options_with_defaults,
    player_result,
    plural,
    redact_fields,
    seat_after,
    visibility_words,
)
from engine.core import evolve as replace
from engine.interface import PlayUnit, Starter

GAME = "toepen"
#: What the texts call one deal and its play (rules/toepen.md: "hand").
HAND_WORD = "hand"
#: The score sheet's columns per player (docs/export.md).
SHEET = SheetColumns(("hand", "dealer"), "lives lost", "lives lost this hand", "lives lost in all")
RULES_VERSION = 1
SPEC = "rules/toepen.md"
#: The ``game_created`` field naming who starts (who deals the first hand).
STARTER: Starter = "dealer"
#: What a hand is played in (four tricks a hand): its hand view lists them, ``position`` counts them.
PLAY_UNIT: PlayUnit = "trick"
#: The counters of :func:`results` this game has (tricks won and knocks).
COUNTERS: tuple[str, ...] = ("tricks_won", "knocks")

RANKS = "789TJQKA"
#: Strength within a suit, from ``rules/toepen.md`` "Cards": T 9 8 7 A K Q J (high → low).
STRENGTH = {rank: power for power, rank in enumerate(reversed("T987AKQJ"))}
DECK = tuple(rank + suit for suit in "CDHS" for rank in RANKS)
HAND_CARDS = 4
TRICKS = 4
LAUNDRY_RANKS = frozenset("JQKA")
#: A challenged laundry was a bluff if the hand held any of these ("Laundry").
PLAIN_RANKS = frozenset("T987")
MIN_PLAYERS, MAX_PLAYERS = 3, 8


def parse_card(value: object) -> str:
    """Canonical Toepen card code for ``value`` (``"10h"`` → ``"TH"``); ``ValueError`` if none."""
    return parse_french(value, RANKS, "32-card Toepen")


def beats(card: str, other: str) -> bool:
    """True when ``card`` ranks above ``other`` (same suit assumed): T 9 8 7 A K Q J, high to
    low (``rules/toepen.md``, "Cards"). Raises ``KeyError`` for a code that is not a card."""
    return STRENGTH[card[0]] > STRENGTH[other[0]]


# --------------------------------------------------------------------------- options


@fast_init
@dataclass(frozen=True, slots=True)
class Options:
    """Every option of ``rules/toepen.md`` with its default (the seed document's rules)."""

    limit: int = 10
    game_end: str = "first_to_limit"
    next_dealer: str = "winner"
    knock_responses: str = "implicit"
    folded_last_trick: str = "all_lose"
    laundry_mandatory: bool = True
    max_stake: int | None = None


CHOICES = {
    "game_end": ("first_to_limit", "elimination"),
    "next_dealer": ("winner", "left"),
    "knock_responses": ("implicit", "explicit"),
    "folded_last_trick": ("all_lose", "best_active"),
}


def resolve_options(raw: Mapping[str, Any], players: list[str]) -> dict[str, Any]:
    """Return every option with defaults filled in, as a JSON object.

    ``raw`` holds the options given at creation (already type-checked by the schema).
    Raises :class:`OptionError` for a seat count outside 3–8, an unknown option, a choice
    the rules do not offer, a ``limit`` below 1 or a ``max_stake`` below 2.
    """
    check_seats("Toepen", players, MIN_PLAYERS, MAX_PLAYERS)
    out = options_with_defaults("Toepen", Options(), raw, choices=CHOICES)
    if not isinstance(out["limit"], int) or not 1 <= out["limit"] <= 99:
        raise OptionError("limit", "The number of lives must be a whole number from 1 to 99.")
    if out["max_stake"] is not None and (not isinstance(out["max_stake"], int) or out["max_stake"] < 2):
        raise OptionError("max_stake", "A maximum stake must be at least 2 (or null for none).")
    return out


# --------------------------------------------------------------------------- state


@fast_init
@dataclass(frozen=True, slots=True)
class Holding:
    """What is known of one player's hand: ``known`` cards plus ``unknown`` unseen ones."""

    known: frozenset[str] = frozenset()
    unknown: int = 0

    @property
    def size(self) -> int:
        return len(self.known) + self.unknown


@fast_init
@dataclass(frozen=True, slots=True)
class Play:
    """A card played to a trick, with the ``seq`` of the event that recorded it."""

    seat: int
    card: str
    seq: int


@fast_init
@dataclass(frozen=True, slots=True)
class Trick:
    """One trick: its leader, the plays so far, the led suit and (when complete) the winner."""

    number: int
    leader: int
    plays: tuple[Play, ...] = ()
    winner: int | None = None
    complete: bool = False
    closed_seq: int | None = None  # the event that completed it: its last card, or a fold or elimination

    @property
    def lead_suit(self) -> str | None:
        return suit_of(self.plays[0].card) if self.plays else None

    def best(self, eligible: Callable[[int], bool] | None = None) -> Play | None:
        """The highest card of the led suit among plays by ``eligible`` seats (all by default)."""
        top: Play | None = None
        lead = self.lead_suit
        for play in self.plays:
            if suit_of(play.card) != lead or (eligible is not None and not eligible(play.seat)):
                continue
            if top is None or beats(play.card, top.card):
                top = play
        return top


@fast_init
@dataclass(frozen=True, slots=True)
class Knock:
    """A knock ("Knocking"): who knocked, at which event, and the stake it raised to."""

    seat: int
    seq: int
    stake: int  # the stake after this knock


@fast_init
@dataclass(frozen=True, slots=True)
class Fold:
    """A fold ("Answering a knock"): ``lost`` is what the folder actually lost, the stake
    before the knock answered, capped at their lives left ("End of the game")."""

    seat: int
    seq: int
    lost: int


@fast_init
@dataclass(frozen=True, slots=True)
class Laundry:
    """A laundry: what went face down (``known`` cards + ``unknown`` count) and any challenge."""

    seat: int
    seq: int
    known: frozenset[str]
    unknown: int
    challenger: int | None = None
    challenge_seq: int | None = None
    shown: tuple[str, ...] = ()
    genuine: bool | None = None


@fast_init
@dataclass(frozen=True, slots=True)
class Void:
    """A play that did not follow the led suit: the player showed out of ``suit``."""

    seat: int
    suit: str
    seq: int
    trick: int


@fast_init
@dataclass(frozen=True, slots=True)
class Revoke:
    """A revoke proven by later knowledge (``recording.md``, "Knowledge")."""

    seat: int
    suit: str
    trick: int
    seq: int
    proof_seq: int
    proof_card: str
    proof: str  # "played" or "revealed"


@fast_init
@dataclass(frozen=True, slots=True)
class Reveal:
    """A ``reveal`` ("Actions"): cards a player is seen to hold (a dispute; enables revoke checks)."""

    seat: int
    seq: int
    cards: tuple[str, ...]


@fast_init
@dataclass(frozen=True, slots=True)
class Result:
    """How a hand ended: its ``winner`` (or None), the ``reason`` in words, ``abandoned``."""

    winner: int | None
    reason: str
    abandoned: bool = False


@dataclass(frozen=True)  # no slots: evolve copies a __dict__ as one new dictionary
class Hand:
    """One hand of Toepen, from its deal to its result."""

    number: int
    dealer: int
    deal_seq: int
    players: tuple[int, ...]  # seats dealt in
    holdings: tuple[Holding, ...]  # by seat (empty for seats not dealt in)
    in_hand: tuple[bool, ...]  # by seat: dealt in, not folded, not eliminated
    stock: int
    lead_base: int  # who leads the next trick, before skipping players who left the hand
    stake: int = 1
    knocks: tuple[Knock, ...] = ()
    open_knock: bool = False  # implicit mode: folds to the latest knock may still be recorded
    answers_due: tuple[int, ...] = ()  # explicit mode: seats still to stay or fold, in order
    folds: tuple[Fold, ...] = ()
    seen: frozenset[str] = frozenset()  # cards whose place is known: played, shown, in a known hand
    laundries: tuple[Laundry, ...] = ()
    tricks: tuple[Trick, ...] = ()
    voids: tuple[Void, ...] = ()
    revokes: tuple[Revoke, ...] = ()
    reveals: tuple[Reveal, ...] = ()
    losses: tuple[int, ...] = ()  # by seat, lives lost in this hand (folds, challenges, the end)
    result: Result | None = None

    @property
    def last_knocker(self) -> int | None:
        return self.knocks[-1].seat if self.knocks else None

    @property
    def started(self) -> bool:
        """True once the first card of the hand has been played."""
        return bool(self.tricks)

    @property
    def current_trick(self) -> Trick | None:
        if self.tricks and not self.tricks[-1].complete:
            return self.tricks[-1]
        return None


@fast_init
@dataclass(frozen=True, slots=True)
class Adjustment:
    """An ``adjust`` ruling (``recording.md``, "Bookkeeping actions"): ``amount`` as recorded,
    ``applied`` the change to lives lost once kept within 0..limit, in hand ``hand``."""

    seat: int
    seq: int
    amount: int
    applied: int
    reason: str
    hand: int


@dataclass(frozen=True)  # no slots: evolve copies a __dict__ as one new dictionary
class State:
    """A whole game of Toepen. ``history`` holds finished hands; ``hand`` the one in play."""

    options: Options
    visibility: str
    names: tuple[str, ...]
    lives_lost: tuple[int, ...]
    eliminated: tuple[bool, ...]
    dealer: int  # who deals the next hand (or dealt the current one)
    history: PVector[Hand] = pvector()  # shared from state to state: a finished hand is appended, never copied
    hand: Hand | None = None
    adjustments: PVector[Adjustment] = pvector()  # shared from state to state, like ``history``
    finished: bool = False
    rules_version: int = RULES_VERSION


def initial_state(created: Mapping[str, Any]) -> State:
    """The state right after ``game_created`` (players, options, visibility, dealer).

    Raises :class:`OptionError` when the options or seats are not valid for Toepen.
    """
    names = tuple(created["players"])
    options = Options(**resolve_options(created.get("options") or {}, list(names)))
    dealer = created.get("dealer") or names[0]
    if dealer not in names:
        raise OptionError("dealer", f"{dealer!r} is not one of the players.")
    version = int(created.get("rules_version", RULES_VERSION))
    if version != RULES_VERSION:
        raise OptionError("rules_version", f"Toepen rules version {version} is unknown (this is version {RULES_VERSION}).")
    count = len(names)
    return State(options, created.get("visibility", "table"), names, (0,) * count, (False,) * count, names.index(dealer))


# --------------------------------------------------------------------------- helpers


def _set(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return values[:index] + (value,) + values[index + 1 :]


def _seat(state: State, name: str) -> int:
    try:
        return state.names.index(name)
    except ValueError as err:  # the schema checks names; a stored log could still be odd
        raise RulesError("not_your_turn", f"{name} is not a player in this game.") from err


def lives_left(state: State, seat: int) -> int:
    """``limit`` minus the lives ``seat`` has lost ("Knocking": a knock may not raise the stake above it)."""
    return state.options.limit - state.lives_lost[seat]


def leader(hand: Hand) -> int | None:
    """Who leads the next trick: ``lead_base`` (left of the dealer for trick 1, else the last
    trick's winner), or the next player on their left still in the hand ("A hand" 3,
    "Answering a knock"); None when nobody is in."""
    if hand.in_hand[hand.lead_base]:
        return hand.lead_base
    return seat_after(hand.lead_base, len(hand.in_hand), lambda s: hand.in_hand[s])


def next_to_play(hand: Hand) -> int | None:
    """The seat that must play the next card, or None when no card is due (the hand is
    over, an explicit knock is still being answered, or the fourth trick is complete)."""
    if hand.result is not None or hand.answers_due:
        return None
    trick = hand.current_trick
    if trick is None:
        return leader(hand) if len(hand.tricks) < TRICKS else None
    return _still_to_play(hand, trick)


def _still_to_play(hand: Hand, trick: Trick) -> int | None:
    """The next player still in the hand, after the last card of ``trick``, who has not
    played to it; None when every player still in has played (the trick is complete).
    Answers still due to a knock do not matter here: a fold never completes a trick for
    the players still in ("Answering a knock": the folder's played cards stay where they are)."""
    played = {p.seat for p in trick.plays}
    in_hand = hand.in_hand
    for seat in _CLOCKWISE[len(in_hand)][trick.plays[-1].seat]:  # clockwise from the last card
        if in_hand[seat] and seat not in played:
            return seat
    return None


#: For each table size, the other seats clockwise after each seat (``engine.core.seat_after``'s
#: order, written out once: a play asks twice who is next).
_CLOCKWISE = {count: tuple(tuple((seat + step) % count for step in range(1, count)) for seat in range(count))
              for count in range(MIN_PLAYERS, MAX_PLAYERS + 1)}


def to_act(state: State) -> list[int]:
    """Seats whose turn it is: the answerer due (explicit mode) or the player to play."""
    hand = state.hand
    if state.finished or hand is None:
        return []
    if hand.answers_due:
        return [hand.answers_due[0]]
    seat = next_to_play(hand)
    return [] if seat is None else [seat]


def phase(state: State) -> str:
    """``deal`` (waiting for a deal), ``playing``, ``answering`` (explicit knock) or ``game_over``."""
    if state.finished:
        return "game_over"
    if state.hand is None:
        return "deal"
    return "answering" if state.hand.answers_due else "playing"


def is_laundry(cards: Iterable[str]) -> bool:
    """A hand made only of J, Q, K and A ("Laundry")."""
    return all(card[0] in LAUNDRY_RANKS for card in cards)


def laundry_possible(hand: Hand, seat: int) -> bool:
    """May ``seat`` still launder: no card played yet, stock ≥ 4, not laundered this hand."""
    return (
        not hand.started
        and hand.stock >= HAND_CARDS
        and all(entry.seat != seat for entry in hand.laundries)
    )


def _available(hand: Hand, seat: int, card: str) -> bool:
    """Conservation: ``card`` can still be in ``seat``'s hand (recording.md, rule 1)."""
    holding = hand.holdings[seat]
    return card in holding.known or (holding.unknown > 0 and card not in hand.seen)


def _where(state: State, hand: Hand, card: str) -> str:
    """Say where a card that cannot be in a hand is known to be."""
    for trick in hand.tricks:
        for play in trick.plays:
            if play.card == card:
                return f"{state.names[play.seat]} played it in trick {trick.number}"
    for seat in hand.players:
        if card in hand.holdings[seat].known:
            return f"it is known to be in {state.names[seat]}'s hand ({_known_since(hand, seat, card)})"
    for entry in hand.laundries:
        if card in entry.known or card in entry.shown:
            return f"it went face down in {state.names[entry.seat]}'s laundry"
    return "it has been seen elsewhere"


def _known_since(hand: Hand, seat: int, card: str) -> str:
    """What made ``card`` known in ``seat``'s hand, in words: a reveal, a laundry, or the deal."""
    for reveal in reversed(hand.reveals):
        if reveal.seat == seat and card in reveal.cards:
            return "revealed in this hand"
    for entry in hand.laundries:
        if entry.seat == seat and card not in entry.known:
            return "taken in a laundry"
    return "dealt to them"


def _not_available(state: State, hand: Hand, seat: int, card: str) -> RulesError:
    name = state.names[seat]
    holding = hand.holdings[seat]
    if card in hand.seen:
        why = _where(state, hand, card)
    elif holding.unknown == 0:
        why = f"{name} is known to hold {_cards(sorted(holding.known)) or 'no cards'}"
    else:
        why = "it is not in their hand"
    return RulesError("card_not_available", f"{name} cannot have {pretty(card)}: {why}.")


def _four_cards(cards: Iterable[str], what: str) -> None:
    """Exactly 4 cards, none named twice (a dealt, laundered or laid-down hand):
    ``wrong_card_count`` or ``card_not_available`` (``engine.core.check_card_list``)."""
    check_card_list(list(cards), HAND_CARDS, what, pretty)


def _cards(cards: Iterable[str]) -> str:
    return " ".join(pretty(card) for card in cards)


# --------------------------------------------------------------------------- losses


def _lose(state: State, seat: int, amount: int, seq: int) -> State:
    """``seat`` loses ``amount`` lives (capped at the limit), counted in the current hand,
    by event ``seq``.

    Then the end of the game is checked ("End of the game"): with ``first_to_limit`` the
    game ends at once; with ``elimination`` the player leaves the game (and the hand).
    """
    lost = min(amount, lives_left(state, seat))
    state = replace(state, lives_lost=_set(state.lives_lost, seat, state.lives_lost[seat] + lost))
    if state.hand is not None:
        hand = state.hand
        state = replace(state, hand=replace(hand, losses=_set(hand.losses, seat, hand.losses[seat] + lost)))
    return _check_limit(state, seq)


def _check_limit(state: State, seq: int) -> State:
    """Apply ``game_end`` to every player at the limit (``rules/toepen.md``, "End of the game")
    after event ``seq``: an elimination may complete a trick or end the hand."""
    limit = state.options.limit
    at_limit = [s for s, lost in enumerate(state.lives_lost) if lost >= limit and not state.eliminated[s]]
    if not at_limit or state.finished:
        return state
    if state.options.game_end == "first_to_limit":
        return _finish(state, f"{name_list([state.names[s] for s in at_limit])} had lost {plural(limit, 'life')}")
    eliminated = state.eliminated
    hand = state.hand
    for seat in at_limit:
        eliminated = _set(eliminated, seat, True)
        if hand is not None:
            hand = replace(
                hand,
                in_hand=_set(hand.in_hand, seat, False),
                answers_due=tuple(s for s in hand.answers_due if s != seat),
            )
    state = replace(state, eliminated=eliminated, hand=hand)
    remaining = [s for s in range(len(state.names)) if not eliminated[s]]
    if len(remaining) <= 1:
        left = name_list([state.names[s] for s in remaining])
        return _finish(state, f"everyone but {left} was out" if left else "every player was out")
    if hand is not None and hand.result is None:
        state = _settle(state, seq)
    if state.hand is None and state.eliminated[state.dealer]:
        state = replace(state, dealer=_left_of(state, state.dealer))
    return state


def _finish(state: State, when: str) -> State:
    """End the game ``when`` it ended ("Ann had lost 10 lives"); a hand still in play is kept in
    the history, marked ``abandoned`` (not finished), its reason in card players' words: "the game
    ended when Ann had lost 10 lives" (docs/decisions.md, "A hand cut short by the game's end")."""
    if state.hand is not None:
        hand = state.hand
        cut = Result(None, f"the game ended when {when}", True)
        state = replace(state, history=state.history.append(replace(hand, result=cut)), hand=None)
    return replace(state, finished=True)


def _left_of(state: State, seat: int) -> int:
    nxt = seat_after(seat, len(state.names), lambda s: not state.eliminated[s])
    return seat if nxt is None else nxt


def winners_losers(state: State) -> tuple[list[str], list[str]]:
    """The game's ``(winners, losers)`` names once it is over, else two empty lists ("End of
    the game"): ``first_to_limit`` losers are those at the limit, everyone else wins;
    ``elimination`` losers are the eliminated, the last player standing wins."""
    if not state.finished:
        return [], []
    if state.options.game_end == "first_to_limit":
        losers = [n for s, n in enumerate(state.names) if state.lives_lost[s] >= state.options.limit]
    else:
        losers = [n for s, n in enumerate(state.names) if state.eliminated[s]]
    return [n for n in state.names if n not in losers], losers


# --------------------------------------------------------------------------- the hand's flow


def _settle(state: State, seq: int) -> State:
    """Complete a trick that every player still in has played to, and end the hand when it
    is over; ``seq`` is the event being applied (it closes the trick, if any).

    Called after every play, fold, stay and elimination. A trick is complete when every
    player still in the hand has played to it, whatever knock answers are still due. A hand
    ends when one player is left in it ("If everyone else folds …", at once) or after the
    fourth trick ("End of the hand"); in ``explicit`` mode the fourth trick is scored once
    the answers due to the last knock are in (each player still in answers it, "Answering
    a knock"), so a fold cannot take the others' answer from them.
    """
    hand = state.hand
    assert hand is not None
    if hand.in_hand.count(True) <= 1:  # only players dealt in are ever in the hand
        active = [s for s in hand.players if hand.in_hand[s]]
        winner = active[0] if active else None
        return _end_hand(state, Result(winner, _last_in_reason(state, hand, winner)))
    trick = hand.current_trick
    if trick is not None:
        if _still_to_play(hand, trick) is not None:
            return state
        top = trick.best()
        assert top is not None
        done = replace(trick, winner=top.seat, complete=True, closed_seq=seq)
        hand = replace(hand, tricks=hand.tricks[:-1] + (done,), lead_base=top.seat)
        state = replace(state, hand=hand)
    if len(hand.tricks) < TRICKS or not hand.tricks[-1].complete or hand.answers_due:
        return state
    return _score_hand(state, hand.tricks[-1])


def _last_in_reason(state: State, hand: Hand, winner: int | None) -> str:
    """Why the hand ended early: the others folded and/or were eliminated."""
    if winner is None:
        return "nobody is left in the hand"
    gone = [s for s in hand.players if s != winner]
    folded = [s for s in gone if any(f.seat == s for f in hand.folds)]
    out = [s for s in gone if s not in folded]
    parts = []
    if folded:
        parts.append(f"{names_of(state, folded)} folded")
    if out:
        parts.append(f"{names_of(state, out)} {'was' if len(out) == 1 else 'were'} eliminated")
    return f"{' and '.join(parts)}: {state.names[winner]} is the last player in"


def _score_hand(state: State, last: Trick) -> State:
    """After the fourth trick: its winner loses nothing, everyone else still in loses the stake.

    If the last trick's best card belongs to a player who folded during it, option
    ``folded_last_trick`` decides: ``all_lose`` (nobody wins) or ``best_active``.
    """
    hand = state.hand
    assert hand is not None and last.winner is not None
    winner: int | None = last.winner
    names = state.names
    suit = SUIT_SINGULAR[last.lead_suit or "H"]
    if hand.in_hand[last.winner]:
        reason = f"{names[last.winner]} won the last trick with the highest {suit}"
    elif state.options.folded_last_trick == "best_active":
        best = last.best(lambda s: hand.in_hand[s])
        winner = best.seat if best else None
        reason = (
            f"{names[last.winner]} folded, so the best {suit} of the players still in ({names[winner]}) wins"
            if winner is not None
            else f"{names[last.winner]} folded and nobody still in played a {suit}: nobody wins"
        )
    else:
        winner = None
        reason = f"{names[last.winner]} won the last trick but had folded: everyone still in loses"
    # Everyone still in loses at the same moment: charge them all, close the hand, and only
    # then check the end of the game (so two players reaching the limit together both lose,
    # and a hand that was played out is not "abandoned").
    lost, losses = list(state.lives_lost), list(hand.losses)
    for seat in hand.players:
        if hand.in_hand[seat] and seat != winner:
            amount = min(hand.stake, state.options.limit - lost[seat])
            lost[seat] += amount
            losses[seat] += amount
    state = replace(state, lives_lost=tuple(lost), hand=replace(hand, losses=tuple(losses)))
    return _check_limit(_end_hand(state, Result(winner, reason)), 0)


def _end_hand(state: State, result: Result) -> State:
    """Close the hand and choose the next dealer (option ``next_dealer``)."""
    hand = state.hand
    assert hand is not None
    hand = replace(hand, result=result, answers_due=(), open_knock=False)
    if state.options.next_dealer == "left":
        dealer = _left_of(state, hand.dealer)
    elif result.winner is not None:
        dealer = result.winner
    else:  # nobody won: the previous dealer deals again (if still in the game)
        dealer = hand.dealer if not state.eliminated[hand.dealer] else _left_of(state, hand.dealer)
    return replace(state, history=state.history.append(hand), hand=None, dealer=dealer)


# --------------------------------------------------------------------------- checks


def _current(state: State, what: str) -> Hand:
    """The hand in play, or the right refusal: ``game_over``, ``hand_over``, ``wrong_phase``."""
    if state.finished:
        raise RulesError("game_over", "The game is over: nothing more can be played.")
    if state.hand is None:
        if state.history:
            raise RulesError("hand_over", f"Hand {state.history[-1].number} is over: record the next deal before {what}.")
        raise RulesError("wrong_phase", f"No hand has been dealt yet: record a deal before {what}.")
    return state.hand


def _active(state: State, hand: Hand, seat: int) -> None:
    name = state.names[seat]
    if state.eliminated[seat]:
        raise RulesError("not_your_turn", f"{name} is out of the game.")
    if not hand.in_hand[seat]:
        raise RulesError("not_your_turn", f"{name} has folded and is out of this hand.")


def check_play(state: State, seat: int) -> Hand:
    """Everything about a play that does not depend on the card: phase, turn, mandatory laundry.

    Returns the hand in play. Raises ``game_over``, ``hand_over`` / ``wrong_phase`` (no hand
    in play, or a knock still to be answered in ``explicit`` mode), ``not_your_turn``
    (folded, eliminated, out of turn) or ``laundry_required`` (a known laundry hand while a
    laundry is still possible: ``laundry_mandatory``, "Laundry"; turn order: "A hand" 3).
    """
    hand = _current(state, "a card is played")
    if hand.answers_due:
        due = state.names[hand.answers_due[0]]
        raise RulesError("wrong_phase", f"The knock must be answered first: {due} must stay or fold.")
    _active(state, hand, seat)
    due_seat = next_to_play(hand)
    if due_seat != seat:
        raise RulesError("not_your_turn", f"It is {state.names[due_seat] if due_seat is not None else 'nobody'}'s turn to play, not {state.names[seat]}'s.")
    holding = hand.holdings[seat]
    if (
        state.options.laundry_mandatory
        and holding.unknown == 0
        and is_laundry(holding.known)
        and laundry_possible(hand, seat)
    ):
        raise RulesError(
            "laundry_required",
            f"{state.names[seat]} holds laundry ({_cards(sorted(holding.known))}) and must exchange it before playing.",
        )
    return hand


def check_card(state: State, hand: Hand, seat: int, card: str) -> None:
    """Conservation (``recording.md``, "Knowledge" 1) and follow suit ("A hand" 3) for a card
    ``seat`` wants to play. Raises ``card_not_available`` when the card cannot be in the hand,
    ``must_follow_suit`` when the player is known to hold the led suit and plays another."""
    if not _available(hand, seat, card):
        raise _not_available(state, hand, seat, card)
    trick = hand.current_trick
    lead = trick.lead_suit if trick else None
    if lead is None or suit_of(card) == lead:
        return
    followers = sorted(c for c in hand.holdings[seat].known if suit_of(c) == lead)
    if followers:
        raise RulesError(
            "must_follow_suit",
            f"{state.names[seat]} must follow {SUIT_NAMES[lead]}: they are known to hold {_cards(followers)}.",
        )


def check_knock(state: State, seat: int) -> Hand:
    """May ``seat`` knock now ("Knocking")? Returns the hand in play.

    Raises ``game_over`` / ``hand_over`` / ``wrong_phase`` (no hand, or the last knock still
    unanswered in ``explicit`` mode), ``not_your_turn`` (folded or eliminated) or
    ``knock_not_allowed``: ``seat`` knocked last, the new stake would exceed their lives
    left (limit − lives lost), or ``max_stake``.
    """
    hand = _current(state, "a knock")
    if hand.answers_due:
        raise RulesError("wrong_phase", f"The last knock must be answered first: {state.names[hand.answers_due[0]]} must stay or fold.")
    _active(state, hand, seat)
    name = state.names[seat]
    if hand.last_knocker == seat:
        raise RulesError("knock_not_allowed", f"{name} knocked last: another player must knock before {name} may knock again.")
    stake = hand.stake + 1
    if stake > lives_left(state, seat):
        raise RulesError(
            "knock_not_allowed",
            f"{name} has {plural(lives_left(state, seat), 'life')} left and may not raise the stake to {stake}.",
        )
    if state.options.max_stake is not None and stake > state.options.max_stake:
        raise RulesError("knock_not_allowed", f"The stake may not go above {state.options.max_stake}.")
    return hand


def check_answer(state: State, seat: int, kind: str) -> Hand:
    """May ``seat`` ``stay`` or ``fold`` (``kind``) now ("Answering a knock")? Returns the hand.

    ``implicit``: only folds, to the latest knock, until the next card or knock. ``explicit``:
    the players still in answer in seat order from the knocker's left. Raises
    ``wrong_phase`` (``stay`` in implicit mode, or no knock to stay on), ``cannot_fold`` (no
    knock open, or the knocker's own knock), ``not_your_turn`` (folded, eliminated, not the
    answerer due) and the phase codes of :func:`check_play`.
    """
    hand = _current(state, f"a {kind}")
    name = state.names[seat]
    explicit = state.options.knock_responses == "explicit"
    if kind == "stay" and not explicit:
        raise RulesError("wrong_phase", "With implicit knock answers there is no 'stay': a player who does not fold stays.")
    if explicit and hand.answers_due:
        if hand.answers_due[0] != seat:
            _active(state, hand, seat)
            if hand.last_knocker == seat and kind == "fold":
                raise RulesError("cannot_fold", f"{name} knocked and cannot fold on their own knock.")
            raise RulesError("not_your_turn", f"{state.names[hand.answers_due[0]]} answers the knock first.")
        return hand
    _active(state, hand, seat)
    if not hand.knocks or (explicit or not hand.open_knock):
        raise RulesError("cannot_fold" if kind == "fold" else "wrong_phase", f"There is no knock for {name} to answer now.")
    if hand.last_knocker == seat:
        raise RulesError("cannot_fold", f"{name} knocked and cannot fold on their own knock.")
    return hand


def check_laundry(state: State, seat: int) -> Hand:
    """May ``seat`` exchange their hand now ("A hand" 2, "Laundry")? Returns the hand.

    Raises ``laundry_not_allowed`` after the first card, for a second laundry by the same
    player in the hand, or with fewer than 4 cards of stock (so never with 8 players);
    ``not_your_turn`` for a folded or eliminated player; the phase codes of :func:`check_play`.
    """
    hand = _current(state, "a laundry")
    _active(state, hand, seat)
    name = state.names[seat]
    if hand.started:
        raise RulesError("laundry_not_allowed", "Laundry is only allowed before the first card of the hand is played.")
    if any(entry.seat == seat for entry in hand.laundries):
        raise RulesError("laundry_not_allowed", f"{name} has already exchanged their hand once this hand.")
    if hand.stock < HAND_CARDS:
        raise RulesError("laundry_not_allowed", f"The stock holds {plural(hand.stock, 'card')}: laundry needs at least {HAND_CARDS}.")
    return hand


def check_challenge(state: State, seat: int, target: int) -> tuple[Hand, Laundry]:
    """May ``seat`` challenge ``target``'s laundry now ("Laundry")? Returns the hand and the laundry.

    Raises ``challenge_not_allowed`` for one's own laundry, after the first card, when
    ``target`` has not laundered this hand or the laundry was already challenged (one
    challenge per laundry); ``not_your_turn`` for a folded or eliminated challenger.
    """
    hand = _current(state, "a challenge")
    _active(state, hand, seat)
    name, other = state.names[seat], state.names[target]
    if seat == target:
        raise RulesError("challenge_not_allowed", f"{name} cannot challenge their own laundry.")
    if hand.started:
        raise RulesError("challenge_not_allowed", "A laundry can only be challenged before the first card is played.")
    entry = next((e for e in hand.laundries if e.seat == target), None)
    if entry is None:
        raise RulesError("challenge_not_allowed", f"{other} has not exchanged their hand this hand.")
    if entry.challenger is not None:
        raise RulesError("challenge_not_allowed", f"{other}'s laundry has already been challenged by {state.names[entry.challenger]}.")
    return hand, entry


# --------------------------------------------------------------------------- reducer


def apply(state: State, action: Action) -> State:
    """Return the state after ``action``; raise :class:`RulesError` if it is illegal now.

    ``action`` is ``{"type": ..., **fields}`` with canonical card codes and seat names;
    ``seq`` (the event number, used for audit) may be given. Types: ``deal``, ``laundry``,
    ``challenge``, ``knock``, ``stay``, ``fold``, ``play``, ``reveal``, ``adjust``
    (``rules/toepen.md``, "Actions"; ``recording.md``, "Bookkeeping actions"). Codes: those
    of "Refusal codes" (``not_your_turn``, ``must_follow_suit``, ``card_not_available``,
    ``knock_not_allowed``, ``cannot_fold``, ``laundry_not_allowed``, ``laundry_required``,
    ``challenge_not_allowed``, ``wrong_dealer``, ``wrong_phase``, ``hand_over``,
    ``game_over``) and ``wrong_card_count`` (a deal, laundry, challenge or reveal naming the
    wrong number of cards).
    """
    handler = HANDLERS.get(action["type"])
    if handler is None:
        raise RulesError("wrong_phase", f"'{action['type']}' is not an action of Toepen.")
    return handler(state, action, int(action.get("seq", 0)))


def _deal(state: State, action: Action, seq: int) -> State:
    """Start a hand ("A hand" 1): 4 cards to every player still in the game, 32 − 4n in the
    stock, the player left of the dealer to lead; ``wrong_dealer`` for anyone but the
    expected dealer ("End of the hand" says who that is)."""
    if state.finished:
        raise RulesError("game_over", "The game is over: no more hands are dealt.")
    if state.hand is not None:
        raise RulesError("wrong_phase", f"Hand {state.hand.number} is still being played.")
    expected = state.names[state.dealer]
    given = action.get("dealer")
    if given is not None and given != expected:
        raise RulesError("wrong_dealer", f"{expected} deals this hand, not {given}.")
    seats = tuple(s for s in range(len(state.names)) if not state.eliminated[s])
    hands: Mapping[str, list[str]] | None = action.get("hands")
    holdings = [Holding()] * len(state.names)
    seen: frozenset[str] = frozenset()
    if state.visibility == "open":
        if hands is None:
            raise RulesError("wrong_card_count", "An open game's deal must list every player's 4 cards.")
        unknown = sorted(n for n in hands if n not in state.names)
        if unknown:
            raise RulesError("wrong_card_count", f"{name_list(unknown)} {'is' if len(unknown) == 1 else 'are'} not at this table.")
        named = {state.names.index(n) for n in hands}
        if named != set(seats):
            missing = name_list([state.names[s] for s in seats if s not in named])
            extra = name_list([state.names[s] for s in named if s not in seats])
            raise RulesError("wrong_card_count", f"The deal must list exactly the players in the game (missing: {missing}; not playing: {extra}).")
        for name, cards in hands.items():
            _four_cards(cards, f"{name}'s dealt hand")
            clash = seen & set(cards)
            if clash:
                raise RulesError("card_not_available", f"{_cards(sorted(clash))} cannot be dealt twice.")
            seen |= set(cards)
            holdings[state.names.index(name)] = Holding(frozenset(cards), 0)
    else:
        for seat in seats:
            holdings[seat] = Holding(frozenset(), HAND_CARDS)
    count = len(state.names)
    in_hand = tuple(s in seats for s in range(count))
    first = seat_after(state.dealer, count, lambda s: in_hand[s])
    hand = Hand(
        number=len(state.history) + 1,
        dealer=state.dealer,
        deal_seq=seq,
        players=seats,
        holdings=tuple(holdings),
        in_hand=in_hand,
        stock=len(DECK) - HAND_CARDS * len(seats),
        lead_base=state.dealer if first is None else first,
        seen=seen,
        losses=(0,) * count,
    )
    return replace(state, hand=hand)


def _play(state: State, action: Action, seq: int) -> State:
    """A card to the current trick ("A hand" 3); it closes the implicit fold window
    ("Answering a knock") and may complete the trick or the hand."""
    seat = _seat(state, action["player"])
    card: str = action["card"]
    hand = check_play(state, seat)
    check_card(state, hand, seat, card)
    holding = hand.holdings[seat]
    if card in holding.known:
        holding = Holding(holding.known - {card}, holding.unknown)
    else:
        holding = Holding(holding.known, holding.unknown - 1)
    trick = hand.current_trick
    if trick is None:
        trick = Trick(len(hand.tricks) + 1, seat)
        tricks = hand.tricks
    else:
        tricks = hand.tricks[:-1]
    play = Play(seat, card, seq)
    lead = trick.lead_suit
    voids, revokes = hand.voids, hand.revokes
    revokes = revokes + _proven(hand, seat, (card,), seq, "played")
    if lead is not None and suit_of(card) != lead:
        voids = voids + (Void(seat, lead, seq, trick.number),)
    hand = replace(
        hand,
        holdings=_set(hand.holdings, seat, holding),
        tricks=tricks + (replace(trick, plays=trick.plays + (play,)),),
        seen=hand.seen | {card},
        open_knock=False,
        voids=voids,
        revokes=revokes,
    )
    return _settle(replace(state, hand=hand), seq)


def _proven(hand: Hand, seat: int, cards: Iterable[str], seq: int, how: str) -> tuple[Revoke, ...]:
    """Revokes that ``cards`` (now played or revealed by ``seat``) prove ("Knowledge", 2)."""
    if not hand.voids:  # nobody has shown out this hand
        return ()
    voids = [void for void in hand.voids if void.seat == seat]  # the suits ``seat`` showed out of
    if not voids:
        return ()
    found: list[Revoke] = []
    flagged = {(r.seq, r.seat) for r in hand.revokes}
    for card in cards:
        for void in voids:
            if void.seat == seat and void.suit == suit_of(card) and (void.seq, seat) not in flagged:
                found.append(Revoke(seat, void.suit, void.trick, void.seq, seq, card, how))
                flagged.add((void.seq, seat))
    return tuple(found)


def _knock(state: State, action: Action, seq: int) -> State:
    """Stake + 1 ("Knocking"); in ``explicit`` mode the players still in answer in seat order
    from the knocker's left ("Answering a knock")."""
    seat = _seat(state, action["player"])
    hand = check_knock(state, seat)
    stake = hand.stake + 1
    due: tuple[int, ...] = ()
    if state.options.knock_responses == "explicit":
        count = len(state.names)
        due = tuple(s for s in ((seat + i) % count for i in range(1, count)) if hand.in_hand[s])
    hand = replace(hand, stake=stake, knocks=hand.knocks + (Knock(seat, seq, stake),), open_knock=True, answers_due=due)
    return replace(state, hand=hand)


def _stay(state: State, action: Action, seq: int) -> State:
    """The answerer due stays in (``explicit`` mode only, "Answering a knock"); the last
    answer to a knock made after the fourth trick's last card scores the hand."""
    seat = _seat(state, action["player"])
    hand = check_answer(state, seat, "stay")
    state = replace(state, hand=replace(hand, answers_due=hand.answers_due[1:]))
    return state if state.hand is None or state.hand.answers_due else _settle(state, seq)


def _fold(state: State, action: Action, seq: int) -> State:
    """The player leaves the hand and loses the stake before the knock answered ("Answering
    a knock"); the last player in wins at once."""
    seat = _seat(state, action["player"])
    hand = check_answer(state, seat, "fold")
    # The stake as it was before the knock being answered ("Answering a knock"), capped at
    # the lives the folder has left ("End of the game"): the fold records what was lost.
    lost = min(hand.stake - 1, lives_left(state, seat))
    hand = replace(
        hand,
        in_hand=_set(hand.in_hand, seat, False),
        answers_due=tuple(s for s in hand.answers_due if s != seat),
        folds=hand.folds + (Fold(seat, seq, lost),),
    )
    state = _lose(replace(state, hand=hand), seat, lost, seq)
    if state.finished or state.hand is None or state.hand.result is not None:
        return state
    return _settle(state, seq)


def _laundry(state: State, action: Action, seq: int) -> State:
    """The hand goes face down and 4 cards come from the stock ("Laundry"); in ``open`` games
    the new cards may be named and must not be seen elsewhere."""
    seat = _seat(state, action["player"])
    hand = check_laundry(state, seat)
    old = hand.holdings[seat]
    new_cards: list[str] | None = action.get("cards")
    if new_cards is not None:
        _four_cards(new_cards, "A laundry's new hand")
        clash = sorted(set(new_cards) & hand.seen)
        if clash:
            raise RulesError("card_not_available", f"{_cards(clash)} cannot come from the stock: {_where(state, hand, clash[0])}.")
        holding = Holding(frozenset(new_cards), 0)
        seen = hand.seen | set(new_cards)
    else:
        holding = Holding(frozenset(), HAND_CARDS)
        seen = hand.seen
    entry = Laundry(seat, seq, old.known, old.unknown)
    hand = replace(
        hand,
        holdings=_set(hand.holdings, seat, holding),
        stock=hand.stock - HAND_CARDS,
        laundries=hand.laundries + (entry,),
        seen=seen,
    )
    return replace(state, hand=hand)


def _challenge(state: State, action: Action, seq: int) -> State:
    """The laid-down hand is turned up ("Laundry"): any T, 9, 8 or 7 and the target loses a
    life, genuine laundry and the challenger does."""
    seat = _seat(state, action["player"])
    target = _seat(state, action["target"])
    hand, entry = check_challenge(state, seat, target)
    given: list[str] | None = action.get("cards")
    if given is None:
        if entry.unknown:
            raise RulesError("wrong_card_count", f"Name the 4 cards {state.names[target]} laid down: they are not known.")
        shown = tuple(sorted(entry.known))
    else:
        shown = tuple(given)
        _four_cards(shown, f"{state.names[target]}'s laid-down hand")
        missing = sorted(entry.known - set(shown))
        if missing:
            raise RulesError("card_not_available", f"{state.names[target]} laid down {_cards(missing)}, which the challenge does not show.")
        for card in shown:
            if card not in entry.known and card in hand.seen:
                raise RulesError("card_not_available", f"{pretty(card)} cannot be in {state.names[target]}'s laundry: {_where(state, hand, card)}.")
    genuine = is_laundry(shown)
    done = replace(entry, challenger=seat, challenge_seq=seq, shown=shown, genuine=genuine)
    hand = replace(
        hand,
        laundries=tuple(done if e is entry else e for e in hand.laundries),
        seen=hand.seen | set(shown),
    )
    state = replace(state, hand=hand)
    return _lose(state, seat if genuine else target, 1, seq)


def _reveal(state: State, action: Action, seq: int) -> State:
    """Cards a player is seen to hold now ("Actions"; ``recording.md``, "Knowledge"): they
    become known, must be possible (conservation) and may prove an earlier revoke."""
    seat = _seat(state, action["player"])
    hand = _current(state, "a reveal")
    _active(state, hand, seat)
    cards: list[str] = action["cards"]
    holding = hand.holdings[seat]
    twice = next((card for index, card in enumerate(cards) if card in cards[:index]), None)
    if twice is not None:
        raise RulesError("card_not_available", f"The reveal lists {pretty(twice)} twice: the deck has one {pretty(twice)}.")
    if len(cards) > holding.size:
        raise RulesError("wrong_card_count", f"{state.names[seat]} holds only {plural(holding.size, 'card')}.")
    new = [card for card in cards if card not in holding.known]
    for card in new:
        if not _available(hand, seat, card):
            raise _not_available(state, hand, seat, card)
    if len(new) > holding.unknown:
        raise RulesError(
            "wrong_card_count",
            f"{state.names[seat]} holds {plural(holding.size, 'card')} and {_cards(sorted(holding.known))} among them: "
            f"a reveal cannot show {len(new)} others.",
        )
    holding = Holding(holding.known | set(new), holding.unknown - len(new))
    hand = replace(
        hand,
        holdings=_set(hand.holdings, seat, holding),
        seen=hand.seen | set(new),
        reveals=hand.reveals + (Reveal(seat, seq, tuple(cards)),),
        revokes=hand.revokes + _proven(hand, seat, cards, seq, "revealed"),
    )
    return replace(state, hand=hand)


def _adjust(state: State, action: Action, seq: int) -> State:
    """A ruling: ``amount`` lives added to the player's lives lost, kept within 0..limit."""
    if state.finished:
        raise RulesError("game_over", "The game is over: a ruling can no longer change it.")
    seat = _seat(state, action["player"])
    before = state.lives_lost[seat]
    after = max(0, min(state.options.limit, before + int(action["amount"])))
    number = state.hand.number if state.hand else len(state.history)
    entry = Adjustment(seat, seq, int(action["amount"]), after - before, str(action.get("reason", "")), number)
    state = replace(state, lives_lost=_set(state.lives_lost, seat, after), adjustments=state.adjustments.append(entry))
    return _check_limit(state, seq)


HANDLERS: dict[str, Callable[[State, Action, int], State]] = {
    "deal": _deal,
    "play": _play,
    "knock": _knock,
    "stay": _stay,
    "fold": _fold,
    "laundry": _laundry,
    "challenge": _challenge,
    "reveal": _reveal,
    "adjust": _adjust,
}


# --------------------------------------------------------------------------- what may be recorded


def legal_actions(state: State, full: bool) -> list[dict[str, Any]]:
    """What can be recorded next: ``[{"type", "player", "cards"}]`` (api.md, ``actions``).

    Built on the same checks as :func:`apply`. ``cards`` lists the exact legal cards when
    the player's hand is known to the viewer (``full``: the scorekeeper, or a table game
    whose hand has been revealed in full), else ``None``.
    """
    if state.finished:
        return []
    hand = state.hand
    if hand is None:
        return [{"type": "deal", "player": state.names[state.dealer], "cards": None}]
    out: list[dict[str, Any]] = []
    names = state.names
    for seat in to_act(state):
        if hand.answers_due:
            if _can(check_answer, state, seat, "stay"):
                out.append({"type": "stay", "player": names[seat], "cards": None})
            continue
        if _can(check_play, state, seat):
            holding = hand.holdings[seat]
            visible = full or state.visibility == "table"
            legal: list[str] | None = None
            if visible and holding.unknown == 0:
                legal = [c for c in sorted(holding.known) if _can(check_card, state, hand, seat, c)]
            out.append({"type": "play", "player": names[seat], "cards": legal})
    for seat in hand.players:
        if _can(check_knock, state, seat):
            out.append({"type": "knock", "player": names[seat], "cards": None})
        if _can(check_answer, state, seat, "fold"):
            out.append({"type": "fold", "player": names[seat], "cards": None})
        if _can(check_laundry, state, seat):
            out.append({"type": "laundry", "player": names[seat], "cards": None})
        for entry in hand.laundries:
            if _can(check_challenge, state, seat, entry.seat):
                out.append({"type": "challenge", "player": names[seat], "target": names[entry.seat], "cards": None})
        if hand.in_hand[seat] and hand.holdings[seat].unknown > 0:
            out.append({"type": "reveal", "player": names[seat], "cards": None})
    return out



def public_state(state: State) -> State:
    """The state as a reader without the token knows it (api.md, "Views and secrets"): in an
    ``open`` game the hand in play with every unplayed card unknown (the counts kept, nothing
    "seen" but the cards played), so that nothing computed from it (``actions``, ``to_act``,
    ``can_fold``, a mandatory laundry) depends on cards still hidden; a ``table`` game's
    state (public knowledge already) or a state with no hand in play unchanged."""
    hand = state.hand
    if state.visibility != "open" or hand is None:
        return state
    played = frozenset(play.card for trick in hand.tricks for play in trick.plays)
    holdings = tuple(Holding(unknown=h.size) for h in hand.holdings)
    return replace(state, hand=replace(hand, holdings=holdings, seen=played))


def possible(state: State, player: str) -> list[str] | None:
    """The cards ``player`` could still hold as far as the table knows, in deck order, or
    None in an ``open`` game or when no hand is in play (api.md, ``actions``: ``possible``).

    Conservation only (recording.md, "Knowledge" 1: not played, not known to be
    elsewhere); ``GET …/actions`` gives it to every play and reveal whose ``cards`` is
    null. Raises ``ValueError`` for a name not at the table.
    """
    hand = state.hand
    if state.visibility != "table" or hand is None:
        return None
    seat = state.names.index(player)
    return [card for card in DECK if _available(hand, seat, card)]


# --------------------------------------------------------------------------- views


#: ``finished`` once the game is over, else ``in_progress`` (engine.core.finished_status).
status = finished_status


def hand_number(state: State) -> int:
    """The number of the hand in play, or of the last one dealt (0 before the first deal)."""
    return state.hand.number if state.hand else len(state.history)


def hand_over(state: State, number: int) -> bool:
    """True when hand ``number`` is over (its cards may then be shown to everyone)."""
    return state.finished or number <= len(state.history)


#: Fields that carry cards hidden from the public: an open deal's hands, a laundry's new cards.
HIDDEN = {"deal": ("hands",), "laundry": ("cards",)}


def redact(action: Mapping[str, Any]) -> dict[str, Any]:
    """The public copy of a stored action: dealt hands and laundry cards are left out."""
    return redact_fields(action, HIDDEN)


def public_action(state: State, number: int, action: Mapping[str, Any]) -> dict[str, Any]:
    """The copy of a stored action of hand ``number`` that a reader without the token may
    see now: :func:`redact`'s copy while that hand is in play; once it is over, everything
    but the folders' cards. A folder's unplayed cards are dead and never revealed
    ("Answering a knock"), so their dealt hand and their laundry's new cards stay out."""
    if not hand_over(state, number):
        return redact(action)
    out = dict(action)
    hand = _hand(state, number)
    if hand is None or not hand.folds:
        return out
    dead = {state.names[fold.seat].casefold() for fold in hand.folds}
    if out.get("type") == "deal" and isinstance(out.get("hands"), Mapping):
        out["hands"] = {name: cards for name, cards in out["hands"].items() if str(name).casefold() not in dead}
    elif out.get("type") == "laundry" and str(out.get("player", "")).casefold() in dead:
        out.pop("cards", None)
    return out


# --------------------------------------------------------------------------- versions, results, score sheet

#: Rules versions whose logs this module rebuilds; older ones are read through :func:`upcast`.
SUPPORTED_VERSIONS: frozenset[int] = frozenset({RULES_VERSION})


#: Version 1 is the only one so far: events are read as recorded (see engine.core.no_upcast).
upcast = no_upcast

#: A card as the short phrases of ``engine.stream.summary`` write it: ``"TH"`` → ``"10♥"``.
card_text = pretty


def _all_hands(state: State) -> tuple[Hand, ...]:
    return (*state.history, *((state.hand,) if state.hand is not None else ()))


def results(state: State) -> dict[str, dict[str, Any]]:
    """Each player's result and stats for match histories (same keys in every game).

    ``result`` is ``won``/``lost`` once the game is over (else ``in_progress``); ``score``
    is in ``unit`` (lives lost); ``hands`` dealt in, ``tricks_won``, ``knocks``; the
    counters another game has (``fools``, ``stops``) are None.
    """
    winners, _losers = winners_losers(state)
    hands = _all_hands(state)
    out: dict[str, dict[str, Any]] = {}
    for seat, name in enumerate(state.names):
        out[name] = player_result(
            seat,
            name in winners if state.finished else None,
            state.lives_lost[seat],
            "lives_lost",
            sum(1 for h in hands if seat in h.players),
            tricks_won=sum(1 for h in hands for t in h.tricks if t.complete and t.winner == seat),
            knocks=sum(1 for h in hands for k in h.knocks if k.seat == seat),
        )
    return out


def score_sheet(state: State) -> list[dict[str, Any]]:
    """One row per hand dealt: ``hand``, ``dealer``, then each player's lives lost in the
    hand (``"<name> lives lost this hand"``, rulings included) and running total
    (``"<name> lives lost in all"``) (:data:`SHEET`)."""
    names = state.names
    totals = [0] * len(names)
    rows: list[dict[str, Any]] = []
    hands = _all_hands(state)
    for hand in hands:
        row: dict[str, Any] = {"hand": hand.number, "dealer": names[hand.dealer]}
        for seat, name in enumerate(names):
            lost = hand.losses[seat] if hand.losses else 0
            lost += sum(a.applied for a in state.adjustments
                        if a.seat == seat and (a.hand == hand.number or (a.hand == 0 and hand.number == 1)))
            totals[seat] += lost
            change, total = SHEET.of(name)
            row[change] = lost
            row[total] = totals[seat]
        rows.append(row)
    return rows


def _hand(state: State, number: int) -> Hand | None:
    if 1 <= number <= len(state.history):
        return state.history[number - 1]
    if state.hand is not None and state.hand.number == number:
        return state.hand
    return None


def _trick_json(state: State, hand: Hand, trick: Trick) -> dict[str, Any]:
    names = state.names
    return {
        "number": trick.number,
        "leader": names[trick.leader],
        "plays": [{"player": names[p.seat], "card": p.card, "seq": p.seq} for p in trick.plays],
        "lead_suit": trick.lead_suit,
        "winner": names[trick.winner] if trick.winner is not None else None,
        "complete": trick.complete,
    }


def winner_reason(state: State, hand: Hand, trick: Trick) -> str | None:
    """Why the trick's winner won, in words, with the rule's source."""
    if trick.winner is None or trick.lead_suit is None:
        return None
    top = trick.best()
    assert top is not None
    suit = SUIT_SINGULAR[trick.lead_suit]
    others = [p for p in trick.plays if suit_of(p.card) != trick.lead_suit]
    text = f"{pretty(top.card)} is the highest {suit}, the suit led"
    beaten = [pretty(p.card) for p in trick.plays if p is not top and suit_of(p.card) == trick.lead_suit]
    if beaten:
        text += f" (above {', '.join(beaten)}; order 10 9 8 7 A K Q J)"
    if others:
        text += f"; {', '.join(pretty(p.card) for p in others)} did not follow suit and cannot win"
    folded = {f.seat for f in hand.folds}
    if top.seat in folded:
        text += f"; {names_of(state, [top.seat])} folded but still wins the trick itself"
    return text + "."


def names_of(state: State, seats: Iterable[int]) -> str:
    """The players at ``seats`` as an English list ("Ann, Bob and Cas")."""
    return name_list([state.names[s] for s in seats])


def _hand_json(state: State, hand: Hand, full: bool) -> dict[str, Any]:
    names = state.names
    show = full or state.visibility == "table" or hand.result is not None or state.finished
    out: dict[str, Any] = {
        "hand_number": hand.number,
        "dealer": names[hand.dealer],
        "deal_seq": hand.deal_seq,
        "players": [names[s] for s in hand.players],
        "stake": hand.stake,
        "last_knocker": names[hand.last_knocker] if hand.last_knocker is not None else None,
        "knocks": [{"player": names[k.seat], "seq": k.seq, "stake": k.stake} for k in hand.knocks],
        "folds": [{"player": names[f.seat], "seq": f.seq, "lost": f.lost} for f in hand.folds],
        "stock_size": hand.stock,
        "laundries": [
            {
                "player": names[e.seat],
                "seq": e.seq,
                "challenger": names[e.challenger] if e.challenger is not None else None,
                "challenge_seq": e.challenge_seq,
                "shown": list(e.shown),
                "genuine": e.genuine,
            }
            for e in hand.laundries
        ],
        "reveals": [{"player": names[r.seat], "seq": r.seq, "cards": list(r.cards)} for r in hand.reveals],
        "tricks": [_trick_json(state, hand, t) for t in hand.tricks],
        "irregularities": _irregularities(state, hand),
        "losses": {names[s]: hand.losses[s] for s in hand.players},
        "adjustments": [
            {"player": names[a.seat], "seq": a.seq, "amount": a.amount, "applied": a.applied, "reason": a.reason}
            for a in state.adjustments
            if a.hand == hand.number
        ],
        "result": None,
    }
    if show:
        # A folder's unplayed cards are dead and never revealed ("Answering a knock"): only
        # the scorekeeper sees them.
        folded = {f.seat for f in hand.folds}
        out["hands"] = {
            names[s]: {"known": sorted(hand.holdings[s].known), "unknown": hand.holdings[s].unknown}
            for s in hand.players
            if full or s not in folded
        }
    if hand.result is not None:
        winner = hand.result.winner
        out["result"] = {
            "winner": names[winner] if winner is not None else None,
            "reason": hand.result.reason,
            "abandoned": hand.result.abandoned,
            "losses": {names[s]: hand.losses[s] for s in hand.players},
        }
    return out


def _proof_trick(hand: Hand, revoke: Revoke) -> str:
    """`` in trick t`` where the card that proved ``revoke`` was played in ``hand``, else "" (a reveal)."""
    for trick in hand.tricks:
        if any(play.seq == revoke.proof_seq for play in trick.plays):
            return f" in trick {trick.number}"
    return ""


def _revoke_json(state: State, revoke: Revoke, hand: Hand) -> dict[str, Any]:
    name = state.names[revoke.seat]
    return {
        "kind": "revoke",
        "player": name,
        "trick": revoke.trick,
        "seq": revoke.seq,
        "proof_seq": revoke.proof_seq,
        "card": revoke.proof_card,
        "detail": (
            f"{name} did not follow {SUIT_NAMES[revoke.suit]} in trick {revoke.trick} "
            f"but later {revoke.proof} {pretty(revoke.proof_card)}{_proof_trick(hand, revoke)}: a revoke."
        ),
    }


def view(state: State, full: bool) -> dict[str, Any]:
    """The API's ``state`` object (api.md "State"; ``rules/toepen.md`` "State the API must expose").

    ``full`` is True for the scorekeeper (the game's token): in ``open`` games the cards in
    players' hands are shown only then, or once the hand is over.

    The fields "for the current hand" (``hand_number``, ``dealer``, ``stake``,
    ``last_knocker``, ``stock_size``, ``tricks``; each player's ``in_hand``, ``hand_size``,
    ``cards_known``) follow api.md, "Which hand is current": while a hand is in play they
    describe it; between hands and once the game is over they keep the values of the hand
    that has just ended (``phase`` ``deal`` and ``next_dealer`` say who deals next);
    before the first deal ``hand_number`` is 0, ``dealer`` the first dealer, lists are
    ``[]``, counts 0 and every other such field null. ``answers_due`` and ``can_fold``
    (who may answer now) are ``[]`` whenever no hand is in play.
    """
    hand = state.hand
    shown = current_hand(state)
    names = state.names
    winners, losers = winners_losers(state)
    show_cards = full or state.visibility == "table"
    players = []
    for seat, name in enumerate(names):
        holding = shown.holdings[seat] if shown is not None else Holding()
        entry: dict[str, Any] = {
            "name": name,
            "seat": seat + 1,
            "lives_lost": state.lives_lost[seat],
            "lives_left": lives_left(state, seat),
            "in_hand": shown.in_hand[seat] if shown is not None else None,
            "hand_size": holding.size,
            "eliminated": state.eliminated[seat],
        }
        if show_cards:
            entry["cards_known"] = sorted(holding.known)
        players.append(entry)
    out: dict[str, Any] = {
        "status": status(state),
        "phase": phase(state),
        "to_act": [names[s] for s in to_act(state)],
        "players": players,
        "hand_number": hand_number(state),
        "dealer": names[shown.dealer] if shown is not None else names[state.dealer],
        "next_dealer": names[state.dealer] if hand is None and not state.finished else None,
        "stake": shown.stake if shown is not None else None,
        "last_knocker": names[shown.last_knocker] if shown is not None and shown.last_knocker is not None else None,
        "stock_size": shown.stock if shown is not None else None,
        "tricks": [_trick_json(state, shown, t) for t in shown.tricks] if shown is not None else [],
        "answers_due": [names[s] for s in hand.answers_due] if hand is not None else [],
        "can_fold": (
            [names[s] for s in hand.players if _can(check_answer, state, s, "fold")]
            if hand is not None and state.options.knock_responses == "implicit"
            else []
        ),
    }
    if state.finished:
        out["winners"] = winners
        out["losers"] = losers
    return out


def current_hand(state: State) -> Hand | None:
    """The hand the state's "current hand" fields describe (api.md, "Which hand is
    current"): the hand in play, else the one that has just ended (between hands and at
    game over), else None (before the first deal)."""
    if state.hand is not None:
        return state.hand
    return state.history[-1] if state.history else None


def _can(check: Callable[..., object], *args: Any) -> bool:
    """True when ``check(*args)`` raises no :class:`RulesError` (the "can I?" query)."""
    try:
        check(*args)
    except RulesError:
        return False
    return True


def _irregularities(state: State, hand: Hand) -> list[dict[str, Any]]:
    """The revokes proven in ``hand`` ("Knowledge", 2), as the hand view lists them."""
    return [_revoke_json(state, r, hand) for r in hand.revokes]


def irregularities(state: State, number: int, full: bool) -> list[dict[str, Any]]:
    """Hand ``number``'s ``irregularities`` (the revokes proven in it) as :func:`hand_view`
    lists them, without the rest of the view; ``[]`` when there is no such hand."""
    hand = _hand(state, number)
    return [] if hand is None else _irregularities(state, hand)


def hand_view(state: State, number: int, full: bool) -> dict[str, Any] | None:
    """``GET hands/<n>``: the deal, tricks, knocks, folds, laundries, reveals and result."""
    hand = _hand(state, number)
    return None if hand is None else _hand_json(state, hand, full)


def folds_during(hand: Hand, trick: Trick) -> list[Fold]:
    """Folds recorded while ``trick`` was being played (or before its lead, after the last trick)."""
    index = trick.number - 1
    start = _closed_at(hand.tricks[index - 1]) if index > 0 else hand.deal_seq
    end = _closed_at(trick) if trick.complete and trick.number < TRICKS else None
    return [f for f in hand.folds if f.seq > start and (end is None or f.seq <= end)]


def _closed_at(trick: Trick) -> int:
    """The event that completed ``trick``: its last card, or the fold or elimination after it."""
    return trick.closed_seq if trick.closed_seq is not None else trick.plays[-1].seq


def trick_view(state: State, number: int, trick_number: int, full: bool) -> dict[str, Any] | None:
    """``GET hands/<n>/tricks/<t>``: plays with seq, lead suit, winner and the reason."""
    hand = _hand(state, number)
    if hand is None or not 1 <= trick_number <= len(hand.tricks):
        return None
    trick = hand.tricks[trick_number - 1]
    out = _trick_json(state, hand, trick)
    out["hand_number"] = hand.number
    out["winner_reason"] = winner_reason(state, hand, trick)
    out["leader_reason"] = leader_reason(state, hand, trick)
    out["folded"] = [{"player": state.names[f.seat], "seq": f.seq} for f in folds_during(hand, trick)]
    out["irregularities"] = [_revoke_json(state, r, hand) for r in hand.revokes if r.trick == trick.number]
    out["source"] = SPEC
    return out


# --------------------------------------------------------------------------- timeline


def describe(before: State, action: Action, after: State, full: bool) -> str:
    """One recorded action in plain words, with what the rules derived from it.

    ``before`` and ``after`` are the states around ``action`` (both the initial state for
    ``game_created``); ``full`` is False for a reader who may not see hidden cards (a
    laundry's new cards are then left out). For example ``"Cas played 7♣ and won trick 2:
    the highest club"``.
    """
    kind = action["type"]
    names = before.names
    who = str(action.get("player", ""))
    if kind == "game_created":
        return (
            f"Toepen for {name_list(list(names))} ({visibility_words(before.visibility)}, {plural(before.options.limit, 'life')}): "
            f"{names[before.dealer]} deals first."
        )
    if kind == "deal":
        hand = after.hand
        assert hand is not None
        leads = leader(hand)
        text = f"{names[hand.dealer]} dealt hand {hand.number}: {HAND_CARDS} cards each"
        text += f", {names[leads]} leads" if leads is not None else ""
    elif kind == "play":
        text = _describe_play(before, action, after)
    elif kind == "knock":
        text = f"{who} {PAST_TENSE['knock']}: the stake is now {after.hand.stake if after.hand else '?'}"
    elif kind == "stay":
        text = f"{who} {PAST_TENSE['stay']}"
    elif kind == "fold":
        hand = after.hand or after.history[-1]
        lost = next((f.lost for f in hand.folds if f.seq == action.get("seq")), 0)
        text = f"{who} {PAST_TENSE['fold']} and loses {plural(lost, 'life')}"
    elif kind == "laundry":
        text = f"{who} {PAST_TENSE['laundry']}"
        if full and action.get("cards"):
            text += f": new cards {_cards(action['cards'])}"
    elif kind == "challenge":
        text = _describe_challenge(action, after)
    elif kind == "reveal":
        text = f"{who} revealed {_cards(action.get('cards', []))}"
    elif kind == "adjust":
        seat = names.index(who)
        amount = int(action["amount"])
        text = (
            f"Ruling: {who} {plural(amount, 'life', signed=True)} lost "
            f"({action.get('reason', '')}); {who} has now lost {after.lives_lost[seat]}"
        )
    else:
        text = f"{who} {kind}".strip()
    return text + _consequences(before, action, after) + "."


def _describe_play(before: State, action: Action, after: State) -> str:
    names = before.names
    who, card, seq = str(action["player"]), str(action["card"]), action.get("seq")
    hand = _hand(after, hand_number(after))
    trick = next((t for t in hand.tricks for p in t.plays if p.seq == seq), None) if hand else None
    if trick is None:
        return f"{who} played {pretty(card)}"
    lead = trick.lead_suit or suit_of(card)
    if trick.plays[0].seq == seq:
        text = f"{who} led {pretty(card)} to trick {trick.number}"
    elif suit_of(card) != lead:
        text = f"{who} played {pretty(card)}, not following {SUIT_NAMES[lead]}"
    else:
        text = f"{who} played {pretty(card)}"
    if trick.complete and trick.plays[-1].seq == seq and trick.winner is not None:
        top = trick.best()
        high = f"the highest {SUIT_SINGULAR[lead]}"
        if trick.winner == names.index(who):
            text += f" and won trick {trick.number}: {high}"
        else:
            text += f": {names[trick.winner]} wins trick {trick.number} with {pretty(top.card) if top else '?'}, {high}"
    return text


def _describe_challenge(action: Action, after: State) -> str:
    who, target = str(action["player"]), str(action["target"])
    hand = _hand(after, hand_number(after))
    entry = next((e for e in hand.laundries if e.challenge_seq == action.get("seq")), None) if hand else None
    if entry is None:
        return f"{who} challenged {target}'s laundry"
    if entry.genuine:
        return f"{who} challenged {target}'s laundry: {_cards(entry.shown)} was genuine, so {who} loses a life"
    return f"{who} challenged {target}'s laundry: {_cards(entry.shown)} was a bluff, so {target} loses a life"


def _consequences(before: State, action: Action, after: State) -> str:
    """What else ``action`` set off: proven revokes, the end of the hand, eliminations, the end of the game."""
    names = before.names
    parts: list[str] = []
    seq = action.get("seq")
    hand = _hand(after, hand_number(after)) if action["type"] != "game_created" else None
    if hand is not None:
        for revoke in hand.revokes:
            if revoke.proof_seq == seq:
                parts.append(
                    f"this proves a revoke: {names[revoke.seat]} did not follow {SUIT_NAMES[revoke.suit]} "
                    f"in trick {revoke.trick}"
                )
    ended = after.history[-1] if len(after.history) > len(before.history) else None
    if ended is not None and ended.result is not None and not ended.result.abandoned:
        losses = ", ".join(f"{names[s]} {ended.losses[s]}" for s in ended.players if ended.losses[s])
        parts.append(f"hand {ended.number} is over: {ended.result.reason}" + (f" (lives lost: {losses})" if losses else ""))
    out = [names[s] for s in range(len(names)) if after.eliminated[s] and not before.eliminated[s]]
    if out:
        parts.append(f"{name_list(out)} {'is' if len(out) == 1 else 'are'} out of the game")
    if after.finished and not before.finished:
        winners, losers = winners_losers(after)
        parts.append(f"the game is over: {name_list(losers)} lost, {name_list(winners)} {'wins' if len(winners) == 1 else 'win'}")
    return "; " + "; ".join(parts) if parts else ""


def position(state: State) -> int:
    """The trick in progress in the current hand: the number of the trick the next card
    played joins (1 before the first card), 0 between hands; the fourth trick while answers
    to a knock made after its last card are still due. The audit places corrections and
    notes in tricks by it."""
    hand = state.hand
    if hand is None:
        return 0
    current = hand.current_trick
    return current.number if current is not None else min(len(hand.tricks) + 1, TRICKS)


def leader_reason(state: State, hand: Hand, trick: Trick) -> str:
    """Why ``trick``'s leader led it, in words, with the rule's source ("A hand" 3)."""
    names = state.names
    who = names[trick.leader]
    if trick.number == 1:
        text = f"{who} led trick 1: the player left of the dealer ({names[hand.dealer]}) leads the first trick"
        first = seat_after(hand.dealer, len(names), lambda s: s in hand.players)
        if first is not None and first != trick.leader:
            text += f", and {names[first]} was no longer in the hand, so the next player on the left still in"
    else:
        previous = hand.tricks[trick.number - 2]
        won = names[previous.winner] if previous.winner is not None else "nobody"
        if previous.winner == trick.leader:
            text = f"{who} won trick {previous.number} and so led trick {trick.number}"
        else:
            text = f"{won} won trick {previous.number} but had left the hand, so the next player on the left still in ({who}) led"
    return text + "."
