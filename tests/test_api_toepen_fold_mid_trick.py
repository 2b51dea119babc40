"""Over HTTP: issue 10's Toepen reproduction (a fold while knock answers are due).

Open game, 6 players, dealer Cas, ``{"limit": 3, "knock_responses": "explicit"}``. Dee, Eva
and Fay play to trick 1, Ann knocks, Bob folds, Cas, Dee and Eva stay, Fay folds: Ann and
then Cas must still play to trick 1 (``rules/toepen.md``, "Answering a knock"), and Dee wins
it with T♠.
"""

from __future__ import annotations

from tests.conftest import assert_problem, create

PLAYERS = ["Ann", "Bob", "Cas", "Dee", "Eva", "Fay"]
HANDS = {
    "Ann": ["8D", "KH", "9H", "7C"],
    "Bob": ["JC", "8S", "7S", "KD"],
    "Cas": ["9S", "8H", "QH", "7D"],
    "Dee": ["KC", "AH", "TS", "JD"],
    "Eva": ["AC", "TH", "AD", "8C"],
    "Fay": ["QD", "AS", "TD", "KS"],
}


def test_the_reproduction_plays_on_to_the_players_still_in(client):
    game = create(
        client, players=PLAYERS, dealer="Cas", visibility="open",
        options={"limit": 3, "knock_responses": "explicit"},
    )  # fmt: skip
    moves = [
        {"type": "deal", "hands": HANDS},
        {"type": "play", "player": "Dee", "card": "TS"},
        {"type": "play", "player": "Eva", "card": "TH"},
        {"type": "play", "player": "Fay", "card": "KS"},
        {"type": "knock", "player": "Ann"},
        {"type": "fold", "player": "Bob"},
        {"type": "stay", "player": "Cas"},
        {"type": "stay", "player": "Dee"},
        {"type": "stay", "player": "Eva"},
    ]
    for move in moves:
        response = game.post(move)
        assert response.status_code == 201, response.get_json()
    # Fay's fold is the last answer due; Ann and Cas have not played to trick 1.
    response = game.post({"type": "fold", "player": "Fay"})
    assert response.status_code == 201, response.get_json()
    state = response.get_json()["state"]
    assert state["to_act"] == ["Ann"]
    assert state["phase"] == "playing"
    trick = state["tricks"][0]
    assert trick["complete"] is False and trick["winner"] is None
    assert [p["card"] for p in trick["plays"]] == ["TS", "TH", "KS"]
    assert_problem(game.post({"type": "play", "player": "Dee", "card": "KC"}), 409, "not_your_turn")

    assert game.post({"type": "play", "player": "Ann", "card": "7C"}).status_code == 201
    assert game.get().get_json()["state"]["to_act"] == ["Cas"]
    assert_problem(game.post({"type": "play", "player": "Cas", "card": "8H"}), 409, "must_follow_suit")
    response = game.post({"type": "play", "player": "Cas", "card": "9S"})
    assert response.status_code == 201, response.get_json()
    state = response.get_json()["state"]
    assert state["to_act"] == ["Dee"]
    assert state["status"] == "in_progress" and state["hand_number"] == 1
    assert {p["name"]: p["lives_lost"] for p in state["players"]} == {
        "Ann": 0, "Bob": 1, "Cas": 0, "Dee": 0, "Eva": 0, "Fay": 1,
    }  # fmt: skip

    trick = game.get("/hands/1/tricks/1").get_json()
    assert trick["complete"] is True and trick["winner"] == "Dee"
    assert [(p["player"], p["card"]) for p in trick["plays"]] == [
        ("Dee", "TS"), ("Eva", "TH"), ("Fay", "KS"), ("Ann", "7C"), ("Cas", "9S"),
    ]  # fmt: skip
    assert [f["player"] for f in trick["folded"]] == ["Bob", "Fay"]
