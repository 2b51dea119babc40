"""Every registered game provides the whole game interface (engine.interface.GameRules) and the
whole schemas interface (schemas.interface.GameSchemas); a module that lacks a member is named
with what it lacks."""

from __future__ import annotations

import random
import types

import pytest

import engine
import schemas
from bench.playouts import NAMES, play
from engine import core
from engine.interface import GameRules, members, missing, register
from schemas.interface import GameSchemas
from schemas.interface import register as register_schemas


@pytest.mark.parametrize("game", sorted(engine.GAMES))
def test_engine_module_has_every_member(game: str) -> None:
    assert missing(engine.GAMES[game]) == []


@pytest.mark.parametrize("game", sorted(schemas.GAMES))
def test_schemas_module_has_every_member(game: str) -> None:
    assert missing(schemas.GAMES[game], GameSchemas) == []


def test_both_registries_name_the_same_games() -> None:
    assert sorted(engine.GAMES) == sorted(schemas.GAMES)
    assert all(game == rules.GAME for game, rules in engine.GAMES.items())


def test_interface_names_the_members_the_service_and_replays_call() -> None:
    names = set(members(GameRules))
    assert {"GAME", "SPEC", "RULES_VERSION", "SUPPORTED_VERSIONS", "upcast", "STARTER", "HAND_WORD", "PLAY_UNIT",
            "COUNTERS", "SHEET", "HANDLERS", "parse_card", "card_text", "resolve_options", "initial_state",
            "apply", "legal_actions", "possible", "public_state", "view", "status", "hand_number", "hand_over", "hand_view",
            "trick_view", "irregularities", "redact", "public_action", "results", "score_sheet", "describe", "position"} == names
    assert set(members(GameSchemas)) == {"OPTIONS", "ACTIONS", "parse_card", "CARD_SCHEMA"}


def _incomplete() -> types.ModuleType:
    """A copy of the Toepen module without ``position`` and with ``describe`` not callable."""
    fake = types.ModuleType("fake_game")
    fake.__dict__.update({k: v for k, v in vars(engine.GAMES["toepen"]).items() if not k.startswith("__")})
    del fake.position
    fake.describe = "not a function"
    fake.GAME = "fake"
    return fake


def test_missing_names_what_a_module_lacks() -> None:
    assert missing(_incomplete()) == ["describe (not callable)", "position"]


def test_register_refuses_an_incomplete_module_naming_the_member() -> None:
    with pytest.raises(TypeError, match=r"fake_game lacks describe \(not callable\), position of the game interface"):
        register(_incomplete())  # type: ignore[arg-type]  # what mypy refuses too


def test_register_refuses_two_modules_with_one_id() -> None:
    with pytest.raises(ValueError, match="two game modules claim the id 'toepen'"):
        register(engine.GAMES["toepen"], engine.GAMES["toepen"])


def test_register_schemas_refuses_an_incomplete_module() -> None:
    fake = types.ModuleType("fake_schemas")
    fake.OPTIONS = schemas.GAMES["toepen"].OPTIONS
    with pytest.raises(TypeError, match="the fake schemas lack ACTIONS, CARD_SCHEMA, parse_card of the schemas interface"):
        register_schemas(fake=fake)  # type: ignore[arg-type]


@pytest.mark.parametrize("game", sorted(engine.GAMES))
def test_counters_are_declared_once_and_reported(game: str) -> None:
    """A game's results carry exactly its declared COUNTERS (numbers) and None for the others."""
    rules = engine.GAMES[game]
    assert set(rules.COUNTERS) <= set(core.COUNTERS)
    state = play(game, random.Random(7), NAMES[:4]).state
    for result in rules.results(state).values():
        assert {name for name in core.COUNTERS if result[name] is not None} == set(rules.COUNTERS)
        assert all(isinstance(result[name], int) for name in rules.COUNTERS)


@pytest.mark.parametrize("game", sorted(engine.GAMES))
def test_starter_is_the_field_game_created_names(game: str) -> None:
    rules = engine.GAMES[game]
    created = play(game, random.Random(7), NAMES[:4]).created
    assert created[rules.STARTER] == NAMES[0]
    assert {"dealer", "first_player"} - {rules.STARTER} <= {"dealer", "first_player"} - set(created)


@pytest.mark.parametrize("game", sorted(engine.GAMES))
def test_play_unit_matches_the_hand_view(game: str) -> None:
    rules = engine.GAMES[game]
    state = play(game, random.Random(7), NAMES[:4]).state
    view = rules.hand_view(state, 1, True)
    assert view is not None
    assert isinstance(view[f"{rules.PLAY_UNIT}s"], list)
    other = "turns" if rules.PLAY_UNIT == "trick" else "tricks"
    assert other not in view

