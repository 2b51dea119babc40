"""Review, rulings, forks and export/import through the real ``kibitz serve`` (issues 6, 7).

The same features are tested in depth through Flask's test client; here a dispute is
settled over real HTTP the way a table would: revokes proven two tricks later, a ruling,
a what-if fork, and a night's game exported and imported again.
"""

from __future__ import annotations

from typing import Any

import pytest
import requests

from tests.serving import serving
from tests.test_server import server  # noqa: F401 - the module-scoped real server fixture


@pytest.fixture(scope="module")
def other_server(tmp_path_factory):
    """A second real server, to import into: the first one stores the game (issue 10)."""
    with serving(tmp_path_factory.mktemp("other")) as base:
        yield base


class Table:
    """One game on the real server, with its token."""

    def __init__(self, base: str, body: dict[str, Any]) -> None:
        reply = requests.post(f"{base}/games", json=body, timeout=30)
        assert reply.status_code == 201, reply.text
        self.base, self.id, self.token = base, reply.json()["id"], reply.json()["token"]

    def post(self, action: dict[str, Any], path: str = "events", status: int = 201) -> dict[str, Any]:
        reply = requests.post(f"{self.base}/games/{self.id}/{path}", json=action, timeout=30,
                              headers={"Authorization": f"Bearer {self.token}"})
        assert reply.status_code == status, reply.text
        body: dict[str, Any] = reply.json()
        return body

    def play(self, *moves: str) -> None:
        for move in moves:
            player, card = move.split(":")
            self.post({"type": "play", "player": player, "card": card})

    def get(self, path: str = "", token: bool = True) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {self.token}"} if token else {}
        reply = requests.get(f"{self.base}/games/{self.id}{path}", headers=headers, timeout=30)
        assert reply.status_code == 200, reply.text
        body: dict[str, Any] = reply.json()
        return body


def test_toepen_revoke_proven_two_tricks_later(server):  # noqa: F811
    game = Table(server, {"game": "toepen", "players": ["Ann", "Bob", "Cas", "Dee"]})
    game.post({"type": "deal"})
    game.play("Bob:7H", "Cas:8H", "Dee:AH", "Ann:9S")  # Ann shows out of hearts (seq 6)
    game.play("Cas:TD", "Dee:7D", "Ann:8D", "Bob:9D")
    game.play("Cas:7C", "Dee:8C", "Ann:KH")  # ... and plays a heart in trick 3 (seq 13)
    [revoke] = game.get("/irregularities")["irregularities"]
    assert (revoke["player"], revoke["trick"], revoke["seq"], revoke["proof_seq"]) == ("Ann", 1, 6, 13)
    assert game.get("/hands/1/tricks/1")["irregularities"][0]["proof_seq"] == 13
    assert "Ann did not follow hearts in trick 1" in revoke["detail"]


def test_fool_dispute_ruling_and_fork(server):  # noqa: F811
    game = Table(server, {"game": "fool", "players": ["Anja", "Bettina", "Uwe", "Ilja"], "dealer": "Ilja"})
    game.post({"type": "deal"})
    game.play("Anja:G20", "Bettina:G4", "Uwe:G11", "Ilja:R7", "Anja:B9", "Bettina:B5", "Uwe:B10")
    game.play("Uwe:Y11", "Ilja:G6", "Anja:Y2")
    [revoke] = game.get("/irregularities")["irregularities"]
    assert (revoke["player"], revoke["trick"], revoke["seq"], revoke["proof_seq"]) == ("Ilja", 1, 6, 11)
    trick = game.get("/hands/1/tricks/1")
    assert trick["fools"] == ["Ilja"] and "lowest off-colour card" in trick["fools_reason"]

    ruled = game.post({"type": "adjust", "player": "Ilja", "amount": -10, "reason": "revoke in trick 1"})
    assert next(p for p in ruled["state"]["players"] if p["name"] == "Ilja")["score"] == -10
    steps = game.get("/timeline")["steps"]
    assert "Ilja" in steps[-1]["summary"] and "-10" in steps[-1]["summary"]

    fork = game.post({"seq": 5}, path="fork")
    assert fork["forked_from"] == {"game": game.id, "seq": 5}
    what_if = Table.__new__(Table)
    what_if.base, what_if.id, what_if.token = server, fork["id"], fork["token"]
    what_if.play("Ilja:G7")
    replayed = what_if.get("/hands/1/tricks/1")
    assert replayed["winner"] == "Anja" and replayed["fools"] == ["Bettina"]
    listed = [g["id"] for g in requests.get(f"{server}/games", timeout=30).json()["games"]]
    assert game.id in listed and fork["id"] not in listed
    with_forks = [g["id"] for g in requests.get(f"{server}/games?fork=true", timeout=30).json()["games"]]
    assert fork["id"] in with_forks


def test_a_ruling_that_ends_a_toepen_game(server):  # noqa: F811
    game = Table(server, {"game": "toepen", "players": ["Ann", "Bob", "Cas"], "options": {"limit": 3}})
    game.post({"type": "deal"})
    ended = game.post({"type": "adjust", "player": "Bob", "amount": 3, "reason": "left early"})
    assert ended["state"]["status"] == "finished" and ended["state"]["losers"] == ["Bob"]
    game.post({"type": "adjust", "player": "Ann", "amount": 1, "reason": "too late"}, status=409)


def test_export_import_round_trip_and_history(server, other_server):  # noqa: F811
    name = "Zoë Roundtrip"
    game = Table(server, {"game": "toepen", "players": [name, "Bob", "Cas"], "options": {"limit": 1}})
    game.post({"type": "deal"})
    game.post({"type": "adjust", "player": "Bob", "amount": 1, "reason": "ruling"})
    exported = game.get("/export")
    # issue 10: the game is stored on this server, so importing it here again is refused
    here = requests.post(f"{server}/games/import", json=exported, timeout=30)
    assert here.status_code == 409 and here.json()["code"] == "already_imported", here.text
    assert here.json()["game_id"] == game.id
    imported = requests.post(f"{other_server}/games/import", json=exported, timeout=30)
    assert imported.status_code == 201, imported.text
    again = requests.get(f"{other_server}/games/{imported.json()['id']}/export", timeout=30,
                         headers={"Authorization": f"Bearer {imported.json()['token']}"}).json()
    for doc in (exported, again):
        doc["game"].pop("id")
        doc["game"].pop("imported_at", None)
    assert again == exported
    tampered = {**exported, "events": [dict(e) for e in exported["events"]]}
    tampered["events"][2] = {**tampered["events"][2], "data": {**tampered["events"][2]["data"], "player": "Nobody"}}
    refused = requests.post(f"{server}/games/import", json=tampered, timeout=30)
    assert refused.status_code == 422 and refused.json()["seq"] == 3
    for base in (server, other_server):  # one game each: the refused import doubled nothing
        history = requests.get(f"{base}/players/zoë%20roundtrip", timeout=30).json()
        assert history["by_game"]["toepen"]["games"] == 1 and history["by_game"]["toepen"]["wins"] == 1
