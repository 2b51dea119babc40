"""Request bodies are JSON in UTF-8 (api.md: bodies are JSON; RFC 8259 §8.1: no byte order
mark). Undo and redo accept an empty body, but whitespace alone is not an empty body: it is
not JSON either, so it is a 400 ``malformed_json`` like any other non-JSON body. Before,
``"  \\n"`` undid the last action (201) and a UTF-16 body with a BOM was recorded."""

from __future__ import annotations

import json

import pytest

from tests.conftest import OPEN_DEAL, assert_problem, create

PLAY = {"type": "play", "player": "Bob", "card": "7H"}


def _played(client):
    game = create(client, visibility="open")
    assert game.post(OPEN_DEAL).status_code == 201
    assert game.post(PLAY).status_code == 201
    return game


def _send(game, path, data, content_type="application/json"):
    return game.client.post(f"{game.url}/{path}", data=data, content_type=content_type, headers=game.auth)


@pytest.mark.parametrize("path", ["undo", "redo"])
@pytest.mark.parametrize("data", [b"  \n", b" ", b"\t\r\n"])
def test_whitespace_only_is_not_an_empty_body(client, path, data):
    game = _played(client)
    if path == "redo":
        assert game.post({}, "undo").status_code == 201
    version = game.get().get_json()["version"]
    assert_problem(_send(game, path, data), 400, "malformed_json")
    assert game.get().get_json()["version"] == version  # nothing was recorded


def test_an_empty_body_still_undoes(client):
    game = _played(client)
    assert _send(game, "undo", b"").status_code == 201


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-8-sig", "utf-32"])
@pytest.mark.parametrize("path", ["events", "undo"])
def test_bodies_must_be_utf8_without_a_bom(client, encoding, path):
    game = _played(client)
    version = game.get().get_json()["version"]
    body = {"type": "play", "player": "Cas", "card": "8H"} if path == "events" else {}
    body_text = assert_problem(_send(game, path, json.dumps(body).encode(encoding)), 400, "malformed_json")
    assert "UTF-8" in body_text["detail"]
    assert game.get().get_json()["version"] == version


def test_a_utf8_body_with_non_ascii_text_is_fine(client):
    game = _played(client)
    note = {"type": "note", "text": "Bob zegt: één kaart"}
    assert _send(game, "events", json.dumps(note, ensure_ascii=False).encode("utf-8")).status_code == 201
