"""Pure rules reducers, one module per game, plus undo/redo folding (``engine.stream``).

``GAMES`` maps each API game id to its engine module; the service and ``replays`` look
games up here and never branch on the game's name (docs/architecture.md).
"""

from __future__ import annotations

from types import ModuleType

from engine import fool, fuji_flush, stop_the_bus, toepen

#: API game id -> engine module (``GAME``, ``RULES_VERSION``, ``resolve_options``, ``apply`` …).
GAMES: dict[str, ModuleType] = {module.GAME: module for module in (toepen, stop_the_bus, fool, fuji_flush)}
