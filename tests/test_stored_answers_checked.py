"""The stored first answers of ``Idempotency-Key``s are checked against the log before a retry
is served (issue 27, "Stored data outside the chain"; docs/tamper-evidence.md), through a real
``kibitz serve`` over real HTTP, on SQLite (the file edited behind the running server) and on
PostgreSQL (the rows edited from a connection of the test's own; the ``idempotency`` table has
no trigger guarding it, so none is lifted):

* a retry of a write whose stored answer is untouched gets that answer, the same bytes as the
  first time (api.md: "the stored first response, status and body"), for a note, a played
  card, an undo and a correction;
* a stored answer forged (a note's text, the state, the seq and version, the status) makes
  the retry a 503 ``record_damaged`` naming the game and the event, never the forged answer,
  and ``kibitz check`` names each forged answer, and no sound one.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from service.storage import backend
from tests.club_server import Served, kibitz, serve
from tests.conftest import OPEN_DEAL

#: Each forgery: what it does to a stored answer (decoded JSON), and to its status.
FORGERIES = {
    "note_text": lambda answer: {**answer, "event": {**answer["event"], "data": {"text": "FORGED NOTE"}}},
    "note_hash": lambda answer: {**answer, "event": {**answer["event"], "hash": "f" * 64}},
    "state": lambda answer: {**answer, "state": {**answer["state"], "status": "finished"}},
    "seq": lambda answer: {**answer, "seq": answer["seq"] + 5, "version": answer["version"] + 5},
    "irregularities": lambda answer: {**answer, "irregularities": [{"type": "revoke", "player": "Ann"}]},
}


def _post(served: Served, path: str, body: Any, token: str, key: str | None = None) -> requests.Response:
    headers = {"Authorization": f"Bearer {token}"}
    if key is not None:
        headers["Idempotency-Key"] = key
    return requests.post(f"{served.base}{path}", json=body, headers=headers, timeout=60)


def _game(served: Served) -> tuple[str, str, list[tuple[str, Any, str, requests.Response]]]:
    """An open Toepen game with a deal, a note, a play, an undo and a correction, each sent
    with a key of its own: ``(id, token, [(path, body, key, first answer)])``."""
    game_id, token = served.new_game()
    writes: list[tuple[str, Any]] = [
        ("/events", OPEN_DEAL), ("/events", {"type": "note", "text": "tea break"}),
        ("/events", {"type": "play", "player": "Bob", "card": OPEN_DEAL["hands"]["Bob"][0]}),
        ("/undo", {}),
        ("/events", {"type": "play", "player": "Bob", "card": OPEN_DEAL["hands"]["Bob"][0]}),
        ("/correct", {"target": 6, "action": {"type": "play", "player": "Bob", "card": OPEN_DEAL["hands"]["Bob"][1]}}),
    ]
    done = []
    for path, body in writes:
        key = uuid.uuid4().hex
        answer = _post(served, f"/games/{game_id}{path}", body, token, key)
        assert answer.status_code == 201, (path, answer.text)
        done.append((path, body, key, answer))
    return game_id, token, done


def _run(database: str, sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    """One statement on a connection of the test's own (committed)."""
    if backend.is_postgres(database):
        import psycopg

        with psycopg.connect(database, autocommit=True) as pg:
            cursor = pg.execute(sql.replace("?", "%s"), params)
            return cursor.fetchall() if cursor.description else []
    import sqlite3

    conn = sqlite3.connect(database, isolation_level=None, timeout=30)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def _forge(database: str, game_id: str, key: str, forgery: str) -> None:
    (stored,), = _run(database, "SELECT response FROM idempotency WHERE game_id = ? AND key = ?", [game_id, key])
    forged = FORGERIES[forgery](json.loads(stored))
    _run(database, "UPDATE idempotency SET response = ? WHERE game_id = ? AND key = ?",
         [json.dumps(forged, separators=(",", ":")), game_id, key])


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def served(request, tmp_path_factory) -> Iterator[tuple[str, Served]]:
    folder = tmp_path_factory.mktemp(f"answers-{request.param}")
    schema = None
    if request.param == "postgresql":
        from tests.postgres import fresh_schema

        schema = fresh_schema()
        database = schema.__enter__()
    else:
        database = str(folder / "kibitz.db")
    try:
        with serve(database, log_dir=folder) as running:
            yield database, running
    finally:
        if schema is not None:
            schema.__exit__(None, None, None)


def test_a_retry_gets_the_first_answer_byte_for_byte(served):
    _database, running = served
    game_id, token, done = _game(running)
    for path, body, key, first in done:
        again = _post(running, f"/games/{game_id}{path}", body, token, key)
        assert (again.status_code, again.content) == (201, first.content), (path, again.text[:300])
    assert requests.get(f"{running.base}/games/{game_id}", timeout=30).json()["version"] == 7  # nothing new stored


@pytest.mark.parametrize("forgery", [*FORGERIES, "status"])
def test_a_forged_stored_answer_is_a_503_and_kibitz_check_names_it(served, forgery):
    database, running = served
    game_id, token, done = _game(running)
    forged = {"note_text": 1, "note_hash": 1, "state": 2, "seq": 1, "irregularities": 2, "status": 4}[forgery]
    path, body, key, first = done[forged]
    seq = first.json()["seq"]
    if forgery == "status":
        _run(database, "UPDATE idempotency SET status = 200 WHERE game_id = ? AND key = ?", [game_id, key])
    else:
        _forge(database, game_id, key, forgery)
    again = _post(running, f"/games/{game_id}{path}", body, token, key)
    assert again.status_code == 503, (forgery, again.status_code, again.text[:300])
    problem = again.json()
    assert (problem["code"], problem["game_id"], problem["seq"]) == ("record_damaged", game_id, seq), problem
    assert "kibitz check" in problem["detail"] and "FORGED" not in again.text
    # the other keys of the game still answer their first answers
    other_path, other_body, other_key, other_first = done[5 if forged != 5 else 4]
    assert _post(running, f"/games/{game_id}{other_path}", other_body, token, other_key).content == other_first.content
    found = kibitz("check", "--db", database)
    assert found.returncode == 1, found.stdout + found.stderr
    assert [line for line in found.stdout.splitlines() if game_id in line] == [
        f"game {game_id}, event {seq}: the stored answer to Idempotency-Key {key!r} is not the answer this event's "
        "write gave (rebuilt from the log): it was changed after it was stored"], found.stdout
    _run(database, "UPDATE idempotency SET response = ?, status = 201 WHERE game_id = ? AND key = ?",
         [first.text, game_id, key])  # mended: served again
    mended = _post(running, f"/games/{game_id}{path}", body, token, key)
    assert (mended.status_code, mended.content) == (201, first.content)


def test_a_stored_answer_for_a_key_no_event_was_stored_with_is_named(served):
    database, running = served
    game_id, token, done = _game(running)
    _path, _body, key, first = done[1]
    _run(database, "INSERT INTO idempotency (game_id, key, request_hash, status, response, created_at) "
                   "SELECT game_id, 'made-up-key', request_hash, status, response, created_at FROM idempotency "
                   "WHERE game_id = ? AND key = ?", [game_id, key])
    path, body, _key, _first = done[1]
    again = _post(running, f"/games/{game_id}{path}", body, token, "made-up-key")
    assert again.status_code == 503 and again.json()["code"] == "record_damaged", again.text[:300]
    found = kibitz("check", "--db", database)
    assert f"game {game_id}: the stored answer to Idempotency-Key 'made-up-key' names no event recorded with " \
           "that key" in found.stdout, found.stdout
    _run(database, "DELETE FROM idempotency WHERE game_id = ? AND key = 'made-up-key'", [game_id])
    assert first.status_code == 201
