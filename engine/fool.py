"""Fool! (Foppen): the shedding trick game where the worst card of a trick makes the Fool.

Rules from ``../shared/spec/rules/fool.md`` (section names below in quotes), with the
knowledge model and undo of ``../shared/spec/recording.md``:

- 88 cards: green 2–27, red 2–23, yellow 2–21, blue 2–15 and six wild ``1`` s ("Cards").
  4–8 players; ``hand_size`` cards each (12, or 11 with 8 players) and ``fools_per_trick``
  Fools (1, or 2 with 7–8 players), leaving more players than twice the Fools ("Setup").
- The first coloured card of a trick sets the lead colour; a player holding it must play
  it or a ``1``. The highest card of the lead colour wins and leads next (all ``1`` s: the
  first ``1``). The worst card (any off-colour card is worse than any following card, the
  lowest first, the later of equal cards) makes the Fool, who sits out the next trick; with
  two Fools the second worst card too ("A trick").
- The round ends after the trick that empties a hand. Empty hand: +10 (0 for a Fool of that
  trick); everyone else loses the face value of the cards left, a ``1`` counting 5. In
  ``table`` games the remaining hands are recorded with ``reveal`` first ("End of a round").
- The game ends when a total reaches −80 or a player has scored +10 six times; the highest
  total wins, ties share the win ("End of the game").

In ``table`` visibility a hand is *known cards + a count of unknown cards*: following is
enforced when the lead colour is known to be held, and a shed colour that later knowledge
shows was held is flagged as a revoke with the proving event, never rewritten.

The state is immutable: finished rounds (and rulings) are a persistent vector
(``pyrsistent.PVector``) shared from one state to the next, a finished round appended without
copying the others, so ``apply`` only rebuilds the current round and its cost does not grow
with the game.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pyrsistent import PVector, pvector

from engine.core import (
    Action,
    OptionError,
    RulesError,
    SheetColumns,
    check_seats,
    fast_init,
    finished_status,
    name_list,
    no_upcast,
    options_with_defaults,
    player_result,
    plural,
    public_once_over,
    redact_fields,
    visibility_words,
)
from engine.core import evolve as replace
from engine.interface import PlayUnit, Starter

GAME = "fool"
#: What the texts call one deal and its play (rules/fool.md: "round").
HAND_WORD = "round"
#: The score sheet's columns per player (docs/export.md).
SHEET = SheetColumns(("round", "dealer"), "points", "points this round", "points in all")
RULES_VERSION = 1
SPEC = "rules/fool.md"
#: The ``game_created`` field naming who starts (who deals the first round).
STARTER: Starter = "dealer"
#: What a hand is played in (tricks, each with its Fools): its hand view lists them, ``position`` counts them.
PLAY_UNIT: PlayUnit = "trick"
#: The counters of :func:`results` this game has (tricks won and times the Fool).
COUNTERS: tuple[str, ...] = ("tricks_won", "fools")

WILD = "1"
WILD_COPIES = 6
#: Highest number of each colour ("Cards"): green 2–27, red 2–23, yellow 2–21, blue 2–15.
COLOURS = {"G": 27, "R": 23, "Y": 21, "B": 15}
COLOUR_NAMES = {"G": "green", "R": "red", "Y": "yellow", "B": "blue"}
DECK = (WILD,) * WILD_COPIES + tuple(f"{c}{n}" for c, top in COLOURS.items() for n in range(2, top + 1))
DECK_SIZE = len(DECK)  # 88
#: The number on each card of the deck ("Cards"; a ``1`` is worth 1 in a trick).
VALUES = {card: 1 if card == WILD else int(card[1:]) for card in DECK}
MIN_PLAYERS, MAX_PLAYERS = 4, 8
MAX_HAND = DECK_SIZE // MIN_PLAYERS  # 22: the longest hand any table can be dealt
WILD_PENALTY = 5  # a 1 left in hand counts -5 ("End of a round and scoring")
OUT_BONUS = 10
LOSING_TOTAL = -80  # "End of the game"
TENS_TO_WIN = 6


# --------------------------------------------------------------------------- cards


def parse_card(value: object) -> str:
    """Canonical Fool! card code for ``value``: ``" g7 "`` → ``"G7"``, ``"W1"`` → ``"1"``.

    Input is a string, case-insensitive, surrounding spaces ignored (cards.md). Raises
    ``ValueError`` with a readable message for anything that is not one of the 88 cards.
    """
    if not isinstance(value, str):
        raise ValueError(f"{value!r} is not a card code: give a string such as 'G7' or '1'.")
    text = value.strip().upper()
    if text in (WILD, "W1"):
        return WILD
    colour, number = text[:1], text[1:]
    if colour in COLOURS and value.strip().isascii() and number.isdigit() and not number.startswith("0") and 2 <= int(number) <= COLOURS[colour]:
        return colour + number
    raise ValueError(
        f"{value!r} is not a Fool! card (G2–G27, R2–R23, Y2–Y21, B2–B15, or 1 for a wild one)."
    )


def colour_of(card: str) -> str | None:
    """The colour letter of a card (``"G7"`` → ``"G"``), None for a wild ``1``."""
    return None if card == WILD else card[0]


def value_of(card: str) -> int:
    """The number on a card; a ``1`` is worth 1 in a trick ("A trick"). Read from :data:`VALUES`
    for the deck's cards (a rebuild asks for thousands), parsed for any other code."""
    value = VALUES.get(card)
    if value is None:
        return 1 if card == WILD else int(card[1:])
    return value


def penalty(card: str) -> int:
    """Points a card left in hand costs: its face value, a ``1`` 5 ("End of a round and scoring")."""
    return WILD_PENALTY if card == WILD else value_of(card)


def sort_key(card: str) -> tuple[int, int]:
    """Display order: the ``1`` s first, then green, red, yellow, blue, each by number."""
    colour = colour_of(card)
    return (0 if colour is None else 1 + "GRYB".index(colour), value_of(card))


def sorted_cards(cards: Iterable[str]) -> tuple[str, ...]:
    """``cards`` in display order (:func:`sort_key`), as a tuple; a ``1`` may repeat."""
    return tuple(sorted(cards, key=sort_key))


def _cards(cards: Iterable[str]) -> str:
    """Cards as their buttons name them, separated by commas (``"Green 6, Wild 1"``)."""
    return ", ".join(card_text(card) for card in cards)


# --------------------------------------------------------------------------- options


@fast_init
@dataclass(frozen=True, slots=True)
class Options:
    """Every option of ``rules/fool.md`` ("Setup"); the defaults depend on the seat count."""

    hand_size: int
    fools_per_trick: int


def default_options(players: int) -> Options:
    """12 cards with 4–7 players, 11 with 8; 1 Fool with 4–6 players, 2 with 7–8 ("Setup")."""
    return Options(hand_size=11 if players >= 8 else 12, fools_per_trick=2 if players >= 7 else 1)


def resolve_options(raw: Mapping[str, Any], players: list[str]) -> dict[str, Any]:
    """Return every option with defaults filled in, as a JSON object.

    ``raw`` holds the options given at creation (already type-checked by the schema).
    Raises :class:`OptionError` for a seat count outside 4–8, an unknown option, a
    ``hand_size`` that the 88 cards cannot deal, or a ``fools_per_trick`` other than 1 or 2
    or that does not leave more players than twice the Fools ("Setup").
    """
    count = len(players)
    check_seats("Fool!", players, MIN_PLAYERS, MAX_PLAYERS)
    out = options_with_defaults("Fool!", default_options(count), raw, none_is_default=True)
    most = DECK_SIZE // count
    size = out["hand_size"]
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= most:
        raise OptionError("hand_size", f"With {count} players a hand has 1 to {most} cards (88 cards in all).")
    fools = out["fools_per_trick"]
    if isinstance(fools, bool) or fools not in (1, 2):
        raise OptionError("fools_per_trick", "There are 1 or 2 Fools per trick.")
    if count <= 2 * fools:
        raise OptionError(
            "fools_per_trick",
            f"{fools} Fools per trick need more than {2 * fools} players (this game has {count}).",
        )
    return out


# --------------------------------------------------------------------------- state


@fast_init
@dataclass(frozen=True, slots=True)
class Holding:
    """What is known of one player's hand: ``known`` cards (sorted, a ``1`` may repeat) plus
    ``unknown`` unseen ones (recording.md, "Knowledge")."""

    known: tuple[str, ...] = ()
    unknown: int = 0

    @property
    def size(self) -> int:
        return len(self.known) + self.unknown

    @property
    def fully_known(self) -> bool:
        return self.unknown == 0


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
    """One trick: leader, who sits out, the plays, and (once complete) winner and Fools.

    ``fools`` are listed worst card first.
    """

    number: int
    leader: int
    sitting_out: tuple[int, ...]
    plays: tuple[Play, ...] = ()
    lead_colour: str | None = None
    winner: int | None = None
    fools: tuple[int, ...] = ()
    complete: bool = False


@fast_init
@dataclass(frozen=True, slots=True)
class Void:
    """A play that did not follow the lead colour: the player showed out of ``colour``."""

    seat: int
    colour: str
    seq: int
    trick: int


@fast_init
@dataclass(frozen=True, slots=True)
class Revoke:
    """A revoke proven by later knowledge (recording.md, "Knowledge" 2)."""

    seat: int
    colour: str
    trick: int
    seq: int
    proof_seq: int
    proof_card: str
    proof: str  # "played" or "revealed"


@fast_init
@dataclass(frozen=True, slots=True)
class Reveal:
    """A ``reveal``: the cards named, and whether it came after the round's last trick."""

    seat: int
    seq: int
    cards: tuple[str, ...]
    final: bool


@dataclass(frozen=True)  # no slots: evolve copies a __dict__ as one new dictionary
class Round:
    """One round of Fool!, from its deal to its score (or its abandonment)."""

    number: int
    dealer: int
    deal_seq: int
    holdings: tuple[Holding, ...]  # by seat
    lead: int  # who leads the next trick
    sitting_out: tuple[int, ...] = ()  # the Fools of the last trick: they sit out the next one
    seen: frozenset[str] = frozenset()  # coloured cards whose place is known (played or in a known hand)
    wilds_seen: int = 0  # 1s whose place is known
    tricks: tuple[Trick, ...] = ()
    voids: tuple[Void, ...] = ()
    revokes: tuple[Revoke, ...] = ()
    reveals: tuple[Reveal, ...] = ()
    over: bool = False  # the trick that emptied a hand is complete: no more plays
    result: tuple[int, ...] | None = None  # points by seat, once scored
    scored_seq: int | None = None
    abandoned: bool = False

    @property
    def current_trick(self) -> Trick | None:
        if self.tricks and not self.tricks[-1].complete:
            return self.tricks[-1]
        return None

    @property
    def last_fools(self) -> tuple[int, ...]:
        """The Fools of the last completed trick."""
        for trick in reversed(self.tricks):
            if trick.complete:
                return trick.fools
        return ()


@fast_init
@dataclass(frozen=True, slots=True)
class Adjustment:
    """An ``adjust`` ruling (recording.md, "Bookkeeping actions"): ``amount`` points (positive
    is better) added to the total, recorded during round ``round`` (0 before the first deal)."""

    seat: int
    seq: int
    amount: int
    reason: str
    round: int


@dataclass(frozen=True)  # no slots: evolve copies a __dict__ as one new dictionary
class State:
    """A whole game of Fool!. ``history`` holds finished rounds; ``round`` the one in play.

    ``scores`` are totals (round scores plus adjustments), ``tens`` the rounds scored +10,
    ``dealer`` who deals the next round (or dealt the current one).
    """

    options: Options
    visibility: str
    names: tuple[str, ...]
    scores: tuple[int, ...]
    tens: tuple[int, ...]
    dealer: int
    history: PVector[Round] = pvector()  # shared from state to state: a finished round is appended, never copied
    round: Round | None = None
    adjustments: PVector[Adjustment] = pvector()  # shared from state to state, like ``history``
    finished: bool = False
    end_reason: str | None = None
    rules_version: int = RULES_VERSION


def initial_state(created: Mapping[str, Any]) -> State:
    """The state right after ``game_created`` (players, options, visibility, dealer).

    Raises :class:`OptionError` when the options, seats or dealer are not valid for Fool!.
    """
    names = tuple(created["players"])
    options = Options(**resolve_options(created.get("options") or {}, list(names)))
    dealer = created.get("dealer") or names[0]
    if dealer not in names:
        raise OptionError("dealer", f"{dealer!r} is not one of the players.")
    version = int(created.get("rules_version", RULES_VERSION))
    if version != RULES_VERSION:
        raise OptionError("rules_version", f"Fool! rules version {version} is unknown (this is version {RULES_VERSION}).")
    count = len(names)
    return State(options, created.get("visibility", "table"), names, (0,) * count, (0,) * count, names.index(dealer))


# --------------------------------------------------------------------------- small helpers


def _set(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return values[:index] + (value,) + values[index + 1 :]


def _seat(state: State, name: str) -> int:
    try:
        return state.names.index(name)
    except ValueError as err:  # the schema checks names; a stored log could still be odd
        raise RulesError("not_your_turn", f"{name} is not a player in this game.") from err


def _remove_one(cards: tuple[str, ...], card: str) -> tuple[str, ...]:
    index = cards.index(card)
    return cards[:index] + cards[index + 1 :]


def _merge(known: tuple[str, ...], shown: Iterable[str]) -> tuple[tuple[str, ...], list[str]]:
    """The hand known after ``shown`` is seen in it: (known cards, cards newly known).

    Both lists are cards in the hand, so a card's copies are the larger of the two counts.
    """
    have = Counter(known)
    new: list[str] = []
    for card, count in Counter(shown).items():
        new.extend([card] * max(0, count - have[card]))
    return sorted_cards(known + tuple(new)), new


def _available(rnd: Round, seat: int, card: str, claimed: int = 0) -> bool:
    """Conservation: ``seat``'s hand can hold one more ``card`` besides ``claimed`` copies
    already named by the same action (recording.md, "Knowledge" 1; a ``1`` has 6 copies)."""
    holding = rnd.holdings[seat]
    known = holding.known.count(card)
    if known > claimed:
        return True
    need = claimed - known + 1  # unknown cards that would have to be this card
    if holding.unknown < need:
        return False
    if card == WILD:
        return rnd.wilds_seen + need <= WILD_COPIES
    return need == 1 and card not in rnd.seen


def _where(state: State, rnd: Round, seat: int, card: str, claimed: int = 0) -> str:
    """Say why one more ``card`` (besides ``claimed`` copies) cannot be in ``seat``'s hand."""
    name = state.names[seat]
    holding = rnd.holdings[seat]
    need = claimed - holding.known.count(card) + 1
    if holding.unknown < need:
        if holding.unknown == 0:
            return f"{name} is known to hold {_cards(holding.known) or 'no cards'}"
        return f"{name} has only {plural(holding.unknown, 'unknown card')} left"
    if card == WILD:
        played = sum(1 for t in rnd.tricks for p in t.plays if p.card == WILD)
        free = WILD_COPIES - rnd.wilds_seen
        return (
            f"only {free} of the {WILD_COPIES} 1s {'is' if free == 1 else 'are'} unaccounted for "
            f"({played} played, {rnd.wilds_seen - played} in known hands)"
        )
    for trick in rnd.tricks:
        for play in trick.plays:
            if play.card == card:
                return f"{state.names[play.seat]} played it in trick {trick.number}"
    for other, held in enumerate(rnd.holdings):
        if card in held.known:
            shown = any(r.seat == other and card in r.cards for r in rnd.reveals)
            since = "revealed in this round" if shown else "dealt to them"
            return f"it is known to be in {state.names[other]}'s hand ({since})"
    return "it has been seen elsewhere"


def _not_available(state: State, rnd: Round, seat: int, card: str, claimed: int = 0) -> RulesError:
    where = _where(state, rnd, seat, card, claimed)
    return RulesError("card_not_available", f"{state.names[seat]} cannot have {card_text(card)}: {where}.")


# --------------------------------------------------------------------------- the trick


def following(trick: Trick, card: str) -> bool:
    """A card follows when it is a ``1`` or of the lead colour, or no colour is set yet ("A trick")."""
    colour = colour_of(card)
    return colour is None or trick.lead_colour is None or colour == trick.lead_colour


def worst_first(trick: Trick) -> list[Play]:
    """The plays of a complete trick from worst to best ("A trick", worst card).

    Any off-colour card is worse than any following card; within each group the lowest
    number is worse (a ``1`` counts 1), and of equal numbers the one played later.
    """
    indexed = list(enumerate(trick.plays))
    indexed.sort(key=lambda item: (following(trick, item[1].card), value_of(item[1].card), -item[0]))
    return [play for _, play in indexed]


def trick_winner(trick: Trick) -> Play:
    """The highest card of the lead colour; if every card is a ``1``, the first ``1`` ("A trick")."""
    if trick.lead_colour is None:
        return trick.plays[0]
    return max((p for p in trick.plays if colour_of(p.card) == trick.lead_colour), key=lambda p: value_of(p.card))


def trick_seats(state: State, trick: Trick) -> list[int]:
    """The seats that play in ``trick``, in order from its leader: everyone but the Fools of
    the trick before, who sit out ("A trick")."""
    count = len(state.names)
    return [s for s in ((trick.leader + i) % count for i in range(count)) if s not in trick.sitting_out]


def next_to_play(state: State, rnd: Round) -> int | None:
    """The seat that must play the next card, or None when the round's tricks are over: the
    leader (left of the dealer in trick 1, "Setup"; else the last winner), then clockwise,
    skipping the Fools who sit out ("A trick")."""
    if rnd.over or rnd.result is not None:
        return None
    trick = rnd.current_trick
    if trick is None:
        return rnd.lead
    skipped = {p.seat for p in trick.plays}.union(trick.sitting_out)  # played already, or a Fool sitting out
    for seat in _CLOCKWISE[len(state.names)][trick.plays[-1].seat]:  # clockwise from the last card
        if seat not in skipped:
            return seat
    return None


#: For each table size, the other seats clockwise after each seat (``engine.core.seat_after``'s
#: order, written out once: a play asks twice who is next).
_CLOCKWISE = {count: tuple(tuple((seat + step) % count for step in range(1, count)) for seat in range(count))
              for count in range(MIN_PLAYERS, MAX_PLAYERS + 1)}


def awaiting_reveal(rnd: Round) -> list[int]:
    """After the last trick: the seats whose remaining hand is not fully known yet."""
    if not rnd.over or rnd.result is not None:
        return []
    return [s for s, held in enumerate(rnd.holdings) if held.unknown > 0]


def to_act(state: State) -> list[int]:
    """Seats whose turn it is: the player to play, or the hands still to reveal."""
    rnd = state.round
    if state.finished or rnd is None:
        return []
    if rnd.over:
        return awaiting_reveal(rnd)
    seat = next_to_play(state, rnd)
    return [] if seat is None else [seat]


def phase(state: State) -> str:
    """``deal`` (waiting for a deal), ``playing``, ``reveal`` (round over, hands to record) or ``game_over``."""
    if state.finished:
        return "game_over"
    if state.round is None:
        return "deal"
    return "reveal" if state.round.over else "playing"


# --------------------------------------------------------------------------- checks


def _current(state: State, what: str) -> Round:
    """The round in play, or ``game_over`` / ``wrong_phase`` before any deal."""
    if state.finished:
        raise RulesError("game_over", "The game is over: nothing more can be recorded.")
    if state.round is None:
        if state.history:
            raise RulesError("wrong_phase", f"Round {state.history[-1].number} is over: record the next deal before {what}.")
        raise RulesError("wrong_phase", f"No round has been dealt yet: record a deal before {what}.")
    return state.round


def check_play(state: State, seat: int) -> Round:
    """Everything about a play that does not depend on the card: phase and turn ("A trick").

    Raises ``game_over``, ``wrong_phase`` (no round, or after the round's last trick) or
    ``not_your_turn`` (out of turn, or a Fool sitting out this trick).
    """
    rnd = _current(state, "a card is played")
    name = state.names[seat]
    if rnd.over:
        raise RulesError("wrong_phase", f"Round {rnd.number}'s last trick has been played: no more cards are played this round.")
    trick = rnd.current_trick
    sitting = trick.sitting_out if trick is not None else rnd.sitting_out
    if seat in sitting:
        raise RulesError("not_your_turn", f"{name} is the Fool of the last trick and sits out this one.")
    due = next_to_play(state, rnd)
    if due != seat:
        who = state.names[due] if due is not None else "nobody"
        raise RulesError("not_your_turn", f"It is {who}'s turn to play, not {name}'s.")
    return rnd


def check_card(state: State, rnd: Round, seat: int, card: str) -> None:
    """Conservation and following for a card ``seat`` wants to play ("A trick", following).

    Raises ``card_not_available`` when the card cannot be in the hand and ``must_follow_suit``
    when the player is known to hold the lead colour and plays another colour.
    """
    if not _available(rnd, seat, card):
        raise _not_available(state, rnd, seat, card)
    trick = rnd.current_trick
    if trick is None or following(trick, card):
        return
    lead = trick.lead_colour
    assert lead is not None
    held = [c for c in rnd.holdings[seat].known if colour_of(c) == lead]
    if held:
        raise RulesError(
            "must_follow_suit",
            f"{state.names[seat]} must follow {COLOUR_NAMES[lead]} or play a Wild 1: they are known to hold {_cards(held)}.",
        )


# --------------------------------------------------------------------------- reducer


def apply(state: State, action: Action) -> State:
    """Return the state after ``action``; raise :class:`RulesError` if it is illegal now.

    ``action`` is ``{"type": ..., **fields}`` with canonical card codes and seat names;
    ``seq`` (the event number, used for audit) may be given. Types: ``deal``, ``play``,
    ``reveal`` (``rules/fool.md``, "Actions") and ``adjust`` (recording.md, "Bookkeeping").
    Codes: ``not_your_turn``, ``must_follow_suit``, ``card_not_available``,
    ``wrong_card_count``, ``wrong_dealer``, ``wrong_phase``, ``hand_over``, ``game_over``.
    """
    handler = HANDLERS.get(action["type"])
    if handler is None:
        raise RulesError("wrong_phase", f"Fool! has no '{action['type']}' action.")
    return handler(state, action, int(action.get("seq", 0)))


def _deal(state: State, action: Action, seq: int) -> State:
    """Start a round ("Setup"): the dealer moves one seat left each round."""
    if state.finished:
        raise RulesError("game_over", "The game is over: no more rounds are dealt.")
    if state.round is not None:
        rnd = state.round
        if rnd.over:
            waiting = name_list([state.names[s] for s in awaiting_reveal(rnd)])
            verb = "holds" if len(awaiting_reveal(rnd)) == 1 else "hold"
            raise RulesError("wrong_phase", f"Round {rnd.number} is not scored yet: first reveal the cards {waiting} still {verb}.")
        raise RulesError("wrong_phase", f"Round {rnd.number} is still being played.")
    expected = state.names[state.dealer]
    given = action.get("dealer")
    if given is not None and given != expected:
        raise RulesError("wrong_dealer", f"{expected} deals round {len(state.history) + 1}, not {given}.")
    count = len(state.names)
    size = state.options.hand_size
    hands: Mapping[str, list[str]] | None = action.get("hands")
    seen: set[str] = set()
    wilds = 0
    if state.visibility == "open":
        if hands is None:
            raise RulesError("wrong_card_count", f"An open game's deal must list every player's {plural(size, 'card')}.")
        missing = [n for n in state.names if n not in hands]
        if missing or len(hands) != count:
            raise RulesError("wrong_card_count", f"The deal must list every player's hand (missing: {name_list(missing)}).")
        holdings = []
        for name in state.names:
            cards = hands[name]
            if len(cards) != size:
                raise RulesError("wrong_card_count", f"{name} must be dealt {plural(size, 'card')}, not {len(cards)}.")
            for card in cards:
                if card == WILD:
                    wilds += 1
                    if wilds > WILD_COPIES:
                        raise RulesError("card_not_available", f"The deal lists more than {WILD_COPIES} 1s.")
                elif card in seen:
                    raise RulesError("card_not_available", f"{card_text(card)} cannot be dealt twice.")
                else:
                    seen.add(card)
            holdings.append(Holding(sorted_cards(cards), 0))
    else:
        holdings = [Holding((), size)] * count
    first = (state.dealer + 1) % count
    rnd = Round(
        number=len(state.history) + 1,
        dealer=state.dealer,
        deal_seq=seq,
        holdings=tuple(holdings),
        lead=first,
        seen=frozenset(seen),
        wilds_seen=wilds,
    )
    return replace(state, round=rnd)


def _play(state: State, action: Action, seq: int) -> State:
    """A card played to the current trick; completes the trick when everyone in it has played."""
    seat = _seat(state, action["player"])
    card: str = action["card"]
    rnd = check_play(state, seat)
    check_card(state, rnd, seat, card)
    holding = rnd.holdings[seat]
    seen, wilds = rnd.seen, rnd.wilds_seen
    if card in holding.known:
        holding = Holding(_remove_one(holding.known, card), holding.unknown)
    else:
        holding = Holding(holding.known, holding.unknown - 1)
        if card == WILD:
            wilds += 1
        else:
            seen = seen | {card}
    trick = rnd.current_trick
    if trick is None:
        trick = Trick(len(rnd.tricks) + 1, seat, rnd.sitting_out)
        tricks = rnd.tricks
    else:
        tricks = rnd.tricks[:-1]
    voids = rnd.voids
    colour = colour_of(card)
    if trick.lead_colour is not None and colour is not None and colour != trick.lead_colour:
        voids = voids + (Void(seat, trick.lead_colour, seq, trick.number),)
    lead_colour = trick.lead_colour if trick.lead_colour is not None else colour
    trick = replace(trick, plays=trick.plays + (Play(seat, card, seq),), lead_colour=lead_colour)
    rnd = replace(
        rnd,
        holdings=_set(rnd.holdings, seat, holding),
        tricks=tricks + (trick,),
        seen=seen,
        wilds_seen=wilds,
        voids=voids,
        revokes=rnd.revokes + _proven(rnd, seat, (card,), seq, "played"),
    )
    state = replace(state, round=rnd)
    if next_to_play(state, rnd) is None:
        state = _complete_trick(state, seq)
    return state


def _proven(rnd: Round, seat: int, cards: Iterable[str], seq: int, how: str) -> tuple[Revoke, ...]:
    """Revokes that ``cards`` (now played or revealed by ``seat``) prove (recording.md, "Knowledge" 2)."""
    if not rnd.voids:  # nobody has shown out this round
        return ()
    voids = [void for void in rnd.voids if void.seat == seat]  # the colours ``seat`` showed out of
    if not voids:
        return ()
    found: list[Revoke] = []
    flagged = {(r.seq, r.seat) for r in rnd.revokes}
    for card in cards:
        colour = colour_of(card)
        for void in voids:
            if void.seat == seat and void.colour == colour and (void.seq, seat) not in flagged:
                found.append(Revoke(seat, void.colour, void.trick, void.seq, seq, card, how))
                flagged.add((void.seq, seat))
    return tuple(found)


def _complete_trick(state: State, seq: int) -> State:
    """Decide the trick's winner and Fools; end the round when a hand is empty ("A trick",
    "End of a round and scoring")."""
    rnd = state.round
    assert rnd is not None and rnd.current_trick is not None
    trick = rnd.current_trick
    fools = tuple(p.seat for p in worst_first(trick)[: state.options.fools_per_trick])
    winner = trick_winner(trick).seat
    done = replace(trick, winner=winner, fools=fools, complete=True)
    over = any(held.size == 0 for held in rnd.holdings)
    rnd = replace(rnd, tricks=rnd.tricks[:-1] + (done,), lead=winner, sitting_out=() if over else fools, over=over)
    state = replace(state, round=rnd)
    return _score_if_known(state, seq) if over else state


def round_points(rnd: Round) -> tuple[int, ...]:
    """Each seat's score for a round whose remaining hands are all known ("End of a round and
    scoring"): +10 for an empty hand (0 for a Fool of the last trick), else minus the face
    values left, a ``1`` counting 5."""
    fools = rnd.last_fools
    points = []
    for seat, held in enumerate(rnd.holdings):
        if held.size == 0:
            points.append(0 if seat in fools else OUT_BONUS)
        else:
            points.append(-sum(penalty(card) for card in held.known))
    return tuple(points)


def _score_if_known(state: State, seq: int) -> State:
    """Score the round once its tricks are over and every remaining hand is fully known."""
    rnd = state.round
    assert rnd is not None
    if not rnd.over or awaiting_reveal(rnd):
        return state
    points = round_points(rnd)
    scores = tuple(total + gained for total, gained in zip(state.scores, points, strict=True))
    tens = tuple(count + (gained == OUT_BONUS) for count, gained in zip(state.tens, points, strict=True))
    rnd = replace(rnd, result=points, scored_seq=seq, sitting_out=())
    state = replace(
        state,
        scores=scores,
        tens=tens,
        history=state.history.append(rnd),
        round=None,
        dealer=(rnd.dealer + 1) % len(state.names),
    )
    return _check_end(state)


def _check_end(state: State) -> State:
    """End the game at a total of −80 or less or a sixth +10 round ("End of the game").

    A round still in play (an ``adjust`` mid-round) is abandoned and kept in the history.
    """
    if state.finished:
        return state
    low = [state.names[s] for s, total in enumerate(state.scores) if total <= LOSING_TOTAL]
    many = [state.names[s] for s, count in enumerate(state.tens) if count >= TENS_TO_WIN]
    if not low and not many:
        return state
    reasons = []
    if low:
        reasons.append(f"{name_list(low)} reached {LOSING_TOTAL} points or less")
    if many:
        reasons.append(f"{name_list(many)} scored +{OUT_BONUS} in {TENS_TO_WIN} rounds")
    if state.round is not None:
        state = replace(state, history=state.history.append(replace(state.round, abandoned=True)), round=None)
    return replace(state, finished=True, end_reason="; ".join(reasons))


def winners(state: State) -> list[str]:
    """The names with the highest total once the game is over, else ``[]``; equal highest
    totals share the win ("End of the game")."""
    if not state.finished:
        return []
    best = max(state.scores)
    return [name for name, total in zip(state.names, state.scores, strict=True) if total == best]


def check_reveal(state: State, seat: int, cards: list[str]) -> tuple[Round, tuple[str, ...], list[str]]:
    """Validate a ``reveal`` ("End of a round and scoring"; recording.md, "Knowledge").

    Returns the round, the hand known afterwards and the cards newly known. Raises
    ``game_over``, ``wrong_phase`` (no round yet), ``hand_over`` (the round is already
    scored), ``wrong_card_count`` (more cards than the hand holds; after the last trick,
    anything but the whole hand) or ``card_not_available`` (a card seen elsewhere).
    """
    rnd = _current(state, "a reveal")
    name = state.names[seat]
    holding = rnd.holdings[seat]
    if holding.size == 0:
        raise RulesError("wrong_card_count", f"{name} holds no cards: there is nothing to reveal.")
    counts = Counter(cards)
    for card, count in counts.items():
        if card != WILD and count > 1:
            raise RulesError("card_not_available", f"There is only one {card_text(card)}.")
    if counts[WILD] > WILD_COPIES:
        raise RulesError("card_not_available", f"There are only {WILD_COPIES} 1s.")
    if len(cards) > holding.size:
        raise RulesError("wrong_card_count", f"{name} holds only {plural(holding.size, 'card')}, not {len(cards)}.")
    if rnd.over and len(cards) != holding.size:
        raise RulesError(
            "wrong_card_count",
            f"After the round's last trick a reveal names the whole hand: {name} holds {plural(holding.size, 'card')}, not {len(cards)}.",
        )
    claimed: Counter[str] = Counter()
    for card in cards:
        if not _available(rnd, seat, card, claimed[card]):
            raise _not_available(state, rnd, seat, card, claimed[card])
        claimed[card] += 1
    merged, new = _merge(holding.known, cards)
    if len(merged) > holding.size:
        left_out = list((Counter(holding.known) - counts).elements())
        raise RulesError(
            "wrong_card_count",
            f"{name} holds {plural(holding.size, 'card')} and is known to hold {_cards(sorted_cards(left_out))} besides these.",
        )
    return rnd, merged, new


def _reveal(state: State, action: Action, seq: int) -> State:
    """The cards a player holds now: part of the hand mid-round, the whole hand after the last
    trick ("End of a round and scoring"); scores the round once every hand left is known."""
    seat = _seat(state, action["player"])
    cards: list[str] = list(action["cards"])
    rnd, merged, new = check_reveal(state, seat, cards)
    holding = rnd.holdings[seat]
    wilds_new = new.count(WILD)
    rnd = replace(
        rnd,
        holdings=_set(rnd.holdings, seat, Holding(merged, holding.unknown - len(new))),
        seen=rnd.seen | {c for c in new if c != WILD},
        wilds_seen=rnd.wilds_seen + wilds_new,
        reveals=rnd.reveals + (Reveal(seat, seq, sorted_cards(cards), rnd.over),),
        revokes=rnd.revokes + _proven(rnd, seat, cards, seq, "revealed"),
    )
    return _score_if_known(replace(state, round=rnd), seq)


def _adjust(state: State, action: Action, seq: int) -> State:
    """A ruling: ``amount`` points added to the player's total (positive is better), then the
    end of the game is checked at once (recording.md, "Bookkeeping actions")."""
    if state.finished:
        raise RulesError("game_over", "The game is over: a ruling can no longer change it.")
    seat = _seat(state, action["player"])
    amount = int(action["amount"])
    number = state.round.number if state.round else len(state.history)
    entry = Adjustment(seat, seq, amount, str(action.get("reason", "")), number)
    state = replace(
        state,
        scores=_set(state.scores, seat, state.scores[seat] + amount),
        adjustments=state.adjustments.append(entry),
    )
    return _check_end(state)


def _reveal_guard(state: State, action: Action, seq: int) -> State:
    """``hand_over`` for a reveal once the round is scored (recording.md, refusal codes)."""
    if not state.finished and state.round is None and state.history:
        raise RulesError("hand_over", f"Round {state.history[-1].number} is already scored: record the next deal first.")
    return _reveal(state, action, seq)


HANDLERS: dict[str, Callable[[State, Action, int], State]] = {
    "deal": _deal,
    "play": _play,
    "reveal": _reveal_guard,
    "adjust": _adjust,
}


# --------------------------------------------------------------------------- what may be recorded


def _allowed(check: Callable[[], object]) -> bool:
    try:
        check()
    except RulesError:
        return False
    return True


def legal_cards(state: State, seat: int) -> list[str] | None:
    """The distinct cards ``seat`` may play now, or None when their hand is not fully known."""
    rnd = state.round
    if rnd is None or rnd.holdings[seat].unknown > 0:
        return None
    out = []
    for card in dict.fromkeys(rnd.holdings[seat].known):
        try:
            check_card(state, rnd, seat, card)
        except RulesError:
            continue
        out.append(card)
    return out


def legal_actions(state: State, full: bool) -> list[dict[str, Any]]:
    """What can be recorded next: ``[{"type", "player", "cards"}]`` (api.md, ``actions``).

    Built on the same checks as :func:`apply`. ``cards`` lists the exact legal cards when
    the player's hand is fully known to the viewer (``full``: the scorekeeper, or a table
    game whose hand has been revealed), else ``None``. ``reveal`` is offered for every hand
    with unknown cards (a dispute mid-round; required after the last trick).
    """
    if state.finished:
        return []
    rnd = state.round
    names = state.names
    if rnd is None:
        return [{"type": "deal", "player": names[state.dealer], "cards": None}]
    out: list[dict[str, Any]] = []
    if not rnd.over:
        due = next_to_play(state, rnd)
        if due is not None and _allowed(lambda: check_play(state, due)):
            visible = full or state.visibility == "table"
            out.append({"type": "play", "player": names[due], "cards": legal_cards(state, due) if visible else None})
    for seat, held in enumerate(rnd.holdings):
        if held.unknown > 0:
            out.append({"type": "reveal", "player": names[seat], "cards": None})
    return out



def public_state(state: State) -> State:
    """The state as a reader without the token knows it (api.md, "Views and secrets"):
    unchanged, as nothing this game computes for a public reader reads a hidden hand
    (tests/test_public_reads_ignore_hidden_cards.py checks every public read)."""
    return state


def possible(state: State, player: str) -> list[str] | None:
    """The cards ``player`` could still hold as far as the table knows, in deck order, or
    None in an ``open`` game or when no round is in play (api.md, ``actions``: ``possible``).

    Conservation only (recording.md, "Knowledge" 1: not played, not known to be
    elsewhere, counting the six 1s); ``GET …/actions`` gives it to every play and reveal whose ``cards`` is
    null. Raises ``ValueError`` for a name not at the table.
    """
    rnd = state.round
    if state.visibility != "table" or rnd is None:
        return None
    seat = state.names.index(player)
    return [card for card in dict.fromkeys(DECK) if _available(rnd, seat, card)]


# --------------------------------------------------------------------------- views


#: ``finished`` once the game is over, else ``in_progress`` (engine.core.finished_status).
status = finished_status


def hand_number(state: State) -> int:
    """The number of the round in play, or of the last one dealt (0 before the first deal)."""
    return state.round.number if state.round else len(state.history)


def hand_over(state: State, number: int) -> bool:
    """True when round ``number`` is over (scored or abandoned): its hands may be shown."""
    return state.finished or number <= len(state.history)


#: Fields that carry cards hidden from the public: an open deal's hands.
HIDDEN = {"deal": ("hands",)}


def redact(action: Mapping[str, Any]) -> dict[str, Any]:
    """The public copy of a stored action: the dealt hands of an open game are left out."""
    return redact_fields(action, HIDDEN)


def public_action(state: State, number: int, action: Mapping[str, Any]) -> dict[str, Any]:
    """The copy of a stored action of hand ``number`` that a reader without the token may
    see now: all of it once that hand is over, else :func:`redact`'s copy."""
    return public_once_over(hand_over(state, number), action, HIDDEN)


# --------------------------------------------------------------------------- versions, results, score sheet

#: Rules versions whose logs this module rebuilds; older ones are read through :func:`upcast`.
SUPPORTED_VERSIONS: frozenset[int] = frozenset({RULES_VERSION})


#: Version 1 is the only one so far: events are read as recorded (see engine.core.no_upcast).
upcast = no_upcast

#: Each colour's word, as a person says the card (ui.md, "Names": ``Green 20``, ``Wild 1``).
COLOUR_WORDS = {"G": "Green", "R": "Red", "Y": "Yellow", "B": "Blue"}


def card_text(card: str) -> str:
    """A card as the short phrases of ``engine.stream.summary`` write it (the Undo button's
    label): colour word then number, ``"R7"`` -> ``"Red 7"``, the colourless ``"1"`` ->
    ``"Wild 1"`` (ui.md, "Names a person can rely on")."""
    return "Wild 1" if card == WILD else f"{COLOUR_WORDS[card[0]]} {card[1:]}"


def _all_rounds(state: State) -> tuple[Round, ...]:
    return (*state.history, *((state.round,) if state.round is not None else ()))


def results(state: State) -> dict[str, dict[str, Any]]:
    """Each player's result and stats for match histories (same keys in every game).

    ``result`` is ``won``/``lost`` once the game is over (else ``in_progress``); ``score``
    is in ``unit`` (points); ``hands`` (rounds) dealt, ``tricks_won``, ``fools`` (times the
    Fool); ``knocks`` and ``stops`` are None.
    """
    won = winners(state)
    rounds = _all_rounds(state)
    out: dict[str, dict[str, Any]] = {}
    for seat, name in enumerate(state.names):
        out[name] = player_result(
            seat,
            name in won if state.finished else None,
            state.scores[seat],
            "points",
            len(rounds),
            tricks_won=sum(1 for r in rounds for t in r.tricks if t.complete and t.winner == seat),
            fools=sum(1 for r in rounds for t in r.tricks if t.complete and seat in t.fools),
        )
    return out


def score_sheet(state: State) -> list[dict[str, Any]]:
    """One row per round dealt: ``round``, ``dealer``, then each player's points in the round
    (``"<name> points this round"``, rulings included; 0 for a round not scored) and running
    total (``"<name> points in all"``) (:data:`SHEET`)."""
    names = state.names
    totals = [0] * len(names)
    rows: list[dict[str, Any]] = []
    for rnd in _all_rounds(state):
        row: dict[str, Any] = {"round": rnd.number, "dealer": names[rnd.dealer]}
        for seat, name in enumerate(names):
            points = rnd.result[seat] if rnd.result is not None else 0
            points += sum(a.amount for a in state.adjustments
                          if a.seat == seat and (a.round == rnd.number or (a.round == 0 and rnd.number == 1)))
            totals[seat] += points
            change, total = SHEET.of(name)
            row[change] = points
            row[total] = totals[seat]
        rows.append(row)
    return rows


def _round(state: State, number: int) -> Round | None:
    if 1 <= number <= len(state.history):
        return state.history[number - 1]
    if state.round is not None and state.round.number == number:
        return state.round
    return None


def _trick_json(state: State, trick: Trick) -> dict[str, Any]:
    names = state.names
    return {
        "number": trick.number,
        "leader": names[trick.leader],
        "plays": [{"player": names[p.seat], "card": p.card, "seq": p.seq} for p in trick.plays],
        "lead_colour": trick.lead_colour,
        "winner": names[trick.winner] if trick.winner is not None else None,
        "fools": [names[s] for s in trick.fools],
        "sitting_out": [names[s] for s in trick.sitting_out],
        "complete": trick.complete,
    }


def winner_reason(state: State, trick: Trick) -> str | None:
    """Why the trick's winner won, in words, with the rule's source ("A trick", winner)."""
    if not trick.complete:
        return None
    top = trick_winner(trick)
    name = state.names[top.seat]
    if trick.lead_colour is None:
        return f"Every card played was a Wild 1, so the first one, played by {name}, wins."
    colour = COLOUR_NAMES[trick.lead_colour]
    setter = next(p for p in trick.plays if colour_of(p.card) is not None)
    text = f"{card_text(top.card)} ({name}) is the highest {colour} card, {colour} being the lead colour"
    text += ", which it set" if setter is top else f" set by {card_text(setter.card)}"
    beaten = [p.card for p in trick.plays if p is not top and following(trick, p.card)]
    beaten_text = _cards(beaten)
    if beaten:
        text += f"; it beats {beaten_text} (a Wild 1 counts as 1 of the lead colour)" if WILD in beaten else f"; it beats {beaten_text}"
    others = [p.card for p in trick.plays if not following(trick, p.card)]
    if others:
        text += f"; {_cards(others)} did not follow and cannot win"
    return text + "."


def fools_reason(state: State, trick: Trick) -> str | None:
    """Why the Fool(s) of a complete trick are Fools, in words ("A trick", worst card).

    For example ``"Anja is the Fool with Blue 6: the lowest off-colour card; Blue 6 was played
    after Green 6 (of equal cards the later is worse)"``.
    """
    if not trick.complete:
        return None
    names = state.names
    order = worst_first(trick)
    position = {play.seq: i for i, play in enumerate(trick.plays)}
    anyone_off = any(not following(trick, p.card) for p in trick.plays)
    parts = []
    for rank, play in enumerate(order[: len(trick.fools)]):
        follows = following(trick, play.card)
        if trick.lead_colour is None:
            what = "every card is a Wild 1"
        elif not follows:
            what = "the lowest off-colour card" if rank == 0 else "the lowest of the other off-colour cards"
        elif not anyone_off:
            what = "the lowest following card, everyone having followed"
        else:
            what = "the lowest following card, no other card being off-colour"
        if play.card == WILD and trick.lead_colour is not None:
            what += ", a Wild 1 counting as 1 of the lead colour"
        ties = [
            p for p in order[rank + 1 :]
            if following(trick, p.card) == follows
            and value_of(p.card) == value_of(play.card)
            and position[p.seq] < position[play.seq]
        ]
        if ties:
            if play.card == WILD:
                earlier = name_list([names[p.seat] + "'s Wild 1" for p in ties])
                what += f"; {names[play.seat]}'s Wild 1 was played after {earlier}"
            else:
                what += f"; {card_text(play.card)} was played after {_cards(p.card for p in ties)}"
            what += ", and of equal cards the later is worse"
        title = "the Fool" if len(trick.fools) == 1 else ("the first Fool" if rank == 0 else "the second Fool")
        parts.append(f"{names[play.seat]} is {title} with {card_text(play.card)}: {what}")
    return "; ".join(parts) + "."


def _proof_trick(rnd: Round, revoke: Revoke) -> str:
    """`` in trick t`` where the card that proved ``revoke`` was played in ``rnd``, else "" (a reveal)."""
    for trick in rnd.tricks:
        if any(play.seq == revoke.proof_seq for play in trick.plays):
            return f" in trick {trick.number}"
    return ""


def _revoke_json(state: State, revoke: Revoke, rnd: Round) -> dict[str, Any]:
    name = state.names[revoke.seat]
    return {
        "kind": "revoke",
        "player": name,
        "trick": revoke.trick,
        "seq": revoke.seq,
        "proof_seq": revoke.proof_seq,
        "card": revoke.proof_card,
        "detail": (
            f"{name} did not follow {COLOUR_NAMES[revoke.colour]} in trick {revoke.trick} "
            f"but later {revoke.proof} {card_text(revoke.proof_card)}{_proof_trick(rnd, revoke)}: a revoke."
        ),
    }


def _hand_json(state: State, rnd: Round, full: bool) -> dict[str, Any]:
    names = state.names
    show = full or state.visibility == "table" or rnd.result is not None or rnd.abandoned or state.finished
    out: dict[str, Any] = {
        "hand_number": rnd.number,
        "round_number": rnd.number,
        "dealer": names[rnd.dealer],
        "deal_seq": rnd.deal_seq,
        "tricks": [_trick_json(state, t) for t in rnd.tricks],
        "reveals": [{"player": names[r.seat], "seq": r.seq, "cards": list(r.cards), "final": r.final} for r in rnd.reveals],
        "irregularities": _irregularities(state, rnd),
        "hand_sizes": {names[s]: held.size for s, held in enumerate(rnd.holdings)},
        "tricks_over": rnd.over,
        "awaiting_reveal": [names[s] for s in awaiting_reveal(rnd)],
        "went_out": [names[s] for s, held in enumerate(rnd.holdings) if held.size == 0],
        "adjustments": [
            {"player": names[a.seat], "seq": a.seq, "amount": a.amount, "reason": a.reason}
            for a in state.adjustments
            if a.round == rnd.number
        ],
        "abandoned": rnd.abandoned,
        "scored_seq": rnd.scored_seq,
        "result": {names[s]: pts for s, pts in enumerate(rnd.result)} if rnd.result is not None else None,
    }
    if show:
        out["hands"] = {
            names[s]: {"known": list(held.known), "unknown": held.unknown} for s, held in enumerate(rnd.holdings)
        }
    return out


def _irregularities(state: State, rnd: Round) -> list[dict[str, Any]]:
    """The revokes proven in ``rnd`` (recording.md, "Knowledge" 2), as the hand view lists them."""
    return [_revoke_json(state, r, rnd) for r in rnd.revokes]


def irregularities(state: State, number: int, full: bool) -> list[dict[str, Any]]:
    """Round ``number``'s ``irregularities`` (the revokes proven in it) as :func:`hand_view`
    lists them, without the rest of the view; ``[]`` when there is no such round."""
    rnd = _round(state, number)
    return [] if rnd is None else _irregularities(state, rnd)


def hand_view(state: State, number: int, full: bool) -> dict[str, Any] | None:
    """``GET hands/<n>``: round ``n``'s dealer, tricks, reveals, irregularities and ``result``
    ({name: points} once scored); None when there is no such round."""
    rnd = _round(state, number)
    return None if rnd is None else _hand_json(state, rnd, full)


def trick_view(state: State, number: int, trick_number: int, full: bool) -> dict[str, Any] | None:
    """``GET hands/<n>/tricks/<t>``: plays with seq, lead colour, winner and Fools with the
    reasons in words, who sat out, and revokes proven later; None when there is no such trick."""
    rnd = _round(state, number)
    if rnd is None or not 1 <= trick_number <= len(rnd.tricks):
        return None
    trick = rnd.tricks[trick_number - 1]
    out = _trick_json(state, trick)
    out["hand_number"] = rnd.number
    out["winner_reason"] = winner_reason(state, trick)
    out["fools_reason"] = fools_reason(state, trick)
    out["leader_reason"], out["sitting_out_reason"] = leader_reason(state, rnd, trick)
    out["irregularities"] = [_revoke_json(state, r, rnd) for r in rnd.revokes if r.trick == trick.number]
    out["source"] = SPEC
    return out


def round_scores(state: State) -> list[list[int]]:
    """Each seat's list of round scores, one per scored round (abandoned rounds are skipped)."""
    out: list[list[int]] = [[] for _ in state.names]
    for rnd in state.history:
        if rnd.result is not None:
            for seat, pts in enumerate(rnd.result):
                out[seat].append(pts)
    return out


def view(state: State, full: bool) -> dict[str, Any]:
    """The API's ``state`` object (api.md "State"; ``rules/fool.md`` "State the API must expose").

    ``full`` is True for the scorekeeper (the game's token): in ``open`` games the cards in
    players' hands are shown only then.

    The fields "for the current round" (``round_number``/``hand_number``, ``dealer``,
    ``tricks``, ``sitting_out``, ``lead_colour``; each player's ``hand_size``, ``is_fool``,
    ``cards_known``, ``cards_unknown``) follow api.md, "Which hand is current": between
    rounds and once the game is over they keep the values of the round that has just ended
    (``hand_size`` = the cards each player was left holding; ``phase`` ``deal`` and
    ``next_dealer`` say who deals next); before the first deal ``round_number`` is 0,
    ``dealer`` the first dealer, lists are ``[]``, counts 0 and ``is_fool`` and
    ``lead_colour`` null.
    """
    rnd = current_round(state)
    names = state.names
    show_cards = full or state.visibility == "table"
    sitting: tuple[int, ...] = ()
    if rnd is not None and not rnd.over:
        trick = rnd.current_trick
        sitting = trick.sitting_out if trick is not None else rnd.sitting_out
    by_round = round_scores(state)
    players = []
    for seat, name in enumerate(names):
        holding = rnd.holdings[seat] if rnd is not None else Holding()
        entry: dict[str, Any] = {
            "name": name,
            "seat": seat + 1,
            "score": state.scores[seat],
            "round_scores": by_round[seat],
            "tens": state.tens[seat],
            "hand_size": holding.size,
            "is_fool": seat in sitting if rnd is not None else None,
        }
        if show_cards:
            entry["cards_known"] = list(holding.known)
            entry["cards_unknown"] = holding.unknown
        players.append(entry)
    trick = rnd.current_trick if rnd is not None else None
    last = state.history[-1] if state.history and state.history[-1].result is not None else None
    out: dict[str, Any] = {
        "status": status(state),
        "phase": phase(state),
        "to_act": [names[s] for s in to_act(state)],
        "players": players,
        "round_number": hand_number(state),
        "hand_number": hand_number(state),
        "dealer": names[rnd.dealer] if rnd is not None else names[state.dealer],
        "next_dealer": names[state.dealer] if state.round is None and not state.finished else None,
        "fools_per_trick": state.options.fools_per_trick,
        "sitting_out": [names[s] for s in sitting],
        "lead_colour": trick.lead_colour if trick is not None else None,
        "tricks": [_trick_json(state, t) for t in rnd.tricks] if rnd is not None else [],
        "last_result": {names[s]: p for s, p in enumerate(last.result)} if last is not None and last.result else None,
    }
    if state.finished:
        out["winners"] = winners(state)
        out["end_reason"] = state.end_reason
    return out


def current_round(state: State) -> Round | None:
    """The round the state's "current round" fields describe (api.md, "Which hand is
    current"): the round in play, else the one that has just ended (between rounds and at
    game over), else None (before the first deal)."""
    if state.round is not None:
        return state.round
    return state.history[-1] if state.history else None


# --------------------------------------------------------------------------- timeline


def describe(before: State, action: Action, after: State, full: bool) -> str:
    """One recorded action in plain words, with what the rules derived from it.

    ``before`` and ``after`` are the states around ``action`` (both the initial state for
    ``game_created``); ``full`` is False for a reader who may not see hidden cards (an open
    deal's hands are never named here anyway). For example ``"Ilja played R7: Anja wins
    trick 1 with G20, the highest green; Ilja is the Fool with R7 and sits out trick 2"``.
    """
    kind = action["type"]
    names = before.names
    who = str(action.get("player", ""))
    if kind == "game_created":
        opts = before.options
        return (
            f"Fool! for {name_list(list(names))} ({visibility_words(before.visibility)}, {plural(opts.hand_size, 'card')} each, "
            f"{plural(opts.fools_per_trick, 'Fool')} per trick): {names[before.dealer]} deals first."
        )
    if kind == "deal":
        rnd = after.round
        assert rnd is not None
        text = f"{names[rnd.dealer]} dealt round {rnd.number}: {plural(after.options.hand_size, 'card')} each, {names[rnd.lead]} leads"
    elif kind == "play":
        text = _describe_play(before, action, after)
    elif kind == "reveal":
        text = f"{who} revealed {_cards(action.get('cards', []))}"
    elif kind == "adjust":
        amount = int(action["amount"])
        text = (
            f"Ruling: {who} {plural(amount, 'point', signed=True)} "
            f"({action.get('reason', '')}); {who}'s total is now {after.scores[names.index(who)]}"
        )
    else:
        text = f"{who} {kind}".strip()
    return text + _consequences(before, action, after, full or before.visibility == "table") + "."


def _describe_play(before: State, action: Action, after: State) -> str:
    names = before.names
    who, card, seq = str(action["player"]), str(action["card"]), action.get("seq")
    rnd = _round(after, hand_number(after))
    trick = next((t for t in rnd.tricks for p in t.plays if p.seq == seq), None) if rnd else None
    if trick is None:
        return f"{who} played {card_text(card)}"
    if trick.plays[0].seq == seq:
        text = f"{who} led {card_text(card)} to trick {trick.number}"
    elif not following(trick, card):
        text = f"{who} played {card_text(card)}, not following {COLOUR_NAMES[trick.lead_colour or 'G']}"
    else:
        text = f"{who} played {card_text(card)}"
    if trick.complete and trick.plays[-1].seq == seq and trick.winner is not None:
        top = trick_winner(trick)
        if trick.lead_colour is None:
            why = "every card is a Wild 1, so the first one wins"
        else:
            why = f"the highest {COLOUR_NAMES[trick.lead_colour]}"
        if trick.winner == names.index(who):
            text += f" and won trick {trick.number}: {why}"
        else:
            text += f": {names[trick.winner]} wins trick {trick.number} with {card_text(top.card)}, {why}"
        worst = {p.seat: p.card for p in trick.plays}
        fools = [f"{names[s]} ({card_text(worst[s])})" for s in trick.fools]
        sits = "" if rnd is not None and rnd.over else f" and sit{'s' if len(fools) == 1 else ''} out trick {trick.number + 1}"
        text += f"; {name_list(fools)} {'is the Fool' if len(fools) == 1 else 'are the Fools'}{sits}"
        if rnd is not None and rnd.over:
            gone = [names[s] for s, held in enumerate(rnd.holdings) if held.size == 0]
            text += f"; {name_list(gone)} {'has' if len(gone) == 1 else 'have'} no cards left: the round's tricks are over"
    return text


def _consequences(before: State, action: Action, after: State, scores: bool) -> str:
    """What else ``action`` set off: proven revokes, the round's score (only the fact that it
    was scored unless ``scores``: points left in hidden hands), the end of the game."""
    names = before.names
    parts: list[str] = []
    seq = action.get("seq")
    rnd = _round(after, hand_number(after)) if action["type"] != "game_created" else None
    if rnd is not None:
        for revoke in rnd.revokes:
            if revoke.proof_seq == seq:
                parts.append(
                    f"this proves a revoke: {names[revoke.seat]} did not follow {COLOUR_NAMES[revoke.colour]} "
                    f"in trick {revoke.trick}"
                )
        if rnd.over and rnd.result is None and awaiting_reveal(rnd) and before.round is not None and not before.round.over:
            waiting = [names[s] for s in awaiting_reveal(rnd)]
            parts.append(f"reveal the cards {name_list(waiting)} still {'holds' if len(waiting) == 1 else 'hold'} to score it")
    ended = after.history[-1] if len(after.history) > len(before.history) else None
    if ended is not None and ended.result is not None and not ended.abandoned:
        points = ", ".join(f"{names[s]} {'+' if p > 0 else ''}{p}" for s, p in enumerate(ended.result))
        parts.append(f"round {ended.number} scored: {points}" if scores else f"round {ended.number} scored")
    if after.finished and not before.finished:
        won = winners(after)
        parts.append(f"the game is over ({after.end_reason}): {name_list(won)} {'wins' if len(won) == 1 else 'win'}")
    return "; " + "; ".join(parts) if parts else ""


def position(state: State) -> int:
    """The trick in progress in the current round: the number of the trick the next card
    played joins (1 before the first card), 0 between rounds. The audit places corrections
    and notes in tricks by it."""
    rnd = state.round
    if rnd is None:
        return 0
    current = rnd.current_trick
    return current.number if current is not None else len(rnd.tricks) + 1


def leader_reason(state: State, rnd: Round, trick: Trick) -> tuple[str, str]:
    """Why ``trick``'s leader led it and why its players sat out, in words ("Setup", "A trick")."""
    names = state.names
    who = names[trick.leader]
    if trick.number == 1:
        lead = f"{who} led trick 1: the player left of the dealer ({names[rnd.dealer]}) leads a round's first trick"
        sits = "Nobody sits out the first trick of a round."
        return lead + ".", sits
    previous = rnd.tricks[trick.number - 2]
    lead = f"{who} won trick {previous.number} and so led trick {trick.number}."
    out = [names[s] for s in trick.sitting_out]
    if not out:
        return lead, f"Nobody sat out trick {trick.number}."
    verb = "was the Fool" if len(out) == 1 else "were the Fools"
    sits = f"{name_list(out)} {verb} of trick {previous.number} and sat out trick {trick.number}."
    return lead, sits
