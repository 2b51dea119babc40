"""The four games as people name them: each game's name, seat counts, who starts, and its
options in words (label, values, one line saying what each does).

Presentation only; the rules stay in ``engine``. Option names, choices and defaults come from
the rules files (``../shared/spec/rules/<game>.md``) through the engine modules. The new-game
page lays the options out from here (``service.web.pages.catalogue``) and the text export writes
them in these words (:func:`options_in_words`), so both say one thing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine import fool, fuji_flush, stop_the_bus, toepen


@dataclass(frozen=True)
class Option:
    """One option of a game as the new-game form shows it.

    ``name`` is the rules file's name for it (the control's ``name`` and the key of
    ``POST /games``' ``options``); ``label`` is what a person reads ("Lives to lose"); ``kind``
    is ``int``, ``choice``, ``bool`` or ``deck``; ``default`` is the value shown (``None``: "by
    seat count" or "none"); ``choices`` for ``choice``, with ``choice_words`` the words each is
    shown as (same order); ``words`` is the one line saying what it does; ``nullable`` for a
    number that may be left empty (``max_stake``); ``empty`` says what an empty number means.
    """

    name: str
    label: str
    kind: str
    default: Any
    words: str
    choices: tuple[str, ...] = ()
    choice_words: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    nullable: bool = False
    empty: str = ""


@dataclass(frozen=True)
class Game:
    """A game as the pages name it: ``id`` (API), ``name`` (people), seat counts, who starts."""

    id: str
    name: str
    min_players: int
    max_players: int
    starter_field: str  # "dealer" or "first_player" (POST /games)
    starter_label: str  # "Dealer" or "First player"
    options: tuple[Option, ...] = field(default_factory=tuple)


def _choice(name: str, label: str, default: str, words: str, choices: tuple[str, ...],
            said: dict[str, str]) -> Option:
    """A ``choice`` option whose values are shown as ``said`` says (every choice in words)."""
    assert set(said) == set(choices), (name, set(choices) ^ set(said))
    return Option(name, label, "choice", default, words, choices, tuple(said[c] for c in choices))


GAMES: dict[str, Game] = {
    "toepen": Game("toepen", "Toepen", toepen.MIN_PLAYERS, toepen.MAX_PLAYERS, "dealer", "Dealer", (
        Option("limit", "Lives to lose", "int", 10, "How many lives a player may lose before they are out.",
               minimum=1, maximum=99),
        _choice("game_end", "When the game ends", "first_to_limit",
                "Whether the first player to lose every life ends the game, or only leaves it while the others play on.",
                toepen.CHOICES["game_end"],
                {"first_to_limit": "When someone has lost every life",
                 "elimination": "When one player is left"}),
        _choice("next_dealer", "Next dealer", "winner", "Who deals the next hand.", toepen.CHOICES["next_dealer"],
                {"winner": "The winner of the hand", "left": "The player on the dealer's left"}),
        _choice("knock_responses", "Answering a knock", "implicit",
                "How the others answer a knock before play goes on.", toepen.CHOICES["knock_responses"],
                {"implicit": "Fold any time; playing on is staying",
                 "explicit": "Each says stay or fold in turn"}),
        _choice("folded_last_trick", "Last trick won by a folded card", "all_lose",
                "What happens when the best card of the last trick belongs to a player who folded during it.",
                toepen.CHOICES["folded_last_trick"],
                {"all_lose": "Everyone still in loses", "best_active": "Best card still in wins"}),
        Option("laundry_mandatory", "Laundry must be exchanged", "bool", True,
               "A hand known to be laundry (only J, Q, K and A) must be exchanged before playing."),
        Option("max_stake", "Highest stake", "int", None, "The highest stake a knock may raise the hand to.",
               minimum=2, maximum=99, nullable=True, empty="no maximum"),
    )),
    "fool": Game("fool", "Fool!", fool.MIN_PLAYERS, fool.MAX_PLAYERS, "dealer", "Dealer", (
        Option("hand_size", "Cards each", "int", None, "How many cards each player is dealt.",
               minimum=1, maximum=fool.MAX_HAND, nullable=True, empty="12, or 11 with 8 players"),
        Option("fools_per_trick", "Fools per trick", "choice", None, "How many players of each trick are Fools.",
               ("1", "2"), ("One Fool", "Two Fools"), empty="1, or 2 with 7 or 8 players"),
    )),
    "fuji_flush": Game("fuji_flush", "Fuji Flush", fuji_flush.MIN_PLAYERS, fuji_flush.MAX_PLAYERS,
                       "first_player", "First player", (
        Option("hand_size", "Cards each", "int", None, "How many cards each player is dealt.",
               minimum=1, maximum=fuji_flush.MAX_HAND_SIZE, nullable=True, empty="6, or 5 with 7 or 8 players"),
    )),
    "stop_the_bus": Game("stop_the_bus", "Stop the Bus", stop_the_bus.MIN_PLAYERS, stop_the_bus.MAX_PLAYERS,
                         "dealer", "Dealer", (
        Option("chips", "Chips each", "int", 3, "How many chips each player starts with; a player with none left is out.",
               minimum=1, maximum=stop_the_bus.MAX_CHIPS),
        Option("allow_return", "Give back the card just taken", "bool", False,
               "A player may put back in the middle the card they have just taken."),
        Option("swap_all", "Swap all three", "bool", False,
               "A turn may exchange the whole hand with the three cards in the middle."),
        _choice("stop_without_swap", "Stopping without a swap", "first_turn",
                "When a player may stop the bus without swapping a card first.",
                stop_the_bus.CHOICES["stop_without_swap"],
                {"first_turn": "Only on a first turn", "never": "Never", "always": "Always"}),
        _choice("all_out", "When the last players all go out", "shared_win",
                "What happens when every player left loses their last chip in the same showdown.",
                stop_the_bus.CHOICES["all_out"],
                {"shared_win": "They share the win", "replay_round": "The round is played again"}),
        _choice("prial_order", "Best three of a kind", "aces_high", "Which three of a kind beats every other hand.",
                stop_the_bus.CHOICES["prial_order"],
                {"aces_high": "Three aces (A-A-A)", "threes_high": "Three threes (3-3-3)"}),
        _choice("ace_low_run", "A-2-3", "invalid", "Whether A-2-3 counts as a run, and how good it is.",
                stop_the_bus.CHOICES["ace_low_run"],
                {"invalid": "Not a run", "top": "The best run", "bottom": "The lowest run"}),
    )),
}


def value_words(option: Option, value: Any) -> str:
    """``value`` of ``option`` as the new-game page shows it: a choice in its words, yes/no, an
    empty number as its ``empty`` words, a number as it is."""
    if value is None or value == "":
        return option.empty or "by seat count"
    if value is True:
        return "yes"
    if value is False:
        return "no"
    if str(value) in option.choices:
        return option.choice_words[option.choices.index(str(value))]
    return str(value)


def options_in_words(game: str, options: Mapping[str, Any]) -> str:
    """A game's ``options`` as people read them, in the new-game form's order: "Lives to lose:
    10 · When the game ends: When someone has lost every life · …" (an option this catalogue does
    not know, such as Fuji Flush's deck, by its name). Never the rules' codes (issue 25)."""
    known = GAMES[game].options if game in GAMES else ()
    parts = [f"{o.label}: {value_words(o, options[o.name])}" for o in known if o.name in options]
    names = {o.name for o in known}
    for name in sorted(options):
        if name in names:
            continue
        value = options[name]
        if name == "deck" and isinstance(value, Mapping):  # Fuji Flush: copies of each number
            copies = {str(k): v for k, v in value.items()}
            published = {str(k): v for k, v in fuji_flush.PUBLISHED_DECK.items()}
            said = "the published deck" if copies == published else ", ".join(
                f"{k} ×{v}" for k, v in sorted(copies.items(), key=lambda item: int(item[0])))
            parts.append(f"Cards: {said}")
        else:
            parts.append(f"{name.replace('_', ' ').capitalize()}: {value}")
    return " · ".join(parts)
