"""Marshmallow payload schemas: game creation, one module per game, shared fields.

``GAMES`` maps each API game id to its schema module (``OPTIONS``, ``ACTIONS``,
``parse_card``: :class:`schemas.interface.GameSchemas`); the service looks games up here and
never branches on the game's name. Registered through :func:`schemas.interface.register`, so
mypy checks each module against the interface.
"""

from __future__ import annotations

from schemas import fool, fuji_flush, stop_the_bus, toepen
from schemas.interface import GameSchemas, register

#: API game id -> schema module.
GAMES: dict[str, GameSchemas] = register(toepen=toepen, stop_the_bus=stop_the_bus, fool=fool, fuji_flush=fuji_flush)
