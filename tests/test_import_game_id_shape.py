"""An export's ``game.id`` is the exporting service's id (docs/export.schema.json: a string),
in the shape this service hands out (16 letters and digits, ``service.http.new_game_id``).
Anything else is a 422 ``validation_failed`` naming ``game.id``, and nothing is stored: before,
``[id]``, ``" " + id``, ``5`` and the like were imported with 201, getting around
``already_imported``."""

from __future__ import annotations

import pytest

from tests.conftest import OPEN_DEAL, assert_problem, create


def _count(client):
    return len(client.get("/games?limit=500&fork=true").get_json()["games"])


@pytest.mark.parametrize("variant", ["list", "lead space", "trailing space", "number", "object", "empty",
                                     "long", "dash", "null"])
def test_an_import_whose_game_id_is_not_an_id_is_refused(client, variant):
    game = create(client, visibility="open")
    assert game.post(OPEN_DEAL).status_code == 201
    doc = client.get(f"{game.url}/export", headers=game.auth).get_json()
    bad = {"list": [game.id], "lead space": " " + game.id, "trailing space": game.id + " ", "number": 5,
           "object": {"a": 1}, "empty": "", "long": "a" * 5000, "dash": game.id[:8] + "-" + game.id[9:],
           "null": None}[variant]
    before = _count(client)
    body = assert_problem(client.post("/games/import", json={**doc, "game": {**doc["game"], "id": bad}}),
                          422, "validation_failed")
    assert list(body["errors"]) == ["game.id"]
    assert _count(client) == before
    # the real id is still recognised: the same export is already stored here
    assert_problem(client.post("/games/import", json=doc), 409, "already_imported")


def test_game_must_be_an_object_and_a_real_id_imports(client, other_client):
    game = create(client, visibility="open")
    doc = client.get(f"{game.url}/export", headers=game.auth).get_json()
    body = assert_problem(client.post("/games/import", json={**doc, "game": "x"}), 422, "validation_failed")
    assert "game" in body["errors"]
    assert other_client.post("/games/import", json=doc).status_code == 201
