"""Text people type, at its edges (api.md, "Text people type"; recording.md, "Identity and
players"): a control character at either end of a name is refused, never trimmed away; a
name holds no format character but the joiners; a correction's reason follows the rules of
every other reason; the replay isolates the summaries that carry typed text; a correction's
target outside the log is the rules' ``nothing_to_correct``; ``actions?before=`` takes ASCII
digits only, like every other number."""

from __future__ import annotations

import pytest

from tests.conftest import OPEN_DEAL, assert_problem, create


def new_game(client, players):  # noqa: ANN001, ANN201 - a test client and its response
    return client.post("/games", json={"game": "toepen", "players": players})


@pytest.mark.parametrize("name", ["Ann\u001c", "\u000bAnn", "Ann\u000c", "Ann\u001f", "\u0085Ann"])
def test_a_control_character_at_either_end_of_a_name_is_refused(client, name):
    response = new_game(client, [name, "Bob", "Cas", "Dee"])
    body = assert_problem(response, 422, "validation_failed")
    assert any(key.startswith("players") for key in body["errors"]), body


@pytest.mark.parametrize("char", ["\u061c", "\u00ad", "\u180e", "\U000e0041", "\ufff9"])
def test_a_name_holds_no_format_character(client, char):
    assert_problem(new_game(client, [f"An{char}n", "Bob", "Cas", "Dee"]), 422, "validation_failed")


def test_joiners_stay_allowed_in_names(client):
    assert new_game(client, ["Ann\u200d", "Bob", "Cas", "Dee"]).status_code == 201


@pytest.mark.parametrize("reason", ["a\u202eb", "a\u200bb", "a\x07b", "a\ue000b", "a\u2066b", "a\u200eb", "a\u061cb"])
def test_a_corrections_reason_refuses_what_every_reason_refuses(client, reason):
    game = create(client, visibility="open")
    assert game.post(OPEN_DEAL).status_code == 201
    played = game.post({"type": "play", "player": "Bob", "card": "7H"}).get_json()["seq"]
    body = {"target": played, "action": {"type": "play", "player": "Bob", "card": "8C"}, "reason": reason}
    problem = assert_problem(game.post(body, "correct"), 422, "validation_failed")
    assert "reason" in problem["errors"]
    assert game.get().get_json()["version"] == played  # nothing stored


def test_a_corrections_reason_is_stored_in_nfc_with_line_feeds(client):
    game = create(client, visibility="open")
    assert game.post(OPEN_DEAL).status_code == 201
    played = game.post({"type": "play", "player": "Bob", "card": "7H"}).get_json()["seq"]
    body = {"target": played, "action": {"type": "play", "player": "Bob", "card": "8C"}, "reason": "Zoe\u0308 a\r\nb"}
    stored = game.post(body, "correct").get_json()["event"]["data"]["reason"]
    assert stored == "Zo\u00eb a\nb"


@pytest.mark.parametrize("target", [0, -1, 2**63])
def test_a_target_outside_the_log_is_nothing_to_correct(client, target):
    game = create(client, visibility="open")
    assert game.post(OPEN_DEAL).status_code == 201
    body = {"target": target, "action": {"type": "play", "player": "Bob", "card": "7H"}}
    assert_problem(game.post(body, "correct"), 409, "nothing_to_correct")


@pytest.mark.parametrize("before", ["%D9%A3", "%EF%BC%93", "%F0%9D%9F%91", "%C2%B2"])
def test_actions_before_takes_ascii_digits_only(client, before):
    game = create(client, visibility="open")
    assert game.post(OPEN_DEAL).status_code == 201
    assert game.post({"type": "play", "player": "Bob", "card": "7H"}).status_code == 201
    response = client.get(f"/games/{game.id}/actions?before={before}", headers=game.auth)
    body = assert_problem(response, 422, "validation_failed")
    assert "before" in body["errors"]


def test_the_replay_isolates_summaries_that_carry_typed_text(client):
    game = create(client)
    assert game.post({"type": "note", "text": "NOTE-\u05e9\u05dc\u05d5\u05dd"}, "events").status_code == 201
    page = client.get(f"/watch/{game.id}/replay").get_data(as_text=True)
    assert '<span class="summary" dir="auto">Note: NOTE-\u05e9\u05dc\u05d5\u05dd' in page
