"""Pure rules reducers, one module per game, plus undo/redo folding (``engine.stream``).

``GAMES`` maps each API game id to its engine module; the service and ``replays`` look
games up here and never branch on the game's name (docs/architecture.md). Every module is
registered through :func:`engine.interface.register`, typed with the game interface
(:class:`engine.interface.GameRules`): mypy checks each one against it, and a module that
lacks a member fails at import, naming it.
"""

from __future__ import annotations

from engine import fool, fuji_flush, stop_the_bus, toepen
from engine.interface import GameRules, register

#: API game id -> engine module (``GAME``, ``RULES_VERSION``, ``resolve_options``, ``apply`` …).
GAMES: dict[str, GameRules] = register(toepen, stop_the_bus, fool, fuji_flush)
