"""``play_again_of`` (``POST /games``): the game a new one was started from with Play again,
stored in its ``game_created`` (under the hash chain), kept by export and import; a value that
is not a game id is a 422 naming the field (issue 25: the home page counts only such games as
a series, tests/browser/test_home_series.py)."""

from __future__ import annotations

from tests.conftest import assert_problem


def test_play_again_of_is_stored_and_travels_with_the_game(client, tmp_path):
    first = client.post("/games", json={"game": "toepen", "players": ["Ann", "Bob", "Cas"]}).get_json()
    again = client.post("/games", json={"game": "toepen", "players": ["Ann", "Bob", "Cas"], "dealer": "Bob",
                                        "play_again_of": first["id"]})
    assert again.status_code == 201, again.get_json()
    body = again.get_json()
    auth = {"Authorization": f"Bearer {body['token']}"}
    created = client.get(f"/games/{body['id']}/events", headers=auth).get_json()["events"][0]
    assert created["type"] == "game_created" and created["data"]["play_again_of"] == first["id"]
    alone = client.get(f"/games/{first['id']}/events").get_json()["events"][0]
    assert "play_again_of" not in alone["data"]  # a game started on its own stores no link

    exported = client.get(f"/games/{body['id']}/export?format=json", headers=auth).get_json()
    exported["game"].pop("id")  # a copy on this same server
    imported = client.post("/games/import", json=exported)
    assert imported.status_code == 201, imported.get_json()
    copy = imported.get_json()
    events = client.get(f"/games/{copy['id']}/events", headers={"Authorization": f"Bearer {copy['token']}"}).get_json()
    assert events["events"][0]["data"]["play_again_of"] == first["id"]
    assert events["events"][0]["hash"] == created["hash"]  # the chain is kept


def test_play_again_of_must_be_a_game_id(client):
    for value in ("", "short", "x" * 17, "abc/def/ghi/jklm", 7, None):
        answer = client.post("/games", json={"game": "toepen", "players": ["Ann", "Bob", "Cas"], "play_again_of": value})
        problem = assert_problem(answer, 422, "validation_failed")
        assert "play_again_of" in problem["errors"], problem
