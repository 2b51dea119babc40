"""Fuji Flush: Friedemann Friese's shedding game where higher cards flush lower ones.

Rules from ``../shared/spec/rules/fuji_flush.md`` (section names below in quotes), with the
knowledge model and undo of ``../shared/spec/recording.md``:

- 90 cards numbered 2 to 20 in the published counts, or any other printing through option
  ``deck``; 3-8 players get 6 cards each (5 with 7-8 players, option ``hand_size``); the
  rest is the face-down draw pile ("Cards", "Setup").
- On your turn ("A turn"): 1. if your card from last round is still in front of you, it is
  pushed through: discarded with every card of the same number (its group), nobody draws;
  2. every player with no card in hand and none on the table has won, and the game ends;
  3. otherwise play one card in front of you; 4. cards of the same printed number form a
  group of strength number x cards (a card whose number equals another group's total, e.g.
  a 6 beside two 3s, stays a group of its own), and the new card's group flushes every
  group strictly weaker than it: those cards are discarded and each of their players draws
  one card (in turn order from the active player's left; the discard is reshuffled into a
  new draw pile when a draw finds the pile empty, and with both piles empty nobody draws).
  Equal strength does nothing; cards already on the table never flush a newly played card.
- Steps 1 and 2 of the next player's turn are carried out as soon as the turn passes to
  them, so several players can win at once, also during another player's turn; every member
  of a pushed group counts one ``pushed_through``.
- The scorekeeper records only ``deal`` and ``play`` (and, in ``open`` games, optional
  ``draw`` events naming a drawn card): pushes, flushes, draws and wins are derived.

Knowledge: a hand is *known cards + a count of unknown cards*. In ``table`` visibility every
card in a hand is unknown; in ``open`` visibility the deal is known and drawn cards are
unknown until a ``draw`` names them. Conservation against the deck's counts is always
enforced. Fuji Flush has no rule that depends on the rest of a hand (any card may be
played), so there is never a later-proven irregularity to flag. There is no score, so no
``adjust``.

The state is immutable: the turns played so far are a persistent linked list shared from
one state to the next, so ``apply`` costs the same on turn 5 as on turn 5000.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

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
    player_result,
    plural,
    public_once_over,
    redact_fields,
    visibility_words,
)
from engine.core import evolve as replace
from engine.interface import PlayUnit, Starter

GAME = "fuji_flush"
#: What the texts call the game's one deal and its play (issue 10: Fuji Flush is a game of rounds).
HAND_WORD = "round"
#: The score sheet's columns per player (docs/export.md): one row per turn.
SHEET = SheetColumns(("turn", "player", "card played"), "cards held", "change in cards held", "cards held after the turn",
                     per_turn=True)
RULES_VERSION = 1
SPEC = "rules/fuji_flush.md"
#: What a hand is played in (turns, one card each): its hand view lists them, ``position`` counts them.
PLAY_UNIT: PlayUnit = "turn"
#: The counters of :func:`results` this game has (none: a hand has no tricks, Fools, knocks or stops).
COUNTERS: tuple[str, ...] = ()
#: The ``POST /games`` field naming who starts (the service stores it in ``game_created``).
STARTER: Starter = "first_player"

LOW, HIGH = 2, 20
#: The published deck ("Cards"): value -> copies, 90 cards.
PUBLISHED_DECK: dict[int, int] = {
    2: 16, 3: 12, 4: 9, 5: 8, 6: 6, 7: 6, 8: 5, 9: 4, 10: 4, 11: 4,
    12: 3, 13: 3, 14: 3, 15: 2, 16: 1, 17: 1, 18: 1, 19: 1, 20: 1,
}
MIN_PLAYERS, MAX_PLAYERS = 3, 8
#: Upper bounds that keep a custom deck sane (not in the rules file).
MAX_COPIES, MAX_HAND_SIZE = 999, 30


def parse_card(value: object) -> int:
    """The canonical Fuji Flush card for ``value``: an integer 2..20.

    Accepts an ``int`` or a string of digits (``"14"``, ``" 7 "``). Booleans, floats and
    anything outside 2..20 raise ``ValueError`` with a readable message (cards.md).
    """
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(f"{value!r} is not a Fuji Flush card: give a whole number from {LOW} to {HIGH}.")
    if isinstance(value, str):
        text = value.strip()
        if not (text.isascii() and text.isdigit()) or len(text) > 4:
            raise ValueError(f"{value!r} is not a Fuji Flush card: give a whole number from {LOW} to {HIGH}.")
        value = int(text)
    if not LOW <= value <= HIGH:
        raise ValueError(f"{value} is not a Fuji Flush card: cards are numbered {LOW} to {HIGH}.")
    return value


# --------------------------------------------------------------------------- options


@fast_init
@dataclass(frozen=True, slots=True)
class Options:
    """The resolved options: ``hand_size`` and the ``deck`` as copies by value (index 0..20)."""

    hand_size: int
    deck: tuple[int, ...]

    @property
    def deck_size(self) -> int:
        """The number of cards in the deck (90 for the published deck, "Cards")."""
        return sum(self.deck)


def default_hand_size(players: int) -> int:
    """6 cards each with 3-6 players, 5 with 7-8 ("Setup")."""
    return 6 if players <= 6 else 5


def _deck_option(raw: object) -> dict[int, int]:
    """Check option ``deck`` ("Cards"): value strings "2".."20" -> positive copies."""
    if not isinstance(raw, Mapping):
        raise OptionError("deck", 'Give the deck as an object from value to copies, e.g. {"2": 16, "3": 12}.')
    out: dict[int, int] = {}
    for key, copies in raw.items():
        try:
            value = parse_card(key)
        except ValueError as err:
            raise OptionError("deck", f"{key!r} is not a card value: values are {LOW} to {HIGH}.") from err
        if value in out:
            raise OptionError("deck", f"Value {value} is listed twice.")
        if isinstance(copies, bool) or not isinstance(copies, int) or not 1 <= copies <= MAX_COPIES:
            raise OptionError("deck", f"The number of {value}s must be a whole number from 1 to {MAX_COPIES}.")
        out[value] = copies
    return out


def resolve_options(raw: Mapping[str, Any], players: list[str]) -> dict[str, Any]:
    """Return every option with defaults filled in, as a JSON object.

    ``raw`` holds the options given at creation; the result is ``{"hand_size": n, "deck":
    {"2": 16, …}}`` (the whole deck, values in order). Raises :class:`OptionError` for a
    seat count outside 3-8, an unknown option, a ``hand_size`` that is not 1-30, a ``deck``
    with a value outside 2-20 or copies that are not positive whole numbers, or a deck too
    small for the deal ("Cards", "Setup").
    """
    check_seats("Fuji Flush", players, MIN_PLAYERS, MAX_PLAYERS)
    for name in raw:
        if name not in ("hand_size", "deck"):
            raise OptionError(name, "Unknown option for Fuji Flush (options: hand_size, deck).")
    hand_size = raw.get("hand_size")
    if hand_size is None:
        hand_size = default_hand_size(len(players))
    if isinstance(hand_size, bool) or not isinstance(hand_size, int) or not 1 <= hand_size <= MAX_HAND_SIZE:
        raise OptionError("hand_size", f"The hand size must be a whole number from 1 to {MAX_HAND_SIZE}.")
    deck = PUBLISHED_DECK if raw.get("deck") is None else _deck_option(raw["deck"])
    needed = hand_size * len(players)
    if sum(deck.values()) < needed:
        raise OptionError(
            "deck", f"The deck holds {sum(deck.values())} cards: dealing {hand_size} to {len(players)} players needs {needed}."
        )
    return {"hand_size": hand_size, "deck": {str(value): deck[value] for value in sorted(deck)}}


def _options(resolved: Mapping[str, Any]) -> Options:
    """The :class:`Options` of a ``resolve_options`` result (deck keys "2".."20" to indexes)."""
    counts = [0] * (HIGH + 1)
    for key, copies in resolved["deck"].items():
        counts[int(key)] = int(copies)
    return Options(int(resolved["hand_size"]), tuple(counts))


# --------------------------------------------------------------------------- state


@fast_init
@dataclass(frozen=True, slots=True)
class Holding:
    """What is known of one hand: ``known`` cards (sorted, with repeats) + ``unknown`` ones."""

    known: tuple[int, ...] = ()
    unknown: int = 0

    @property
    def size(self) -> int:
        return len(self.known) + self.unknown

    def without(self, card: int) -> Holding:
        """The holding after ``card`` leaves it (a known copy first, else an unknown card)."""
        if card in self.known:
            i = self.known.index(card)
            return Holding(self.known[:i] + self.known[i + 1 :], self.unknown)
        return Holding(self.known, self.unknown - 1)


@fast_init
@dataclass(frozen=True, slots=True)
class Group:
    """Cards on the table with the same printed ``number``, in front of ``seats`` ("A turn", 4)."""

    number: int
    seats: tuple[int, ...]

    @property
    def strength(self) -> int:
        """Number x cards ("A turn", 4): the group's *total*."""
        return self.number * len(self.seats)


@fast_init
@dataclass(frozen=True, slots=True)
class Turn:
    """One recorded play and everything the engine derived from it.

    ``group`` is the new card's group after the play, ``joined`` the seats already in it,
    ``flushed`` the groups it flushed, ``drawers`` the flushed players in draw order,
    ``missed`` those who found both piles empty, ``equal`` the groups exactly as strong,
    ``reshuffles`` how often the discard became the draw pile; then the turn passed to
    ``next_seat``, whose surviving group ``pushed`` was pushed through, and ``winners``.
    """

    number: int
    seq: int
    seat: int
    card: int
    group: Group
    joined: tuple[int, ...]
    flushed: tuple[Group, ...]
    drawers: tuple[int, ...]
    missed: tuple[int, ...]
    equal: tuple[Group, ...]
    totals: tuple[Group, ...]  # groups whose total equals the card: it does not join them
    reshuffles: int
    next_seat: int
    pushed: Group | None
    winners: tuple[int, ...]


@fast_init
@dataclass(frozen=True, slots=True)
class Named:
    """A ``draw`` event: ``seat`` is recorded to have drawn ``card`` (open visibility)."""

    seq: int
    seat: int
    card: int


@dataclass(frozen=True, slots=True, eq=False)
class Chain:
    """A persistent stack (newest on top): ``head`` on ``rest``; ``size`` items in all.

    Equality walks the stack in a loop (no recursion, whatever the length of the game).
    """

    head: Any
    rest: Chain | None
    size: int

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Chain):
            return NotImplemented
        mine: Chain | None = self
        theirs: Chain | None = other
        while mine is not None and theirs is not None:
            if mine is theirs:
                return True
            if mine.size != theirs.size or mine.head != theirs.head:
                return False
            mine, theirs = mine.rest, theirs.rest
        return mine is None and theirs is None

    def __hash__(self) -> int:
        return hash((self.size, self.head))


def _push(chain: Chain | None, item: Any) -> Chain:
    return Chain(item, chain, 1 if chain is None else chain.size + 1)


def _items(chain: Chain | None) -> list[Any]:
    """The items of ``chain``, oldest first."""
    out: list[Any] = []
    while chain is not None:
        out.append(chain.head)
        chain = chain.rest
    out.reverse()
    return out


@dataclass(frozen=True)  # no slots: evolve copies a __dict__ as one new dictionary
class State:
    """A whole game of Fuji Flush (one hand: from the deal to the winners).

    ``table`` holds each seat's card in front of them (or None); ``seen`` counts, by value,
    the copies whose place is known (known hand cards, the table, the discard pile);
    ``discard`` counts the discard pile by value (every card in it was seen face up).
    """

    options: Options
    visibility: str
    names: tuple[str, ...]
    first: int
    active: int
    dealt: bool = False
    deal_seq: int = 0
    dealt_hands: tuple[Holding, ...] = ()
    holdings: tuple[Holding, ...] = ()
    table: tuple[int | None, ...] = ()
    pushed_through: tuple[int, ...] = ()
    drawn: tuple[int, ...] = ()
    seen: tuple[int, ...] = (0,) * (HIGH + 1)
    discard: tuple[int, ...] = (0,) * (HIGH + 1)
    draw_pile: int = 0
    reshuffles: int = 0
    turns: Chain | None = None
    named: Chain | None = None
    winners: tuple[int, ...] = ()
    finished: bool = False
    rules_version: int = RULES_VERSION

    @property
    def discard_size(self) -> int:
        return sum(self.discard)


def initial_state(created: Mapping[str, Any]) -> State:
    """The state right after ``game_created`` (players, options, visibility, first player).

    Raises :class:`OptionError` when the options or seats are not valid for Fuji Flush, the
    first player is not seated, a ``dealer`` is given (Fuji Flush names a ``first_player``)
    or the rules version is unknown.
    """
    names = tuple(created["players"])
    options = _options(resolve_options(created.get("options") or {}, list(names)))
    if created.get("dealer") is not None:
        raise OptionError("dealer", "Fuji Flush has no dealer: name the first_player instead.")
    first = created.get("first_player") or names[0]
    if first not in names:
        raise OptionError("first_player", f"{first!r} is not one of the players.")
    version = int(created.get("rules_version", RULES_VERSION))
    if version != RULES_VERSION:
        raise OptionError("rules_version", f"Fuji Flush rules version {version} is unknown (this is version {RULES_VERSION}).")
    visibility = created.get("visibility") or "table"
    count = len(names)
    seat = names.index(first)
    return State(
        options,
        visibility,
        names,
        seat,
        seat,
        holdings=(Holding(),) * count,
        table=(None,) * count,
        pushed_through=(0,) * count,
        drawn=(0,) * count,
    )


# --------------------------------------------------------------------------- helpers


def _set(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return values[:index] + (value,) + values[index + 1 :]


def _bump(counts: tuple[int, ...], value: int, amount: int = 1) -> tuple[int, ...]:
    return _set(counts, value, counts[value] + amount)


def _seat(state: State, name: str) -> int:
    try:
        return state.names.index(name)
    except ValueError as err:  # the schema checks names; a stored log could still be odd
        raise RulesError("not_your_turn", f"{name} is not a player in this game.") from err


def groups(table: tuple[int | None, ...] | list[int | None]) -> list[Group]:
    """The groups on the table, by number, lowest first ("A turn", 4).

    Cards join by printed number only: a card whose number equals another group's total
    (its strength, e.g. a 6 beside two 3s) forms a group of its own.
    """
    seats: dict[int, list[int]] = {}
    for seat, card in enumerate(table):
        if card is not None:
            seats.setdefault(card, []).append(seat)
    return [Group(number, tuple(seats[number])) for number in sorted(seats)]


def group_of(table: tuple[int | None, ...] | list[int | None], number: int) -> Group:
    """The group of ``number`` on ``table`` (seats in seat order)."""
    return Group(number, tuple(s for s, card in enumerate(table) if card == number))


def unplaced(state: State, card: int) -> int:
    """Copies of ``card`` whose place is not known: in the draw pile or an unknown hand card."""
    return state.options.deck[card] - state.seen[card]


def available(state: State, seat: int, card: int) -> bool:
    """Conservation (recording.md, "Knowledge" 1): can ``seat`` still hold ``card``?

    It can when the card is one of their known cards, or when they hold an unknown card and
    not every copy of the deck ("Cards", option ``deck``) is known to be elsewhere.
    """
    holding = state.holdings[seat]
    return card in holding.known or (holding.unknown > 0 and unplaced(state, card) > 0)


def _where(state: State, card: int) -> str:
    """Say where the copies of ``card`` are known to be."""
    copies = state.options.deck[card]
    if copies == 0:
        return f"this deck has no {card}"
    places: list[str] = []
    table = [state.names[s] for s, c in enumerate(state.table) if c == card]
    if table:
        places.append(f"on the table in front of {name_list(table)}")
    for seat, holding in enumerate(state.holdings):
        held = holding.known.count(card)
        if held:
            places.append(f"in {state.names[seat]}'s hand" + (f" ({held})" if held > 1 else ""))
    if state.discard[card]:
        places.append(f"in the discard pile ({state.discard[card]})" if state.discard[card] > 1 else "in the discard pile")
    where = "; ".join(places) if places else "elsewhere"
    every = "the only one" if copies == 1 else f"all {copies} copies"
    return f"the deck has {copies} and {every} {'is' if copies == 1 else 'are'} known to be elsewhere: {where}"


def _not_available(state: State, seat: int, card: int) -> RulesError:
    name = state.names[seat]
    holding = state.holdings[seat]
    if holding.unknown == 0 and unplaced(state, card) > 0:
        cards = " ".join(str(c) for c in holding.known) or "no cards"
        why = f"{name} is known to hold {cards}"
    else:
        why = _where(state, card)
    return RulesError("card_not_available", f"{name} cannot have a {card}: {why}.")


def to_act(state: State) -> list[int]:
    """The seat that must play next (``[]`` before the deal and once the game is over)."""
    if not state.dealt or state.finished:
        return []
    return [state.active]


def phase(state: State) -> str:
    """``deal`` (waiting for the deal), ``playing`` or ``game_over``."""
    if state.finished:
        return "game_over"
    return "playing" if state.dealt else "deal"


# --------------------------------------------------------------------------- checks


def check_playing(state: State, what: str) -> None:
    """The game is dealt and not over: else ``game_over`` or ``wrong_phase``.

    ``what`` names the action for the message ("a card is played").
    """
    if state.finished:
        raise RulesError("game_over", f"The game is over ({name_list([state.names[s] for s in state.winners])} won): nothing more can be recorded.")
    if not state.dealt:
        raise RulesError("wrong_phase", f"The cards have not been dealt yet: record the deal before {what}.")


def check_play(state: State, seat: int) -> None:
    """Everything about a play that does not depend on the card: phase and turn ("A turn", 3).

    Raises ``game_over``, ``wrong_phase`` (before the deal) or ``not_your_turn``.
    """
    check_playing(state, "a card is played")
    if seat != state.active:
        raise RulesError("not_your_turn", f"It is {state.names[state.active]}'s turn to play, not {state.names[seat]}'s.")


def check_card(state: State, seat: int, card: int) -> None:
    """Conservation for a card ``seat`` wants to play: any card in hand is legal ("A turn", 3).

    Raises ``card_not_available`` when ``seat`` cannot hold ``card`` (recording.md, "Knowledge").
    """
    if not available(state, seat, card):
        raise _not_available(state, seat, card)


def check_draw(state: State, seat: int) -> None:
    """May a ``draw`` name a card for ``seat`` ("Actions": open visibility only)?

    Only while the game runs and ``seat`` holds a drawn card that is still unknown: else
    ``game_over`` or ``wrong_phase``.
    """
    check_playing(state, "a drawn card is named")
    name = state.names[seat]
    if state.visibility != "open":
        raise RulesError("wrong_phase", "Drawn cards can only be named in a game with open visibility.")
    if state.holdings[seat].unknown == 0:
        raise RulesError("wrong_phase", f"{name} holds no drawn card that is still unknown: every card in their hand is known.")


def check_drawn_card(state: State, seat: int, card: int) -> None:
    """Conservation for a card named by a ``draw``: some copy's place must still be unknown.

    Raises ``card_not_available`` when every copy of ``card`` in the deck is known elsewhere.
    """
    if unplaced(state, card) <= 0:
        raise RulesError("card_not_available", f"{state.names[seat]} cannot have drawn a {card}: {_where(state, card)}.")


# --------------------------------------------------------------------------- reducer


def apply(state: State, action: Action) -> State:
    """Return the state after ``action``; raise :class:`RulesError` if it is illegal now.

    ``action`` is ``{"type": ..., **fields}`` with canonical cards (integers) and seat
    names; ``seq`` (the event number, kept for the audit) may be given. Types: ``deal``
    (optional ``hands`` in open games), ``play`` (``player``, ``card``) and ``draw``
    (``player``, ``card``: open games only) ("Actions"). Codes: ``wrong_phase``,
    ``game_over``, ``not_your_turn``, ``card_not_available``, ``wrong_card_count`` (an
    open deal with the wrong number of cards).
    """
    handler = HANDLERS.get(action["type"])
    if handler is None:
        raise RulesError("wrong_phase", f"'{action['type']}' is not an action of Fuji Flush.")
    return handler(state, action, int(action.get("seq", 0)))


def _deal(state: State, action: Action, seq: int) -> State:
    """Deal ``hand_size`` cards each; the rest is the draw pile ("Setup")."""
    if state.finished:
        raise RulesError("game_over", "The game is over: there is nothing more to deal.")
    if state.dealt:
        raise RulesError("wrong_phase", "The cards have already been dealt: Fuji Flush has a single deal.")
    size = state.options.hand_size
    count = len(state.names)
    hands: Mapping[str, list[int]] | None = action.get("hands")
    seen = state.seen
    if state.visibility == "open":
        holdings = _open_hands(state, hands)
        for holding in holdings:
            for card in holding.known:
                seen = _bump(seen, card)
    else:
        if hands is not None:
            raise RulesError("wrong_phase", "A table game's deal lists no cards.")
        holdings = (Holding((), size),) * count
    return replace(
        state,
        dealt=True,
        deal_seq=seq,
        dealt_hands=holdings,
        holdings=holdings,
        seen=seen,
        draw_pile=state.options.deck_size - size * count,
    )


def _open_hands(state: State, hands: Mapping[str, list[int]] | None) -> tuple[Holding, ...]:
    """Check an open deal: every player, ``hand_size`` cards each, within the deck's counts."""
    size = state.options.hand_size
    if hands is None:
        raise RulesError("wrong_card_count", f"An open game's deal must list every player's {plural(size, 'card')}.")
    missing = [n for n in state.names if n not in hands]
    if missing or len(hands) != len(state.names):
        raise RulesError("wrong_card_count", f"The deal must list every player's cards (missing: {name_list(missing)}).")
    used = [0] * (HIGH + 1)
    for name, cards in hands.items():
        if len(cards) != size:
            raise RulesError("wrong_card_count", f"{name} must be dealt {plural(size, 'card')}, not {len(cards)}.")
        for card in cards:
            used[card] += 1
    for card, copies in enumerate(used):
        if copies > state.options.deck[card]:
            have = state.options.deck[card]
            raise RulesError(
                "card_not_available", f"The deal holds {plural(copies, 'card')} numbered {card}, but the deck has {have or 'none'}."
            )
    return tuple(Holding(tuple(sorted(hands[n])), 0) for n in state.names)


@dataclass(slots=True)
class Work:
    """A mutable working copy of what one play changes, frozen back into the state once.

    (Copying the whole frozen state after every flush, draw and push would cost more than
    the rules themselves.)
    """

    holdings: list[Holding]
    table: list[int | None]
    seen: list[int]
    discard: list[int]
    draw_pile: int
    drawn: list[int]
    pushed_through: list[int]
    reshuffles: int

    @classmethod
    def of(cls, state: State) -> Work:
        return cls(list(state.holdings), list(state.table), list(state.seen), list(state.discard), state.draw_pile,
                   list(state.drawn), list(state.pushed_through), state.reshuffles)

    def frozen(self, state: State, **changes: Any) -> State:
        return replace(
            state,
            holdings=tuple(self.holdings),
            table=tuple(self.table),
            seen=tuple(self.seen),
            discard=tuple(self.discard),
            draw_pile=self.draw_pile,
            drawn=tuple(self.drawn),
            pushed_through=tuple(self.pushed_through),
            reshuffles=self.reshuffles,
            **changes,
        )


def _play(state: State, action: Action, seq: int) -> State:
    """Play a card, resolve flushes and draws, pass the turn on ("A turn", 3-5)."""
    seat = _seat(state, action["player"])
    card: int = action["card"]
    check_play(state, seat)
    check_card(state, seat, card)
    work = Work.of(state)
    holding = work.holdings[seat]
    if card not in holding.known:  # an unknown card becomes known as it is played
        work.seen[card] += 1
    work.holdings[seat] = holding.without(card)
    work.table[seat] = card
    return _resolve(state, work, seat, card, seq)


def flushes(table: tuple[int | None, ...] | list[int | None], card: int,
            on_table: list[Group] | None = None) -> tuple[Group, list[Group], list[Group]]:
    """The new card's group, the groups it flushes and those exactly as strong ("A turn", 4).

    Only the group of the card just played flushes: every *other* group strictly weaker
    than it; equal strength does nothing, stronger groups stay. ``on_table``: the
    :func:`groups` of ``table``, when the caller has them already.
    """
    if on_table is None:
        on_table = groups(table)
    mine = next((group for group in on_table if group.number == card), None) or Group(card, ())  # group_of(table, card)
    weaker, equal = [], []
    for other in on_table:
        if other.number == card:
            continue
        if other.strength < mine.strength:
            weaker.append(other)
        elif other.strength == mine.strength:
            equal.append(other)
    return mine, weaker, equal


def draw_order(seats: int, active: int, drawers: set[int]) -> tuple[int, ...]:
    """Flushed players in turn order starting left of the active player ("A turn", draws).

    ``seats`` is the table size, ``active`` the seat that played, ``drawers`` the flushed
    seats; the next seat clockwise is the one on the active player's left.
    """
    return tuple(s for s in ((active + i) % seats for i in range(1, seats)) if s in drawers)


def _resolve(state: State, work: Work, seat: int, card: int, seq: int) -> State:
    """Step 4 and 5 of ``seat``'s turn, then steps 1 and 2 of the next player's ("A turn")."""
    on_table = groups(work.table)
    totals = tuple(g for g in on_table if g.number != card and len(g.seats) > 1 and g.strength == card)
    mine, weaker, equal = flushes(work.table, card, on_table)
    for flushed in weaker:  # flushed cards go to the discard before anyone draws
        for member in flushed.seats:
            work.table[member] = None
        work.discard[flushed.number] += len(flushed.seats)
    order = draw_order(len(state.names), seat, {s for g in weaker for s in g.seats})
    missed = tuple(drawer for drawer in order if not _draw(work, drawer))
    nxt = (seat + 1) % len(state.names)
    pushed = _push_through(work, nxt)
    winners = _winners(work)
    turn = Turn(
        number=state.turns.size + 1 if state.turns is not None else 1,
        seq=seq,
        seat=seat,
        card=card,
        group=mine,
        joined=tuple(s for s in mine.seats if s != seat),
        flushed=tuple(weaker),
        drawers=order,
        missed=missed,
        equal=tuple(equal),
        totals=totals,
        reshuffles=work.reshuffles - state.reshuffles,
        next_seat=nxt,
        pushed=pushed,
        winners=winners,
    )
    return work.frozen(state, active=nxt, turns=_push(state.turns, turn), winners=winners, finished=bool(winners))


def _draw(work: Work, seat: int) -> bool:
    """``seat`` draws one card; False when there is none ("A turn": draws).

    A draw that finds the draw pile empty first shuffles the discard pile into a new one;
    its cards go back to being unknown. With both piles empty no card is drawn.
    """
    if work.draw_pile == 0:
        if not any(work.discard):
            return False
        work.draw_pile = sum(work.discard)
        work.seen = [s - d for s, d in zip(work.seen, work.discard, strict=True)]
        work.discard = [0] * (HIGH + 1)
        work.reshuffles += 1
    holding = work.holdings[seat]
    work.draw_pile -= 1
    work.holdings[seat] = Holding(holding.known, holding.unknown + 1)
    work.drawn[seat] += 1
    return True


def _push_through(work: Work, seat: int) -> Group | None:
    """Step 1 of ``seat``'s turn: their surviving card goes, with its whole group, and nobody draws ("A turn", 1)."""
    card = work.table[seat]
    if card is None:
        return None
    group = group_of(work.table, card)
    for member in group.seats:
        work.table[member] = None
        work.pushed_through[member] += 1
    work.discard[card] += len(group.seats)
    return group


def _winners(work: Work) -> tuple[int, ...]:
    """Step 2: everyone with no card in hand and none on the table has won ("A turn", 2).

    Every seat is checked, not just the active one: several players can win at once, also
    during another player's turn (their card pushed through in the group of the player whose
    turn begins).
    """
    return tuple(s for s, holding in enumerate(work.holdings)
                 if not holding.unknown and not holding.known and work.table[s] is None)  # holding.size == 0


def _draw_named(state: State, action: Action, seq: int) -> State:
    """A ``draw`` event: one of the player's unknown drawn cards is ``card`` ("Actions")."""
    seat = _seat(state, action["player"])
    card: int = action["card"]
    check_draw(state, seat)
    check_drawn_card(state, seat, card)
    holding = state.holdings[seat]
    holding = Holding(tuple(sorted((*holding.known, card))), holding.unknown - 1)
    return replace(
        state,
        holdings=_set(state.holdings, seat, holding),
        seen=_bump(state.seen, card),
        named=_push(state.named, Named(seq, seat, card)),
    )


HANDLERS: dict[str, Callable[[State, Action, int], State]] = {
    "deal": _deal,
    "play": _play,
    "draw": _draw_named,
}


# --------------------------------------------------------------------------- what may be recorded


def _allowed(check: Callable[..., object], *args: Any) -> bool:
    """True when ``check(*args)`` raises no :class:`RulesError`."""
    try:
        check(*args)
    except RulesError:
        return False
    return True


def legal_actions(state: State, full: bool) -> list[dict[str, Any]]:
    """What can be recorded next: ``[{"type", "player", "cards"}]`` (api.md, ``actions``).

    Built on the same checks as :func:`apply`. ``cards`` lists the exact legal cards when
    the player's whole hand is known to the viewer (``full``: the scorekeeper of an open
    game), else ``None``. In open games a ``draw`` entry is offered for every player who
    holds an unnamed drawn card. The deal has no player (``None``).
    """
    if state.finished:
        return []
    if not state.dealt:
        return [{"type": "deal", "player": None, "cards": None}]
    out: list[dict[str, Any]] = []
    for seat in to_act(state):
        if _allowed(check_play, state, seat):
            holding = state.holdings[seat]
            legal: list[int] | None = None
            if (full or state.visibility == "table") and holding.unknown == 0:
                legal = [c for c in sorted(set(holding.known)) if _allowed(check_card, state, seat, c)]
            out.append({"type": "play", "player": state.names[seat], "cards": legal})
    for seat, name in enumerate(state.names):
        if _allowed(check_draw, state, seat):
            cards = [c for c in range(LOW, HIGH + 1) if _allowed(check_drawn_card, state, seat, c)]
            out.append({"type": "draw", "player": name, "cards": cards if full else None})
    return out



def public_state(state: State) -> State:
    """The state as a reader without the token knows it (api.md, "Views and secrets"):
    unchanged, as nothing this game computes for a public reader reads a hidden hand
    (tests/test_public_reads_ignore_hidden_cards.py checks every public read)."""
    return state


def possible(state: State, player: str) -> list[int] | None:
    """The cards ``player`` could still hold as far as the table knows, in deck order, or
    None in an ``open`` game or when no hand is in play (api.md, ``actions``: ``possible``).

    Conservation only (recording.md, "Knowledge" 1: not played, not known to be
    elsewhere, counting the deck's copies of each number); ``GET …/actions`` gives it to every play whose ``cards`` is
    null. Raises ``ValueError`` for a name not at the table.
    """
    if state.visibility != "table" or not state.dealt:
        return None
    seat = state.names.index(player)
    return [card for card in range(LOW, HIGH + 1) if available(state, seat, card)]


# --------------------------------------------------------------------------- views


#: ``finished`` once somebody has won, else ``in_progress`` (engine.core.finished_status).
status = finished_status


def hand_number(state: State) -> int:
    """1 once the cards are dealt (Fuji Flush has one hand), 0 before."""
    return 1 if state.dealt else 0


def hand_over(state: State, number: int) -> bool:
    """True when hand ``number`` (only 1 exists) is over: the game is finished."""
    return state.finished and number == 1


#: Fields that carry cards hidden from the public: an open deal's hands, a named drawn card.
HIDDEN = {"deal": ("hands",), "draw": ("card",)}


def redact(action: Mapping[str, Any]) -> dict[str, Any]:
    """The public copy of a stored action: dealt hands and the card a ``draw`` names are left out."""
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

#: A card as the short phrases of ``engine.stream.summary`` write it: the number as is (``20``).
card_text = str


def results(state: State) -> dict[str, dict[str, Any]]:
    """Each player's result and stats for match histories (same keys in every game).

    ``result`` is ``won``/``lost`` once the game is over (else ``in_progress``); Fuji Flush
    has no score (``score`` and ``unit`` are None), one hand (``hands`` 1 once dealt) and
    no tricks, Fools, knocks or stops (None).
    """
    out: dict[str, dict[str, Any]] = {}
    for seat, name in enumerate(state.names):
        out[name] = player_result(seat, seat in state.winners if state.finished else None, None, None,
                                  1 if state.dealt else 0)
    return out


def score_sheet(state: State) -> list[dict[str, Any]]:
    """One row per turn: ``turn``, ``player`` (who played), ``card played``, then each
    player's change in cards held (hand and table) during the turn (``"<name> change in
    cards held"``: -1 flushed or pushed through, +1 drawn) and cards held after it
    (``"<name> cards held after the turn"``) (:data:`SHEET`); a player with no card left
    after a turn has won."""
    names = state.names
    held = [state.options.hand_size] * len(names)
    rows: list[dict[str, Any]] = []
    for turn in _items(state.turns):
        change = [0] * len(names)
        for group in turn.flushed:
            for seat in group.seats:
                change[seat] -= 1
        for seat in turn.drawers:
            if seat not in turn.missed:
                change[seat] += 1
        if turn.pushed is not None:
            for seat in turn.pushed.seats:
                change[seat] -= 1
        row: dict[str, Any] = {"turn": turn.number, "player": names[turn.seat], "card played": turn.card}
        for seat, name in enumerate(names):
            held[seat] += change[seat]
            change_column, total_column = SHEET.of(name)
            row[change_column] = change[seat]
            row[total_column] = held[seat]
        rows.append(row)
    return rows


def _names(state: State, seats: tuple[int, ...] | list[int]) -> list[str]:
    return [state.names[s] for s in seats]


def _group_json(state: State, group: Group) -> dict[str, Any]:
    return {"number": group.number, "players": _names(state, group.seats), "strength": group.strength}


def _turn_json(state: State, turn: Turn) -> dict[str, Any]:
    return {
        "number": turn.number,
        "seq": turn.seq,
        "player": state.names[turn.seat],
        "card": turn.card,
        "group": _group_json(state, turn.group),
        "joined": _group_json(state, Group(turn.card, turn.joined)) if turn.joined else None,
        "flushed": _names(state, turn.drawers),
        "flushed_groups": [_group_json(state, g) for g in turn.flushed],
        "drew": [state.names[s] for s in turn.drawers if s not in turn.missed],
        "reshuffled": turn.reshuffles > 0,
        "next_player": state.names[turn.next_seat],
        "pushed_through": _group_json(state, turn.pushed) if turn.pushed is not None else None,
        "winners": _names(state, turn.winners),
    }


def _describe(state: State, group: Group) -> str:
    """``"Nami's 6"`` for one card, ``"the 7s of Nami and Gahee"`` for a group of several."""
    if len(group.seats) == 1:
        return f"{state.names[group.seats[0]]}'s {group.number}"
    return f"the {group.number}s of {name_list(_names(state, group.seats))}"


def _verb(group: Group, one: str, many: str) -> str:
    return one if len(group.seats) == 1 else many


def explain(state: State, turn: Turn) -> str:
    """One turn in words, e.g. "Jisu played 20: Nami, Gahee and Yeonsu are flushed and draw."."""
    names = state.names
    text = f"{names[turn.seat]} played {turn.card}"
    if turn.joined:
        text += f", joining {_describe(state, Group(turn.card, turn.joined))} (strength {turn.group.strength})"
    flushed = _names(state, turn.drawers)
    if flushed:
        verb = "is flushed and draws" if len(flushed) == 1 else "are flushed and draw"
        text += f": {name_list(flushed)} {verb}"
        if turn.missed:
            text += f" ({name_list(_names(state, turn.missed))} found no card to draw)"
        if turn.reshuffles:
            text += "; the discard pile was shuffled into a new draw pile"
    else:
        text += ": nothing is flushed"
    notes = [
        f"{turn.card} does not join {_describe(state, g)}, whose total is {g.strength}: only equal numbers join"
        for g in turn.totals
    ]
    notes += [
        f"{_describe(state, g)} {_verb(g, 'is', 'are')} as strong ({g.strength}) and {_verb(g, 'stays', 'stay')}"
        for g in turn.equal
    ]
    if notes:
        text += "; " + "; ".join(notes)
    text += "."
    if turn.pushed is not None:
        pushed = turn.pushed
        text += f" {names[turn.next_seat]}'s {pushed.number} survived a full round: "
        if len(pushed.seats) == 1:
            text += "it is pushed through."
        else:
            text += f"{_describe(state, pushed)} are pushed through together, and nobody draws."
    if turn.winners:
        won = _names(state, turn.winners)
        text += f" {name_list(won)} {'has' if len(won) == 1 else 'have'} no cards left and "
        text += "wins." if len(won) == 1 else "win."
    return text


def view(state: State, full: bool) -> dict[str, Any]:
    """The API's ``state`` object (api.md "State"; ``rules/fuji_flush.md`` "State the API must expose").

    ``full`` is True for the scorekeeper (the game's token): in ``open`` games the cards in
    players' hands (``cards_known``) are shown only then, or once the game is over.

    Fuji Flush has one hand, the whole game (api.md, "Which hand is current"): once it is
    over every field keeps its value at the end; before the deal ``hand_number`` is 0,
    ``first_player`` the first player, lists (``groups``, ``turns``, ``cards_known``) are
    ``[]``, per-player counts 0, and ``table_card``, ``draw_pile_size``, ``discard_size``
    and ``reshuffles`` null.
    """
    names = state.names
    show = full or state.visibility == "table" or state.finished
    players = []
    for seat, name in enumerate(names):
        holding = state.holdings[seat]
        entry: dict[str, Any] = {
            "name": name,
            "seat": seat + 1,
            "hand_size": holding.size,
            "table_card": state.table[seat],
            "pushed_through": state.pushed_through[seat],
            "drawn": state.drawn[seat],
            "won": seat in state.winners,
        }
        if show:
            entry["cards_known"] = list(holding.known)
            entry["cards_unknown"] = holding.unknown
        players.append(entry)
    out: dict[str, Any] = {
        "status": status(state),
        "phase": phase(state),
        "to_act": _names(state, to_act(state)),
        "players": players,
        "hand_number": hand_number(state),
        "first_player": names[state.first],
        "groups": [_group_json(state, g) for g in groups(state.table)],
        "draw_pile_size": state.draw_pile if state.dealt else None,
        "discard_size": state.discard_size if state.dealt else None,
        "reshuffles": state.reshuffles if state.dealt else None,
        "turns": [_turn_json(state, t) for t in _items(state.turns)],
    }
    if state.finished:
        out["winners"] = _names(state, state.winners)
        out["losers"] = [n for s, n in enumerate(names) if s not in state.winners]
    return out


def hand_view(state: State, number: int, full: bool) -> dict[str, Any] | None:
    """``GET hands/1``: the whole game, each turn with an explanation in words.

    Returns None (404) for any other number, or before the deal. The dealt hands and named
    draws are shown to the scorekeeper (``full``), in table games (where they are never
    known) and once the game is over.
    """
    if number != 1 or not state.dealt:
        return None
    show = full or state.finished
    turns = []
    for turn in _items(state.turns):
        entry = _turn_json(state, turn)
        entry["explanation"] = explain(state, turn)
        turns.append(entry)
    out: dict[str, Any] = {
        "hand_number": 1,
        "first_player": state.names[state.first],
        "deal_seq": state.deal_seq,
        "players": list(state.names),
        "hand_size": state.options.hand_size,
        "turns": turns,
        "draw_pile_size": state.draw_pile,
        "discard_size": state.discard_size,
        "reshuffles": state.reshuffles,
        "irregularities": [],
        "result": None,
        "source": SPEC,
    }
    if show:
        out["hands"] = {
            name: {"known": list(h.known), "unknown": h.unknown} for name, h in zip(state.names, state.dealt_hands, strict=True)
        }
        out["draws"] = [{"seq": d.seq, "player": state.names[d.seat], "card": d.card} for d in _items(state.named)]
    if state.finished:
        won = _names(state, state.winners)
        last = state.turns.head if state.turns is not None else None
        out["result"] = {
            "winners": won,
            "losers": [n for n in state.names if n not in won],
            "seq": last.seq if last is not None else state.deal_seq,
            "reason": f"{name_list(won)} got rid of every card.",
        }
    return out


def trick_view(state: State, number: int, trick_number: int, full: bool) -> dict[str, Any] | None:
    """Fuji Flush has no tricks: always None (404)."""
    return None


def irregularities(state: State, number: int, full: bool) -> list[dict[str, Any]]:
    """Always ``[]``: no rule of Fuji Flush depends on a card hidden at the time, so nothing is
    ever proven irregular later (its hand view's ``irregularities`` is always empty)."""
    return []



# --------------------------------------------------------------------------- timeline


def describe(before: State, action: Action, after: State, full: bool) -> str:
    """One recorded action in plain words, with what the rules derived from it.

    ``before`` and ``after`` are the states around ``action`` (both the initial state for
    ``game_created``); ``full`` is False for a reader who may not see hidden cards (the card
    a ``draw`` names is then left out). A play is :func:`explain`\\ ed, e.g. "Jisu played
    20: Nami, Gahee and Yeonsu are flushed and draw."
    """
    kind = action["type"]
    names = before.names
    who = str(action.get("player", ""))
    if kind == "game_created":
        return (
            f"Fuji Flush for {name_list(list(names))} ({visibility_words(before.visibility)}, {plural(before.options.hand_size, 'card')} "
            f"each, {before.options.deck_size}-card deck): {names[before.first]} plays first."
        )
    if kind == "deal":
        return (
            f"The cards were dealt: {after.options.hand_size} each, {after.draw_pile} left in the draw pile; "
            f"{names[after.first]} plays first."
        )
    if kind == "play" and after.turns is not None and after.turns.head.seq == action.get("seq"):
        text: str = explain(after, after.turns.head)
        return text
    if kind == "draw":
        return f"{who} drew {action['card']}." if full and "card" in action else f"{who}'s drawn card was named."
    return f"{who} {kind}.".strip()


def position(state: State) -> int:
    """The turn in progress: the number the next play gets (1 after the deal), 0 before the
    deal. The audit places corrections and notes in turns by it."""
    if not state.dealt:
        return 0
    return (state.turns.size if state.turns is not None else 0) + 1
