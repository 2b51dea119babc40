"""Two more changes made behind a running ``kibitz serve`` (issue 27, the breaker's findings 2
and 3), on SQLite and on PostgreSQL, through real HTTP:

- the ``idempotency`` row of a keyed event deleted: a retry of that key (same body or
  another) is 503 ``record_damaged`` (the log holds an event with the key but no stored
  answer), never a 500 from the unique index the append meets;
- an event inserted after ``games.version`` (seq 5 a copy of seq 4, the games row left at 4):
  every read of the game is 503 ``record_damaged`` while the server runs (it held the game in
  memory) and from a server that never read it (as after a restart), and so is a write.

``kibitz check`` names both games, and not the sound one beside them.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests

from service.http import request_hash
from service.storage import backend
from tests.club_server import Served, kibitz, serve
from tests.postgres import empty_database
from tests.tampering import lifted
from tests.test_damaged_stored_data_server import DEAL, _assert_503
from tests.test_tampered_under_a_running_server import PAGES, READS


def _made(served: Served) -> tuple[str, str]:
    """A Toepen game of four events, event 4 a note keyed ``K1``; every read route read."""
    game_id, token = served.new_game()
    auth = {"Authorization": f"Bearer {token}"}
    for body in (DEAL, {"type": "play", "player": "Bob", "card": "7H"}):
        assert requests.post(f"{served.base}/games/{game_id}/events", json=body, headers=auth,
                             timeout=30).status_code == 201
    assert served.note(game_id, token, "keyed", key="K1").status_code == 201
    for route in READS:
        assert requests.get(served.base + route.format(id=game_id).replace("states/6", "states/4"),
                            timeout=30).status_code == 200, route
    return game_id, token




@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def changed(request, tmp_path_factory) -> Iterator[tuple[str, Served, dict[str, tuple[str, str]], tuple[str, str], tuple[str, str]]]:
    folder = tmp_path_factory.mktemp(f"keys-{request.param}")
    with empty_database(request.param, folder) as database, serve(database, log_dir=folder) as served:
        made = {"answer_deleted": _made(served), "event_past_version": _made(served)}
        forged = _made(served)
        sound = _made(served)
        p = "%s" if backend.is_postgres(database) else "?"
        with lifted(database) as run:
            run(f"DELETE FROM idempotency WHERE game_id = {p} AND key = 'K1'", [made["answer_deleted"][0]])
            run("INSERT INTO events (game_id, seq, type, data, recorded_at, at, idempotency_key, hash, salt) "
                "SELECT game_id, 5, type, data, recorded_at, at, NULL, hash, salt FROM events "
                f"WHERE game_id = {p} AND seq = 4", [made["event_past_version"][0]])
            run(f"UPDATE idempotency SET request_hash = {p} WHERE game_id = {p} AND key = 'K1'",
                [request_hash("events", {"type": "note", "text": "other body"}), forged[0]])
        yield database, served, made, sound, forged


def test_a_retry_of_a_key_whose_stored_answer_was_deleted_is_record_damaged(changed):
    _, served, made, (sound, sound_token), _ = changed
    game_id, token = made["answer_deleted"]
    for text in ("keyed", "another body"):
        answer = served.note(game_id, token, text, key="K1")
        assert answer.status_code == 503, answer.text[:300]
        assert answer.json()["code"] == "record_damaged" and answer.json()["game_id"] == game_id, answer.text
    assert served.note(sound, sound_token, "keyed", key="K1").status_code == 201  # the sound game's retry


def _every_read_is_503(served: Served, game_id: str) -> None:
    for route in READS:
        route = route.replace("states/6", "states/4")
        answer = requests.get(served.base + route.format(id=game_id), timeout=30)
        _assert_503(answer, game_id, 5)
    for route in PAGES:
        answer = requests.get(served.base + route.format(id=game_id), timeout=30)
        assert answer.status_code == 503, (route, answer.status_code, answer.text[:300])
        assert "kibitz check" in answer.text and f"game {game_id}" in answer.text, route


def test_an_event_past_the_version_makes_every_read_a_503_while_the_server_runs(changed):
    _, served, made, (sound, _), _ = changed
    game_id, token = made["event_past_version"]
    _every_read_is_503(served, game_id)
    answer = served.note(game_id, token, "after")
    assert answer.status_code == 503 and answer.json()["code"] == "record_damaged", answer.text[:300]
    assert requests.get(f"{served.base}/games/{sound}", timeout=30).status_code == 200


def test_an_event_past_the_version_makes_every_read_a_503_after_a_restart(changed, tmp_path):
    database, _, made, (sound, _), _ = changed
    game_id, _ = made["event_past_version"]
    with serve(database, log_dir=tmp_path) as fresh:  # holds nothing in memory
        _every_read_is_503(fresh, game_id)
        assert requests.get(f"{fresh.base}/games/{sound}", timeout=30).status_code == 200


def test_kibitz_check_names_both(changed):
    database, _, made, (sound, _), _ = changed
    done = kibitz("check", "--db", database)
    assert done.returncode == 1, done.stdout + done.stderr
    for game_id, _ in made.values():
        assert f"game {game_id}" in done.stdout, done.stdout
    assert sound not in done.stdout


def test_a_forged_request_hash_is_a_known_limit(changed):
    """docs/tamper-evidence.md, "What is derived from a game, beyond its own routes" (a known limit):
    the request's body is not stored, so a stored
    ``request_hash`` replaced with another body's hash cannot be found; the retry with that
    other body is answered with the key's genuine stored answer (nothing stored), and the
    first body is refused as another request. ``kibitz check`` does not name the game."""
    database, served, _, _, (game_id, token) = changed
    first = requests.get(f"{served.base}/games/{game_id}/events", timeout=30).json()
    replay = served.note(game_id, token, "other body", key="K1")
    assert replay.status_code == 201 and replay.json()["event"]["data"] == {"text": "keyed"}, replay.text[:300]
    assert served.note(game_id, token, "keyed", key="K1").status_code == 422
    assert requests.get(f"{served.base}/games/{game_id}/events", timeout=30).json() == first
    assert f"game {game_id}" not in kibitz("check", "--db", database).stdout
