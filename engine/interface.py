"""The game engine interface: everything a game module (``engine/<game>.py``) provides.

:class:`GameRules` is a ``typing.Protocol`` that a *module* satisfies: each member is a
module-level constant or function of every game. ``engine.GAMES`` is typed with it and built
by :func:`register`, so mypy checks every registered module against it (a missing member or
a wrong signature is a type error), and :func:`missing` names at run time what a module lacks
(``tests/test_game_interface.py`` runs it on every registered game). The service and
``replays/`` only call these names: they never branch on the game, nor guess its structure
from the shapes of its views. The table in docs/architecture.md says the same in words.

A game's state is its own frozen dataclass; here it is ``Any`` (each module's ``State``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal, Protocol

from engine.core import Action, SheetColumns

#: A canonical card code: a string (``"TH"``, ``"G12"``, ``"1"``) or, in Fuji Flush, a number.
Card = str | int
#: What a game's ``position`` counts and its hand views list (``tricks`` or ``turns``).
PlayUnit = Literal["trick", "turn"]
#: The ``game_created`` field naming who starts: the dealer, or the first player (no deal).
Starter = Literal["dealer", "first_player"]


class GameRules(Protocol):
    """What every game engine module provides (docs/architecture.md, "The game engine interface").

    Constants are read-only properties here (a module's constants are read, never set).
    Functions take the game's ``State`` (``Any`` here) and are pure: no clock, no I/O.
    """

    # --- identity and versions -------------------------------------------------------------

    @property
    def GAME(self) -> str:
        """The API's game id (``"toepen"``)."""

    @property
    def SPEC(self) -> str:
        """The rules file the module implements, under the spec folder (``"rules/toepen.md"``)."""

    @property
    def RULES_VERSION(self) -> int:
        """The rules version written into ``game_created``."""

    @property
    def SUPPORTED_VERSIONS(self) -> frozenset[int]:
        """The rules versions whose logs the module rebuilds (``RULES_VERSION`` among them)."""

    def upcast(self, version: int, action: Mapping[str, Any], /) -> dict[str, Any]:
        """An event recorded under the older supported ``version`` in the current shape."""

    # --- how the game is laid out ----------------------------------------------------------

    @property
    def STARTER(self) -> Starter:
        """The ``game_created`` field naming who starts: ``dealer`` or ``first_player``."""

    @property
    def HAND_WORD(self) -> str:
        """What the rules call a hand in sentences: ``"hand"`` or ``"round"``."""

    @property
    def PLAY_UNIT(self) -> PlayUnit:
        """What a hand is played in: ``"trick"`` (its ``hand_view`` lists ``tricks``, each
        with a ``trick_view``) or ``"turn"`` (its ``hand_view`` lists ``turns``)."""

    @property
    def COUNTERS(self) -> tuple[str, ...]:
        """The counters of ``results`` that this game has (a subset of
        ``engine.core.COUNTERS``); the others are None in its results."""

    @property
    def SHEET(self) -> SheetColumns:
        """The columns of its score sheet (``score_sheet``, the CSV export)."""

    @property
    def HANDLERS(self) -> Mapping[str, Callable[..., Any]]:
        """The reducer's action types (``"adjust"`` among them where the game has a score)."""

    def parse_card(self, value: object, /) -> Card:
        """The canonical code of a card given as text (raises ``ValueError``)."""

    def card_text(self, card: Any, /) -> str:
        """A card as sentences and the text export write it (``"TH"`` → ``"10♥"``)."""

    # --- set-up and the reducer ------------------------------------------------------------

    def resolve_options(self, raw: Mapping[str, Any], players: list[str], /) -> dict[str, Any]:
        """Every option with defaults filled in; raises ``OptionError``."""

    def initial_state(self, created: Mapping[str, Any], /) -> Any:
        """The state from the ``game_created`` data (``players``, ``options``, ``visibility``,
        the ``STARTER`` field, ``rules_version``)."""

    def apply(self, state: Any, action: Action, /) -> Any:
        """The pure reducer; raises ``RulesError``."""

    def legal_actions(self, state: Any, full: bool, /) -> list[dict[str, Any]]:
        """``[{"type", "player", "cards"}]``: what can be recorded next."""

    def public_state(self, state: Any, /) -> Any:
        """The state as a reader without the token knows it: in an ``open`` game no card
        still hidden in a hand is known (api.md, "Views and secrets"); else ``state``."""

    def possible(self, state: Any, player: str, /) -> list[Any] | None:
        """The cards ``player`` may choose from now in a table game, or None."""

    # --- views -----------------------------------------------------------------------------

    def view(self, state: Any, full: bool, /) -> dict[str, Any]:
        """The API's ``state`` object."""

    def status(self, state: Any, /) -> str:
        """``"in_progress"`` or ``"finished"``."""

    def hand_number(self, state: Any, /) -> int:
        """The current hand or round, 0 before the first deal."""

    def hand_over(self, state: Any, number: int, /) -> bool:
        """Hand ``number`` is over (its hidden cards may be shown)."""

    def hand_view(self, state: Any, number: int, full: bool, /) -> dict[str, Any] | None:
        """``GET hands/<n>``; None means 404."""

    def trick_view(self, state: Any, number: int, trick: int, full: bool, /) -> dict[str, Any] | None:
        """``GET hands/<n>/tricks/<t>``; None means 404 (always None for turn games)."""

    def irregularities(self, state: Any, number: int, full: bool, /) -> list[dict[str, Any]]:
        """Hand ``number``'s ``irregularities`` as its ``hand_view`` lists them (``[]`` for no
        such hand), without building the rest of the view: a write reads the current hand's on
        every move."""

    def redact(self, action: Mapping[str, Any], /) -> dict[str, Any]:
        """The public copy of a stored action while its hand is in play."""

    def public_action(self, state: Any, number: int, action: Mapping[str, Any], /) -> dict[str, Any]:
        """The copy of a stored action of hand ``number`` a reader without the token sees now."""

    def results(self, state: Any, /) -> dict[str, dict[str, Any]]:
        """Each player's result and stats (``engine.core.player_result``)."""

    def score_sheet(self, state: Any, /) -> list[dict[str, Any]]:
        """One row per hand, round or turn, the columns of ``SHEET``."""

    def describe(self, before: Any, action: Action, after: Any, full: bool, /) -> str:
        """One timeline line in plain words."""

    def position(self, state: Any, /) -> int:
        """The trick or turn in progress (the number of the next one), 0 between hands."""


def members(protocol: type) -> tuple[str, ...]:
    """The names a ``protocol`` class declares (its public attributes, properties and methods)."""
    names = set(getattr(protocol, "__annotations__", {}))
    names.update(name for name in vars(protocol) if not name.startswith("_"))
    return tuple(sorted(names))


def missing(module: object, protocol: type = GameRules) -> list[str]:
    """The members of ``protocol`` that ``module`` lacks (an empty list when it has them all),
    with the functions among them that ``module`` has as something not callable."""
    out = []
    for name in members(protocol):
        declared = vars(protocol).get(name)
        if not hasattr(module, name):
            out.append(name)
        elif callable(declared) and not isinstance(declared, property) and not callable(getattr(module, name)):
            out.append(f"{name} (not callable)")
    return out


def register(*modules: GameRules) -> dict[str, GameRules]:
    """The registry of ``modules`` by their ``GAME`` id (one argument per module, so that mypy
    checks each against :class:`GameRules`).

    Raises ``TypeError`` naming the module and its missing members when one lacks part of the
    interface, ``ValueError`` when two modules claim one id.
    """
    out: dict[str, GameRules] = {}
    for module in modules:
        lacking = missing(module)
        if lacking:
            raise TypeError(f"{getattr(module, '__name__', module)} lacks {', '.join(lacking)} of the game interface")
        if module.GAME in out:
            raise ValueError(f"two game modules claim the id {module.GAME!r}")
        out[module.GAME] = module
    return out
