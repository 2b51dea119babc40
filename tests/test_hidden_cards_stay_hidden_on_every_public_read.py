"""Adversarial reads (issue 6/7 features): cards the rules keep secret never reach a reader
without the token, whatever the route: the event log, the timeline, the exports, forks."""

from __future__ import annotations

import re

from tests.conftest import OPEN_DEAL, Game, assert_problem, create

#: Toepen: Bob knocks, everyone else folds; their unplayed cards are dead and never revealed
#: (rules/toepen.md, "Answering a knock").
FOLDERS = {name: OPEN_DEAL["hands"][name] for name in ("Ann", "Cas", "Dee")}
PRETTY = {"T": "10", "C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def _pretty(card: str) -> str:
    return PRETTY.get(card[0], card[0]) + PRETTY[card[1]]


def _mentions(text: str, card: str) -> bool:
    """``card`` stands in ``text`` as a word of its own, not inside a random game id such as 'x9Cq'."""
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(card)}(?![A-Za-z0-9])", text) is not None


def _dead_cards_in(text: str) -> list[str]:
    return [card for cards in FOLDERS.values() for card in cards if _mentions(text, card) or _mentions(text, _pretty(card))]


def test_folders_dead_cards_stay_hidden_from_every_public_read(client):
    game = create(client, visibility="open")
    assert game.post(OPEN_DEAL).status_code == 201
    for action in ({"type": "knock", "player": "Bob"}, *({"type": "fold", "player": p} for p in ("Cas", "Dee", "Ann"))):
        assert game.post(action).status_code == 201, action
    assert game.get("/hands/1", token=False).get_json()["result"] is not None  # the hand is over
    for path in ("/events", "/timeline", "/timeline?hand=1", "/hands/1", "/export?format=json",
                 "/export?format=jsonl", "/export?format=text", "/export?format=csv", "/states/6", ""):
        response = game.get(path, token=False)
        assert response.status_code == 200, path
        assert _dead_cards_in(response.get_data(as_text=True)) == [], path
    # the winner's hand is public now, and the scorekeeper still sees everything
    public_deal = game.get("/events", token=False).get_json()["events"][1]["data"]
    assert public_deal["hands"] == {"Bob": OPEN_DEAL["hands"]["Bob"]}
    assert game.get("/events").get_json()["events"][1]["data"]["hands"] == OPEN_DEAL["hands"]
    assert len(_dead_cards_in(game.get("/export?format=text").get_data(as_text=True))) == 12


STB_DEAL = {
    "type": "deal",
    "centre": ["2C", "3C", "4C"],
    "hands": {"Ann": ["AS", "KS", "QS"], "Bob": ["5D", "6D", "8H"], "Cas": ["9C", "9D", "JH"]},
}
STB_ROUND = [
    {"type": "swap", "player": "Bob", "take": "2C", "give": "8H"},
    {"type": "stop", "player": "Bob"},
    {"type": "swap", "player": "Cas", "take": "3C", "give": "JH"},
    {"type": "swap", "player": "Ann", "take": "4C", "give": "QS"},  # the last final turn: showdown
]
IN_HANDS = ["9C", "9D", "AS", "KS", "5D", "6D", "9♣", "9♦", "A♠", "K♠", "5♦", "6♦", "9-9"]


def _fork_of_reopened_round(client):
    game = create(client, game="stop_the_bus", players=["Ann", "Bob", "Cas"], visibility="open")
    for action in [STB_DEAL, *STB_ROUND]:
        assert game.post(action).status_code == 201, action
    last = game.get().get_json()["version"]
    assert game.post({}, "undo").status_code == 201  # the round is in play again at the table
    response = game.post({"seq": last}, "fork")
    assert response.status_code == 201, response.get_json()
    return game, Game(client, response.get_json())


def test_fork_of_a_round_an_undo_reopened_does_not_show_the_hands_in_play(client):
    game, fork = _fork_of_reopened_round(client)
    for path in ("", "/events", "/timeline", "/hands/1", "/states/2", "/irregularities", "/actions",
                 "/export?format=json", "/export?format=text"):
        response = fork.get(path, token=False)
        if response.status_code == 200:
            assert [c for c in IN_HANDS if _mentions(response.get_data(as_text=True), c)] == [], path
        else:
            assert_problem(response, 401, "token_required")
    assert fork.get("", token=False).status_code == 401
    # the fork's own scorekeeper reads it all
    assert "9C" in fork.get("/events").get_data(as_text=True)
    # once the original's round is over again, the fork hides nothing the table has not seen
    assert game.post({}, "redo").status_code == 201
    assert fork.get("/hands/1", token=False).status_code == 200


def test_fork_played_on_to_the_end_of_a_hand_still_in_play_in_the_original(client):
    game = create(client, visibility="open")
    assert game.post(OPEN_DEAL).status_code == 201
    fork = Game(client, game.post({"seq": 2}, "fork").get_json())
    # in play in both: whatever the fork records there names the original's hidden cards
    assert_problem(fork.get("/events", token=False), 401, "token_required")
    assert fork.post({"type": "adjust", "player": "Ann", "amount": 10, "reason": "what if"}).status_code == 201
    assert fork.get().get_json()["status"] == "finished"
    assert_problem(fork.get("/events", token=False), 401, "token_required")
    assert_problem(fork.get("/export?format=text", token=False), 401, "token_required")
    # a fork of the fork is sealed by the original too
    again = Game(client, fork.post({"seq": 3}, "fork").get_json())
    assert_problem(again.get("", token=False), 401, "token_required")
