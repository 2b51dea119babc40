"""Marshmallow payload schemas: game creation, one module per game, shared fields.

``GAMES`` maps each API game id to its schema module (``OPTIONS``, ``ACTIONS``,
``parse_card``); the service looks games up here and never branches on the game's name.
"""

from __future__ import annotations

from types import ModuleType

from schemas import fool, fuji_flush, stop_the_bus, toepen

#: API game id -> schema module.
GAMES: dict[str, ModuleType] = {"toepen": toepen, "stop_the_bus": stop_the_bus, "fool": fool, "fuji_flush": fuji_flush}
