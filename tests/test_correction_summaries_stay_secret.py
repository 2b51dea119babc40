"""Every summary that names a card follows the current record publicly (api.md, "Views and
secrets"; ``POST …/correct``): a correction that is undone or replaced by a later one is out
of the record, so its card is back in the player's hand and no public line names it (the
correction's own line, the undo or redo line about it, the ``target`` of ``GET …/actions``,
the replay page); the outcome words of the steps after a correction come from the corrected
record; and ``actions?before=`` of a moment that shows a withdrawn card is refused like
``states/<seq>``."""

from __future__ import annotations

import json

from tests.conftest import assert_problem, create

DEAL = {"type": "deal", "dealer": "Ann",
        "hands": {"Ann": ["TH", "9H", "8H", "7H"], "Bob": ["TS", "9S", "8S", "7S"],
                  "Cas": ["TC", "9C", "8C", "7C"], "Dee": ["TD", "9D", "8D", "7D"]}}


def _trick(client):
    """Events 3–6: Bob 7♠, Cas 7♣, Dee 7♦, Ann 7♥ (Bob wins trick 1)."""
    game = create(client, visibility="open")
    assert game.post(DEAL).status_code == 201
    for player, card in (("Bob", "7S"), ("Cas", "7C"), ("Dee", "7D"), ("Ann", "7H")):
        assert game.post({"type": "play", "player": player, "card": card}).status_code == 201
    return game


def _correct(game, card):
    response = game.post({"target": 3, "action": {"type": "play", "player": "Bob", "card": card}}, "correct")
    assert response.status_code == 201, response.get_json()
    return response.get_json()["seq"]


def _public(game, *paths):
    text = ""
    for path in paths:
        response = game.get(path, token=False)
        assert response.status_code == 200, (path, response.get_json())
        text += json.dumps(response.get_json(), ensure_ascii=False)
    return text


def _page(game, path=""):
    response = game.client.get(f"/watch/{game.id}{path}")
    assert response.status_code == 200
    return response.get_data(as_text=True)


def _audits(game):
    """The hand's and trick's audits, API and pages."""
    return (_public(game, "/hands/1", "/hands/1/tricks/1", "") + _page(game) + _page(game, "/hands/1")
            + _page(game, "/hands/1/tricks/1"))


def test_an_undone_correction_names_its_card_in_no_public_summary(client):
    game = _trick(client)
    fixed = _correct(game, "8S")
    assert game.post({}, "undo").status_code == 201  # Bob holds 8♠ again
    text = _public(game, "/timeline", "/actions", f"/actions?before={fixed}", "/events")
    text += _page(game, "/replay") + _page(game, f"/replay?step={fixed}") + _audits(game)
    assert "8♠" not in text and "8S" not in text
    # the moment before the undo is the corrected one, like states/<fixed>: refused publicly
    assert_problem(game.get(f"/actions?before={fixed + 1}", token=False), 401, "token_required")
    assert_problem(game.get(f"/states/{fixed}", token=False), 401, "token_required")
    assert "Bob played 8♠" in json.dumps(game.get(f"/actions?before={fixed + 1}").get_json(), ensure_ascii=False)
    steps = game.get("/timeline", token=False).get_json()["steps"]
    assert steps[fixed - 1]["summary"] == "Corrected in hand 1, trick 1: Bob played a card; another card was first recorded."
    assert steps[fixed]["summary"] == "Undone: Fix: Bob played a card; another card was first recorded."
    redo = next(a for a in game.get("/actions", token=False).get_json()["actions"] if a["type"] == "redo")
    assert redo["target"]["summary"] == "Fix: Bob played a card"
    # the scorekeeper still reads the card
    mine = json.dumps(game.get("/timeline").get_json(), ensure_ascii=False)
    assert "Bob played 8♠" in mine
    redo = next(a for a in game.get("/actions").get_json()["actions"] if a["type"] == "redo")
    assert redo["target"]["summary"] == "Fix: Bob played 8♠, not 7♠"


def test_a_correction_replaced_by_a_later_one_names_its_card_nowhere_publicly(client):
    game = _trick(client)
    first = _correct(game, "8S")
    _correct(game, "9S")  # Bob holds 7♠ and 8♠
    text = _public(game, "/timeline", "/actions", f"/actions?before={first + 1}", "/events")
    text += _page(game, "/replay") + _page(game, f"/replay?step={first}") + _audits(game)
    assert "8♠" not in text and "8S" not in text and "7♠" not in text and "7S" not in text
    assert "9♠" in text  # the entry in force is on the table
    steps = game.get("/timeline", token=False).get_json()["steps"]
    assert steps[-1]["summary"] == "Corrected in hand 1, trick 1: Bob played 9♠; another card was first recorded."
    assert steps[first - 1]["summary"] == ("Corrected in hand 1, trick 1: Bob played a card; another card was first "
                                           "recorded.")
    assert "Bob played 8♠" in json.dumps(game.get("/timeline").get_json(), ensure_ascii=False)


def test_the_steps_after_a_correction_tell_the_corrected_outcome(client):
    game = _trick(client)
    _correct(game, "8S")  # 7♠ is back in Bob's hand; he won the trick with 8♠
    for token in (False, True):
        steps = game.get("/timeline", token=token).get_json()["steps"]
        assert "Bob wins trick 1 with 8♠" in steps[5]["summary"], steps[5]["summary"]
    text = _public(game, "/timeline") + _page(game, "/replay") + _page(game, "/replay?step=6")
    assert "7♠" not in text and "7S" not in text


def test_a_public_actions_before_a_moment_that_shows_an_undone_swap_is_refused(client):
    game = create(client, game="stop_the_bus", players=["Ann", "Bob", "Cas"], visibility="open")
    deal = {"type": "deal", "centre": ["5S", "6S", "7S"],
            "hands": {"Ann": ["2C", "3C", "4C"], "Bob": ["2D", "3D", "4D"], "Cas": ["2H", "3H", "4H"]}}
    assert game.post(deal).status_code == 201
    assert game.post({"type": "swap", "player": "Bob", "take": "5S", "give": "2D"}).status_code == 201
    assert game.post({"type": "swap", "player": "Cas", "take": "6S", "give": "2H"}).status_code == 201
    assert game.post({}, "undo").status_code == 201
    assert game.post({}, "undo").status_code == 201  # 2♦ is in Bob's hand, 2♥ in Cas's
    for before in (4, 5, 6):
        assert_problem(game.get(f"/actions?before={before}", token=False), 401, "token_required")
        assert game.get(f"/actions?before={before}").status_code == 200
    text = _public(game, "/actions?before=3", "/actions", "/timeline")
    assert "2D" not in text and "2H" not in text and "2♦" not in text and "2♥" not in text


def test_an_undone_correction_of_a_swap_names_the_card_given_nowhere_publicly(client):
    game = create(client, game="stop_the_bus", players=["Ann", "Bob", "Cas"], visibility="open")
    deal = {"type": "deal", "centre": ["5S", "6S", "7S"],
            "hands": {"Ann": ["2C", "3C", "4C"], "Bob": ["2D", "3D", "4D"], "Cas": ["2H", "3H", "4H"]}}
    assert game.post(deal).status_code == 201
    assert game.post({"type": "swap", "player": "Bob", "take": "5S", "give": "2D"}).status_code == 201
    fixed = game.post({"target": 3, "action": {"type": "swap", "player": "Bob", "take": "6S", "give": "3D"}},
                      "correct").get_json()["seq"]
    assert game.post({}, "undo").status_code == 201  # Bob holds 3♦ again
    text = _public(game, "/timeline", "/actions", "/events") + _page(game, "/replay")
    assert "3♦" not in text and "3D" not in text
    steps = game.get("/timeline", token=False).get_json()["steps"]
    assert "Bob took 6♠ and gave a card" in steps[fixed - 1]["summary"]
