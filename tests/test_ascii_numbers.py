"""Numbers in paths, queries and headers are ASCII digits only (one parser,
``schemas.common.whole_number``): ``"²"`` (which ``str.isdigit`` calls a digit and ``int``
refuses) and other scripts' digits (``"٣"``, ``"３"``, which ``int`` would read as 3) are the
documented refusal of each place, never a 500 and never read as a number
(docs/text-and-headers.md)."""

from __future__ import annotations

import pytest

from tests.conftest import assert_problem, create

NOTE = {"type": "note", "text": "Checking the score"}
NOT_ASCII = ["\u00b2", "\u0663", "\uff13", "\u0b69", "3\u00b2", "+3", " 3", "3 ", "-1", "", "9" * 31]


@pytest.fixture
def played(client):
    game = create(client)
    assert game.post({"type": "deal"}).status_code == 201
    assert game.post({"type": "knock", "player": "Bob"}).status_code == 201
    return game


@pytest.mark.parametrize("text", [t for t in NOT_ASCII if t.strip() == t])  # If-Match trims spaces
def test_if_match_with_other_digits_is_412(played, text):
    response = played.post(NOTE, **{"If-Match": f'"{text}"'})
    assert_problem(response, 412, "version_mismatch")
    assert played.get().get_json()["version"] == 3  # nothing stored


def test_if_match_ascii_still_matches(played):
    assert played.post(NOTE, **{"If-Match": '"3"'}).status_code == 201
    assert played.post(NOTE, **{"If-Match": "4"}).status_code == 201


@pytest.mark.parametrize("text", ["\u00b2", "\u0663", "\uff13"])
def test_path_numbers_with_other_digits_are_no_route(client, played, text):
    for path in (f"/states/{text}", f"/hands/{text}", f"/hands/1/tricks/{text}"):
        assert_problem(client.get(played.url + path), 404, "not_found")
    for page in (f"/watch/{played.id}/hands/{text}", f"/watch/{played.id}/hands/1/tricks/{text}",
                 f"/watch/{played.id}/hands/1/turns/{text}"):
        response = client.get(page)
        assert response.status_code == 404 and response.mimetype in ("text/html", "application/problem+json"), page


def test_ascii_path_numbers_still_work(client, played):
    assert client.get(played.url + "/states/2").status_code == 200
    assert client.get(played.url + "/hands/1").status_code == 200
    assert client.get(f"/watch/{played.id}/hands/1").status_code == 200


@pytest.mark.parametrize("text", NOT_ASCII)
def test_replay_page_with_other_digits_shows_the_last_step(client, played, text):
    response = client.get(f"/watch/{played.id}/replay", query_string={"step": text})
    assert response.status_code == 200
    assert 'value="3"' in response.get_data(as_text=True)  # the slider at the last event, 3


@pytest.mark.parametrize("text", NOT_ASCII)
def test_replay_fragments_with_other_digits(client, played, text):
    assert client.get(f"/watch/{played.id}/replay/board", query_string={"step": text}).status_code == 404
    assert client.get(f"/watch/{played.id}/replay/timeline", query_string={"step": text}).status_code == 200


@pytest.mark.parametrize("text", NOT_ASCII)
@pytest.mark.parametrize("name", ["seq", "step"])
def test_what_if_page_with_other_digits_is_422(client, played, text, name):
    response = client.get(f"/watch/{played.id}/fork", query_string={name: text}, headers=played.auth)
    assert response.status_code == 422 and response.mimetype == "text/html"


@pytest.mark.parametrize("text", NOT_ASCII)
def test_query_numbers_with_other_digits_are_422(client, played, text):
    for path, name in ((played.url + "/events", "after"), (played.url + "/events", "limit"),
                       (played.url + "/timeline", "hand"), ("/games", "limit"),
                       ("/players/Ann", "limit"), ("/players/Ann", "offset")):
        response = client.get(path, query_string={name: text})
        assert_problem(response, 422, "validation_failed")
        assert name in response.get_json()["errors"], (path, name)


def test_ascii_query_numbers_still_work(client, played):
    assert len(client.get(played.url + "/events?after=1&limit=1").get_json()["events"]) == 1
    assert client.get(played.url + "/timeline?hand=1").status_code == 200
    assert client.get("/games?limit=1").status_code == 200
    assert client.get("/players/Ann?limit=1&offset=0").status_code == 200
    assert client.get(f"/watch/{played.id}/fork?seq=2", headers=played.auth).status_code == 200
