"""Text people type, as api.md "Text people type" lists it (docs/text-and-headers.md):
stored in NFC; control characters, invisible and direction-changing characters, private-use,
unassigned and surrogate code points refused with a 422 naming the field, in names and free
text alike (free text keeps line feeds; CR and CRLF are stored as LF); joiners kept; a name
needs a visible character; two seats equal after NFC, case folding and removing joiners are
a 422 on ``players``; match histories compare names the same way; names stored before keep
reading and matching as stored."""

from __future__ import annotations

import json
import unicodedata
from urllib.parse import quote

import pytest

from service.storage import sqlite as store
from tests.conftest import PLAYERS, assert_problem, create, rechain
from tests.tampering import lifted

NFC_JOSE, NFD_JOSE = "Jos\u00e9", "Jose\u0301"
REFUSED = ["\u200b", "\u2060", "\ufeff", "\u200e", "\u200f", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e",
           "\u2066", "\u2067", "\u2068", "\u2069", "\x00", "\x07", "\t", "\x1b", "\x7f", "\x85",
           "\ue000", "\U000f0000", "\u0378", "\U000e0080"]


def refused(response, field):
    body = assert_problem(response, 422, "validation_failed")
    assert field in body["errors"], body
    return body


def new_game(client, players, **extra):
    return client.post("/games", json={"game": "toepen", "players": players, **extra})


# --------------------------------------------------------------------- names


@pytest.mark.parametrize("char", REFUSED)
def test_a_refused_character_in_a_name_is_a_422_naming_the_seat(client, char):
    body = refused(new_game(client, ["Ann", "Bob" + char + "x", "Cas"]), "players.1")
    assert f"U+{ord(char):04X}" in body["errors"]["players.1"][0]
    assert client.get("/games").get_json()["games"] == []


@pytest.mark.parametrize("lookalike", ["Ann\u200b", "Ann\u2060", "An\u200dn", "A\u200cnn", " ANN "])
def test_the_four_anns_are_one_name(client, lookalike):
    response = new_game(client, ["Ann", lookalike, "Cas"])
    assert response.status_code == 422
    assert set(response.get_json()["errors"]) & {"players", "players.1"}


def test_nfc_and_nfd_jose_are_one_name(client):
    body = refused(new_game(client, [NFC_JOSE, NFD_JOSE, "Cas"]), "players")
    assert NFC_JOSE in body["errors"]["players"][0]


def test_names_are_stored_in_nfc_and_match_in_any_form(client):
    game = create(client, players=[NFD_JOSE, "Bob", "Cas"], dealer=NFC_JOSE)
    assert game.body["players"][0] == NFC_JOSE
    assert game.get().get_json()["players"][0] == NFC_JOSE
    assert game.post({"type": "deal"}).status_code == 201
    assert game.post({"type": "knock", "player": NFD_JOSE.upper()}).status_code == 201
    events = game.get("/events").get_json()["events"]
    assert events[0]["data"]["players"][0] == NFC_JOSE and events[-1]["data"]["player"] == NFC_JOSE


@pytest.mark.parametrize("name", ["\u200d", "\u200c\u200d", "\u0301", "\u00a0\u200d"])
def test_a_name_needs_a_visible_character(client, name):
    refused(new_game(client, ["Ann", name, "Cas"]), "players.1")


@pytest.mark.parametrize("name", ["\U0001f468\u200d\U0001f469\u200d\U0001f467", "\u0645\u06cc\u200c\u0631\u0648\u0645",
                                  "\u05d0\u05d1\u05d9", "R2-D2", "\u2605", "\u00bf?"])
def test_joiners_emoji_and_right_to_left_names_are_kept(client, name):
    game = create(client, players=["Ann", name, "Cas"])
    assert game.body["players"][1] == name


# --------------------------------------------------------------------- free text


@pytest.mark.parametrize("char", REFUSED)
def test_a_refused_character_in_free_text_is_a_422_naming_the_field(client, char):
    refused(new_game(client, PLAYERS, title="Friday" + char + "club"), "title")
    game = create(client)
    assert game.post({"type": "deal"}).status_code == 201
    refused(game.post({"type": "note", "text": "a" + char + "b"}), "text")
    refused(game.post({"type": "adjust", "player": "Bob", "amount": 1, "reason": "a" + char + "b"}), "reason")
    refused(game.post({"reason": "a" + char + "b"}, "undo"), "reason")
    refused(game.post({"type": "abandon", "reason": "a" + char + "b"}), "reason")
    assert game.get().get_json()["version"] == 2  # nothing stored


def test_free_text_keeps_line_feeds_and_stores_cr_as_lf(client):
    game = create(client, title="Friday\r\nclub\rnight")
    assert game.body["title"] == "Friday\nclub\nnight"
    assert game.post({"type": "deal"}).status_code == 201
    response = game.post({"type": "note", "text": "line 1\r\nline 2\rline 3\nline 4"})
    assert response.status_code == 201
    assert response.get_json()["event"]["data"]["text"] == "line 1\nline 2\nline 3\nline 4"


def test_free_text_is_stored_in_nfc(client):
    game = create(client, title="Caf" + "e\u0301")
    assert game.body["title"] == "Caf\u00e9"
    assert game.post({"type": "deal"}).status_code == 201
    note = game.post({"type": "note", "text": "Jose\u0301 \U0001f44d\u200d"}).get_json()["event"]["data"]["text"]
    assert note == unicodedata.normalize("NFC", "Jose\u0301 \U0001f44d\u200d")


def test_a_line_feed_in_a_name_is_refused(client):
    refused(new_game(client, ["Ann", "Bo\nb", "Cas"]), "players.1")


# --------------------------------------------------------------------- match histories


def test_histories_match_names_in_any_form(client):
    create(client, players=[NFD_JOSE, "Bob", "Cas"])
    create(client, players=["jos\u00e9 ", "Bob", "Dee"])
    for spelling in (NFC_JOSE, NFD_JOSE, "JOS\u00c9", "Jos\u200d\u00e9"):
        record = client.get(f"/players/{quote(spelling)}")
        assert record.status_code == 200, spelling
        assert record.get_json()["total_games"] == 2
    names = [p["name"] for p in client.get("/players").get_json()["players"]]
    assert sum(unicodedata.normalize("NFC", n).casefold().strip() == "jos\u00e9" for n in names) == 1


# --------------------------------------------------------------------- stored before


def test_names_stored_before_keep_reading_and_matching_as_stored(client, db_path):
    game = create(client, players=["Ann", "Bob", "Cas"])
    db = store.connect(str(db_path))
    stored = ["Ann\u200b", "Bob", NFD_JOSE]
    with db.conn:
        db.execute("DROP TRIGGER events_no_update")
        db.execute("UPDATE games SET players = ?, title = ? WHERE id = ?",
                   [json.dumps(stored), "Old\u202e night", game.id])
        db.execute("UPDATE events SET data = json_set(data, '$.players', json(?), '$.dealer', ?, '$.title', ?) "
                   "WHERE game_id = ? AND seq = 1", [json.dumps(stored), stored[0], "Old\u202e night", game.id])
        rechain(db, game.id)  # stored so by an older Kibitz: its chain computed from what it stored
    client.application.extensions["kibitz_cache"].clear()
    body = game.get().get_json()
    assert body["players"] == stored and body["title"] == "Old\u202e night"
    assert game.post({"type": "deal", "dealer": "Ann\u200b"}).status_code == 201
    assert game.post({"type": "knock", "player": NFD_JOSE}).status_code == 201
    assert game.post({"type": "note", "text": "x", "player": "ann\u200b"}).status_code == 201
    page = client.get(f"/watch/{game.id}")
    assert page.status_code == 200
    # Play again with such a name is a new game: the 422, naming the seat
    refused(new_game(client, stored), "players.0")


def test_an_import_checks_the_names_like_a_new_game(client, other_client):
    game = create(client, players=["Ann", "Bob", "Cas"])
    doc = game.get("/export").get_json()
    doc["events"][0]["data"]["players"] = ["Ann", "Bob\u202e", "Cas"]
    response = other_client.post("/games/import", json=doc)
    body = assert_problem(response, 422, "import_invalid")
    assert any(key.startswith("players") for key in body["errors"]), body


def test_the_migration_recomputes_the_match_keys_of_stored_games(client, db_path):
    """Games stored before: their player_results keys were the name trimmed and case-folded;
    migration 0007 writes NFC, case-folded, joiner-free keys, and where two old seats now compare
    equal both keep their old keys."""
    from service.storage.migrations import MIGRATIONS
    from service.web.app import create_app

    one = create(client, players=[NFC_JOSE, "Bob", "Cas"])
    two = create(client, players=["Ann", "Bob", "Dee"])
    db = store.connect(str(db_path))
    with lifted(db_path) as run:  # the games as an older Kibitz stored them: their logs name the seats so too
        for game_id, players in ((one.id, [NFD_JOSE, "Bob", "Cas"]), (two.id, ["A\u200dnn", "Bob", "ANN"])):
            run("UPDATE events SET data = json_set(data, '$.players', json(?), '$.dealer', ?) "
                "WHERE game_id = ? AND seq = 1", [json.dumps(players), players[0], game_id])
            run("UPDATE games SET players = ?, player_keys = ? WHERE id = ?",
                [json.dumps(players), json.dumps([name.casefold() for name in players]), game_id])
            rechain(db, game_id)
    with db.conn:
        db.execute("UPDATE player_results SET name = ?, player_key = ? WHERE game_id = ? AND seat = 1",
                   [NFD_JOSE, NFD_JOSE.casefold(), one.id])
        db.execute("UPDATE player_results SET name = ?, player_key = ? WHERE game_id = ? AND seat = 1",
                   ["A\u200dnn", "a\u200dnn", two.id])
        db.execute("UPDATE player_results SET name = ?, player_key = ? WHERE game_id = ? AND seat = 3",
                   ["ANN", "ann", two.id])  # two seats an old game had, one name for the rules now
        db.execute(f"DELETE FROM {MIGRATIONS.migrations_table} WHERE name = '0007_player_keys_nfc'")
    fresh = create_app({"TESTING": True, "DATABASE": str(db_path)}).test_client()  # migrates; holds nothing folded
    keys = {(row["game_id"], row["seat"]): row["player_key"] for row in
            db.query("SELECT game_id, seat, player_key FROM player_results")}
    assert keys[(one.id, 1)] == NFC_JOSE.casefold()
    assert (keys[(two.id, 1)], keys[(two.id, 3)]) == ("a\u200dnn", "ann")  # both keep their old keys
    assert fresh.get("/players/" + quote(NFD_JOSE)).get_json()["total_games"] == 1


def test_the_game_list_finds_a_player_in_either_form(client):
    create(client, players=[NFD_JOSE, "Bob", "Cas"])
    for spelling in (NFC_JOSE, NFD_JOSE, "jos\u00c9"):
        assert len(client.get("/games", query_string={"player": spelling}).get_json()["games"]) == 1, spelling
