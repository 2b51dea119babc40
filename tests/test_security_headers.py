"""Headers on every answer (api.md, "What a crowd must not break"; docs/text-and-headers.md):
``X-Content-Type-Options: nosniff`` on every page and API answer (errors and static files
included); ``Content-Security-Policy: frame-ancestors 'none'`` on pages; ``Vary: Authorization``
and ``Cache-Control: private`` (or ``no-store``) on every answer that differs with the token:
the game and its reads, ``/watch/<id>``, its board fragment (a 304 too), the replay and its
fragments, the audits."""

from __future__ import annotations

import pytest
import requests

from tests.conftest import create
from tests.serving import serving


@pytest.fixture
def played(client):
    game = create(client)
    assert game.post({"type": "deal"}).status_code == 201
    assert game.post({"type": "play", "player": "Bob", "card": "TH"}).status_code == 201
    return game


def _private(response):
    assert "authorization" in {v.strip().lower() for v in response.headers.get("Vary", "").split(",")}, \
        response.headers
    directives = {v.strip().lower() for v in response.headers.get("Cache-Control", "").split(",")}
    assert directives & {"private", "no-store"}, response.headers


def _nosniff(response):
    assert response.headers.get("X-Content-Type-Options") == "nosniff", (response.request.path, response.headers)


def _not_framed(response):
    assert response.headers.get("Content-Security-Policy") == "frame-ancestors 'none'", response.headers
    assert response.headers.get("X-Frame-Options") == "DENY", response.headers


def test_every_api_answer_says_nosniff(client, played):
    for path in ("/health", "/openapi.json", "/games", "/players", "/games/nope", "/no/such/route",
                 played.url, played.url + "/events", "/games?limit=x"):
        _nosniff(client.get(path))
    _nosniff(played.post({"type": "note", "text": "x"}))
    _nosniff(client.post(played.url + "/events", json={"type": "note", "text": "x"}))  # 401
    _nosniff(client.post("/games", data="{", content_type="application/json"))  # 400


def test_every_page_says_nosniff_and_cannot_be_framed(client, played):
    for path in ("/", "/new", f"/table/{played.id}", f"/watch/{played.id}", f"/watch/{played.id}/replay",
                 f"/watch/{played.id}/hands/1", f"/watch/{played.id}/hands/1/tricks/1", "/people", "/people/Ann",
                 "/club", "/watch/nope", "/people/Nobody"):
        response = client.get(path)
        assert response.mimetype == "text/html", path
        _nosniff(response)
        _not_framed(response)
    static = client.get("/static/kibitz.css")
    _nosniff(static)
    static.close()


@pytest.mark.parametrize("token", [False, True])
def test_answers_that_differ_with_the_token_are_private(client, played, token):
    headers = played.auth if token else {}
    for path in ("", "/events", "/actions", "/timeline", "/states/3", "/hands/1", "/hands/1/tricks/1",
                 "/irregularities", "/export", "/export?format=text"):
        _private(client.get(played.url + path, headers=headers))
    for path in ("", "/board", "/replay", "/replay?step=2", "/replay/board?step=2", "/replay/timeline",
                 "/hands/1", "/hands/1/tricks/1"):
        response = client.get(f"/watch/{played.id}{path}", headers=headers)
        assert response.status_code == 200, path
        _private(response)


def test_a_fragments_no_cache_stays_beside_private(client, played):
    directives = {v.strip() for v in client.get(f"/watch/{played.id}/board").headers["Cache-Control"].split(",")}
    assert {"no-cache", "private"} <= directives


def test_pages_that_never_differ_with_the_token_do_not_vary_on_it(client, played):
    for path in ("/", "/new", f"/table/{played.id}", "/people", "/club", f"/watch/{played.id}/fork?seq=2"):
        response = client.get(path, headers=played.auth)
        assert "Authorization" not in response.headers.get("Vary", ""), path


def test_the_boards_304_is_private_too(client, played):
    first = client.get(f"/watch/{played.id}/board", headers=played.auth)
    again = client.get(f"/watch/{played.id}/board", headers={**played.auth, "If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304
    _private(again)


def test_a_full_and_a_public_view_really_differ(client):
    game = create(client, visibility="open")
    from tests.conftest import OPEN_DEAL

    assert game.post(OPEN_DEAL).status_code == 201
    full = client.get(f"/watch/{game.id}/board", headers=game.auth).get_data(as_text=True)
    public = client.get(f"/watch/{game.id}/board").get_data(as_text=True)
    assert full != public  # so a shared cache must never hand one for the other


def test_a_real_server_sends_them(tmp_path):
    with serving(tmp_path) as base:
        game = requests.post(f"{base}/games", json={"game": "toepen", "players": ["Ann", "Bob", "Cas"]},
                             timeout=30).json()
        page = requests.get(f"{base}/watch/{game['id']}", timeout=30)
        assert page.headers["X-Content-Type-Options"] == "nosniff"
        assert page.headers["Content-Security-Policy"] == "frame-ancestors 'none'"
        assert "private" in page.headers["Cache-Control"] and "Authorization" in page.headers["Vary"]
        api = requests.get(f"{base}/games/{game['id']}", headers={"Authorization": f"Bearer {game['token']}"},
                           timeout=30)
        assert api.headers["X-Content-Type-Options"] == "nosniff" and "private" in api.headers["Cache-Control"]
        too_large = requests.post(f"{base}/games", data=b"x" * (1024 * 1024 + 10),
                                  headers={"Content-Type": "application/json"}, timeout=30)
        assert too_large.status_code == 413 and too_large.headers["X-Content-Type-Options"] == "nosniff"
