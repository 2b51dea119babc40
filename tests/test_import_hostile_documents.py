"""Hostile imports (issue 7): what an import stores and refuses: an imported fork stays out of
match histories, values of the wrong type or impossible times are refused (game_created's too)."""

from __future__ import annotations

import copy

import pytest

from tests.conftest import OPEN_DEAL, Game, assert_problem, create


def _export(game: Game, fmt: str = "json"):
    response = game.get(f"/export?format={fmt}")
    assert response.status_code == 200
    return response.get_json() if fmt == "json" else response.get_data(as_text=True)


def test_an_imported_fork_stays_out_of_match_histories(client, other_client):
    game = create(client, players=["Ann", "Bob", "Cas", "Dee"], options={"limit": 1})
    fork = Game(client, game.post({"seq": 1}, "fork").get_json())
    assert fork.post({"type": "adjust", "player": "Ann", "amount": 1, "reason": "what if"}).status_code == 201
    # the original and the fork are stored on the other server too (issue 10: an import of a
    # game already stored here is a 409 already_imported, so the fork's copy goes there)
    for doc in (_export(game), _export(fork)):
        imported = other_client.post("/games/import", json=doc)
        assert imported.status_code == 201, imported.get_json()
    assert imported.get_json()["forked_from"] == {"game": game.id, "seq": 1}
    for reader in (client, other_client):
        ann = reader.get("/players/ann").get_json()
        assert ann["total_games"] == 1 and len(ann["games"]) == 1
        assert ann["by_game"]["toepen"]["finished"] == 0
    assert [g["id"] for g in client.get("/players/ann").get_json()["games"]] == [game.id]


@pytest.fixture
def document(client):
    game = create(client, visibility="open")
    assert game.post(OPEN_DEAL).status_code == 201
    assert game.post({"type": "play", "player": "Bob", "card": "7H"}).status_code == 201
    return _export(game)


@pytest.mark.parametrize(
    ("where", "value"),
    [
        (("events", 2, "seq"), 3.0),
        (("events", 1, "seq"), True),
        (("kibitz_export",), True),
        (("kibitz_export",), 1.0),
        (("events", 2, "recorded_at"), "2026-13-45T99:99:99Z"),
        (("events", 0, "recorded_at"), "2026-02-30T10:00:00Z"),
    ],
)
def test_import_refuses_values_of_the_wrong_type_or_impossible_times(client, document, where, value):
    doc = copy.deepcopy(document)
    target = doc
    for step in where[:-1]:
        target = target[step]
    target[where[-1]] = value
    before = len(client.get("/games").get_json()["games"])
    assert_problem(client.post("/games/import", json=doc), 422, "validation_failed")
    assert len(client.get("/games").get_json()["games"]) == before


def test_import_checks_the_time_of_game_created_like_any_event(client, other_client, document):
    doc = copy.deepcopy(document)
    doc["events"][0]["at"] = "not a time"
    body = assert_problem(client.post("/games/import", json=doc), 422, "import_invalid")
    assert body["seq"] == 1 and body["rule_code"] == "validation_failed"
    doc["events"][0]["at"] = "2026-11-29T21:15:00+01:00"
    changed = assert_problem(other_client.post("/games/import", json=doc), 422, "import_invalid")
    assert changed["seq"] == 1 and changed["rule_code"] == "hash_mismatch"  # a changed time breaks the chain
    for event in doc["events"]:  # an export without the chain (older) is checked, and chained afresh
        event.pop("hash"), event.pop("salt", None)
    imported = other_client.post("/games/import", json=doc)  # the original is stored on client's server
    assert imported.status_code == 201
    log = other_client.get(f"/games/{imported.get_json()['id']}/events").get_json()["events"]
    assert log[0]["at"] == "2026-11-29T20:15:00.000Z"
