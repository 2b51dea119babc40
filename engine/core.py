"""What every game engine shares: the rules error, option errors and the action type.

The engine is a pure functional core (``../shared/spec/recording.md``, "Reducers"): no
clock, no randomness, no I/O, and nothing from Flask, SQLite or marshmallow.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import MISSING, dataclass
from typing import Any, TypeVar

T = TypeVar("T")

#: One action as the engine sees it: ``{"type": "play", "player": "Bob", "card": "TH"}``.
#: Card codes are canonical and player names are spelt as at creation (the schemas see to
#: that before an action reaches a reducer).
Action = Mapping[str, Any]


class RulesError(Exception):
    """An action that is illegal in the current state (HTTP 409; nothing is stored).

    ``code`` is a stable snake_case string from the game's rules file (for example
    ``must_follow_suit``); ``message`` is a plain sentence a scorekeeper understands.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class OptionError(ValueError):
    """A game option (or seat list) that the rules do not allow (HTTP 422 at creation).

    ``field`` names the option (``"limit"``, ``"players"``); ``message`` says why.
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def seat_after(seat: int, seats: int, eligible: Any = None) -> int | None:
    """Return the next seat clockwise after ``seat`` for which ``eligible(seat)`` is true.

    ``seats`` is the table size; ``eligible`` defaults to every seat. Returns ``None`` when
    no other seat (nor ``seat`` itself, checked last) is eligible.
    """
    for step in range(1, seats + 1):
        candidate = (seat + step) % seats
        if eligible is None or eligible(candidate):
            return candidate
    return None


def name_list(names: list[str] | tuple[str, ...]) -> str:
    """Join names for a sentence: ``"Ann"``, ``"Ann and Bob"``, ``"Ann, Bob and Cas"``."""
    if not names:
        return "nobody"
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


#: A game's visibility as a person says it (ui.md, "Words for card players": "open hands"
#: or "table", never the bare option value beside a title).
VISIBILITY_WORDS = {"open": "open hands", "table": "table visibility"}


def visibility_words(visibility: str) -> str:
    """``"open"`` -> ``"open hands"``, ``"table"`` -> ``"table visibility"``; anything else as is."""
    return VISIBILITY_WORDS.get(visibility, visibility)


def check_seats(game: str, players: Sequence[str], low: int, high: int) -> None:
    """Raise ``OptionError("players", …)`` unless ``low <= len(players) <= high``; ``game`` is the
    game's name in the sentence (``"Toepen is played by 3 to 8 players."``)."""
    if not low <= len(players) <= high:
        raise OptionError("players", f"{game} is played by {low} to {high} players.")


def options_with_defaults(game: str, defaults: Any, raw: Mapping[str, Any], *, none_is_default: bool = False,
                          choices: Mapping[str, Sequence[Any]] | None = None) -> dict[str, Any]:
    """Every field of the ``defaults`` dataclass with the ``raw`` options given at creation put
    over it, as a JSON object: the start of a game's ``resolve_options``.

    ``none_is_default`` keeps the default where ``raw`` gives null. ``choices`` maps options to
    the values the rules offer. Raises ``OptionError`` for an option ``defaults`` has no field
    for (``"Unknown option for <game>."``) or a value outside its ``choices``.
    """
    out: dict[str, Any] = {name: getattr(defaults, name) for name in type(defaults).__dataclass_fields__}
    for name, value in raw.items():
        if name not in out:
            raise OptionError(name, f"Unknown option for {game}.")
        if value is not None or not none_is_default:
            out[name] = value
    for name, offered in (choices or {}).items():
        if out[name] not in offered:
            raise OptionError(name, f"Must be one of: {', '.join(offered)}.")
    return out


def finished_status(state: Any) -> str:
    """Every game's ``status``: ``"finished"`` once ``state.finished`` (the game is over), else
    ``"in_progress"``."""
    return "finished" if state.finished else "in_progress"


def check_card_list(cards: Sequence[Any], count: int, what: str, word: Any = str) -> None:
    """The card-list refusals shared by every game (recording.md, "Refusal codes shared by
    every game"), for a list of a deck whose cards are each held once (Toepen, Stop the Bus):
    ``wrong_card_count`` when ``cards`` is not ``count`` cards long, then
    ``card_not_available`` for a card listed more than once. ``what`` names the list in the
    sentence ("Ann's dealt hand", "A show"); ``word`` writes a card for people."""
    if len(cards) != count:
        raise RulesError("wrong_card_count", f"{what} has {count} cards, not {len(cards)}.")
    if len(set(cards)) == count:  # no card twice
        return
    twice = next((card for index, card in enumerate(cards) if card in cards[:index]), None)
    if twice is not None:
        raise RulesError("card_not_available", f"{what} lists {word(twice)} twice: the deck has one {word(twice)}.")


def public_once_over(over: bool, action: Mapping[str, Any], hidden: Mapping[str, tuple[str, ...]]) -> dict[str, Any]:
    """A game's ``public_action`` where nothing stays secret after its hand: all of ``action``
    once the hand is ``over``, else its :func:`redact_fields` copy without the ``hidden`` fields."""
    return dict(action) if over else redact_fields(action, hidden)


#: The past tense of the actions that take only a ``player``: the one wording of each, used
#: by the Undo and Redo buttons (``engine.stream.summary``) and by the timeline's sentences
#: (the games' ``describe``), so that the same event reads the same everywhere.
PAST_TENSE = {"knock": "knocked", "stay": "stayed in", "fold": "folded", "laundry": "asked for a laundry",
              "stop": "stopped the bus"}


#: Nouns of the games' texts whose plural is not the singular with an ``s``.
IRREGULAR = {"life": "lives", "copy": "copies"}


def plural(count: int, singular: str, *, signed: bool = False) -> str:
    """``count`` and the noun in the right number: ``"1 chip"``, ``"2 chips"``, ``"0 lives"``,
    ``"1 life"``, ``"-1 point"`` (singular for 1 and -1 only).

    ``singular`` is the noun (``"card"``); its plural adds ``s`` unless :data:`IRREGULAR`
    lists it. ``signed`` writes a ``+`` before a count of 0 or more (a ruling's ``"+1 chip"``).
    """
    noun = singular if abs(count) == 1 else IRREGULAR.get(singular, singular + "s")
    return f"{'+' if signed and count >= 0 else ''}{count} {noun}"


@dataclass(frozen=True)
class SheetColumns:
    """What a game's score sheet (the CSV export, docs/export.md) holds per player.

    Each row starts with the ``first`` columns (``hand``/``round``/``turn`` …), then has,
    for each player, a ``"<name> <change>"`` column (what this hand, round or
    turn changed, a signed count) and a ``"<name> <total>"`` column (where the player stands
    after it); ``unit`` is what both count, for the text export's ``Result`` line. The
    headers say their unit so that ``-1`` is never read as a count of cards or chips.
    ``per_turn`` is True when a row is one turn (Fuji Flush) rather than one hand or round
    (the text export writes a hand's ``Result`` line from its row only then).
    """

    first: tuple[str, ...]
    unit: str
    change: str
    total: str
    per_turn: bool = False

    def of(self, name: str) -> tuple[str, str]:
        """The change and total column headers of player ``name``."""
        return f"{name} {self.change}", f"{name} {self.total}"

    def header(self, names: tuple[str, ...] | list[str]) -> list[str]:
        """Every column of the sheet, in order, for the seats ``names``."""
        return [*self.first, *(column for name in names for column in self.of(name))]


_EVOLVERS: dict[type, Any] = {}


def evolve(obj: T, **changes: Any) -> T:
    """A copy of the frozen dataclass ``obj`` with ``changes`` applied.

    Same meaning as :func:`dataclasses.replace`, which it replaces in the reducers because it
    is several times faster: no ``__init__`` call and no per-call introspection. For a class
    with a ``__dict__`` (no ``slots``) the copy is one new dictionary, which is why the
    reducers' big state classes are not slotted. Raises ``TypeError`` for a name that is not
    a field.
    """
    cls = type(obj)
    names = _DICT_FIELDS.get(cls)
    # (``changes.keys() <= names`` asks each name of the set; ``names.issuperset(changes)`` would
    # build a set of the changes first, on every copy)
    if names is not None and changes.keys() <= names:  # a dict-based record: copy_dict's work, without its call
        fields = obj.__dict__.copy()  # a copy of a whole dict, then the changes: far cheaper than {**a, **b}
        fields.update(changes)
        out: T = _new(cls)
        _set_attribute(out, "__dict__", fields)
        return out
    copier = _EVOLVERS.get(cls)
    if copier is None:
        copier = _EVOLVERS[cls] = _copier(cls)
        if not hasattr(cls, "__slots__"):
            _DICT_FIELDS[cls] = frozenset(cls.__dataclass_fields__)  # type: ignore[attr-defined]
    result: T = copier(obj, changes)
    return result


#: The fields of each dict-based record :func:`evolve` has copied (a record with slots is
#: copied by the code :func:`_copier` compiles for its class).
_DICT_FIELDS: dict[type, frozenset[str]] = {}
_new, _set_attribute = object.__new__, object.__setattr__


def _copier(cls: type) -> Any:
    names = frozenset(cls.__dataclass_fields__)  # type: ignore[attr-defined]
    new, set_dict = object.__new__, object.__setattr__

    def check(changes: dict[str, Any]) -> None:
        if not changes.keys() <= names:
            raise TypeError(f"{cls.__name__} has no field {sorted(set(changes) - names)}")

    if hasattr(cls, "__slots__"):  # straight-line code compiled once for the class
        lines = ["def copy_slots(obj, changes):", "    if not changes.keys() <= names:", "        check(changes)",
                 "    out = new(cls)", "    get = changes.get"]
        # each field stored through its slot's own descriptor, as fast_init's __init__ does
        lines += [f"    _store_{name}(out, get({name!r}, obj.{name}))" for name in sorted(names)]
        lines.append("    return out")
        scope: dict[str, Any] = {"cls": cls, "new": new, "check": check, "names": names,
                                 **{f"_store_{name}": getattr(cls, name).__set__ for name in names}}
        exec("\n".join(lines), scope)
        return scope["copy_slots"]

    def copy_dict(obj: Any, changes: dict[str, Any]) -> Any:
        if not changes.keys() <= names:
            check(changes)
        fields = obj.__dict__.copy()  # one new dictionary: a copy of the whole, then the changes
        fields.update(changes)
        out: Any = new(cls)
        set_dict(out, "__dict__", fields)
        return out

    return copy_dict


def fast_init(cls: type[T]) -> type[T]:
    """Give the frozen, slotted dataclass ``cls`` (the reducers' small records: a card played,
    a hand's holding, a turn) an ``__init__`` compiled once for the class, as :func:`evolve`'s
    copier is: the same parameters, defaults and result as the one ``dataclasses`` writes,
    which sets each field through ``object.__setattr__`` looked up anew per field; this one
    stores through the class's own slots (about twice as fast, and a rebuild builds several
    records per event). Use it above ``@dataclass(frozen=True, slots=True)``. A class with a
    ``__post_init__``, a default factory, a keyword-only or ``init=False`` field keeps
    the ``__init__`` ``dataclasses`` wrote. Returns ``cls``."""
    fields = list(cls.__dataclass_fields__.values())  # type: ignore[attr-defined]
    plain = all(f.init and not f.kw_only and f.default_factory is MISSING and f.name in cls.__dict__ for f in fields)
    if hasattr(cls, "__post_init__") or not plain or not hasattr(cls, "__slots__"):
        return cls
    scope: dict[str, Any] = {}
    params, lines = [], []
    for f in fields:
        if f.default is MISSING:
            params.append(f.name)
        else:
            scope[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        scope[f"_store_{f.name}"] = cls.__dict__[f.name].__set__  # the slot's own descriptor
        lines.append(f"    _store_{f.name}(self, {f.name})")
    exec(f"def __init__(self, {', '.join(params)}):\n" + "\n".join(lines or ["    pass"]), scope)
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__annotations__ = {**{f.name: f.type for f in fields}, "return": None}
    setattr(cls, "__init__", init)  # noqa: B010 - a class attribute set on purpose
    return cls


def no_upcast(version: int, action: Mapping[str, Any]) -> dict[str, Any]:
    """The ``upcast`` of a game whose only rules version is its current one: a plain copy.

    ``engine.stream`` calls a module's ``upcast(version, action)`` for every event of a game
    recorded under an older supported version; a game that changes the meaning of an event
    replaces this with its own translation.
    """
    return dict(action)


#: The fields of a game action that name cards that were, or may now be, in a player's hand
#: once the action is no longer in the record (api.md, "Views and secrets": an undone play,
#: show or reveal puts its card back in the hand): a play's or draw's ``card``, a reveal's,
#: show's, challenge's or laundry's ``cards``, a swap's ``give``, and a deal's face-up
#: ``centre`` (an undone deal's cards go back into the deck and may be dealt to anyone). A
#: swap's ``take`` came from the face-up middle and goes back there; a deal's ``hands`` are
#: the game's own ``public_action``'s business.
HAND_CARD_FIELDS = ("card", "cards", "give", "centre")


def without_hand_cards(action: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a game action without the :data:`HAND_CARD_FIELDS`: what a reader without the
    token may see of an action whose cards are no longer in the record (an undone play …)
    while their hand is in play. ``engine.stream.summary`` words such a copy without the card
    ("Cas played a card")."""
    return {key: value for key, value in action.items() if key not in HAND_CARD_FIELDS}


def redact_fields(action: Mapping[str, Any], hidden: Mapping[str, tuple[str, ...]]) -> dict[str, Any]:
    """A copy of ``action`` without the fields ``hidden[action type]`` names.

    Each game lists, per action type, the fields that carry cards the public may not see
    (an open deal's ``hands``, a laundry's new ``cards`` …); its ``redact`` is this call.
    """
    out = dict(action)
    for name in hidden.get(str(out.get("type")), ()):
        out.pop(name, None)
    return out


#: Every counter of a game's ``results`` (the same keys in every game): each game module
#: declares the ones it has in its ``COUNTERS`` (engine.interface); the others are None.
COUNTERS = ("tricks_won", "fools", "knocks", "stops")


def player_result(
    seat: int, won: bool | None, score: int | None, unit: str | None, hands: int, **counters: int
) -> dict[str, Any]:
    """One player's entry in a game module's ``results``: the same keys in every game.

    ``seat`` is 0-based (shown 1-based); ``won`` is None while the game runs
    (``in_progress``); ``counters`` are any of :data:`COUNTERS`, the others are None.
    Raises ``TypeError`` for a counter that is not one of them.
    """
    unknown = set(counters) - set(COUNTERS)
    if unknown:
        raise TypeError(f"unknown counters {sorted(unknown)}")
    return {
        "seat": seat + 1,
        "result": "in_progress" if won is None else ("won" if won else "lost"),
        "score": score,
        "unit": unit,
        "hands": hands,
        **{name: counters.get(name) for name in COUNTERS},
    }
