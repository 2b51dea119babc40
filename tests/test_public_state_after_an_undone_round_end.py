"""Adversarial reads: a public reader must never see cards still in play in an open game.

``states/<seq>`` of a move that ended a round, read after that move was undone, is the
state of a round that is over in that past state but open again now (api.md, "Views and
secrets": the cards are hidden until that hand or round is over).
"""

from __future__ import annotations

from tests.conftest import create
from tests.test_hidden_cards_stay_hidden_on_every_public_read import STB_DEAL, STB_ROUND


def _ended_then_undone(client):
    game = create(client, game="stop_the_bus", players=["Ann", "Bob", "Cas"], visibility="open")
    for action in [STB_DEAL, *STB_ROUND]:
        assert game.post(action).status_code == 201, action
    last = game.get().get_json()["version"]
    assert game.get(token=False).get_json()["state"]["players"][2]["hand_rank"]["category"] == "pair"
    assert game.post({}, "undo").status_code == 201
    return game, last


def test_public_state_of_an_undone_round_end_hides_the_hands(client):
    game, last = _ended_then_undone(client)
    current = game.get(token=False).get_json()["state"]
    assert current["phase"] != "deal" and all(p["hand_rank"] is None for p in current["players"])
    response = game.get(f"/states/{last}", token=False)
    body = response.get_json()
    # Cas holds 9C 9D now (the round is open again): no reader without the token may learn it.
    assert "pair" not in str(body) and "9-9" not in str(body)
    assert response.status_code in (200, 401, 403)
    assert game.get(f"/states/{last - 1}", token=False).status_code == 200


def test_scorekeeper_still_reads_the_undone_round_end(client):
    game, last = _ended_then_undone(client)
    response = game.get(f"/states/{last}")
    assert response.status_code == 200
    assert response.get_json()["state"]["players"][2]["hand_rank"]["category"] == "pair"


def test_public_state_of_a_round_end_that_stands_is_readable(client):
    game = create(client, game="stop_the_bus", players=["Ann", "Bob", "Cas"], visibility="open")
    for action in [STB_DEAL, *STB_ROUND]:
        assert game.post(action).status_code == 201
    response = game.get("/states/6", token=False)
    assert response.status_code == 200
    assert response.get_json()["state"]["players"][2]["hand_rank"]["category"] == "pair"


def test_public_state_of_an_undone_fuji_flush_win_hides_the_hands(client):
    game = create(client, game="fuji_flush", players=["A", "B", "C"], visibility="open",
                  options={"hand_size": 2, "deck": {"2": 6, "3": 6, "5": 6, "7": 6, "9": 6}})
    actions = [
        {"type": "deal", "hands": {"A": [9, 9], "B": [2, 5], "C": [3, 2]}},
        {"type": "play", "player": "A", "card": 9},
        {"type": "play", "player": "B", "card": 2},
        {"type": "play", "player": "C", "card": 3},  # B's 2 is flushed: B draws a 7
        {"type": "draw", "player": "B", "card": 7},  # A's 9 is pushed through
        {"type": "play", "player": "A", "card": 9},
        {"type": "play", "player": "B", "card": 5},
        {"type": "play", "player": "C", "card": 2},  # A's second 9 is pushed through: A wins
    ]
    for action in actions:
        assert game.post(action).status_code == 201, action
    state = game.get().get_json()["state"]
    assert state["status"] == "finished", state
    assert 7 in game.get(token=False).get_json()["state"]["players"][1]["cards_known"]
    last = game.get().get_json()["version"]
    assert game.post({}, "undo").status_code == 201
    assert "cards_known" not in str(game.get(token=False).get_json())
    body = game.get(f"/states/{last}", token=False).get_json()
    # B holds the 7 now (the game is open again): no reader without the token may learn it.
    assert "cards_known" not in str(body)
