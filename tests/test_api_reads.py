"""Reads: the event log, actions, states/<seq>, hands, tricks, and what the public sees."""

from __future__ import annotations

import pytest
from freezegun import freeze_time

from tests.conftest import OPEN_DEAL, assert_problem

PLAY = {"type": "play", "player": "Bob", "card": "7H"}
FIRST_TRICK = [PLAY, {"type": "play", "player": "Cas", "card": "8H"},
               {"type": "play", "player": "Dee", "card": "AH"}, {"type": "play", "player": "Ann", "card": "TH"}]


def play_all(game, actions):
    for action in actions:
        assert game.post(action).status_code == 201, action


def test_event_log_marks_undone_actions(open_game):
    play_all(open_game, [PLAY])
    open_game.post({}, "undo")
    open_game.post({"type": "note", "text": "Bob misplayed"})
    body = open_game.get("/events").get_json()
    assert body["version"] == 5
    assert [(e["seq"], e["type"], e["undone"]) for e in body["events"]] == [
        (1, "game_created", False), (2, "deal", False), (3, "play", True), (4, "undo", False), (5, "note", False)]
    assert set(body["events"][0]) == {"seq", "type", "data", "recorded_at", "at", "salt", "hash", "undone", "corrected_by"}
    open_game.post({}, "redo")
    assert open_game.get("/events").get_json()["events"][2]["undone"] is False


def test_event_log_paging(open_game):
    play_all(open_game, FIRST_TRICK)
    page = open_game.get("/events?limit=2").get_json()
    assert [e["seq"] for e in page["events"]] == [1, 2] and page["next_after"] == 2
    page = open_game.get("/events?after=2&limit=10").get_json()
    assert [e["seq"] for e in page["events"]] == [3, 4, 5, 6] and page["next_after"] is None


@pytest.mark.parametrize("query", ["after=-1", "after=x", "limit=0", "limit=100000", "after=1e9",
                                   "after=99999999999999999999999999999"])
def test_event_log_refuses_bad_queries(open_game, query):
    assert_problem(open_game.get(f"/events?{query}"), 422, "validation_failed")


@pytest.mark.parametrize("path", ["/events", "/actions", "/timeline", ""])
def test_an_unknown_query_parameter_changes_nothing(open_game, path):
    """docs/decisions.md, 'Unknown query parameters are ignored'."""
    plain = open_game.get(path)
    added = open_game.get(f"{path}?_=1733450000&utm_source=club")
    assert plain.status_code == added.status_code == 200
    assert added.get_json() == plain.get_json()


def test_public_reader_does_not_see_open_hands_until_the_hand_is_over(open_game):
    public = open_game.get("/events", token=False).get_json()["events"]
    assert "hands" not in public[1]["data"]
    full = open_game.get("/events").get_json()["events"]
    assert full[1]["data"]["hands"] == OPEN_DEAL["hands"]
    public_state = open_game.get(token=False).get_json()["state"]
    full_state = open_game.get().get_json()["state"]
    assert "TH" not in str(public_state["players"])
    assert "TH" in str(full_state["players"])
    assert "TH" not in str(open_game.get("/states/2", token=False).get_json())
    assert "TH" not in str(open_game.get("/hands/1", token=False).get_json())


def test_public_reader_sees_the_deal_once_the_hand_is_over(open_game):
    play_all(open_game, [*FIRST_TRICK,
                         {"type": "play", "player": "Ann", "card": "9C"}, {"type": "play", "player": "Bob", "card": "8C"},
                         {"type": "play", "player": "Cas", "card": "TC"}, {"type": "play", "player": "Dee", "card": "7C"},
                         {"type": "play", "player": "Cas", "card": "9S"}, {"type": "play", "player": "Dee", "card": "TS"},
                         {"type": "play", "player": "Ann", "card": "QS"}, {"type": "play", "player": "Bob", "card": "KS"},
                         {"type": "play", "player": "Dee", "card": "8D"}, {"type": "play", "player": "Ann", "card": "JD"},
                         {"type": "play", "player": "Bob", "card": "AD"}, {"type": "play", "player": "Cas", "card": "JH"}])
    public = open_game.get("/events", token=False).get_json()["events"]
    assert public[1]["data"]["hands"] == OPEN_DEAL["hands"]


def test_actions(open_game, client):
    body = open_game.get("/actions").get_json()
    assert body["version"] == 2
    assert {"type": "play", "player": "Bob", "cards": ["7H", "8C", "AD", "KS"]} in [
        {**a, "cards": sorted(a["cards"], key=["7H", "8C", "AD", "KS"].index) if a["cards"] else a["cards"]}
        for a in body["actions"]]
    public = open_game.get("/actions", token=False).get_json()["actions"]
    assert all(a["cards"] is None for a in public if a["type"] == "play")


def test_state_at_seq_keeps_actions_undone_later(open_game):
    play_all(open_game, [PLAY])
    open_game.post({}, "undo")
    assert open_game.get().get_json()["state"]["to_act"] == ["Bob"]
    at_three = open_game.get("/states/3")
    assert at_three.status_code == 200 and at_three.headers["ETag"] == '"4"'
    assert at_three.get_json()["seq"] == 3
    assert at_three.get_json()["state"]["to_act"] == ["Cas"]
    assert open_game.get("/states/1").get_json()["state"]["phase"] == "deal"


@pytest.mark.parametrize("path", ["/states/0", "/states/3", "/states/99999999999999999999999999",
                                  "/states/-1", "/states/x", "/hands/0", "/hands/2", "/hands/99999999999999999999999",
                                  "/hands/1/tricks/0", "/hands/1/tricks/2", "/hands/1/tricks/5",
                                  "/hands/999999999999999999999999/tricks/1"])
def test_404_past_the_log(open_game, path):
    assert_problem(open_game.get(path), 404, "not_found")


def test_hand_and_trick_with_times_and_corrections(open_game):
    with freeze_time("2026-11-29 20:00:00") as clock:
        for action in FIRST_TRICK[:2]:
            open_game.post(action)
            clock.tick(1)
        open_game.post({"reason": "wrong card"}, "undo")
        open_game.post({"type": "play", "player": "Cas", "card": "8H"})
        for action in FIRST_TRICK[2:]:
            open_game.post(action)
    hand = open_game.get("/hands/1").get_json()
    assert [c["seq"] for c in hand["corrections"]] == [5]
    trick = open_game.get("/hands/1/tricks/1")
    assert trick.status_code == 200 and trick.headers["ETag"] == '"8"'
    body = trick.get_json()
    assert body["winner"] == "Ann"
    assert [(p["player"], p["seq"], p["recorded_at"]) for p in body["plays"]] == [
        ("Bob", 3, "2026-11-29T20:00:00.000Z"), ("Cas", 6, "2026-11-29T20:00:02.000Z"),
        ("Dee", 7, "2026-11-29T20:00:02.000Z"), ("Ann", 8, "2026-11-29T20:00:02.000Z")]
    [correction] = body["corrections"]
    assert correction["type"] == "undo" and correction["reason"] == "wrong card"
    assert correction["target"] == {"seq": 4, "type": "play", "data": {"player": "Cas", "card": "8H", }}


def test_gets_carry_the_version_as_etag(open_game):
    for path in ("", "/events", "/actions", "/hands/1", "/states/1"):
        assert open_game.get(path).headers["ETag"] == '"2"', path


@pytest.mark.parametrize("path", ["", "/events", "/actions", "/states/1", "/hands/1", "/hands/1/tricks/1"])
def test_wrong_token_is_403_on_every_read(open_game, client, path):
    open_game.post(PLAY)
    response = client.get(open_game.url + path, headers={"Authorization": "Bearer nope"})
    assert_problem(response, 403, "token_invalid")


def test_reads_do_not_refold_the_game(open_game, monkeypatch):
    import engine.toepen

    play_all(open_game, FIRST_TRICK[:2])
    open_game.post({}, "undo")
    calls = []
    real = engine.toepen.apply
    monkeypatch.setattr(engine.toepen, "apply", lambda s, a: calls.append(a["type"]) or real(s, a))
    for path in ("", "/events", "/actions", "/hands/1", "/hands/1/tricks/1"):
        assert open_game.get(path).status_code == 200
        assert open_game.get(path, token=False).status_code == 200
    assert calls == []
