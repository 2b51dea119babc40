"""State fields api.md fixes ("State (every game)", "Which hand is current") over HTTP:
before the first deal list fields are ``[]`` (Stop the Bus ``centre`` was null); ``winners``
and ``losers`` appear only once a game is finished (Stop the Bus showed ``winners: []``
while in progress and after abandon); an abandoned game is over, so ``next_dealer`` is null
as at game over (it kept naming a dealer)."""

from __future__ import annotations

import pytest

from tests.conftest import create

STOP = {"type": "abandon", "reason": "the club closes at eleven"}


def test_stop_the_bus_before_the_first_deal(client):
    game = create(client, game="stop_the_bus", players=["Ann", "Bob", "Cas"])
    for token in (True, False):
        state = game.get(token=token).get_json()["state"]
        assert (state["round_number"], state["centre"], state["stopped_by"], state["can_stop"]) == (0, [], None, [])
        assert "winners" not in state and "losers" not in state


@pytest.mark.parametrize("setup", [{"game": "toepen"}, {"game": "fool"},
                                   {"game": "fuji_flush", "first_player": "Ann"}, {"game": "stop_the_bus"}],
                         ids=lambda s: s["game"])
def test_no_winners_while_in_progress_or_abandoned_and_nobody_deals_next(client, setup):
    game = create(client, **setup)
    deal = {"type": "deal", "centre": ["2C", "7D", "KH"]} if setup["game"] == "stop_the_bus" else {"type": "deal"}
    assert "winners" not in game.get().get_json()["state"]
    assert game.post(deal).status_code == 201
    state = game.get().get_json()["state"]
    assert "winners" not in state and "losers" not in state
    stopped = game.post(STOP)
    assert stopped.status_code == 201
    for state in (stopped.get_json()["state"], game.get().get_json()["state"], game.get(token=False).get_json()["state"]):
        assert state["status"] == "abandoned"
        assert "winners" not in state and "losers" not in state
        assert state.get("next_dealer") is None


def test_an_abandoned_game_between_hands_has_no_next_dealer(client):
    game = create(client, players=["Ann", "Bob", "Cas"])
    for action in ({"type": "deal"}, {"type": "knock", "player": "Bob"}, {"type": "fold", "player": "Cas"},
                   {"type": "fold", "player": "Ann"}):
        assert game.post(action).status_code == 201, action
    state = game.get().get_json()["state"]
    assert state["phase"] == "deal" and state["next_dealer"] == "Bob"  # between hands: the winner deals
    assert game.post(STOP).status_code == 201
    assert game.get().get_json()["state"]["next_dealer"] is None
    assert game.post({}, "undo").status_code == 201  # undo reopens the game: the dealer is due again
    assert game.get().get_json()["state"]["next_dealer"] == "Bob"


def test_before_the_first_deal_an_abandoned_game_has_no_next_dealer(client):
    game = create(client, game="stop_the_bus", players=["Ann", "Bob", "Cas"])
    assert game.get().get_json()["state"]["next_dealer"] is not None
    assert game.post(STOP).status_code == 201
    state = game.get().get_json()["state"]
    assert state["next_dealer"] is None and state["centre"] == [] and "winners" not in state
