"""``kibitz check`` passes an abandoned game (its status comes from the stream, not the rules)
and still names a stored status its events do not give."""

from __future__ import annotations

import sqlite3

from service.web.app import create_app
from tests.club_server import kibitz
from tests.conftest import PLAYERS


def test_an_abandoned_game_passes_and_a_wrong_stored_status_is_named(tmp_path):
    path = tmp_path / "kibitz.db"
    client = create_app({"TESTING": True, "DATABASE": str(path)}).test_client()
    body = client.post("/games", json={"game": "toepen", "players": PLAYERS}).get_json()
    auth = {"Authorization": f"Bearer {body['token']}"}
    answer = client.post(f"/games/{body['id']}/events", json={"type": "abandon", "reason": "power cut"}, headers=auth)
    assert answer.status_code == 201, answer.get_json()
    done = kibitz("check", "--db", str(path))
    assert done.returncode == 0, done.stdout
    conn = sqlite3.connect(path)
    conn.execute("UPDATE games SET status = 'finished' WHERE id = ?", [body["id"]])
    conn.commit()
    conn.close()
    done = kibitz("check", "--db", str(path))
    assert done.returncode == 1
    assert f"game {body['id']}: games.status is 'finished' but its events make it 'abandoned'" in done.stdout
