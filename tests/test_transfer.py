"""Export and import (issue 7): every shared scenario's game round-trips exactly, the
export formats parse back, the public export hides what the public view hides, and a log
the rules refuse is a 422 ``import_invalid`` naming the failing seq (nothing stored)."""

from __future__ import annotations

import copy
import csv
import io
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import engine
from service.web.app import create_app
from tests.conftest import EXAMPLES, OPEN_DEAL, Game, assert_problem, create, needs_examples, play_scenario

SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "docs" / "export.schema.json").read_text())


def export(client: Any, game_id: str, token: str | None, fmt: str = "json") -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return client.get(f"/games/{game_id}/export?format={fmt}", headers=headers)


def comparable(doc: dict[str, Any]) -> dict[str, Any]:
    """The document without what an import changes: the game's id and its import time."""
    out = copy.deepcopy(doc)
    del out["game"]["id"], out["game"]["imported_at"]
    return out


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_round_trips_exactly(client, other_client, tmp_path, path):
    game = play_scenario(client, path)
    first = export(client, game.id, game.token).get_json()
    jsonschema.validate(first, SCHEMA)
    assert_problem(client.post("/games/import", json=first), 409, "already_imported")  # issue 10: stored here
    client, here = other_client, client  # imported on another server
    imported = client.post("/games/import", json=first)
    assert imported.status_code == 201, imported.get_json()
    body = imported.get_json()
    assert body["id"] != game.id and body["token"] != game.token and body["imported_at"]
    assert imported.headers["Location"].endswith(body["id"])
    second = export(client, body["id"], body["token"]).get_json()
    jsonschema.validate(second, SCHEMA)
    assert comparable(second) == comparable(first)
    assert second["game"]["created_at"] == first["game"]["created_at"]  # the night it was played
    assert client.get(f"/games/{body['id']}").get_json()["state"] == here.get(game.url).get_json()["state"]
    # and once more, on a third server: an import of an import is the same game again
    third_server = create_app({"TESTING": True, "DATABASE": str(tmp_path / "third.db")}).test_client()
    third = third_server.post("/games/import", json=second).get_json()
    assert comparable(export(third_server, third["id"], third["token"]).get_json()) == comparable(first)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_jsonl_csv_and_text_parse_back(client, path):
    game = play_scenario(client, path)
    doc = export(client, game.id, game.token).get_json()
    lines = export(client, game.id, game.token, "jsonl").get_data(as_text=True).splitlines()
    assert [json.loads(line) for line in lines] == doc["events"]
    response = export(client, game.id, game.token, "csv")
    assert response.headers["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    state = client.get(game.url).get_json()["state"]
    players = doc["game"]["players"]
    if doc["game"]["game"] == "fuji_flush":
        assert len(rows) == len(client.get(f"{game.url}/hands/1").get_json()["turns"])
        assert [int(r["turn"]) for r in rows] == list(range(1, len(rows) + 1))
    else:
        assert len(rows) == state["hand_number"]
    for row in rows:  # running totals add up
        sheet = engine.GAMES[doc["game"]["game"]].SHEET  # headers that name their unit (issue 10)
        assert all(sheet.of(name)[1] in row for name in players)
    text = export(client, game.id, game.token, "text").get_data(as_text=True)
    assert text.startswith(f'[Game "{doc["game"]["game"]}"]\n')
    word = engine.GAMES[doc["game"]["game"]].HAND_WORD.capitalize()  # "Round 1" in the games of rounds (issue 10)
    assert f'[Players "{", ".join(players)}"]' in text and f"{word} 1 · " in text


@needs_examples
def test_csv_values_of_the_toepen_example(client):
    game = play_scenario(client, next(p for p in EXAMPLES if p.stem == "toepen-open-hand"))
    rows = list(csv.DictReader(io.StringIO(export(client, game.id, game.token, "csv").get_data(as_text=True))))
    assert rows[0] == {"hand": "1", "dealer": "Ann", "Ann lives lost this hand": "2", "Ann lives lost in all": "2",
                       "Bob lives lost this hand": "1", "Bob lives lost in all": "1", "Cas lives lost this hand": "2",
                       "Cas lives lost in all": "2", "Dee lives lost this hand": "0", "Dee lives lost in all": "0"}
    text = export(client, game.id, game.token, "text").get_data(as_text=True)
    assert "  1. Bob 7♥, Cas 8♥, Dee A♥, Ann 10♥ → Ann\n" in text
    assert "  Result: (lives lost) Ann +2 = 2, Bob +1 = 1, Cas +2 = 2, Dee +0 = 0\n" in text


def test_public_export_hides_what_the_public_view_hides(client, open_game):
    full = export(client, open_game.id, open_game.token).get_json()
    public = export(client, open_game.id, None).get_json()
    assert full["view"] == "full" and public["view"] == "public"
    assert full["events"][1]["data"]["hands"] == OPEN_DEAL["hands"]
    assert "hands" not in public["events"][1]["data"]
    jsonschema.validate(public, SCHEMA)
    for fmt in ("jsonl", "text"):
        shown = export(client, open_game.id, None, fmt).get_data(as_text=True)
        assert "TH" not in shown and "10♥" not in shown and "QS" not in shown
    assert "10♥ 9♣ J♦ Q♠" in export(client, open_game.id, open_game.token, "text").get_data(as_text=True)
    # a public export of an open hand in play cannot rebuild the game: refused, not guessed
    assert_problem(client.post("/games/import", json=public), 422, "import_invalid")


def test_export_refuses_unknown_format_and_wrong_token(client, game):
    assert_problem(client.get(f"{game.url}/export?format=pdf"), 422, "validation_failed")
    assert_problem(client.get(f"{game.url}/export", headers={"Authorization": "Bearer nope"}), 403, "token_invalid")
    assert_problem(client.get("/games/nope/export"), 404, "game_not_found")


def _open_doc(client: Any, open_game: Game) -> dict[str, Any]:
    for card, player in (("7H", "Bob"), ("8H", "Cas"), ("AH", "Dee")):
        assert open_game.post({"type": "play", "player": player, "card": card}).status_code == 201
    return export(client, open_game.id, open_game.token).get_json()


def _count(client: Any) -> int:
    return len(client.get("/games?limit=500").get_json()["games"])


@pytest.mark.parametrize(
    ("tamper", "seq", "rule_code"),
    [
        (lambda ev: ev[3]["data"].update(card="TH"), 4, "card_not_available"),  # Cas plays Ann's card
        (lambda ev: ev[3]["data"].update(player="Dee"), 4, "not_your_turn"),  # Dee before Cas
        (lambda ev: ev[0]["data"].update(rules_version=99), 1, "unknown_rules_version"),
        (lambda ev: ev[0]["data"].update(rules_version="1"), 1, "unknown_rules_version"),
        (lambda ev: ev[2]["data"].update(card="ZZ"), 3, "validation_failed"),
        (lambda ev: ev[4].update(type="game_created"), 5, "validation_failed"),
        (lambda ev: ev[0]["data"].update(game="chess"), 1, "validation_failed"),
        (lambda ev: ev[0]["data"]["options"].update(limit=0), 1, "validation_failed"),
    ],
    ids=["tampered-card", "wrong-turn", "unknown-version", "version-as-text", "bad-card-code",
         "second-created", "unknown-game", "bad-option"],
)
def test_import_refuses_a_log_the_rules_refuse(client, open_game, tamper, seq, rule_code):
    doc = _open_doc(client, open_game)
    tamper(doc["events"])
    before = _count(client)
    body = assert_problem(client.post("/games/import", json=doc), 422, "import_invalid")
    assert body["seq"] == seq and body["rule_code"] == rule_code
    assert body["detail"].startswith(f"Event {seq} is refused: ") and body["rule_message"]
    assert _count(client) == before  # nothing stored


@pytest.mark.parametrize(
    "mangle",
    [
        lambda doc: [],
        lambda doc: doc.pop("events") and None,
        lambda doc: doc.update(kibitz_export=2),
        lambda doc: doc["events"].pop(2),  # a gap in seq
        lambda doc: doc["events"][1].update(recorded_at="yesterday"),
        lambda doc: doc["events"][1].update(data="deal"),
        lambda doc: doc["events"].pop(0),
    ],
    ids=["not-an-object", "no-events", "future-format", "seq-gap", "bad-time", "data-not-object", "no-created"],
)
def test_import_refuses_a_malformed_document(client, open_game, mangle):
    doc = _open_doc(client, open_game)
    out = mangle(doc)
    body = out if isinstance(out, list) else doc
    before = _count(client)
    problem = assert_problem(client.post("/games/import", json=body), 422, "validation_failed")
    assert problem["errors"]
    assert _count(client) == before


def test_import_needs_json(client):
    assert_problem(client.post("/games/import", data="x", content_type="text/plain"), 415, "unsupported_media_type")
    assert_problem(client.post("/games/import", data="{", content_type="application/json"), 400, "malformed_json")


def test_imported_game_takes_new_moves(client, other_client, open_game):
    doc = _open_doc(client, open_game)
    body = other_client.post("/games/import", json=doc).get_json()  # the original is stored on client's server
    copy_game = Game(other_client, body)
    assert copy_game.post({"type": "play", "player": "Ann", "card": "TH"}).status_code == 201
    assert client.get(open_game.url).get_json()["version"] == doc["game"]["version"]


def test_table_game_created_with_a_title_round_trips(client, other_client):
    game = create(client, title="Friday club", dealer="cas")
    doc = export(client, game.id, game.token).get_json()
    assert doc["game"]["title"] == "Friday club" and doc["events"][0]["data"]["dealer"] == "Cas"
    body = other_client.post("/games/import", json=doc).get_json()  # the original is stored on client's server
    assert comparable(export(other_client, body["id"], body["token"]).get_json()) == comparable(doc)
