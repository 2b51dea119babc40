"""The club key through the Flask test client: creating and importing need it, nothing else does.

api.md: where the server has a club key, ``POST /games`` and ``POST /games/import`` without it
are 401 ``club_key_required`` and with another bearer token 403 ``club_key_invalid`` (after the
body's 413/415/400, before any 422); a fork needs the forked game's token, never the club key;
every write to a game needs that game's token; reads never need it, and a read that carries it
gets the public view. Without a club key the service is open.
"""

from __future__ import annotations

import re

import pytest

from service.web.app import create_app
from service.web.pages import is_page_endpoint
from tests.conftest import OPEN_DEAL, PLAYERS, assert_problem
from tests.zips import body_text

KEY = "correct horse battery staple"
GAME = {"game": "toepen", "players": PLAYERS, "visibility": "open"}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def keyed(db_path):
    """A client of an app with a club key."""
    return create_app({"TESTING": True, "DATABASE": str(db_path), "CLUB_KEY": KEY}).test_client()


@pytest.fixture
def other_keyed(other_db_path):
    """A second server, with the same club key, to import into."""
    return create_app({"TESTING": True, "DATABASE": str(other_db_path), "CLUB_KEY": KEY}).test_client()


def games_stored(client) -> int:
    return len(client.get("/games?fork=true&limit=500").get_json()["games"])


def dealt_game(client) -> dict:
    """An open Toepen game, created with the club key and dealt: every hand in play."""
    created = client.post("/games", json=GAME, headers=bearer(KEY))
    assert created.status_code == 201, created.get_json()
    body = created.get_json()
    assert client.post(f"/games/{body['id']}/events", json=OPEN_DEAL, headers=bearer(body["token"])).status_code == 201
    return body


def export_of(client, game: dict) -> dict:
    response = client.get(f"/games/{game['id']}/export", headers=bearer(game["token"]))
    assert response.status_code == 200
    return response.get_json()


@pytest.mark.parametrize("route", ["/games", "/games/import"])
def test_every_creating_route_needs_the_club_key(keyed, other_keyed, route):
    body = GAME if route == "/games" else export_of(keyed, dealt_game(keyed))
    before = games_stored(other_keyed)
    missing = other_keyed.post(route, json=body)
    problem = assert_problem(missing, 401, "club_key_required")
    assert problem["detail"] == ("This server needs the club key to create or import a game: nothing was created. "
                                 "Ask whoever runs the club's server for it.")
    assert missing.headers["WWW-Authenticate"].startswith("Bearer")
    for wrong in ("Bearer not-the-key", f"Bearer {KEY}x", f"Bearer {KEY[:-1]}", "Basic " + KEY, "Bearer"):
        refused = other_keyed.post(route, json=body, headers={"Authorization": wrong})
        if wrong in ("Basic " + KEY, "Bearer"):  # no bearer token at all
            assert_problem(refused, 401, "club_key_required")
        else:
            assert assert_problem(refused, 403, "club_key_invalid")["detail"].startswith(
                "That is not this server's club key: nothing was created.")
    assert games_stored(other_keyed) == before  # nothing stored by any refusal
    created = other_keyed.post(route, json=body, headers=bearer(KEY))
    assert created.status_code == 201, created.get_json()
    assert created.get_json()["token"]
    assert games_stored(other_keyed) == before + 1


def test_a_games_token_is_not_the_club_key(keyed, other_keyed):
    game = dealt_game(keyed)
    assert_problem(keyed.post("/games", json=GAME, headers=bearer(game["token"])), 403, "club_key_invalid")
    assert_problem(other_keyed.post("/games/import", json=export_of(keyed, game), headers=bearer(game["token"])), 403,
                   "club_key_invalid")


@pytest.mark.parametrize("route", ["/games", "/games/import"])
def test_body_errors_come_before_the_club_key_and_payload_errors_after(keyed, route):
    """api.md's order: 413 → 415 → 400 → 401/403 club key → 422."""
    assert_problem(keyed.post(route, data=b"{" * 2_000_000, content_type="application/json"), 413, "payload_too_large")
    assert_problem(keyed.post(route, data="game=toepen", content_type="text/plain"), 415, "unsupported_media_type")
    assert_problem(keyed.post(route, data="{", content_type="application/json"), 400, "malformed_json")
    assert_problem(keyed.post(route, json={"game": "chess"}), 401, "club_key_required")
    assert_problem(keyed.post(route, json={"game": "chess"}, headers=bearer("wrong-key!")), 403, "club_key_invalid")
    assert_problem(keyed.post(route, json={"game": "chess"}, headers=bearer(KEY)), 422, "validation_failed")


def test_without_a_club_key_the_service_stays_open(client):
    assert client.post("/games", json=GAME).status_code == 201
    assert client.post("/games", json=GAME, headers=bearer("whatever a device kept")).status_code == 201
    assert b'data-club-key-required="false"' in client.get("/new").data


def test_the_new_game_page_says_when_the_server_has_a_club_key(keyed):
    html = keyed.get("/new").get_data(as_text=True)
    assert 'data-club-key-required="true"' in html
    assert re.search(r'<label for="club-key">Club key</label>\s*<input id="club-key" type="password"', html)
    assert KEY not in html


def test_a_fork_with_the_club_key_but_no_token_is_refused(keyed):
    game = dealt_game(keyed)
    before = games_stored(keyed)
    refused = assert_problem(keyed.post(f"/games/{game['id']}/fork", json={"seq": 2}, headers=bearer(KEY)), 403,
                             "token_invalid")
    assert "needs that game's own token" in refused["detail"]
    assert_problem(keyed.post(f"/games/{game['id']}/fork", json={"seq": 2}), 401, "token_required")
    assert games_stored(keyed) == before
    forked = keyed.post(f"/games/{game['id']}/fork", json={"seq": 2}, headers=bearer(game["token"]))
    assert forked.status_code == 201  # the game's token forks, with or without a club key on the server


@pytest.mark.parametrize("path, body", [("events", {"type": "note", "text": "x"}), ("undo", {}), ("redo", {})])
def test_every_write_to_a_game_needs_its_token_not_the_club_key(keyed, path, body):
    game = dealt_game(keyed)
    assert_problem(keyed.post(f"/games/{game['id']}/{path}", json=body, headers=bearer(KEY)), 403, "token_invalid")
    assert keyed.get(f"/games/{game['id']}").get_json()["version"] == 2
    assert_problem(keyed.post(f"/table/{game['id']}/share", json={}, headers=bearer(KEY)), 403, "token_invalid")


def same_page(text: str) -> str:
    return re.sub(r"chart-[0-9a-f-]{36}", "chart-id", text)


def _read_paths(app, game_id: str) -> list[str]:
    """Every GET route of the app (API and pages, not static files) with its parameters filled in."""
    values = {"game_id": game_id, "n": "1", "t": "1", "seq": "2", "name": "Ann"}
    paths = []
    for rule in app.url_map.iter_rules():
        if "GET" not in rule.methods or rule.endpoint == "pages.static":
            continue
        paths.append(re.sub(r"<(?:[a-z]+:)?([a-z_]+)>", lambda m: values[m.group(1)], rule.rule))
    extra = [f"/games/{game_id}/export?format={fmt}" for fmt in ("jsonl", "csv", "text")]
    paths = [f"{path}?seq=2" if path.endswith("/fork") else path for path in paths]  # the What if… page
    return sorted(paths) + [*extra, f"/games/{game_id}/timeline?hand=1", "/players/Ann/games?format=csv"]


def test_every_read_is_public_and_the_club_key_gets_the_public_view(keyed):
    app = keyed.application
    game = dealt_game(keyed)
    hidden = OPEN_DEAL["hands"]["Ann"]  # Ann's cards, in her hand until she plays them
    paths = _read_paths(app, game["id"])
    api_paths = [path for path in paths if not is_page_endpoint(app.url_map.bind("").match(path.split("?")[0])[0])]
    assert len(paths) >= 30 and len(api_paths) >= 15
    for path in paths:
        public = keyed.get(path)
        with_key = keyed.get(path, headers=bearer(KEY))
        assert public.status_code == with_key.status_code, path
        assert public.status_code in (200, 404), (path, public.status_code)  # a turn audit is not Toepen's
        # the club key changes nothing on a read (pygal names each chart with a fresh random id)
        assert same_page(body_text(public)) == same_page(body_text(with_key)), path
        if public.status_code == 200 and (game["id"] in path or path == "/games/export") \
                and not path.startswith("/table/"):  # its deck buttons
            text = body_text(public)
            assert not any(re.search(rf"\b{card}\b", text) for card in hidden), path
    api_ok = [path for path in api_paths if keyed.get(path).status_code == 200]
    assert {f"/games/{game['id']}", f"/games/{game['id']}/events", f"/games/{game['id']}/export", "/games",
            "/players", "/players/Ann", "/health"} <= set(api_ok)
    # the game's own token opens the full view on the same routes: the comparison above can fail
    full = keyed.get(f"/games/{game['id']}/events", headers=bearer(game["token"])).get_json()
    assert full["events"][1]["data"]["hands"] == OPEN_DEAL["hands"]
    public = keyed.get(f"/games/{game['id']}/events", headers=bearer(KEY)).get_json()
    assert "hands" not in public["events"][1]["data"]


def test_the_club_key_does_not_open_a_sealed_fork(keyed):
    """A fork of an open game whose hand is over in the fork but in play in the original is
    sealed to readers without the fork's token; the club key does not open it."""
    game = dealt_game(keyed)
    forked = keyed.post(f"/games/{game['id']}/fork", json={"seq": 2}, headers=bearer(game["token"])).get_json()
    # the fork's scorekeeper records a fold that ends hand 1 there, while it is in play in the original
    plays = [{"type": "play", "player": "Bob", "card": "7H"}, {"type": "play", "player": "Cas", "card": "8H"},
             {"type": "play", "player": "Dee", "card": "AH"}, {"type": "play", "player": "Ann", "card": "TH"}]
    for action in plays:
        assert keyed.post(f"/games/{forked['id']}/events", json=action,
                          headers=bearer(forked["token"])).status_code == 201
    for action in [{"type": "play", "player": "Ann", "card": "9C"}, {"type": "play", "player": "Bob", "card": "8C"},
                   {"type": "play", "player": "Cas", "card": "TC"}, {"type": "play", "player": "Dee", "card": "7C"},
                   {"type": "play", "player": "Cas", "card": "9S"}, {"type": "play", "player": "Dee", "card": "TS"},
                   {"type": "play", "player": "Ann", "card": "QS"}, {"type": "play", "player": "Bob", "card": "KS"},
                   {"type": "play", "player": "Dee", "card": "8D"}, {"type": "play", "player": "Ann", "card": "JD"},
                   {"type": "play", "player": "Bob", "card": "AD"}, {"type": "play", "player": "Cas", "card": "JH"}]:
        response = keyed.post(f"/games/{forked['id']}/events", json=action, headers=bearer(forked["token"]))
        assert response.status_code == 201, response.get_json()
    assert keyed.get(f"/games/{forked['id']}").status_code == 401
    assert_problem(keyed.get(f"/games/{forked['id']}", headers=bearer(KEY)), 401, "token_required")
    assert keyed.get(f"/games/{forked['id']}", headers=bearer(forked["token"])).status_code == 200
