"""A number that is JSON but out of the range read (``1e999``, past a float's; an integer of
5,000 digits, past what Python converts) is 422 ``validation_failed`` naming its field, not
400 ``malformed_json`` (breaker finding 8; docs/decisions.md: RFC 8259 §9 lets a reader limit
the range, and 400 is for a body that is not JSON): through the Flask app and through
``kibitz serve``'s direct route, which read a body alike (``service.http.decode_json``)."""

from __future__ import annotations

import pytest
import requests

from tests.conftest import PLAYERS, create
from tests.serving import serving

LONG = "1" * 5000
#: (raw body, the field its problem's ``errors`` names, the place its message names)
BODIES = [
    (b'{"type": "note", "text": 1e999}', "text", "1e999 is"),
    (b'{"type": "note", "text": -1E+999}', "text", "-1E+999 is"),
    (f'{{"type": "note", "text": {LONG}}}'.encode(), "text", "1111... is"),
    (b'{"type": "note", "text": "x", "extra": [1, {"deep": 1e999}]}', "extra", "1e999 (at extra[1].deep) is"),
    (b"1e999", "_schema", "1e999 is"),
]


def named(problem: dict, field: str, place: str) -> bool:
    return list(problem["errors"]) == [field] and place in problem["errors"][field][0] and "out of the range" in problem["detail"]


@pytest.mark.parametrize(("raw", "field", "place"), BODIES)
def test_the_flask_app_answers_422_naming_the_field(client, raw, field, place):
    game = create(client)
    for route in ("events", "undo"):
        answer = client.post(f"{game.url}/{route}", data=raw, content_type="application/json", headers=game.auth)
        assert answer.status_code == 422, answer.get_json()
        assert answer.get_json()["code"] == "validation_failed" and named(answer.get_json(), field, place)
    created = client.post("/games", data=raw.replace(b'"type": "note"', b'"game": "toepen"'),
                          content_type="application/json")
    assert created.status_code == 422 and created.get_json()["code"] == "validation_failed", created.get_json()
    assert client.post(f"{game.url}/events", json={"type": "note", "text": "x"}, headers=game.auth).status_code == 201


def test_the_direct_route_answers_422_naming_the_field(tmp_path):
    with serving(tmp_path) as base:
        made = requests.post(f"{base}/games", json={"game": "toepen", "players": PLAYERS}, timeout=30).json()
        url = f"{base}/games/{made['id']}"
        auth = {"Authorization": f"Bearer {made['token']}", "Content-Type": "application/json"}
        for raw, field, place in BODIES:
            for route in ("events", "undo"):
                answer = requests.post(f"{url}/{route}", data=raw, headers=auth, timeout=30)
                assert answer.status_code == 422, (raw[:40], route, answer.text)
                assert answer.json()["code"] == "validation_failed" and named(answer.json(), field, place), answer.text
        assert requests.post(f"{url}/events", json={"type": "note", "text": "x"}, headers=auth, timeout=30).status_code == 201
