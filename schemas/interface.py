"""The schemas interface: what every game's payload schema module (``schemas/<game>.py``) provides.

:class:`GameSchemas` is a ``typing.Protocol`` that a module satisfies. ``schemas.GAMES`` is
typed with it and built by :func:`register`, so mypy checks every registered module against
it, and ``engine.interface.missing`` names at run time what a module lacks
(``tests/test_game_interface.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from marshmallow import Schema

from engine.interface import Card, missing
from schemas.common import ActionSchema


class GameSchemas(Protocol):
    """What every game's schema module provides (docs/architecture.md, "Schemas interface")."""

    @property
    def OPTIONS(self) -> type[Schema]:
        """The marshmallow schema of the ``options`` object (types and choices; unknown keys
        refused); defaults and cross-checks are the engine's ``resolve_options``."""

    @property
    def ACTIONS(self) -> Mapping[str, type[ActionSchema]]:
        """``{type: ActionSchema subclass}``, each built as ``Schema(players=[...],
        visibility=...)`` and loading a whole action body into canonical values."""

    def parse_card(self, value: object, /) -> Card:
        """The game's card parser (the engine's ``parse_card``; raises ``ValueError``)."""

    @property
    def CARD_SCHEMA(self) -> Mapping[str, Any]:
        """The JSON Schema of exactly what ``parse_card`` accepts, for the OpenAPI document."""


def register(**modules: GameSchemas) -> dict[str, GameSchemas]:
    """The registry of schema ``modules`` by game id (one keyword per game, so that mypy
    checks each against :class:`GameSchemas`). Raises ``TypeError`` naming a module's
    missing members."""
    for game, module in modules.items():
        lacking = missing(module, GameSchemas)
        if lacking:
            raise TypeError(f"the {game} schemas lack {', '.join(lacking)} of the schemas interface")
    return dict(modules)


__all__ = ["GameSchemas", "register"]
