"""Adversarial payloads: a number is not a boolean (api.md: a wrong type is a 422)."""

from __future__ import annotations

import pytest

from tests.conftest import assert_problem, create


@pytest.mark.parametrize(("game", "players", "option"), [
    ("toepen", ["Ann", "Bob", "Cas"], "laundry_mandatory"),
    ("stop_the_bus", ["Ann", "Bob"], "allow_return"),
    ("stop_the_bus", ["Ann", "Bob"], "swap_all"),
])
@pytest.mark.parametrize("value", [1, 0, 1.0, 0.0, "true", None])
def test_boolean_options_refuse_numbers_strings_and_null(client, game, players, option, value):
    response = client.post("/games", json={"game": game, "players": players, "options": {option: value}})
    body = assert_problem(response, 422, "validation_failed")
    assert f"options.{option}" in body["errors"]


@pytest.mark.parametrize("value", [True, False])
def test_boolean_options_take_json_booleans(client, value):
    game = create(client, game="stop_the_bus", players=["Ann", "Bob"], options={"swap_all": value})
    assert game.body["options"]["swap_all"] is value


@pytest.mark.parametrize("value", [1, 1.0, "yes"])
def test_take_all_refuses_a_number(client, value):
    game = create(client, game="stop_the_bus", players=["Ann", "Bob"], options={"swap_all": True})
    assert game.post({"type": "deal", "centre": ["2C", "3C", "4C"]}).status_code == 201
    response = game.post({"type": "swap", "player": "Bob", "take_all": value, "give": ["5D", "6D", "8H"]})
    body = assert_problem(response, 422, "validation_failed")
    assert "take_all" in body["errors"]
    assert game.get().get_json()["version"] == 2
