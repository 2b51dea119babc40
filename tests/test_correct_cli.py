"""``kibitz check`` passes a corrected game, and ``kibitz replay`` prints the correction beside
the entry it corrected."""

from __future__ import annotations

from service.web.app import create_app
from tests.club_server import kibitz
from tests.conftest import OPEN_DEAL, PLAYERS


def test_check_and_replay_of_a_corrected_game(tmp_path):
    path = tmp_path / "kibitz.db"
    client = create_app({"TESTING": True, "DATABASE": str(path)}).test_client()
    body = client.post("/games", json={"game": "toepen", "players": PLAYERS, "visibility": "open"}).get_json()
    url, auth = f"/games/{body['id']}", {"Authorization": f"Bearer {body['token']}"}
    client.post(f"{url}/events", json=OPEN_DEAL, headers=auth)
    for player, card in [("Bob", "7H"), ("Cas", "JH"), ("Dee", "AH")]:
        client.post(f"{url}/events", json={"type": "play", "player": player, "card": card}, headers=auth)
    fix = {"target": 4, "action": {"type": "play", "player": "Cas", "card": "8H"}}
    assert client.post(f"{url}/correct", json=fix, headers=auth).status_code == 201
    assert client.post(f"{url}/undo", headers=auth).status_code == 201
    assert client.post(f"{url}/redo", headers=auth).status_code == 201
    done = kibitz("check", "--db", str(path))
    assert done.returncode == 0, done.stdout
    printed = kibitz("replay", body["id"], "--db", str(path))
    assert printed.returncode == 0, printed.stderr
    assert "Cas played J♥. [corrected: Cas played 8♥" in printed.stdout
    assert "Corrected in hand 1, trick 1: Cas played 8♥" in printed.stdout
