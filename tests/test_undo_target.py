"""Undo's and redo's ``target`` (api.md, "POST /games/<id>/undo"): what they cancelled or
restored, over HTTP, with a short summary naming who did what and no derived outcome."""

from __future__ import annotations

from tests.conftest import OPEN_DEAL, assert_problem, create


def test_undo_and_redo_name_their_target(open_game):
    played = open_game.post({"type": "play", "player": "Bob", "card": "KS"})
    assert played.status_code == 201
    seq = played.get_json()["seq"]

    undone = open_game.post({"reason": "wrong card"}, "undo")
    assert undone.status_code == 201
    body = undone.get_json()
    assert body["target"] == {"seq": seq, "type": "play", "summary": "Bob played K♠"}
    assert body["event"]["type"] == "undo"

    redone = open_game.post(None, "redo")
    assert redone.status_code == 201
    assert redone.get_json()["target"] == {"seq": seq, "type": "play", "summary": "Bob played K♠"}


def test_target_has_no_derived_outcome(open_game):
    for player, card in (("Bob", "KS"), ("Cas", "9S"), ("Dee", "TS"), ("Ann", "QS")):
        assert open_game.post({"type": "play", "player": player, "card": card}).status_code == 201
    # Ann's QS completes trick 1 (Dee wins it): the summary says only what Ann did
    target = open_game.post(None, "undo").get_json()["target"]
    assert target["summary"] == "Ann played Q♠"
    assert "trick" not in target["summary"] and "won" not in target["summary"]


def test_undo_targets_step_back_and_redo_forward(open_game):
    seqs = []
    for player, card in (("Bob", "KS"), ("Cas", "9S")):
        seqs.append(open_game.post({"type": "play", "player": player, "card": card}).get_json()["seq"])
    assert open_game.post(None, "undo").get_json()["target"]["seq"] == seqs[1]
    assert open_game.post(None, "undo").get_json()["target"]["seq"] == seqs[0]
    deal = open_game.post(None, "undo").get_json()["target"]
    assert deal == {"seq": 2, "type": "deal", "summary": "Ann dealt"}
    assert_problem(open_game.post(None, "undo"), 409, "nothing_to_undo")
    assert [open_game.post(None, "redo").get_json()["target"]["seq"] for _ in range(3)] == [2, *seqs]
    assert_problem(open_game.post(None, "redo"), 409, "nothing_to_redo")


def test_undo_of_a_knock_and_of_a_stop(client):
    toepen = create(client, visibility="open")
    toepen.post(OPEN_DEAL)
    toepen.post({"type": "knock", "player": "Cas"})
    assert toepen.post(None, "undo").get_json()["target"]["summary"] == "Cas knocked"

    bus = create(client, game="stop_the_bus")
    bus.post({"type": "deal", "dealer": "Ann", "centre": ["2C", "7D", "KH"]})
    assert bus.post({"type": "stop", "player": "Bob"}).status_code == 201
    assert bus.post(None, "undo").get_json()["target"]["summary"] == "Bob stopped the bus"


def test_target_matches_the_timeline_and_is_kept_on_retry(open_game):
    seq = open_game.post({"type": "play", "player": "Bob", "card": "KS"}).get_json()["seq"]
    first = open_game.post(None, "undo", **{"Idempotency-Key": "u-1"})
    again = open_game.post(None, "undo", **{"Idempotency-Key": "u-1"})
    assert first.get_json() == again.get_json()
    steps = open_game.get("/timeline").get_json()["steps"]
    undo = steps[-1]
    assert undo["type"] == "undo" and undo["target"] == seq == first.get_json()["target"]["seq"]
