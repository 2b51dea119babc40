"""What the pages show about each game: its name, seat counts, options in words, its deck laid out.

This is presentation only (names, one-line descriptions, how to lay the deck out on screen);
the rules themselves stay in ``engine``. Option names, choices and defaults come from the
rules files (``../shared/spec/rules/<game>.md``) through the engine modules.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from engine import fool, fuji_flush
from engine.cards import SUIT_NAMES, SUIT_SYMBOLS
from service.catalogue import GAMES, Game, Option

__all__ = ["GAMES", "Card", "Game", "Option", "Row", "as_dict", "card_name", "deck_layout", "sentence"]


def sentence(text: str) -> str:
    """``text`` as one sentence: trimmed, ending with exactly one full stop (or its own ``!``
    or ``?``); empty stays empty (ui.md, "Words for card players")."""
    text = text.strip()
    while text.endswith(".."):
        text = text[:-1]
    return text if not text or text[-1] in ".!?" else text + "."


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
