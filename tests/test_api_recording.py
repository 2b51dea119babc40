"""POST events/undo/redo: every status code of api.md, in the order of checks."""

from __future__ import annotations

import pytest
from freezegun import freeze_time

import engine.toepen
from tests.conftest import OPEN_DEAL, assert_problem, create, stored_events

PLAY = {"type": "play", "player": "Bob", "card": "7H"}


def stored(database, game_id):
    return stored_events(database, game_id)


# --- 201 -----------------------------------------------------------------------------


@freeze_time("2026-11-29 20:15:00.5")
def test_record_returns_event_and_state(open_game):
    response = open_game.post({**PLAY, "player": "bob", "card": "7h", "at": "2026-11-29T21:14:00+01:00"})
    assert response.status_code == 201
    assert response.headers["ETag"] == '"3"'
    body = response.get_json()
    assert body["seq"] == body["version"] == 3
    event = dict(body["event"])
    salt, digest = event.pop("salt"), event.pop("hash")
    assert event == {"seq": 3, "type": "play", "data": {"player": "Bob", "card": "7H"},
                     "recorded_at": "2026-11-29T20:15:00.500Z", "at": "2026-11-29T20:14:00.000Z"}
    assert len(salt) == 32 and len(digest) == 64 and int(salt, 16) >= 0 and int(digest, 16) >= 0
    assert body["state"]["to_act"] == ["Cas"]


def test_stored_event_is_the_canonical_action_without_type_and_at(open_game, database):
    open_game.post({**PLAY, "card": "7h", "at": "2026-11-29T20:14:00Z"})
    event = stored(database, open_game.id)[-1]
    assert event["type"] == "play"
    assert event["data"] == {"player": "Bob", "card": "7H"}
    assert event["at"] == "2026-11-29T20:14:00.000Z"


def test_undo_and_redo_with_and_without_reason(open_game, client, database):
    open_game.post(PLAY)
    response = client.post(f"{open_game.url}/undo", headers=open_game.auth)  # empty body, no content type
    assert response.status_code == 201
    assert response.get_json()["event"]["type"] == "undo"
    assert response.get_json()["state"]["to_act"] == ["Bob"]
    redo = open_game.post({"reason": "it was right after all"}, "redo")
    assert redo.status_code == 201
    assert redo.get_json()["event"]["data"] == {"reason": "it was right after all"}
    assert redo.get_json()["state"]["to_act"] == ["Cas"]
    assert [e["type"] for e in stored(database, open_game.id)] == ["game_created", "deal", "play", "undo", "redo"]


def test_nothing_to_undo_or_redo_is_409(game):
    problem = assert_problem(game.post({}, "undo"), 409, "nothing_to_undo")
    assert problem["version"] == 1
    assert_problem(game.post({}, "redo"), 409, "nothing_to_redo")


# --- the order of checks -------------------------------------------------------------


def test_409_rules_code_with_readable_detail_and_nothing_stored(open_game, database):
    problem = assert_problem(open_game.post({"type": "play", "player": "Ann", "card": "TH"}), 409, "not_your_turn")
    assert problem["version"] == 2
    assert "Ann" in problem["detail"] or "Bob" in problem["detail"]
    assert len(stored(database, open_game.id)) == 2


def test_400_malformed_json(game, client):
    response = client.post(f"{game.url}/events", data='{"type": ', content_type="application/json",
                           headers=game.auth)
    assert_problem(response, 400, "malformed_json")


def test_415_not_json(game, client):
    response = client.post(f"{game.url}/events", data="type=deal", content_type="text/plain", headers=game.auth)
    assert_problem(response, 415, "unsupported_media_type")
    response = client.post(f"{game.url}/undo", data="x", content_type="text/plain", headers=game.auth)
    assert_problem(response, 415, "unsupported_media_type")


def test_413_before_everything(client):
    huge = b'{"type": "note", "text": "' + b"x" * (1024 * 1024) + b'"}'
    response = client.post("/games/nope/events", data=huge, content_type="text/plain")
    assert_problem(response, 413, "payload_too_large")


def test_415_and_400_come_before_404(client):
    assert_problem(client.post("/games/nope/events", data="x", content_type="text/plain"), 415,
                   "unsupported_media_type")
    assert_problem(client.post("/games/nope/events", data="{", content_type="application/json"), 400,
                   "malformed_json")
    assert_problem(client.post("/games/nope/events", json=PLAY), 404, "game_not_found")
    assert_problem(client.post("/games/nope/undo"), 404, "game_not_found")


def test_401_and_403_come_before_the_payload(game, client):
    assert_problem(client.post(f"{game.url}/events", json={"type": "bogus"}), 401, "token_required")
    assert_problem(client.post(f"{game.url}/undo"), 401, "token_required")
    for header in ("Basic abc", "Bearer", "Bearer   "):
        assert_problem(client.post(f"{game.url}/events", json=PLAY, headers={"Authorization": header}), 401,
                       "token_required")
    other = create(client)
    assert_problem(client.post(f"{game.url}/events", json={"type": "bogus"}, headers=other.auth), 403,
                   "token_invalid")


def test_422_payload_comes_before_412_and_409(open_game):
    problem = assert_problem(open_game.post({"type": "play", "player": "Zed", "card": "TH"}, **{"If-Match": '"1"'}),
                             422, "validation_failed")
    assert "player" in problem["errors"]
    assert problem["version"] == 2


def test_422_table_game_refuses_open_only_fields(game):
    problem = assert_problem(game.post(OPEN_DEAL), 422, "validation_failed")
    assert "hands" in problem["errors"]


@pytest.mark.parametrize(
    ("action", "field"),
    [
        ({"player": "Bob", "card": "TH"}, "type"),
        ({"type": "teleport"}, "type"),
        ({"type": 7}, "type"),
        ({"type": "play", "player": "Bob"}, "card"),
        ({"type": "play", "player": "Bob", "card": "1H"}, "card"),
        ({"type": "play", "player": "Bob", "card": "TH", "extra": 1}, "extra"),
        ({"type": "play", "player": "Bob", "card": "TH", "at": "yesterday"}, "at"),
        ({"type": "play", "player": "Bob", "card": "TH", "at": "2026-01-01T10:00:00"}, "at"),
        ({"type": "note"}, "text"),
        ({"type": "note", "text": ""}, "text"),
        ({"type": "adjust", "player": "Bob", "amount": 1.5, "reason": "r"}, "amount"),
    ],
)
def test_422_validation_errors_name_the_field(open_game, action, field):
    problem = assert_problem(open_game.post(action), 422, "validation_failed")
    assert field in problem["errors"], problem["errors"]


@pytest.mark.parametrize("header", ['"2"', "2", '"1", "2"', 'W/"2", "2"', "*"])
def test_if_match_accepts_the_current_version(open_game, header):
    assert open_game.post(PLAY, **{"If-Match": header}).status_code == 201


@pytest.mark.parametrize("header", ['"1"', "3", 'W/"7"', 'W/"2"', 'w/"2"', "W/2", "abc", '""',
                                    "99999999999999999999999999"])
def test_412_version_mismatch(open_game, database, header):
    problem = assert_problem(open_game.post(PLAY, **{"If-Match": header}), 412, "version_mismatch")
    assert problem["version"] == 2
    assert len(stored(database, open_game.id)) == 2


def test_412_comes_before_409(open_game):
    bad_move = {"type": "play", "player": "Ann", "card": "TH"}
    assert_problem(open_game.post(bad_move, **{"If-Match": '"1"'}), 412, "version_mismatch")
    assert_problem(open_game.post({}, "redo", **{"If-Match": '"1"'}), 412, "version_mismatch")


# --- Idempotency-Key -----------------------------------------------------------------


def test_idempotent_retry_returns_the_first_response_and_stores_nothing(open_game, database):
    first = open_game.post(PLAY, **{"Idempotency-Key": "k1"})
    assert first.status_code == 201
    open_game.post({"type": "play", "player": "Cas", "card": "8H"})
    retry = open_game.post({"card": "7H", "player": "Bob", "type": "play"}, **{"Idempotency-Key": "k1"})
    assert retry.status_code == 201
    assert retry.get_json() == first.get_json()
    assert [e["seq"] for e in stored(database, open_game.id)] == [1, 2, 3, 4]


def test_idempotent_retry_wins_over_a_stale_if_match(open_game):
    first = open_game.post(PLAY, **{"Idempotency-Key": "k", "If-Match": '"2"'})
    retry = open_game.post(PLAY, **{"Idempotency-Key": "k", "If-Match": '"2"'})
    assert retry.status_code == 201 and retry.get_json() == first.get_json()


def test_reused_key_with_a_different_body_is_422(open_game, database):
    open_game.post(PLAY, **{"Idempotency-Key": "k1"})
    problem = assert_problem(open_game.post({**PLAY, "at": "2026-01-01T00:00:00Z"}, **{"Idempotency-Key": "k1"}),
                             422, "idempotency_key_reused")
    assert problem["version"] == 3
    assert_problem(open_game.post({}, "undo", **{"Idempotency-Key": "k1"}), 422, "idempotency_key_reused")
    assert len(stored(database, open_game.id)) == 3


def test_a_key_reused_on_another_endpoint_with_a_json_equal_body_is_422(open_game, database):
    """docs/decisions.md, Idempotency-Key: a key names one request, its endpoint included, so
    an undo's key sent again to ``/redo`` with the same ``{}`` is refused, never answered
    with the undo's 201 (which would tell the client a redo happened); the undo's retry still
    gets its stored answer."""
    assert open_game.post(PLAY).status_code == 201
    undone = open_game.post({}, "undo", **{"Idempotency-Key": "u"})
    assert undone.status_code == 201
    assert_problem(open_game.post({}, "redo", **{"Idempotency-Key": "u"}), 422, "idempotency_key_reused")
    retry = open_game.post({}, "undo", **{"Idempotency-Key": "u"})
    assert retry.status_code == 201 and retry.get_json() == undone.get_json()
    assert len(stored(database, open_game.id)) == 4  # created, dealt, played, undone: no redo


def test_keys_are_per_game(open_game, client):
    other = create(client, visibility="open")
    other.post(OPEN_DEAL)
    assert open_game.post(PLAY, **{"Idempotency-Key": "same"}).status_code == 201
    assert other.post(PLAY, **{"Idempotency-Key": "same"}).get_json()["event"]["seq"] == 3


def test_refused_requests_are_not_remembered(open_game):
    bad = {"type": "play", "player": "Ann", "card": "TH"}
    assert_problem(open_game.post(bad, **{"Idempotency-Key": "k"}), 409, "not_your_turn")
    assert open_game.post(PLAY, **{"Idempotency-Key": "k"}).status_code == 201


def test_undo_retry_with_empty_body(open_game, client, database):
    open_game.post(PLAY)
    headers = {**open_game.auth, "Idempotency-Key": "u"}
    first = client.post(f"{open_game.url}/undo", headers=headers)
    again = client.post(f"{open_game.url}/undo", headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.get_json() == first.get_json()
    assert len(stored(database, open_game.id)) == 4


@pytest.mark.parametrize("key", ["", "   ", "k" * 201])
def test_unusable_idempotency_key_is_422(open_game, key):
    assert_problem(open_game.post(PLAY, **{"Idempotency-Key": key}), 422, "validation_failed")


# --- the cache -----------------------------------------------------------------------


def test_recording_folds_only_the_new_action(open_game, monkeypatch):
    calls = []
    real = engine.toepen.apply

    def counting(state, action):
        calls.append(action["type"])
        return real(state, action)

    monkeypatch.setattr(engine.toepen, "apply", counting)
    assert open_game.post(PLAY).status_code == 201
    assert open_game.post({"type": "play", "player": "Cas", "card": "8H"}).status_code == 201
    assert calls == ["play", "play"]


def test_a_second_process_writing_is_caught_up_incrementally(database, monkeypatch):
    from service.web.app import create_app

    one = create_app({"TESTING": True, "DATABASE": database}).test_client()
    two = create_app({"TESTING": True, "DATABASE": database}).test_client()
    game = create(one, visibility="open")
    game.post(OPEN_DEAL)
    assert two.get(game.url).get_json()["version"] == 2  # app two folds the game once
    game.post(PLAY)  # written by app one
    calls = []
    real = engine.toepen.apply
    monkeypatch.setattr(engine.toepen, "apply", lambda s, a: calls.append(a["type"]) or real(s, a))
    body = two.get(game.url).get_json()
    assert body["version"] == 3 and body["state"]["to_act"] == ["Cas"]
    assert calls == ["play"]
    response = two.post(f"{game.url}/events", json={"type": "play", "player": "Cas", "card": "8H"},
                        headers={**game.auth, "If-Match": '"3"'})
    assert response.status_code == 201
    assert one.get(game.url).get_json()["state"]["to_act"] == ["Dee"]
