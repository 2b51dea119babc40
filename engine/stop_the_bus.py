"""Stop the Bus: swap cards with the three in the middle; the weakest Brag hand loses a chip.

Rules from ``../shared/spec/rules/stop_the_bus.md`` (section names below in quotes), with the
knowledge model and undo of ``../shared/spec/recording.md``:

- 52 cards, A high, 2–10 players, each with ``chips`` chips (default 3) ("Cards and setup").
- A round: a ``deal`` of 3 cards to each player still in the game and 3 face up in the
  middle (``centre``, always recorded). The player left of the dealer starts; each turn is
  a ``swap`` of one hand card with one middle card (not the card just taken, unless
  ``allow_return``), or with ``swap_all`` the whole hand for the middle ("Turns").
- After their swap, until the next player acts, a player may ``stop`` the bus; on their
  first turn they may stop without swapping (``stop_without_swap``). Every other player then
  takes exactly one more turn, and the showdown follows ("Turns").
- At the showdown (``table`` visibility) every player ``show``\\ s 3 cards, checked against
  what is known; the weakest Brag hand(s) lose a chip, a player with no chips is out, and the
  game ends when at most one player has chips (``all_out`` for a last shared loss)
  ("Showdown"). Hand ranks are in :mod:`engine.brag`.

In ``table`` visibility a hand is *known cards + a count of unknown cards*: the cards taken
from the middle are known (they were face up). Conservation is always enforced (a card
given to the middle or shown must be able to be in that hand); no rule of this game depends
on a hidden card, so nothing needs to be flagged later.

The state is immutable: finished rounds (and rulings) are a persistent vector
(``pyrsistent.PVector``) shared from one state to the next, a finished round appended without
copying the others, so ``apply`` only rebuilds the current round and its cost does not grow
with the game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from pyrsistent import PVector, pvector

from engine.brag import HandRank, rank
from engine.cards import parse_french, pretty
from engine.core import (
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
    public_once_over,
    redact_fields,
    seat_after,
    visibility_words,
)
from engine.core import evolve as replace
from engine.interface import PlayUnit, Starter

GAME = "stop_the_bus"
#: What the texts call one deal and its play (rules/stop_the_bus.md: "round").
HAND_WORD = "round"
#: The score sheet's columns per player (docs/export.md).
SHEET = SheetColumns(("round", "dealer"), "chips", "chips won or lost this round", "chips left")
RULES_VERSION = 1
SPEC = "rules/stop_the_bus.md"
#: The ``game_created`` field naming who starts (who deals the first round).
STARTER: Starter = "dealer"
#: What a hand is played in (turns at the middle cards): its hand view lists them, ``position`` counts them.
PLAY_UNIT: PlayUnit = "turn"
#: The counters of :func:`results` this game has (buses stopped).
COUNTERS: tuple[str, ...] = ("stops",)

RANKS = "23456789TJQKA"
DECK = tuple(rank + suit for suit in "CDHS" for rank in RANKS)
HAND_CARDS = 3
CENTRE_CARDS = 3
MIN_PLAYERS, MAX_PLAYERS = 2, 10


def parse_card(value: object) -> str:
    """Canonical Stop the Bus card code for ``value`` (``"10h"`` → ``"TH"``); ``ValueError`` if none."""
    return parse_french(value, RANKS, "52-card")


# --------------------------------------------------------------------------- options


@fast_init
@dataclass(frozen=True, slots=True)
class Options:
    """Every option of ``rules/stop_the_bus.md`` with its default (the seed document's rules)."""

    chips: int = 3
    allow_return: bool = False
    swap_all: bool = False
    stop_without_swap: str = "first_turn"
    all_out: str = "shared_win"
    prial_order: str = "aces_high"
    ace_low_run: str = "invalid"


CHOICES = {
    "stop_without_swap": ("first_turn", "never", "always"),
    "all_out": ("shared_win", "replay_round"),
    "prial_order": ("aces_high", "threes_high"),
    "ace_low_run": ("invalid", "top", "bottom"),
}
FLAGS = ("allow_return", "swap_all")
MAX_CHIPS = 99


def resolve_options(raw: Mapping[str, Any], players: list[str]) -> dict[str, Any]:
    """Return every option with defaults filled in, as a JSON object.

    ``raw`` holds the options given at creation (already type-checked by the schema).
    Raises :class:`OptionError` for a seat count outside 2–10, an unknown option, a choice
    the rules do not offer, a non-boolean flag or ``chips`` outside 1–99.
    """
    check_seats("Stop the Bus", players, MIN_PLAYERS, MAX_PLAYERS)
    out = options_with_defaults("Stop the Bus", Options(), raw, choices=CHOICES)
    for name in FLAGS:
        if not isinstance(out[name], bool):
            raise OptionError(name, "Must be true or false.")
    chips = out["chips"]
    if isinstance(chips, bool) or not isinstance(chips, int) or not 1 <= chips <= MAX_CHIPS:
        raise OptionError("chips", f"The number of chips must be a whole number from 1 to {MAX_CHIPS}.")
    return out


# --------------------------------------------------------------------------- state


@fast_init
@dataclass(frozen=True, slots=True)
class Holding:
    """One player's hand: ``known`` cards plus ``unknown`` unseen ones.

    ``public`` is the part of ``known`` that everyone has seen (taken from the middle or
    shown); in ``table`` games it equals ``known``, in ``open`` games ``known`` also holds
    the dealt cards, which the public view hides until the round is over.
    """

    known: frozenset[str] = frozenset()
    unknown: int = 0
    public: frozenset[str] = frozenset()

    @property
    def size(self) -> int:
        return len(self.known) + self.unknown


@fast_init
@dataclass(frozen=True, slots=True)
class Turn:
    """One recorded turn: a ``swap``, a ``swap_all`` or a ``stop``, with its ``seq``.

    ``final`` marks the one more turn a player takes after the stop.
    """

    seat: int
    seq: int
    kind: str
    take: tuple[str, ...] = ()
    give: tuple[str, ...] = ()
    final: bool = False


@fast_init
@dataclass(frozen=True, slots=True)
class Show:
    """The three cards a player showed at the showdown (``seq`` of the ``show`` event)."""

    seat: int
    seq: int
    cards: tuple[str, ...]


@fast_init
@dataclass(frozen=True, slots=True)
class Result:
    """How a round ended: who lost a chip, the ranks compared, and why, in words.

    ``replayed``: the last players would all have gone out and ``all_out`` is
    ``replay_round``; ``abandoned``: the round ended without a showdown (a ruling).
    """

    losers: tuple[int, ...]
    ranks: tuple[tuple[int, HandRank], ...]
    reason: str
    eliminated: tuple[int, ...] = ()
    replayed: bool = False
    abandoned: bool = False


@dataclass(frozen=True)  # no slots: evolve copies a __dict__ as one new dictionary
class Round:
    """One round of Stop the Bus, from its deal to its result."""

    number: int
    dealer: int
    deal_seq: int
    players: tuple[int, ...]  # seats dealt in, clockwise
    in_round: tuple[bool, ...]  # by seat: dealt in and still in the game
    holdings: tuple[Holding, ...]  # by seat (empty for seats not dealt in)
    centre: tuple[str, ...]
    dealt_centre: tuple[str, ...]
    next_seat: int | None  # whose turn it is (before the stop)
    turns_taken: tuple[int, ...]  # by seat
    turns: tuple[Turn, ...] = ()
    may_stop: int | None = None  # the seat that just swapped and may still stop this turn
    stopped_by: int | None = None
    stop_seq: int | None = None
    final_due: tuple[int, ...] = ()  # seats still owed their one more turn, in order
    showdown: bool = False
    shows: tuple[Show, ...] = ()
    result: Result | None = None

    @property
    def shown(self) -> frozenset[int]:
        return frozenset([show.seat for show in self.shows])


@fast_init
@dataclass(frozen=True, slots=True)
class Adjustment:
    """A ruling (recording.md, "Bookkeeping actions"): ``amount`` chips asked for ``seat``,
    ``applied`` the change made (chips never go below 0), ``round`` the round in play or the
    last one dealt (0 before any deal)."""

    seat: int
    seq: int
    amount: int
    applied: int
    reason: str
    round: int


@dataclass(frozen=True)  # no slots: evolve copies a __dict__ as one new dictionary
class State:
    """A whole game of Stop the Bus. ``history`` holds finished rounds; ``round`` the one in play."""

    options: Options
    visibility: str
    names: tuple[str, ...]
    chips: tuple[int, ...]
    dealer: int  # who deals the next round (or dealt the current one)
    history: PVector[Round] = pvector()  # shared from state to state: a finished round is appended, never copied
    round: Round | None = None
    adjustments: PVector[Adjustment] = pvector()  # shared from state to state, like ``history``
    finished: bool = False
    winners: tuple[int, ...] = ()
    end_reason: str = ""
    rules_version: int = RULES_VERSION


def initial_state(created: Mapping[str, Any]) -> State:
    """The state right after ``game_created`` (players, options, visibility, dealer).

    Raises :class:`OptionError` when the options or seats are not valid for Stop the Bus.
    """
    names = tuple(created["players"])
    options = Options(**resolve_options(created.get("options") or {}, list(names)))
    dealer = created.get("dealer") or names[0]
    if dealer not in names:
        raise OptionError("dealer", f"{dealer!r} is not one of the players.")
    version = int(created.get("rules_version", RULES_VERSION))
    if version != RULES_VERSION:
        raise OptionError(
            "rules_version", f"Stop the Bus rules version {version} is unknown (this is version {RULES_VERSION})."
        )
    count = len(names)
    return State(options, created.get("visibility", "table"), names, (options.chips,) * count, names.index(dealer))


# --------------------------------------------------------------------------- helpers


def _set(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return values[:index] + (value,) + values[index + 1 :]


def _seat(state: State, name: str) -> int:
    try:
        return state.names.index(name)
    except ValueError as err:  # the schema checks names; a stored log could still be odd
        raise RulesError("not_your_turn", f"{name} is not a player in this game.") from err


def _cards(cards: Iterable[str]) -> str:
    return " ".join(pretty(card) for card in cards)


def in_game(state: State, seat: int) -> bool:
    """A player is in the game while they have chips ("Showdown": no chips, out)."""
    return state.chips[seat] > 0


def _left_of(state: State, seat: int) -> int:
    """The next player on the left still in the game ("Cards and setup": the deal passes left)."""
    nxt = seat_after(seat, len(state.names), lambda s: in_game(state, s))
    return seat if nxt is None else nxt


def hand_rank(state: State, cards: Iterable[str]) -> HandRank:
    """Rank three cards under this game's ``prial_order`` and ``ace_low_run`` ("Hand ranks")."""
    return rank(cards, state.options.prial_order, state.options.ace_low_run)


def seen(rnd: Round) -> frozenset[str]:
    """Cards whose place is known: the middle and every known card in a hand (recording.md, 1)."""
    return frozenset(rnd.centre).union(*[rnd.holdings[seat].known for seat in rnd.players])


def is_seen(rnd: Round, card: str) -> bool:
    """``card in seen(rnd)``, asked of the middle and each hand in turn (no set of them built)."""
    if card in rnd.centre:
        return True
    holdings = rnd.holdings
    for seat in rnd.players:  # a loop, not any(): no generator per card asked  # noqa: SIM110
        if card in holdings[seat].known:
            return True
    return False


def _available(rnd: Round, seat: int, card: str) -> bool:
    """Conservation: ``card`` can still be in ``seat``'s hand (recording.md, "Knowledge" 1)."""
    holding = rnd.holdings[seat]
    return card in holding.known or (holding.unknown > 0 and not is_seen(rnd, card))


def _where(state: State, rnd: Round, card: str) -> str:
    """Say where a card that cannot be in a hand is known to be."""
    if card in rnd.centre:
        given = next((n for n, t in reversed(list(enumerate(rnd.turns, start=1))) if card in t.give), None)
        since = f"given in turn {given}" if given is not None else "dealt there"
        return f"it is face up in the middle ({since})"
    for seat in rnd.players:
        if card in rnd.holdings[seat].known:
            return f"it is known to be in {state.names[seat]}'s hand ({_known_since(rnd, seat, card)})"
    return "it has been seen elsewhere"


def _known_since(rnd: Round, seat: int, card: str) -> str:
    """What made ``card`` known in ``seat``'s hand, in words: a show, a swap, or the deal."""
    for show in rnd.shows:
        if show.seat == seat and card in show.cards:
            return "shown at the showdown"
    for number, turn in reversed(list(enumerate(rnd.turns, start=1))):
        if turn.seat == seat and card in turn.take:
            return f"taken from the middle in turn {number}"
    return "dealt to them"


def _not_available(state: State, rnd: Round, seat: int, card: str) -> RulesError:
    name = state.names[seat]
    holding = rnd.holdings[seat]
    if card in seen(rnd):
        why = _where(state, rnd, card)
    elif holding.unknown == 0:
        why = f"{name} is known to hold {_cards(sorted(holding.known))}"
    else:
        why = "it is not in their hand"
    return RulesError("card_not_available", f"{name} cannot have {pretty(card)}: {why}.")


def to_act(state: State) -> list[int]:
    """Seats whose turn it is: the player to swap (or stop), or at the showdown those still to show."""
    rnd = state.round
    if state.finished or rnd is None or rnd.result is not None:
        return []
    if rnd.showdown:
        return [s for s in rnd.players if rnd.in_round[s] and s not in rnd.shown]
    if rnd.stopped_by is not None:
        return list(rnd.final_due[:1])
    return [] if rnd.next_seat is None else [rnd.next_seat]


def phase(state: State) -> str:
    """``deal`` (waiting for a deal), ``swapping``, ``final_turns``, ``showdown`` or ``game_over``."""
    rnd = state.round
    if state.finished:
        return "game_over"
    if rnd is None:
        return "deal"
    if rnd.showdown:
        return "showdown"
    return "final_turns" if rnd.stopped_by is not None else "swapping"


# --------------------------------------------------------------------------- checks


def _current(state: State, what: str) -> Round:
    """The round in play, or the right refusal: ``game_over``, ``hand_over``, ``wrong_phase``."""
    if state.finished:
        raise RulesError("game_over", "The game is over: nothing more can be played.")
    if state.round is None:
        if state.history:
            raise RulesError("hand_over", f"Round {state.history[-1].number} is over: record the next deal before {what}.")
        raise RulesError("wrong_phase", f"No round has been dealt yet: record a deal before {what}.")
    return state.round


def _in_round(state: State, rnd: Round, seat: int) -> None:
    name = state.names[seat]
    if not in_game(state, seat):
        raise RulesError("not_your_turn", f"{name} has no chips left and is out of the game.")
    if not rnd.in_round[seat]:
        raise RulesError("not_your_turn", f"{name} was not dealt in this round.")


def check_turn(state: State, seat: int) -> Round:
    """May ``seat`` take a turn (a swap) now? ("Turns": clockwise from the dealer's left).

    Returns the round in play; raises ``game_over``, ``hand_over``, ``wrong_phase`` (no deal
    yet, or the showdown) or ``not_your_turn`` (out, not dealt in, the stopper, out of turn).
    """
    rnd = _current(state, "a swap")
    if rnd.showdown:
        raise RulesError("wrong_phase", "Every turn has been taken: it is the showdown, the players show their cards.")
    _in_round(state, rnd, seat)
    due = to_act(state)
    if seat not in due:
        name = state.names[seat]
        if seat == rnd.stopped_by:
            raise RulesError("not_your_turn", f"{name} stopped the bus and takes no more turns.")
        if rnd.stopped_by is not None and seat not in rnd.final_due:
            raise RulesError("not_your_turn", f"{name} has had their one more turn after the stop.")
        raise RulesError("not_your_turn", f"It is {state.names[due[0]] if due else 'nobody'}'s turn, not {name}'s.")
    return rnd


def check_swap(state: State, rnd: Round, seat: int, take: str, give: str) -> None:
    """One card from the middle for one from the hand ("Turns"; option ``allow_return``).

    Raises ``card_not_available`` (``take`` not in the middle, ``give`` cannot be in the
    hand) or ``return_not_allowed`` (``give`` is the card just taken).
    """
    if take not in rnd.centre:
        raise RulesError(
            "card_not_available",
            f"{pretty(take)} is not in the middle (the middle holds {_cards(rnd.centre)}).",
        )
    if give == take:
        if not state.options.allow_return:
            raise RulesError(
                "return_not_allowed",
                f"{state.names[seat]} cannot put back {pretty(take)}, the card just taken: this game does not allow it.",
            )
        return
    if not _available(rnd, seat, give):
        raise _not_available(state, rnd, seat, give)


def check_swap_all(state: State, rnd: Round, seat: int, give: Iterable[str]) -> None:
    """The whole hand for the three middle cards (option ``swap_all``, "Turns").

    Raises ``swap_all_not_allowed``, ``wrong_card_count`` (not 3 different cards) or
    ``card_not_available`` (a known card left out, or a card seen elsewhere).
    """
    if not state.options.swap_all:
        raise RulesError("swap_all_not_allowed", "Exchanging the whole hand is not allowed in this game.")
    cards = list(give)
    check_card_list(cards, HAND_CARDS, "The hand given for the whole middle", pretty)
    _check_whole_hand(state, rnd, seat, cards, "gives")


def _check_whole_hand(state: State, rnd: Round, seat: int, cards: list[str], verb: str) -> None:
    """``cards`` are all of ``seat``'s hand: every known card is there and the rest are free."""
    holding = rnd.holdings[seat]
    name = state.names[seat]
    missing = sorted(holding.known - set(cards))
    if missing:
        raise RulesError(
            "card_not_available",
            f"{name} is known to hold {_cards(missing)} (taken from the middle and not given back), "
            f"so the cards {name} {verb} must include {'it' if len(missing) == 1 else 'them'}.",
        )
    for card in cards:
        if card not in holding.known and is_seen(rnd, card):
            raise RulesError("card_not_available", f"{name} cannot have {pretty(card)}: {_where(state, rnd, card)}.")


def check_stop(state: State, seat: int) -> Round:
    """May ``seat`` stop the bus now? ("Turns": after their swap in the same turn, or without
    swapping as option ``stop_without_swap`` allows; only one stop per round).

    Returns the round in play; raises ``game_over``, ``hand_over``, ``wrong_phase``,
    ``not_your_turn`` (a player out of the game or not dealt in, the stopper after the stop,
    out of turn: recording.md, "Refusal codes shared by every game") or ``stop_not_allowed``
    (anyone else after the stop, or a stop without the swap the option asks for).
    """
    rnd = _current(state, "a stop")
    name = state.names[seat]
    _in_round(state, rnd, seat)
    if seat == rnd.stopped_by:
        raise RulesError("not_your_turn", f"{name} stopped the bus and takes no more turns.")
    if rnd.showdown or rnd.stopped_by is not None:
        who = state.names[rnd.stopped_by] if rnd.stopped_by is not None else "someone"
        raise RulesError("stop_not_allowed", f"{who} has already stopped the bus: only one stop per round.")
    if rnd.may_stop == seat:
        return rnd
    if seat not in to_act(state):
        raise RulesError("not_your_turn", f"{name} may only stop the bus in their own turn.")
    rule = state.options.stop_without_swap
    if rule == "always":
        return rnd
    if rule == "first_turn" and rnd.turns_taken[seat] == 0:
        return rnd
    why = "never" if rule == "never" else "only on a player's first turn of the round"
    raise RulesError(
        "stop_not_allowed",
        f"{name} must swap before stopping the bus: stopping without a swap is allowed {why} in this game.",
    )


def check_show(state: State, seat: int) -> Round:
    """May ``seat`` show their cards now? ("Showdown": table visibility, after the final turns).

    Returns the round in play; raises ``game_over``, ``hand_over``, ``wrong_phase`` (open
    game, or not the showdown yet) or ``not_your_turn`` (not in the round, already shown).
    """
    rnd = _current(state, "a show")
    if state.visibility == "open":
        raise RulesError("wrong_phase", "In an open game the hands are known: no show is needed.")
    if not rnd.showdown:
        raise RulesError(
            "wrong_phase",
            "It is not the showdown yet: the bus must be stopped and every other player take one more turn.",
        )
    _in_round(state, rnd, seat)
    if any(show.seat == seat for show in rnd.shows):
        raise RulesError("not_your_turn", f"{state.names[seat]} has already shown their cards.")
    return rnd


def check_cards_shown(state: State, rnd: Round, seat: int, cards: list[str]) -> None:
    """Three different cards consistent with everything seen ("Showdown").

    Raises ``wrong_card_count`` or ``card_not_available`` (a card taken from the middle and
    not given back is missing, or a card is known to be elsewhere).
    """
    check_card_list(cards, HAND_CARDS, "A show", pretty)
    _check_whole_hand(state, rnd, seat, cards, "shows")


# --------------------------------------------------------------------------- reducer


def apply(state: State, action: Action) -> State:
    """Return the state after ``action``; raise :class:`RulesError` if it is illegal now.

    ``action`` is ``{"type": ..., **fields}`` with canonical card codes and seat names;
    ``seq`` (the event number, used for audit) may be given. Types: ``deal``, ``swap``,
    ``stop``, ``show``, ``adjust`` (``rules/stop_the_bus.md``, "Actions";
    ``recording.md``, "Bookkeeping actions"). Codes: ``not_your_turn``,
    ``card_not_available``, ``stop_not_allowed``, ``return_not_allowed``,
    ``swap_all_not_allowed``, ``wrong_card_count``, ``wrong_dealer``, ``wrong_phase``,
    ``hand_over``, ``game_over``.
    """
    handler = HANDLERS.get(action["type"])
    if handler is None:
        raise RulesError("wrong_phase", f"'{action['type']}' is not an action of Stop the Bus.")
    return handler(state, action, int(action.get("seq", 0)))


def _deal(state: State, action: Action, seq: int) -> State:
    """Start a round ("Cards and setup"): 3 cards to each player still in the game, the
    ``centre`` face up; the player left of the dealer starts ("Turns").

    ``dealer`` (optional) must be the player whose deal it is. Raises ``game_over``,
    ``wrong_phase`` (a round in play, or hands listed in a table game), ``wrong_dealer``,
    ``wrong_card_count`` (not 3 different centre cards; an open deal's hands) or
    ``card_not_available`` (an open deal with a card twice).
    """
    if state.finished:
        raise RulesError("game_over", "The game is over: no more rounds are dealt.")
    if state.round is not None:
        raise RulesError("wrong_phase", f"Round {state.round.number} is still being played.")
    expected = state.names[state.dealer]
    given = action.get("dealer")
    if given is not None and given != expected:
        raise RulesError("wrong_dealer", f"{expected} deals this round, not {given}.")
    centre = tuple(action.get("centre") or ())
    check_card_list(centre, CENTRE_CARDS, "The middle", pretty)
    count = len(state.names)
    seats = tuple(s for s in range(count) if in_game(state, s))
    holdings = [Holding()] * count
    hands: Mapping[str, list[str]] | None = action.get("hands")
    if state.visibility == "open":
        holdings = _open_holdings(state, seats, centre, hands)
    else:
        if hands is not None:
            raise RulesError("wrong_phase", "A table game's deal does not list the players' cards.")
        for seat in seats:
            holdings[seat] = Holding(frozenset(), HAND_CARDS)
    first = seat_after(state.dealer, count, lambda s: s in seats)
    rnd = Round(
        number=len(state.history) + 1,
        dealer=state.dealer,
        deal_seq=seq,
        players=seats,
        in_round=tuple(s in seats for s in range(count)),
        holdings=tuple(holdings),
        centre=centre,
        dealt_centre=centre,
        next_seat=state.dealer if first is None else first,
        turns_taken=(0,) * count,
    )
    return replace(state, round=rnd)


def _open_holdings(
    state: State, seats: tuple[int, ...], centre: tuple[str, ...], hands: Mapping[str, list[str]] | None
) -> list[Holding]:
    """The dealt hands of an ``open`` game: exactly the players in, 3 different cards each."""
    if hands is None:
        raise RulesError("wrong_card_count", f"An open game's deal must list every player's {HAND_CARDS} cards.")
    named = {state.names.index(n) for n in hands}
    if named != set(seats):
        missing = name_list([state.names[s] for s in seats if s not in named])
        extra = name_list([state.names[s] for s in named if s not in seats])
        raise RulesError(
            "wrong_card_count",
            f"The deal must list exactly the players in the game (missing: {missing}; not playing: {extra}).",
        )
    holdings = [Holding()] * len(state.names)
    placed = set(centre)
    for name, cards in hands.items():
        check_card_list(list(cards), HAND_CARDS, f"{name}'s dealt hand", pretty)
        clash = placed & set(cards)
        if clash:
            raise RulesError("card_not_available", f"{_cards(sorted(clash))} cannot be dealt twice.")
        placed |= set(cards)
        holdings[state.names.index(name)] = Holding(frozenset(cards), 0)
    return holdings


def _swap(state: State, action: Action, seq: int) -> State:
    """A turn ("Turns"): ``take`` one middle card and ``give`` one from the hand in its
    place, or with ``take_all`` (option ``swap_all``) the whole hand for the middle.

    Before the stop the swapper may then stop until the next player acts; after it, the
    swap is the player's one more turn. Raises what :func:`check_turn`,
    :func:`check_swap` and :func:`check_swap_all` raise.
    """
    seat = _seat(state, action["player"])
    rnd = check_turn(state, seat)
    holding = rnd.holdings[seat]
    if action.get("take_all"):
        give = tuple(action["give"]) if not isinstance(action["give"], str) else (action["give"],)
        check_swap_all(state, rnd, seat, give)
        taken = rnd.centre
        new = Holding(frozenset(taken), 0, frozenset(taken))
        centre = give
        turn = Turn(seat, seq, "swap_all", taken, give, rnd.stopped_by is not None)
    else:
        take, card = str(action["take"]), str(action["give"])
        check_swap(state, rnd, seat, take, card)
        if card == take:
            new = holding
        elif card in holding.known:
            new = Holding((holding.known - {card}) | {take}, holding.unknown, (holding.public - {card}) | {take})
        else:
            new = Holding(holding.known | {take}, holding.unknown - 1, holding.public | {take})
        centre = tuple(card if c == take else c for c in rnd.centre)
        turn = Turn(seat, seq, "swap", (take,), (card,), rnd.stopped_by is not None)
    if rnd.stopped_by is None:  # the swapper may stop now; the next player's turn comes after
        flow: dict[str, Any] = {"may_stop": seat, "next_seat": _next_in_round(rnd, seat)}
    else:  # one of the turns owed after the stop
        flow = {"final_due": rnd.final_due[1:]}
    rnd = replace(
        rnd,
        holdings=_set(rnd.holdings, seat, new),
        centre=centre,
        turns=rnd.turns + (turn,),
        turns_taken=_set(rnd.turns_taken, seat, rnd.turns_taken[seat] + 1),
        **flow,
    )
    return _settle(replace(state, round=rnd))


def _next_in_round(rnd: Round, seat: int) -> int | None:
    """The next player on the left still in the round ("Turns": clockwise)."""
    in_round = rnd.in_round
    for other in _CLOCKWISE[len(in_round)][seat]:
        if in_round[other]:
            return other
    return seat if in_round[seat] else None  # engine.core.seat_after: the seat itself, checked last


#: For each table size, the other seats clockwise after each seat (``engine.core.seat_after``'s
#: order, written out once: every swap asks who is next).
_CLOCKWISE = {count: tuple(tuple((seat + step) % count for step in range(1, count)) for seat in range(count))
              for count in range(1, MAX_PLAYERS + 1)}


def _stop(state: State, action: Action, seq: int) -> State:
    """Stop the bus ("Turns"): every other player still in the round, from the stopper's
    left, is owed exactly one more turn; the stopper takes none. Raises what
    :func:`check_stop` raises."""
    seat = _seat(state, action["player"])
    rnd = check_stop(state, seat)
    swapped = rnd.may_stop == seat
    count = len(rnd.in_round)
    due = tuple(s for s in ((seat + i) % count for i in range(1, count)) if rnd.in_round[s])
    rnd = replace(
        rnd,
        stopped_by=seat,
        stop_seq=seq,
        may_stop=None,
        final_due=due,
        turns=rnd.turns + (Turn(seat, seq, "stop"),),
        turns_taken=rnd.turns_taken if swapped else _set(rnd.turns_taken, seat, rnd.turns_taken[seat] + 1),
    )
    return _settle(replace(state, round=rnd))


def _show(state: State, action: Action, seq: int) -> State:
    """A ``show`` at the showdown ("Showdown", table visibility): the player's 3 cards become
    known; the round is scored once every player in it has shown. Raises what
    :func:`check_show` and :func:`check_cards_shown` raise."""
    seat = _seat(state, action["player"])
    rnd = check_show(state, seat)
    cards = list(action["cards"])
    check_cards_shown(state, rnd, seat, cards)
    known = frozenset(cards)
    rnd = replace(
        rnd,
        holdings=_set(rnd.holdings, seat, Holding(known, 0, known)),
        shows=rnd.shows + (Show(seat, seq, tuple(cards)),),
    )
    return _settle(replace(state, round=rnd))


def _adjust(state: State, action: Action, seq: int) -> State:
    """A ruling: ``amount`` chips added (positive is better), never below 0; re-checks the end."""
    if state.finished:
        raise RulesError("game_over", "The game is over: a ruling can no longer change it.")
    seat = _seat(state, action["player"])
    before = state.chips[seat]
    after = max(0, before + int(action["amount"]))
    number = state.round.number if state.round else len(state.history)
    entry = Adjustment(seat, seq, int(action["amount"]), after - before, str(action.get("reason", "")), number)
    state = replace(state, chips=_set(state.chips, seat, after), adjustments=state.adjustments.append(entry))
    if after == 0 and state.round is not None and state.round.in_round[seat]:
        state = _leave_round(state, seat)
    return _check_end(state, ())


HANDLERS: dict[str, Callable[[State, Action, int], State]] = {
    "deal": _deal,
    "swap": _swap,
    "stop": _stop,
    "show": _show,
    "adjust": _adjust,
}


# --------------------------------------------------------------------------- the round's flow


def _settle(state: State) -> State:
    """Move the round on: to the showdown once the final turns are taken, and score it once
    every hand is known ("Turns", "Showdown")."""
    rnd = state.round
    assert rnd is not None
    if rnd.in_round.count(True) < 2:  # only players dealt in are ever in the round
        active = [s for s in rnd.players if rnd.in_round[s]]
        reason = f"only {name_list([state.names[s] for s in active])} is left in the round: no showdown"
        return _end_round(state, Result((), (), reason, abandoned=True))
    if rnd.stopped_by is not None and not rnd.final_due and not rnd.showdown:
        rnd = replace(rnd, showdown=True, next_seat=None)
        if state.visibility == "open":  # the hands are known: they are laid down for all to see
            rnd = replace(rnd, holdings=tuple(Holding(h.known, h.unknown, h.known) for h in rnd.holdings))
        state = replace(state, round=rnd)
    if rnd.showdown:
        shown = rnd.shown
        active = [s for s in rnd.players if rnd.in_round[s]]
        if all(rnd.holdings[s].unknown == 0 and (state.visibility == "open" or s in shown) for s in active):
            return _score(state)
    return state


def _score(state: State) -> State:
    """The weakest hand(s) lose one chip each, all tied lowest included ("Showdown").

    A player left with no chips is out. When no player would keep a chip, option ``all_out``
    decides: ``shared_win`` (they lose it and share the win, see :func:`_check_end`) or
    ``replay_round`` (nobody loses a chip and the same dealer deals again).
    """
    rnd = state.round
    assert rnd is not None
    active = [s for s in rnd.players if rnd.in_round[s]]
    ranks = tuple((s, hand_rank(state, sorted(rnd.holdings[s].known))) for s in active)
    low = min(r.key for _, r in ranks)
    weakest = tuple(s for s, r in ranks if r.key == low)
    chips = list(state.chips)
    for seat in weakest:
        chips[seat] -= 1
    survivors = [s for s in range(len(chips)) if chips[s] > 0]
    reason = _loss_reason(state, ranks, weakest)
    if not survivors and state.options.all_out == "replay_round":
        why = (
            f"{name_list([state.names[s] for s in weakest])} would all lose their last chip: nobody loses a chip "
            f"and {state.names[rnd.dealer]} deals again (this game replays such a round)"
        )
        state = _end_round(state, Result((), ranks, f"{reason}; {why}", replayed=True))
        return replace(state, dealer=rnd.dealer if in_game(state, rnd.dealer) else _left_of(state, rnd.dealer))
    eliminated = tuple(s for s in weakest if chips[s] == 0)
    if eliminated:
        reason += f"; {name_list([state.names[s] for s in eliminated])} {'has' if len(eliminated) == 1 else 'have'} no chips left and {'is' if len(eliminated) == 1 else 'are'} out"
    state = replace(state, chips=tuple(chips))
    state = _end_round(state, Result(weakest, ranks, reason, eliminated=eliminated))
    return _check_end(state, weakest)


def _loss_reason(state: State, ranks: tuple[tuple[int, HandRank], ...], weakest: tuple[int, ...]) -> str:
    """Why the losers lost, in words: their rank against the next weakest hand."""
    names = state.names
    by_seat = dict(ranks)
    low = by_seat[weakest[0]]
    who = name_list([names[s] for s in weakest])
    if len(weakest) == 1:
        text = f"{who} has the weakest hand ({low.words})"
    else:
        text = f"{who} tie for the weakest hand ({low.words}): all tied lowest lose a chip"
    better = [r for s, r in ranks if s not in weakest]
    if better:
        nearest = min(better, key=lambda r: r.key)
        above = [names[s] for s, r in ranks if r.key == nearest.key]
        text += f", below {nearest.words} ({name_list(above)})"
    cards = [state.round.holdings[s].known for s in weakest] if state.round is not None else []
    if state.options.ace_low_run == "invalid" and any({c[0] for c in hand} == {"A", "2", "3"} for hand in cards):
        text += "; A-2-3 is not a run in this game"
    return text


def _end_round(state: State, result: Result) -> State:
    """Close the round and pass the deal to the next player on the left still in the game."""
    rnd = state.round
    assert rnd is not None
    rnd = replace(rnd, result=result, may_stop=None, next_seat=None, final_due=())
    state = replace(state, history=state.history.append(rnd), round=None)
    return replace(state, dealer=_left_of(state, rnd.dealer))


def _leave_round(state: State, seat: int) -> State:
    """A player who lost their last chip to a ruling leaves the round in play at once."""
    rnd = state.round
    assert rnd is not None
    in_round = _set(rnd.in_round, seat, False)
    rnd = replace(
        rnd,
        in_round=in_round,
        may_stop=None if rnd.may_stop == seat else rnd.may_stop,
        final_due=tuple(s for s in rnd.final_due if s != seat),
    )
    if rnd.next_seat == seat:
        rnd = replace(rnd, next_seat=_next_in_round(rnd, seat))
    return _settle(replace(state, round=rnd))


def _check_end(state: State, last_losers: tuple[int, ...]) -> State:
    """The game ends when at most one player has chips ("Showdown"): that player wins, or the
    players who lost their last chips together share the win (``all_out`` ``shared_win``)."""
    if state.finished:
        return state
    survivors = tuple(s for s in range(len(state.names)) if in_game(state, s))
    if len(survivors) > 1:
        if state.round is None and not in_game(state, state.dealer):
            state = replace(state, dealer=_left_of(state, state.dealer))
        return state
    winners = survivors or last_losers
    names = name_list([state.names[s] for s in winners])
    if survivors:
        reason = f"{names} is the only player with chips left"
    else:
        reason = f"{names} lost their last chips in the same showdown and share the win"
    if state.round is not None:  # kept, not finished, in card players' words (docs/decisions.md)
        rnd = state.round
        when = (f"only {names} had chips left" if survivors
                else f"{names} lost their last chips in the same showdown")
        cut = f"the game ended when {when}"
        abandoned = replace(rnd, result=Result((), (), cut, abandoned=True), may_stop=None)
        state = replace(state, history=state.history.append(abandoned), round=None)
    return replace(state, finished=True, winners=winners, end_reason=reason)


# --------------------------------------------------------------------------- what may be recorded


def _can(check: Callable[[], object]) -> bool:
    try:
        check()
    except RulesError:
        return False
    return True


def _visible(state: State, full: bool, rnd: Round, seat: int) -> frozenset[str] | None:
    """The cards of ``seat``'s hand this viewer may see, when the whole hand is known; else None."""
    holding = rnd.holdings[seat]
    if holding.unknown or not (full or state.visibility == "table"):
        return None
    return holding.known


def legal_actions(state: State, full: bool) -> list[dict[str, Any]]:
    """What can be recorded next: ``[{"type", "player", "cards", ...}]`` (api.md, ``actions``).

    Built on the same checks as :func:`apply`. A ``swap`` entry adds ``take`` (the middle
    cards) and ``take_all`` (whether the whole hand may be exchanged); ``cards`` lists the
    cards that may be given or shown when the hand is known to the viewer (``full``: the
    scorekeeper, or a table game whose hand is known), else ``None``.
    """
    if state.finished:
        return []
    rnd = state.round
    if rnd is None:
        return [{"type": "deal", "player": state.names[state.dealer], "cards": None}]
    out: list[dict[str, Any]] = []
    names = state.names
    for seat in to_act(state):
        known = _visible(state, full, rnd, seat)
        cards = sorted(known) if known is not None else None
        if rnd.showdown:
            if _can(partial(check_show, state, seat)):
                out.append({"type": "show", "player": names[seat], "cards": cards})
            continue
        if _can(partial(check_turn, state, seat)):
            out.append(
                {
                    "type": "swap",
                    "player": names[seat],
                    "take": list(rnd.centre),
                    "take_all": state.options.swap_all,
                    "cards": cards,
                }
            )
    for seat in rnd.players:
        if _can(partial(check_stop, state, seat)):
            out.append({"type": "stop", "player": names[seat], "cards": None})
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
    elsewhere); ``GET …/actions`` gives it to every play, swap and show whose ``cards`` is
    null. Raises ``ValueError`` for a name not at the table.
    """
    rnd = state.round
    if state.visibility != "table" or rnd is None:
        return None
    seat = state.names.index(player)
    return [card for card in DECK if _available(rnd, seat, card)]


# --------------------------------------------------------------------------- views


#: ``finished`` once the game is over, else ``in_progress`` (engine.core.finished_status).
status = finished_status


def hand_number(state: State) -> int:
    """The number of the round in play, or of the last one dealt (0 before the first deal)."""
    return state.round.number if state.round else len(state.history)


def hand_over(state: State, number: int) -> bool:
    """True when round ``number`` is over (its cards may then be shown to everyone)."""
    return state.finished or number <= len(state.history)


#: Fields that carry cards hidden from the public: an open deal's hands.
HIDDEN = {"deal": ("hands",)}


def redact(action: Mapping[str, Any]) -> dict[str, Any]:
    """The public copy of a stored action: an open deal's hands are left out."""
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

#: A card as the short phrases of ``engine.stream.summary`` write it: ``"TH"`` → ``"10♥"``.
card_text = pretty


def _all_rounds(state: State) -> tuple[Round, ...]:
    return (*state.history, *((state.round,) if state.round is not None else ()))


def results(state: State) -> dict[str, dict[str, Any]]:
    """Each player's result and stats for match histories (same keys in every game).

    ``result`` is ``won``/``lost`` once the game is over (else ``in_progress``); ``score``
    is in ``unit`` (chips left); ``hands`` (rounds) dealt in, ``stops`` (buses stopped);
    ``tricks_won``, ``fools`` and ``knocks`` are None.
    """
    rounds = _all_rounds(state)
    out: dict[str, dict[str, Any]] = {}
    for seat, name in enumerate(state.names):
        out[name] = player_result(
            seat,
            seat in state.winners if state.finished else None,
            state.chips[seat],
            "chips",
            sum(1 for r in rounds if seat in r.players),
            stops=sum(1 for r in rounds if r.stopped_by == seat),
        )
    return out


def score_sheet(state: State) -> list[dict[str, Any]]:
    """One row per round dealt: ``round``, ``dealer``, then each player's change in chips in
    the round (``"<name> chips won or lost this round"``: -1 for a lost showdown, rulings
    included) and chips left (``"<name> chips left"``) (:data:`SHEET`)."""
    names = state.names
    totals = [state.options.chips] * len(names)
    rows: list[dict[str, Any]] = []
    for rnd in _all_rounds(state):
        row: dict[str, Any] = {"round": rnd.number, "dealer": names[rnd.dealer]}
        lost = rnd.result.losers if rnd.result is not None and not rnd.result.replayed else ()
        for seat, name in enumerate(names):
            change = -1 if seat in lost else 0
            change += sum(a.applied for a in state.adjustments
                          if a.seat == seat and (a.round == rnd.number or (a.round == 0 and rnd.number == 1)))
            totals[seat] += change
            change_column, total_column = SHEET.of(name)
            row[change_column] = change
            row[total_column] = totals[seat]
        rows.append(row)
    return rows


def _round(state: State, number: int) -> Round | None:
    if 1 <= number <= len(state.history):
        return state.history[number - 1]
    if state.round is not None and state.round.number == number:
        return state.round
    return None


def _latest(state: State) -> Round | None:
    return state.round if state.round is not None else (state.history[-1] if state.history else None)


def _rank_json(rank_: HandRank) -> dict[str, Any]:
    """``hand_rank`` in the API ("State the API must expose"): category name, comparable key, words."""
    return {"category": rank_.category, "key": list(rank_.key), "words": rank_.words}


def _ranks_of(state: State, rnd: Round) -> dict[int, HandRank]:
    """The rank of every hand shown (or, in open games, known at the showdown) in ``rnd``."""
    if rnd.result is not None and rnd.result.ranks:
        return dict(rnd.result.ranks)
    out: dict[int, HandRank] = {}
    for show in rnd.shows:
        if rnd.in_round[show.seat]:
            out[show.seat] = hand_rank(state, show.cards)
    return out


def _turn_json(state: State, turn: Turn) -> dict[str, Any]:
    out: dict[str, Any] = {"player": state.names[turn.seat], "seq": turn.seq, "type": turn.kind, "final": turn.final}
    if turn.kind == "swap":
        out["take"], out["give"] = turn.take[0], turn.give[0]
    elif turn.kind == "swap_all":
        out["take_all"] = True
        out["take"], out["give"] = list(turn.take), list(turn.give)
    return out


def _holding_json(state: State, rnd: Round, seat: int, full: bool) -> dict[str, Any]:
    holding = rnd.holdings[seat]
    if full or state.visibility == "table" or rnd.result is not None or state.finished:
        return {"known": sorted(holding.known), "unknown": holding.unknown}
    return {"known": sorted(holding.public), "unknown": HAND_CARDS - len(holding.public)}


def _round_json(state: State, rnd: Round, full: bool) -> dict[str, Any]:
    names = state.names
    ranks = _ranks_of(state, rnd)
    out: dict[str, Any] = {
        "hand_number": rnd.number,
        "round_number": rnd.number,
        "dealer": names[rnd.dealer],
        "deal_seq": rnd.deal_seq,
        "players": [names[s] for s in rnd.players],
        "centre_dealt": list(rnd.dealt_centre),
        "centre": list(rnd.centre),
        "turns": [{**_turn_json(state, t), "explanation": _describe_turn(state, rnd, t) + "."} for t in rnd.turns],
        "stopped_by": names[rnd.stopped_by] if rnd.stopped_by is not None else None,
        "stop_seq": rnd.stop_seq,
        "final_turns_left": len(rnd.final_due) if rnd.stopped_by is not None else None,
        "showdown": rnd.showdown,
        "shows": [
            {
                "player": names[s.seat],
                "seq": s.seq,
                "cards": list(s.cards),
                "rank": _rank_json(ranks[s.seat]) if s.seat in ranks else None,
                "explanation": f"{names[s.seat]} showed {_cards(s.cards)}: {hand_rank(state, s.cards).words}.",
            }
            for s in rnd.shows
        ],
        "hands": {names[s]: _holding_json(state, rnd, s, full) for s in rnd.players},
        "irregularities": [],
        "adjustments": [
            {"player": names[a.seat], "seq": a.seq, "amount": a.amount, "applied": a.applied, "reason": a.reason}
            for a in state.adjustments
            if a.round == rnd.number
        ],
        "result": None,
        "source": SPEC,
    }
    if rnd.result is not None:
        result = rnd.result
        out["result"] = {
            "losers": [names[s] for s in result.losers],
            "ranks": {names[s]: _rank_json(r) for s, r in result.ranks},
            "reason": result.reason,
            "eliminated": [names[s] for s in result.eliminated],
            "replayed": result.replayed,
            "abandoned": result.abandoned,
        }
    return out


def view(state: State, full: bool) -> dict[str, Any]:
    """The API's ``state`` object (api.md "State"; ``rules/stop_the_bus.md`` "State the API must expose").

    ``full`` is True for the scorekeeper (the game's token): in ``open`` games the cards in
    players' hands are shown only then, or once the round is over. ``hand_rank`` is the
    player's rank at the latest showdown (null until they show).

    The fields "for the current round" (``round_number``/``hand_number``, ``dealer``,
    ``centre``, ``stopped_by``, ``final_turns_left``; each player's ``in_round``,
    ``hand_size``, ``hand_known``, ``hand_rank``) follow api.md, "Which hand is current":
    between rounds and once the game is over they keep the values of the round that has
    just ended (``phase`` ``deal`` and ``next_dealer`` say who deals next); before the first
    deal ``round_number`` is 0, ``dealer`` the first dealer, ``hand_known`` ``[]``,
    ``hand_size`` 0 and every other such field null. ``can_stop`` is ``[]`` whenever no
    round is in play.
    """
    rnd = state.round
    latest = _latest(state)
    ranks = _ranks_of(state, latest) if latest is not None else {}
    names = state.names
    shown = full or state.visibility == "table"
    players = []
    for seat, name in enumerate(names):
        in_round = latest.in_round[seat] if latest is not None else None
        known: list[str] = []
        size = 0
        if latest is not None and in_round:
            holding = latest.holdings[seat]
            size = holding.size
            known = sorted(holding.known if shown else holding.public)
        players.append(
            {
                "name": name,
                "seat": seat + 1,
                "chips": state.chips[seat],
                "out": not in_game(state, seat),
                "in_round": in_round,
                "hand_size": size,
                "hand_known": known,
                "hand_rank": _rank_json(ranks[seat]) if seat in ranks else None,
            }
        )
    out: dict[str, Any] = {
        "status": status(state),
        "phase": phase(state),
        "to_act": [names[s] for s in to_act(state)],
        "players": players,
        "round_number": hand_number(state),
        "hand_number": hand_number(state),
        "dealer": names[latest.dealer] if latest is not None else names[state.dealer],
        "next_dealer": names[state.dealer] if rnd is None and not state.finished else None,
        "centre": list(latest.centre) if latest is not None else [],
        "stopped_by": names[latest.stopped_by] if latest is not None and latest.stopped_by is not None else None,
        "final_turns_left": len(latest.final_due) if latest is not None and latest.stopped_by is not None else None,
        "can_stop": [names[s] for s in rnd.players if _can(partial(check_stop, state, s))] if rnd is not None else [],
    }
    if state.finished:
        out["winners"] = [names[s] for s in state.winners]
        out["losers"] = [n for s, n in enumerate(names) if s not in state.winners]
        out["end_reason"] = state.end_reason
    return out


def hand_view(state: State, number: int, full: bool) -> dict[str, Any] | None:
    """``GET hands/<n>``: round n's deal, every turn, the stop, the shows and the result
    (``losers``, ``ranks`` with each hand in words, and why the losers lost); None if no round n."""
    rnd = _round(state, number)
    return None if rnd is None else _round_json(state, rnd, full)


def trick_view(state: State, number: int, trick_number: int, full: bool) -> dict[str, Any] | None:
    """Stop the Bus has no tricks: always None (404)."""
    return None


def irregularities(state: State, number: int, full: bool) -> list[dict[str, Any]]:
    """Always ``[]``: no rule of Stop the Bus depends on a card hidden at the time, so nothing is
    ever proven irregular later (its hand view's ``irregularities`` is always empty)."""
    return []



# --------------------------------------------------------------------------- timeline


def describe(before: State, action: Action, after: State, full: bool) -> str:
    """One recorded action in plain words, with what the rules derived from it.

    ``before`` and ``after`` are the states around ``action`` (both the initial state for
    ``game_created``); ``full`` is False for a reader who may not see hidden cards (an open
    deal's hands are never named here; swapped and shown cards are face up). For example
    ``"Bob stopped the bus: Cas, Dee and Ann take one more turn each"``.
    """
    kind = action["type"]
    names = before.names
    who = str(action.get("player", ""))
    if kind == "game_created":
        return (
            f"Stop the Bus for {name_list(list(names))} ({visibility_words(before.visibility)}, {plural(before.options.chips, 'chip')} "
            f"each): {names[before.dealer]} deals first."
        )
    rnd = _round(after, hand_number(after))
    if kind == "deal":
        assert rnd is not None
        starts = rnd.next_seat
        text = f"{names[rnd.dealer]} dealt round {rnd.number}; the middle is {_cards(rnd.dealt_centre)}"
        text += f"; {names[starts]} starts" if starts is not None else ""
    elif kind in ("swap", "stop"):
        turn = next((t for t in rnd.turns if t.seq == action.get("seq")), None) if rnd else None
        text = _describe_turn(after, rnd, turn) if rnd is not None and turn is not None else f"{who} {kind}"
    elif kind == "show":
        cards = list(action.get("cards", []))
        text = f"{who} showed {_cards(cards)}: {hand_rank(after, cards).words}"
    elif kind == "adjust":
        amount = int(action["amount"])
        text = (
            f"Ruling: {who} {plural(amount, 'chip', signed=True)} "
            f"({action.get('reason', '')}); {who} now has {after.chips[names.index(who)]}"
        )
    else:
        text = f"{who} {kind}".strip()
    return text + _consequences(before, after, full or before.visibility == "table") + "."


def _describe_turn(state: State, rnd: Round, turn: Turn) -> str:
    """One turn of ``rnd`` in words ("Turns"): the cards swapped, or the stop and who is owed
    one more turn."""
    names = state.names
    who = names[turn.seat]
    if turn.kind == "stop":
        count = len(rnd.in_round)
        due = [names[s] for s in ((turn.seat + i) % count for i in range(1, count)) if rnd.in_round[s]]
        return f"{who} stopped the bus: {name_list(due)} {'takes' if len(due) == 1 else 'take'} one more turn"
    if turn.kind == "swap_all":
        text = f"{who} exchanged the whole hand: took {_cards(turn.take)} and left {_cards(turn.give)} in the middle"
    elif turn.take == turn.give:
        text = f"{who} took {pretty(turn.take[0])} and put it back"
    else:
        text = f"{who} took {pretty(turn.take[0])} from the middle and gave {pretty(turn.give[0])}"
    return text + (" (one more turn after the stop)" if turn.final else "")


def _consequences(before: State, after: State, ranks: bool) -> str:
    """What else an action set off: the showdown's losers (why, only with ``ranks``: an open
    game's hands are hidden from the public while the round is in play), players out, the
    end of the game."""
    parts: list[str] = []
    rnd = after.round
    if rnd is not None and rnd.showdown and not (before.round is not None and before.round.showdown):
        parts.append("every turn is taken: showdown")
    ended = after.history[-1] if len(after.history) > len(before.history) else None
    if ended is not None and ended.result is not None and not (after.finished and ended.result.abandoned):
        if ranks:
            parts.append(f"round {ended.number}: {ended.result.reason}")
        else:
            losers = name_list([after.names[s] for s in ended.result.losers])
            parts.append(f"round {ended.number} is over: {losers} {'loses' if len(ended.result.losers) <= 1 else 'lose'} a chip")
    if after.finished and not before.finished:
        parts.append(f"the game is over: {after.end_reason}")
    return "; " + "; ".join(parts) if parts else ""


def position(state: State) -> int:
    """The turn in progress in the current round: the number the next swap or stop gets
    (1 after the deal; after the last turn, the showdown's shows share the next number), 0
    between rounds. The audit places corrections and notes in turns by it."""
    rnd = state.round
    return 0 if rnd is None else len(rnd.turns) + 1
