"""French-suited card codes shared by Toepen (32 cards) and Stop the Bus (52 cards).

Codes are rank + suit (``../shared/spec/cards.md``): ranks ``2``..``9``, ``T``, ``J``,
``Q``, ``K``, ``A``; suits ``C D H S``. Input is case-insensitive, surrounding spaces are
ignored and ``10`` is accepted for ``T``.
"""

from __future__ import annotations

SUITS = "CDHS"
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
SUIT_SINGULAR = {"C": "club", "D": "diamond", "H": "heart", "S": "spade"}
SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def parse_french(value: object, ranks: str, deck_name: str) -> str:
    """Return the canonical code of ``value`` if it is a card of a deck with ``ranks``.

    ``value`` must be a string such as ``"th"``, ``" 10H "`` or ``"7C"``. Raises
    ``ValueError`` with a readable message for anything else.
    """
    if not isinstance(value, str):
        raise ValueError(f"{value!r} is not a card code: give a string such as 'TH'.")
    text = value.strip().upper()
    if text.startswith("10"):
        text = "T" + text[2:]
    if len(text) == 2 and value.strip().isascii() and text[0] in ranks and text[1] in SUITS:
        return text
    raise ValueError(f"{value!r} is not a card of the {deck_name} deck (rank {' '.join(ranks)}, suit C D H S).")


def suit_of(card: str) -> str:
    """The suit letter of a canonical code (``"TH"`` → ``"H"``)."""
    return card[1]


def pretty(card: str) -> str:
    """Human form of a code for sentences: ``"TH"`` → ``"10♥"``."""
    rank = "10" if card[0] == "T" else card[0]
    return rank + SUIT_SYMBOLS[card[1]]
