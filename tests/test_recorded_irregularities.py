"""The 201 of the event that proves a revoke carries it in ``irregularities`` (api.md,
"POST /games/<id>/events"), in the shape of ``GET …/irregularities``; ``[]`` otherwise. Over
the test client and through the real ``kibitz serve``."""

from __future__ import annotations

import requests

from tests.conftest import create
from tests.test_disputes_over_real_http import Table
from tests.test_server import server  # noqa: F401 - the module-scoped real server fixture

SHOWS_OUT = ["Bob:7H", "Cas:8H", "Dee:AH", "Ann:9S", "Cas:TD", "Dee:7D", "Ann:8D", "Bob:9D", "Cas:7C", "Dee:8C"]


def play(game, moves):
    bodies = []
    for move in moves:
        player, card = move.split(":")
        response = game.post({"type": "play", "player": player, "card": card})
        assert response.status_code == 201, response.get_json()
        bodies.append(response.get_json())
    return bodies


def test_the_proving_play_carries_the_revoke(game):
    assert game.post({"type": "deal"}).get_json()["irregularities"] == []
    assert all(body["irregularities"] == [] for body in play(game, SHOWS_OUT))
    (proof,) = play(game, ["Ann:KH"])  # Ann showed out of hearts in trick 1 (seq 6)
    assert proof["seq"] == 13
    (revoke,) = proof["irregularities"]
    assert (revoke["player"], revoke["trick"], revoke["seq"], revoke["proof_seq"], revoke["hand"]) == ("Ann", 1, 6, 13, 1)
    assert proof["irregularities"] == game.get("/irregularities").get_json()["irregularities"]
    # the next play proves nothing new
    (later,) = play(game, ["Bob:JC"])
    assert later["irregularities"] == []


def test_a_reveal_that_proves_a_revoke(game):
    game.post({"type": "deal"})
    play(game, SHOWS_OUT[:4])
    shown = game.post({"type": "reveal", "player": "Ann", "cards": ["QH"]})
    assert shown.status_code == 201
    (revoke,) = shown.get_json()["irregularities"]
    assert revoke["proof_seq"] == shown.get_json()["seq"] and revoke["player"] == "Ann"


def test_undo_hears_nothing_and_redo_hears_the_proof_again(game):
    game.post({"type": "deal"})
    play(game, SHOWS_OUT)
    play(game, ["Ann:KH"])
    undone = game.post(None, "undo").get_json()
    assert undone["irregularities"] == [] and game.get("/irregularities").get_json()["irregularities"] == []
    redone = game.post(None, "redo").get_json()
    assert [r["proof_seq"] for r in redone["irregularities"]] == [13]


def test_fool_proving_play(client):
    fool = create(client, game="fool", players=["Anja", "Bettina", "Uwe", "Ilja"], dealer="Ilja")
    fool.post({"type": "deal"})
    bodies = play(fool, ["Anja:G20", "Bettina:G4", "Uwe:G11", "Ilja:R7", "Anja:B9", "Bettina:B5", "Uwe:B10",
                         "Uwe:Y11", "Ilja:G6", "Anja:Y2"])
    assert [b["seq"] for b in bodies if b["irregularities"]] == [11]
    assert bodies[-2]["irregularities"][0]["player"] == "Ilja"  # Ilja:G6 shows the green he held


def test_real_server_201_carries_the_revoke(server):  # noqa: F811
    game = Table(server, {"game": "toepen", "players": ["Ann", "Bob", "Cas", "Dee"]})
    assert game.post({"type": "deal"})["irregularities"] == []
    game.play(*SHOWS_OUT)
    body = game.post({"type": "play", "player": "Ann", "card": "KH"})
    assert [(r["player"], r["proof_seq"]) for r in body["irregularities"]] == [("Ann", 13)]
    reply = requests.get(f"{server}/games/{game.id}/irregularities", timeout=30)
    assert reply.json()["irregularities"] == body["irregularities"]
