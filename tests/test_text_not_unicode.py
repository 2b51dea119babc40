"""Text that is not valid Unicode (a lone surrogate such as ``"\\ud83d"``) is a 422 naming
the field on every route, and no read or export of a stored game fails on its text
(issue 10 §4; api.md: 422 ``validation_failed``, "text that is not valid Unicode").

Property tests over HTTP (the Flask test client): any text, surrogates and control
characters included, in a player name, a title, a note, an adjust reason, an undo or redo
reason or an imported export is either stored (201) or refused (422), never a 500; and
every read and export of the game afterwards is a 200 whose body is UTF-8.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from marshmallow import fields

import schemas
from schemas.common import is_unicode, typed_text
from service.cli.main import main
from service.storage import sqlite as store
from service.web.app import create_app
from tests.conftest import OPEN_DEAL, PLAYERS, assert_problem, create

LONE = "\ud83d"

#: Characters of every kind, surrogates (``Cs``) and control characters (``Cc``) included.
CHARACTERS = st.one_of(
    st.characters(),
    st.characters(categories=["Cs"]),
    st.characters(categories=["Cc"]),
    st.sampled_from(["\x00", "\n", "\t", "\x1b", "\u200b", "\ufeff", "\U0001f600", "\ud83d", "\ude00"]),
)
TEXT = st.text(alphabet=CHARACTERS, min_size=0, max_size=12)
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

READS = ("", "/events", "/actions", "/timeline", "/irregularities", "/states/1", "/hands/1",
         "/export?format=json", "/export?format=jsonl", "/export?format=csv", "/export?format=text")


def assert_readable(client, game_id, token, db_path):
    """Every read and export of ``game_id`` (public view and with the token) is a 200 whose
    body is UTF-8; so is ``kibitz replay``."""
    for path in READS:
        for headers in ({}, {"Authorization": f"Bearer {token}"}):
            response = client.get(f"/games/{game_id}{path}", headers=headers)
            if path == "/hands/1" and response.status_code == 404:
                continue  # not dealt yet
            assert response.status_code == 200, (path, response.get_data(as_text=True))
            response.get_data().decode("utf-8")
    listed = client.get("/games?fork=true")
    assert listed.status_code == 200
    for args in ([], ["--public"]):
        result = CliRunner().invoke(main, ["replay", game_id, "--db", str(db_path), *args])
        assert result.exit_code == 0, (result.output, result.exception)
    result = CliRunner().invoke(main, ["export", game_id, "--db", str(db_path)])
    assert result.exit_code == 0, (result.output, result.exception)


def assert_refused(response, field):
    body = assert_problem(response, 422, "validation_failed")
    assert field in body["errors"], body


# --------------------------------------------------------------------- POST /games


def test_a_lone_surrogate_in_a_player_name_is_a_422_naming_it(client):
    response = client.post("/games", json={"game": "toepen", "players": ["Ann", "B" + LONE, "Cas"]})
    assert_refused(response, "players.1")
    assert client.get("/games").get_json()["games"] == []


def test_a_lone_surrogate_in_a_title_is_a_422_naming_it(client):
    response = client.post("/games", json={"game": "toepen", "players": PLAYERS, "title": "Club " + LONE})
    assert_refused(response, "title")


def test_a_lone_surrogate_in_an_option_or_a_field_name_is_a_422(client):
    response = client.post("/games", json={"game": "toepen", "players": PLAYERS, "options": {"limit": LONE}})
    assert_refused(response, "options.limit")
    response = client.post("/games", json={"game": "toepen", "players": PLAYERS, LONE: 1})
    assert_refused(response, "\\ud83d")


@SETTINGS
@given(name=TEXT, title=TEXT)
def test_any_name_or_title_is_201_or_422_and_then_readable(client, db_path, name, title):
    response = client.post("/games", json={"game": "toepen", "players": ["Ann", name, "Cas"], "title": title})
    assert response.status_code in (201, 422), response.get_data(as_text=True)
    if not is_unicode(name) or not is_unicode(title):
        assert response.status_code == 422
        errors = response.get_json()["errors"]
        assert ("players.1" in errors) == (not is_unicode(name))
        assert ("title" in errors) == (not is_unicode(title))
        return
    if response.status_code == 201:
        body = response.get_json()
        assert body["title"] == typed_text(title, free=True)  # NFC, CR as LF (api.md, "Text people type")
        assert_readable(client, body["id"], body["token"], db_path)


# --------------------------------------------------------------------- events, undo, redo


@SETTINGS
@given(text=TEXT, reason=TEXT, undo_reason=TEXT, redo_reason=TEXT)
def test_any_note_or_reason_is_201_or_422_and_then_readable(client, db_path, text, reason, undo_reason,
                                                            redo_reason):
    game = create(client, visibility="open")
    assert game.post(OPEN_DEAL).status_code == 201
    for action, field in (({"type": "note", "text": text, "player": "Ann"}, "text"),
                          ({"type": "adjust", "player": "Bob", "amount": 1, "reason": reason}, "reason")):
        response = game.post(action)
        assert response.status_code in (201, 422), response.get_data(as_text=True)
        if not is_unicode(action[field]):
            assert_refused(response, field)
    for path, why in (("undo", undo_reason), ("redo", redo_reason)):
        response = game.post({"reason": why}, path)
        assert response.status_code in (201, 409, 422), response.get_data(as_text=True)
        if not is_unicode(why):
            assert_refused(response, "reason")
    assert_readable(client, game.id, game.token, db_path)


def _text_fields():
    """``(game, action type, field)`` for every text field of every action schema (an
    action added later, such as ``abandon``, is covered by this list without a test of its own)."""
    out = []
    for name, module in sorted(schemas.GAMES.items()):
        for kind, schema_class in sorted(module.ACTIONS.items()):
            schema = schema_class(players=PLAYERS, visibility="open")
            for field_name, field in schema.fields.items():
                if isinstance(field, fields.String) and field_name != "type":
                    out.append((name, kind, field_name))
    return out


@pytest.mark.parametrize(("name", "kind", "field"), _text_fields())
def test_every_text_field_of_every_action_refuses_a_lone_surrogate(client, name, kind, field):
    game = create(client, game=name)
    response = game.post({"type": kind, field: "x" + LONE})
    assert_refused(response, field)
    assert game.get("/events").get_json()["version"] == 1


def test_the_list_of_text_fields_covers_notes_reasons_and_players():
    found = {(kind, field) for _, kind, field in _text_fields()}
    assert {("note", "text"), ("note", "player"), ("adjust", "reason"), ("adjust", "player")} <= found


def test_a_lone_surrogate_in_the_type_or_a_fork_body_is_a_422(client, open_game):
    assert_refused(open_game.post({"type": LONE}), "type")
    assert_refused(open_game.post({"seq": 1, LONE: 2}, "fork"), "\\ud83d")
    assert_refused(open_game.post({"reason": [LONE]}, "undo"), "reason.0")


# --------------------------------------------------------------------- import


def _export(game):
    response = game.get("/export?format=json")
    assert response.status_code == 200
    return response.get_json()


@SETTINGS
@given(title=TEXT, note=TEXT)
def test_any_text_in_an_imported_export_is_201_or_422_and_then_readable(client, db_path, title, note):
    game = create(client, visibility="open")
    assert game.post(OPEN_DEAL).status_code == 201
    assert game.post({"type": "note", "text": "kept"}).status_code == 201
    doc = _export(game)
    doc["game"]["id"] = None  # not the stored game: this test is about the text
    doc["events"][0]["data"]["title"] = title
    doc["events"][2]["data"]["text"] = note
    response = client.post("/games/import", json=doc)
    assert response.status_code in (201, 422), response.get_data(as_text=True)
    if not is_unicode(title) or not is_unicode(note):
        body = assert_problem(response, 422, "validation_failed")
        assert ("events.0.data.title" in body["errors"]) == (not is_unicode(title))
        assert ("events.2.data.text" in body["errors"]) == (not is_unicode(note))
        return
    if response.status_code == 201:
        body = response.get_json()
        assert_readable(client, body["id"], body["token"], db_path)


def test_kibitz_import_of_a_file_with_a_lone_surrogate_is_refused(client, open_game, db_path, tmp_path):
    doc = _export(open_game)
    doc["game"]["id"] = None
    doc["events"][0]["data"]["title"] = "Club " + LONE
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc), encoding="utf-8")  # ensure_ascii: the file itself is ASCII
    result = CliRunner().invoke(main, ["import", str(path), "--db", str(db_path)])
    assert result.exit_code == 1
    assert "validation_failed" in result.output and "events.0.data.title" in result.output


# --------------------------------------------------------------------- databases written before the fix


def test_a_game_stored_with_lone_surrogates_before_the_fix_reads_and_exports(client, db_path, open_game):
    """Text written before it was refused (straight into the store, as the old service did)
    is shown with U+FFFD in its place: every read, export and ``kibitz replay`` works."""
    db = store.connect(db_path)
    try:
        version = store.version_of(db, open_game.id)
        assert version is not None
        with store.immediate(db):
            store.append(db, open_game.id, version + 1, "note", {"text": "bad " + LONE, "player": "Ann"},
                         "2026-12-01T10:00:00.000Z")
            store.append(db, open_game.id, version + 2, "undo", {"reason": LONE + "x"},
                         "2026-12-01T10:00:01.000Z")
            store.set_version(db, open_game.id, version + 2, "in_progress", secret_from_hand=1)
    finally:
        db.close()
    fresh = create_app({"TESTING": True, "DATABASE": str(db_path)}).test_client()  # nothing folded in memory
    assert_readable(fresh, open_game.id, open_game.token, db_path)
    auth = {"Authorization": f"Bearer {open_game.token}"}
    events = fresh.get(f"{open_game.url}/events", headers=auth).get_json()["events"]
    assert events[-2]["data"]["text"] == "bad \ufffd"
    text = fresh.get(f"{open_game.url}/export?format=text", headers=auth).get_data().decode("utf-8")
    assert "bad \ufffd" in text
