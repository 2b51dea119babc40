"""What the pages show about each game: its name, seat counts, options in words, its deck laid out.

This is presentation only (names, one-line descriptions, how to lay the deck out on screen);
the rules themselves stay in ``engine``. Option names, choices and defaults come from the
rules files (``../shared/spec/rules/<game>.md``) through the engine modules.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from engine import fool, fuji_flush, stop_the_bus, toepen
from engine.cards import SUIT_NAMES, SUIT_SYMBOLS


@dataclass(frozen=True)
class Option:
    """One option of a game as the new-game form shows it.

    ``kind`` is ``int``, ``choice``, ``bool`` or ``deck``; ``default`` is the value shown
    (``None``: "by seat count" or "none"); ``choices`` for ``choice``; ``words`` is the one line
    saying what it does; ``nullable`` for a number that may be left empty (``max_stake``).
    """

    name: str
    kind: str
    default: Any
    words: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    nullable: bool = False


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


GAMES: dict[str, Game] = {
    "toepen": Game("toepen", "Toepen", toepen.MIN_PLAYERS, toepen.MAX_PLAYERS, "dealer", "Dealer", (
        Option("limit", "int", 10, "lives a player may lose before the game is over", minimum=1, maximum=99),
        Option("game_end", "choice", "first_to_limit",
               "first_to_limit: the game ends when someone reaches the limit; elimination: they leave "
               "and the last one in wins", toepen.CHOICES["game_end"]),
        Option("next_dealer", "choice", "winner", "who deals the next hand: the hand's winner, or the next seat left",
               toepen.CHOICES["next_dealer"]),
        Option("knock_responses", "choice", "implicit",
               "implicit: folds may come in any order until play goes on; explicit: everyone answers stay or fold",
               toepen.CHOICES["knock_responses"]),
        Option("folded_last_trick", "choice", "all_lose",
               "when the last trick's best card was folded: everyone still in loses, or the best of them wins",
               toepen.CHOICES["folded_last_trick"]),
        Option("laundry_mandatory", "bool", True, "a known laundry hand must be laundered before playing"),
        Option("max_stake", "int", None, "highest stake a knock may reach (empty: no maximum)",
               minimum=2, maximum=99, nullable=True),
    )),
    "fool": Game("fool", "Fool!", fool.MIN_PLAYERS, fool.MAX_PLAYERS, "dealer", "Dealer", (
        Option("hand_size", "int", None, "cards dealt to each player (empty: 12, or 11 with 8 players)",
               minimum=1, maximum=fool.MAX_HAND, nullable=True),
        Option("fools_per_trick", "choice", None, "Fools per trick (empty: 1, or 2 with 7 or 8 players)",
               ("1", "2")),
    )),
    "fuji_flush": Game("fuji_flush", "Fuji Flush", fuji_flush.MIN_PLAYERS, fuji_flush.MAX_PLAYERS,
                       "first_player", "First player", (
        Option("hand_size", "int", None, "cards dealt to each player (empty: 6, or 5 with 7 or 8 players)",
               minimum=1, maximum=fuji_flush.MAX_HAND_SIZE, nullable=True),
    )),
    "stop_the_bus": Game("stop_the_bus", "Stop the Bus", stop_the_bus.MIN_PLAYERS, stop_the_bus.MAX_PLAYERS,
                         "dealer", "Dealer", (
        Option("chips", "int", 3, "chips each player starts with; a player with none is out",
               minimum=1, maximum=stop_the_bus.MAX_CHIPS),
        Option("allow_return", "bool", False, "a player may give back the card just taken"),
        Option("swap_all", "bool", False, "a turn may exchange the whole hand with the centre"),
        Option("stop_without_swap", "choice", "first_turn", "when a player may stop without swapping",
               stop_the_bus.CHOICES["stop_without_swap"]),
        Option("all_out", "choice", "shared_win",
               "when the last players all lose their last chip: they share the win, or the round is replayed",
               stop_the_bus.CHOICES["all_out"]),
        Option("prial_order", "choice", "aces_high", "best three of a kind: A-A-A, or 3-3-3",
               stop_the_bus.CHOICES["prial_order"]),
        Option("ace_low_run", "choice", "invalid", "A-2-3: not a run, the best run, or the lowest run",
               stop_the_bus.CHOICES["ace_low_run"]),
    )),
}


def as_dict() -> dict[str, Any]:
    """Every game of :data:`GAMES` as plain data for the new-game page's script (keyed by game id)."""
    return {game_id: asdict(game) for game_id, game in GAMES.items()}


@dataclass(frozen=True)
class Card:
    """One button of the deck: ``code`` (API), ``name`` (accessible name), ``css`` (colour class),
    ``copies`` in the deck."""

    code: str
    name: str
    css: str
    copies: int = 1


@dataclass(frozen=True)
class Row:
    """One row of the deck on screen: its heading (``label``) and its cards."""

    label: str
    cards: tuple[Card, ...]


FOOL_COLOUR_WORDS = {colour: name.capitalize() for colour, name in fool.COLOUR_NAMES.items()}


def french_name(code: str) -> str:
    """``"TH"`` -> ``"10♥"``, the name a person says (ui.md: rank then suit symbol)."""
    rank = "10" if code[0] == "T" else code[0]
    return rank + SUIT_SYMBOLS[code[1]]


def card_name(game: str, code: str | int) -> str:
    """The accessible name of a card code of ``game`` (ui.md, "Names")."""
    if game in ("toepen", "stop_the_bus"):
        return french_name(str(code))
    if game == "fool":
        text = str(code)
        return "Wild 1" if text == fool.WILD else f"{FOOL_COLOUR_WORDS[text[0]]} {text[1:]}"
    return str(code)


def deck_layout(game: str, options: dict[str, Any]) -> list[Row]:
    """The game's whole deck laid out in its suits or colours (numbers 2–20 for Fuji Flush).

    Toepen ranks are shown high to low in the game's order (T 9 8 7 A K Q J); Stop the Bus
    A high; Fool! by colour, low to high, with the six wild ``1`` s as one button.
    """
    if game == "toepen":
        order = "T987AKQJ"
        return [Row(f"{SUIT_SYMBOLS[s]} {SUIT_NAMES[s]}", tuple(
            Card(r + s, french_name(r + s), f"suit-{s}") for r in order)) for s in "HSDC"]
    if game == "stop_the_bus":
        order = "AKQJT98765432"
        return [Row(f"{SUIT_SYMBOLS[s]} {SUIT_NAMES[s]}", tuple(
            Card(r + s, french_name(r + s), f"suit-{s}") for r in order)) for s in "HSDC"]
    if game == "fool":
        rows = [Row(FOOL_COLOUR_WORDS[c], tuple(
            Card(f"{c}{n}", f"{FOOL_COLOUR_WORDS[c]} {n}", f"colour-{c}") for n in range(2, top + 1)))
            for c, top in fool.COLOURS.items()]
        return [Row("Wild", (Card(fool.WILD, "Wild 1", "colour-W", fool.WILD_COPIES),)), *rows]
    deck = options.get("deck") or {str(k): v for k, v in fuji_flush.PUBLISHED_DECK.items()}
    copies = {int(k): int(v) for k, v in deck.items()}
    return [Row("Numbers", tuple(
        Card(str(n), str(n), "number", copies.get(n, 0)) for n in range(fuji_flush.LOW, fuji_flush.HIGH + 1)))]
