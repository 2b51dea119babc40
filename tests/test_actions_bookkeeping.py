"""``GET …/actions`` over HTTP (api.md): the bookkeeping entries open now (undo and redo with
their ``target``, note, adjust where the game has it, abandon) and, in table games, each play's
``possible`` cards."""

from __future__ import annotations

from typing import Any

from tests.conftest import create


def entries(game: Any, token: bool = True) -> list[dict[str, Any]]:
    response = game.get("/actions", token=token)
    assert response.status_code == 200
    return list(response.get_json()["actions"])


def of(actions: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [a for a in actions if a["type"] == kind]


def test_a_new_game_offers_the_deal_note_adjust_and_abandon_but_no_undo(game):
    actions = entries(game)
    assert [a["type"] for a in actions] == ["deal", "note", "adjust", "abandon"]
    assert of(actions, "note") == [{"type": "note", "player": None, "cards": None}]


def test_undo_and_redo_entries_carry_the_target_the_undo_then_reports(game):
    game.post({"type": "deal"})
    game.post({"type": "play", "player": "Bob", "card": "7H"})
    (undo,) = of(entries(game), "undo")
    assert undo["target"] == {"seq": 3, "type": "play", "summary": "Bob played 7♥"}
    assert not of(entries(game), "redo")
    assert game.post(None, "undo").get_json()["target"] == undo["target"]
    actions = entries(game)
    assert of(actions, "redo")[0]["target"] == undo["target"]
    assert of(actions, "undo")[0]["target"] == {"seq": 2, "type": "deal", "summary": "Ann dealt"}
    # a new action clears what could be redone: the redo entry goes
    game.post({"type": "play", "player": "Bob", "card": "8H"})
    assert not of(entries(game), "redo")


def test_a_note_leaves_the_redo_open(game):
    game.post({"type": "deal"})
    game.post(None, "undo")
    game.post({"type": "note", "text": "checking the deal"})
    assert of(entries(game), "redo")[0]["target"]["seq"] == 2


def test_possible_leaves_out_cards_known_elsewhere(game):
    game.post({"type": "deal"})
    game.post({"type": "play", "player": "Bob", "card": "7H"})
    game.post({"type": "reveal", "player": "Dee", "cards": ["AS", "KS"]})
    (play,) = of(entries(game), "play")
    assert play["player"] == "Cas" and play["cards"] is None
    assert len(play["possible"]) == 32 - 3
    assert {"7H", "AS", "KS"}.isdisjoint(play["possible"])
    (reveal,) = [a for a in of(entries(game), "reveal") if a["player"] == "Dee"]
    assert "AS" in reveal["possible"] and "7H" not in reveal["possible"]
    # the public reads the same offers in a table game
    assert entries(game, token=False) == entries(game)
    # and a card outside possible is refused as the engine says
    refused = game.post({"type": "play", "player": "Cas", "card": "KS"})
    assert refused.status_code == 409 and refused.get_json()["code"] == "card_not_available"


def test_fool_possible_counts_the_copies_of_the_1(client):
    fool = create(client, game="fool", options={"hand_size": 4})
    fool.post({"type": "deal"})
    lead = of(entries(fool), "play")[0]["player"]
    assert "1" in of(entries(fool), "play")[0]["possible"]
    assert fool.post({"type": "play", "player": lead, "card": "1"}).status_code == 201
    (play,) = of(entries(fool), "play")
    assert "1" in play["possible"]  # five more 1s are unaccounted for


def test_open_games_give_exact_cards_and_no_possible(open_game):
    actions = entries(open_game)
    (play,) = of(actions, "play")
    assert play["cards"] and "possible" not in play
    assert all("possible" not in a for a in entries(open_game, token=False))


def test_fuji_flush_offers_no_adjust(client):
    fuji = create(client, game="fuji_flush", players=["Ann", "Bob", "Cas"], first_player="Ann")
    assert [a["type"] for a in entries(fuji)] == ["deal", "note", "abandon"]
    fuji.post({"type": "deal"})
    (play,) = of(entries(fuji), "play")
    assert play["possible"] == list(range(2, 21))
    assert not of(entries(fuji), "adjust")


def test_a_finished_game_offers_undo_note_and_correct_only(client):
    toepen = create(client, options={"limit": 2})
    toepen.post({"type": "deal"})
    assert toepen.post({"type": "adjust", "player": "Ann", "amount": 2, "reason": "penalty"}).status_code == 201
    assert toepen.get().get_json()["status"] == "finished"
    actions = entries(toepen)
    assert [a["type"] for a in actions] == ["undo", "note", "correct"]  # a correction may reopen it
    assert actions[0]["target"]["summary"] == "Ruling: Ann +2 (penalty)"
