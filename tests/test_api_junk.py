"""Never a 500: junk bodies, headers and paths get a problem body with a 4xx status."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import assert_problem

JUNK_JSON = [
    ("null", "null"),
    ("list", "[]"),
    ("list of action", '[{"type": "play", "player": "Bob", "card": "7H"}]'),
    ("string", '"play"'),
    ("number", "7"),
    ("true", "true"),
    ("huge int", "1" * 5000),
    ("huge float", "1e400"),
    ("nan", '{"type": NaN}'),
    ("deep", "[" * 5000 + "]" * 5000),
    ("deep object", '{"a":' * 100 + "1" + "}" * 100),
    ("empty object", "{}"),
    ("type null", '{"type": null}'),
    ("type list", '{"type": ["play"]}'),
    ("type object", '{"type": {"play": 1}}'),
    ("player int", '{"type": "play", "player": 7, "card": "7H"}'),
    ("player list", '{"type": "play", "player": ["Bob"], "card": "7H"}'),
    ("player huge", json.dumps({"type": "play", "player": "B" * 100000, "card": "7H"})),
    ("card int", '{"type": "play", "player": "Bob", "card": 7}'),
    ("card true", '{"type": "play", "player": "Bob", "card": true}'),
    ("card list", '{"type": "play", "player": "Bob", "card": ["7H"]}'),
    ("card emoji", '{"type": "play", "player": "Bob", "card": "\\ud83c\\udca1"}'),
    ("lone surrogate", '{"type": "note", "text": "\\ud800"}'),
    ("nul byte", '{"type": "note", "text": "a\\u0000b"}'),
    ("hands list", '{"type": "deal", "hands": ["TH"]}'),
    ("hands nested junk", '{"type": "deal", "hands": {"Bob": [[1]]}}'),
    ("hands bad names", '{"type": "deal", "hands": {"": ["TH","9C","JD","QS"]}}'),
    ("cards object", '{"type": "reveal", "player": "Bob", "cards": {"a": 1}}'),
    ("cards huge", json.dumps({"type": "reveal", "player": "Bob", "cards": ["7H"] * 10000})),
    ("amount huge", '{"type": "adjust", "player": "Bob", "amount": 1e300, "reason": "x"}'),
    ("amount bigint", '{"type": "adjust", "player": "Bob", "amount": 99999999999999999999999999, "reason": "x"}'),
    ("amount string", '{"type": "adjust", "player": "Bob", "amount": "1", "reason": "x"}'),
    ("at number", '{"type": "play", "player": "Bob", "card": "7H", "at": 17}'),
    ("at huge", json.dumps({"type": "play", "player": "Bob", "card": "7H", "at": "2" * 100000})),
    ("at odd", '{"type": "play", "player": "Bob", "card": "7H", "at": "9999-12-31T23:59:59-23:59"}'),
    ("reason", '{"reason": ["x"]}'),
    ("bom", "\ufeff{}"),
    ("latin1", b'{"type": "note", "text": "caf\xe9"}'),
    ("garbage bytes", b"\xff\xfe\x00\x01"),
    ("empty", ""),
    ("whitespace", "   "),
    ("trailing", '{"type": "note", "text": "x"} {}'),
]


def _post(client, game, path, raw):
    data = raw if isinstance(raw, bytes) else raw.encode("utf-8", "surrogatepass")
    return client.post(f"{game.url}/{path}", data=data, content_type="application/json", headers=game.auth)


@pytest.mark.parametrize("path", ["events", "undo", "redo"])
@pytest.mark.parametrize("raw", [raw for _, raw in JUNK_JSON], ids=[name for name, _ in JUNK_JSON])
def test_junk_bodies_are_4xx_problems(open_game, client, path, raw):
    response = _post(client, open_game, path, raw)
    assert response.status_code in (201, 400, 409, 422), response.get_data(as_text=True)[:300]
    if response.status_code != 201:
        assert response.mimetype == "application/problem+json"
        assert response.get_json()["code"]


@pytest.mark.parametrize("raw", [raw for _, raw in JUNK_JSON], ids=[name for name, _ in JUNK_JSON])
def test_junk_create_bodies_are_4xx_problems(client, raw):
    data = raw if isinstance(raw, bytes) else raw.encode("utf-8", "surrogatepass")
    response = client.post("/games", data=data, content_type="application/json")
    assert response.status_code in (400, 422), response.get_data(as_text=True)[:300]


@pytest.mark.parametrize("raw", ["null", "[]", '"x"', "7"])
def test_non_object_bodies_are_422(open_game, client, raw):
    assert_problem(_post(client, open_game, "events", raw), 422, "validation_failed")
    assert_problem(client.post("/games", data=raw, content_type="application/json"), 422, "validation_failed")


@pytest.mark.parametrize(
    "headers",
    [
        {"If-Match": "\"" * 1000},
        {"If-Match": ","},
        {"If-Match": "W/"},
        {"Idempotency-Key": "\x7f"},
        {"Authorization": "Bearer " + "x" * 10000},
        {"Authorization": "Bearer \u00e9\u00e8"},
        {"Content-Type": "application/json; charset=latin-1"},
        {"Content-Type": "application/vnd.kibitz+json"},
    ],
)
def test_junk_headers_never_500(open_game, client, headers):
    response = client.post(f"{open_game.url}/events", data='{"type": "play", "player": "Bob", "card": "7H"}',
                           headers={**open_game.auth, "Content-Type": "application/json", **headers})
    assert response.status_code < 500


@pytest.mark.parametrize(
    "path",
    ["/games/%00", "/games/%ff%fe", "/games/..%2f..", "/games/x/states/1", "/games/x/hands/1/tricks/1",
     "/games?limit=%00", "/games?player=%ff", "/games?cursor=%00", "/games/x/events?after=%00"],
)
def test_junk_paths_never_500(client, path):
    assert client.get(path).status_code in (200, 404, 422)


@pytest.mark.parametrize("path", ["/games/x%00y", "/games/x%00y/events", "/games/x%00y/export", "/players/x%00y",
                                  "/watch/x%00y", "/table/x%00y"])
def test_a_nul_in_a_looked_up_id_or_name_finds_nothing(client, game, path):
    """PostgreSQL's text cannot hold a NUL: a lookup with one finds nothing there, as on SQLite."""
    assert client.get(path, headers=game.auth).status_code == 404


@pytest.mark.parametrize("query", ["player=%00", "game=%00", "forked_from=%00", "player=Ann%00"])
def test_a_nul_in_a_list_filter_matches_no_game(client, game, query):
    response = client.get(f"/games?{query}")
    assert response.status_code == 200 and response.get_json()["games"] == [], response.get_json()
    assert [row["id"] for row in client.get("/games").get_json()["games"]] == [game.id]


def test_a_nul_in_the_status_filter_is_422(client, game):
    assert_problem(client.get("/games?status=%00"), 422, "validation_failed")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(body=st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8)
    | st.sampled_from(["play", "deal", "knock", "fold", "Bob", "7H", "TH", "note", "adjust"]),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(["type", "player", "card", "cards", "hands", "text", "amount", "reason",
                                       "at", "dealer", "target", "x"]), inner, max_size=5),
    max_leaves=12,
))
def test_fuzzed_actions_never_500(open_game, client, body):
    response = client.post(f"{open_game.url}/events", data=json.dumps(body), content_type="application/json",
                           headers=open_game.auth)
    assert response.status_code in (201, 409, 422), response.get_data(as_text=True)[:300]
