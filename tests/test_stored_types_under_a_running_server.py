"""Stored values of the wrong storage type (issue 27, the breaker's finding 1), changed behind
a running ``kibitz serve`` on SQLite (a column of SQLite takes any type: ``x'7b7d'``, the
bytes of ``{}``, as a BLOB where Kibitz writes text; an integer, a real, NULL, text where it
writes an integer): every read and write of that game answers 503 ``record_damaged``, never a
500, while the server runs and after a restart, and ``kibitz check`` names the game.
PostgreSQL's columns are typed: none of these can be stored there.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests

from tests.club_server import Served, kibitz, serve
from tests.tampering import lifted
from tests.test_damaged_stored_data_server import DEAL
from tests.test_tampered_under_a_running_server import PAGES, READS, WRITES

#: Each kind: the statement (``{id}``: the game) run with the triggers lifted.
KINDS = {
    "event_data_blob": "UPDATE events SET data = x'7b7d' WHERE game_id = '{id}' AND seq = 4",
    "event_data_integer": "UPDATE events SET data = 7 WHERE game_id = '{id}' AND seq = 4",
    "event_type_blob": "UPDATE events SET type = CAST('note' AS BLOB) WHERE game_id = '{id}' AND seq = 4",
    "event_type_integer": "UPDATE events SET type = 4 WHERE game_id = '{id}' AND seq = 4",
    "event_recorded_at_integer": "UPDATE events SET recorded_at = 20261206 WHERE game_id = '{id}' AND seq = 4",
    "event_recorded_at_blob": "UPDATE events SET recorded_at = CAST(recorded_at AS BLOB) WHERE game_id = '{id}' AND seq = 4",
    "event_at_real": "UPDATE events SET at = 1.5 WHERE game_id = '{id}' AND seq = 4",
    "event_salt_blob": "UPDATE events SET salt = CAST(salt AS BLOB) WHERE game_id = '{id}' AND seq = 4",
    "event_hash_blob": "UPDATE events SET hash = CAST(hash AS BLOB) WHERE game_id = '{id}' AND seq = 6",
    "event_hash_integer": "UPDATE events SET hash = 12 WHERE game_id = '{id}' AND seq = 6",
    "last_event_data_blob": "UPDATE events SET data = CAST(data AS BLOB) WHERE game_id = '{id}' AND seq = 6",
    "games_players_blob": "UPDATE games SET players = CAST(players AS BLOB) WHERE id = '{id}'",
    "games_options_integer": "UPDATE games SET options = 3 WHERE id = '{id}'",
    "games_title_blob": "UPDATE games SET title = CAST(title AS BLOB) WHERE id = '{id}'",
    "games_title_integer": "UPDATE games SET title = 5 WHERE id = '{id}'",
    "games_created_at_integer": "UPDATE games SET created_at = 5 WHERE id = '{id}'",
    "games_status_blob": "UPDATE games SET status = CAST(status AS BLOB) WHERE id = '{id}'",
    "games_game_blob": "UPDATE games SET game = CAST(game AS BLOB) WHERE id = '{id}'",
    "games_visibility_integer": "UPDATE games SET visibility = 1 WHERE id = '{id}'",
    "games_status_null": "UPDATE games SET status = NULL WHERE id = '{id}'",
    "games_record_hash_blob": "UPDATE games SET record_hash = CAST(record_hash AS BLOB) WHERE id = '{id}'",
    "games_version_text": "UPDATE games SET version = 'six' WHERE id = '{id}'",
    "games_version_real": "UPDATE games SET version = 5.5 WHERE id = '{id}'",
    "games_stored_events_text": "UPDATE games SET stored_events = 'six' WHERE id = '{id}'",
    "idempotency_response_blob": "UPDATE idempotency SET response = CAST(response AS BLOB) WHERE game_id = '{id}'",
    "idempotency_status_text": "UPDATE idempotency SET status = 'ok' WHERE game_id = '{id}'",
    "idempotency_request_hash_blob": "UPDATE idempotency SET request_hash = CAST(request_hash AS BLOB) "
                                     "WHERE game_id = '{id}'",
}
#: Kinds that only a keyed retry meets (the stored answer of ``K1``).
KEYED = {"idempotency_response_blob", "idempotency_status_text", "idempotency_request_hash_blob"}


def _made(served: Served) -> tuple[str, str]:
    """A Toepen game of six events (event 6 a note keyed ``K1``), every route read."""
    game_id, token = served.new_game(title="Friday night")
    auth = {"Authorization": f"Bearer {token}"}
    url = f"{served.base}/games/{game_id}/events"
    for body in (DEAL, {"type": "play", "player": "Bob", "card": "7H"}, {"type": "note", "text": "fourth"},
                 {"type": "note", "text": "fifth"}):
        assert requests.post(url, json=body, headers=auth, timeout=30).status_code == 201
    assert served.note(game_id, token, "sixth", key="K1").status_code == 201
    for route in [*READS, *PAGES]:
        assert requests.get(served.base + route.format(id=game_id), headers=auth, timeout=30).status_code == 200
    return game_id, token


@pytest.fixture(scope="module")
def changed(tmp_path_factory) -> Iterator[tuple[str, Served, dict[str, tuple[str, str]], tuple[str, str]]]:
    folder = tmp_path_factory.mktemp("types")
    database = str(folder / "kibitz.db")
    with serve(database) as served:
        made = {kind: _made(served) for kind in KINDS}
        sound = _made(served)
        with lifted(database) as run:
            for kind, (game_id, _) in made.items():
                run(KINDS[kind].format(id=game_id))
        yield database, served, made, sound


def _answers(served: Served, game_id: str, token: str, kind: str) -> list[tuple[str, requests.Response]]:
    auth = {"Authorization": f"Bearer {token}"}
    out = []
    if kind in KEYED:
        out.append(("retry K1", served.note(game_id, token, "sixth", key="K1")))
        return out
    for route in [*READS, *PAGES]:
        for headers in ({}, auth):
            out.append((route, requests.get(served.base + route.format(id=game_id), headers=headers, timeout=30)))
    for route, body in WRITES:
        out.append((route, requests.post(served.base + route.format(id=game_id), json=body, headers=auth,
                                          timeout=30)))
    out.append(("retry K1", served.note(game_id, token, "sixth", key="K1")))
    return out


def _is_record_damaged(answer: requests.Response, game_id: str) -> bool:
    if answer.status_code != 503:
        return False
    if answer.headers["Content-Type"].startswith("application/problem+json"):
        problem = answer.json()
        return bool(problem["code"] == "record_damaged" and problem["game_id"] == game_id)
    return "kibitz check" in answer.text and f"game {game_id}" in answer.text


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_value_of_the_wrong_storage_type_is_record_damaged_on_every_route(changed, kind):
    database, served, made, (sound, sound_token) = changed
    game_id, token = made[kind]
    wrong = [(route, answer.status_code, answer.text[:200]) for route, answer in _answers(served, game_id, token, kind)
             if not _is_record_damaged(answer, game_id)]
    assert not wrong, wrong
    assert requests.get(f"{served.base}/games/{sound}/timeline", timeout=30).status_code == 200
    assert served.note(sound, sound_token, f"still fine after {kind}").status_code == 201


@pytest.mark.parametrize("kind", list(KINDS))
def test_after_a_restart_too(changed, kind):
    """A second server on the same database holds nothing in memory (as after a restart)."""
    database, _, made, (sound, _) = changed
    game_id, token = made[kind]
    with serve(database) as fresh:
        wrong = [(route, answer.status_code, answer.text[:200])
                 for route, answer in _answers(fresh, game_id, token, kind) if not _is_record_damaged(answer, game_id)]
        assert not wrong, wrong
        assert requests.get(f"{fresh.base}/games/{sound}/timeline", timeout=30).status_code == 200


def test_kibitz_check_names_every_changed_game(changed):
    database, _, made, (sound, _) = changed
    done = kibitz("check", "--db", database)
    assert done.returncode == 1, done.stdout + done.stderr
    missed = [kind for kind, (game_id, _) in made.items() if f"game {game_id}" not in done.stdout]
    assert not missed, (missed, done.stdout)
    assert sound not in done.stdout
