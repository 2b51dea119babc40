"""A game whose write lock another connection holds delays and fails only its own writes
(docs/league.md, "What works now"): through a real ``kibitz serve`` on PostgreSQL,
writes to other games and new games answer at once while it is held; its own write is a
``busy`` 503 after the lock timeout, the next one waits its turn and is stored once the lock
is free, in order, with nothing lost or duplicated."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import psycopg
import requests

from service.storage import postgres
from tests.conftest import PLAYERS
from tests.postgres import postgres_url  # noqa: F401  (the fixture)
from tests.serving import serving


def _new_game(base: str) -> tuple[str, dict[str, str]]:
    answer = requests.post(f"{base}/games", json={"game": "toepen", "players": PLAYERS, "visibility": "open"},
                           timeout=10)
    assert answer.status_code == 201, answer.text
    return answer.json()["id"], {"Authorization": f"Bearer {answer.json()['token']}"}


def _note(base: str, game: str, auth: dict[str, str], text: str) -> requests.Response:
    return requests.post(f"{base}/games/{game}/events", json={"type": "note", "text": text}, headers=auth, timeout=30)


def test_a_held_game_neither_delays_nor_fails_writes_to_other_games(tmp_path: Path, postgres_url: str) -> None:  # noqa: F811
    with serving(tmp_path, database=postgres_url) as base:
        held, held_auth = _new_game(base)
        free, free_auth = _new_game(base)
        holder = psycopg.connect(postgres_url, autocommit=True)
        holder.execute("BEGIN")
        holder.execute("SELECT pg_advisory_xact_lock(%s, %s)", (postgres.GAME_LOCK, postgres.game_lock_key(held)))
        answers: dict[str, tuple[float, requests.Response]] = {}

        def send(text: str) -> None:
            started = time.monotonic()
            answer = _note(base, held, held_auth, text)
            answers[text] = (time.monotonic() - started, answer)

        first = threading.Thread(target=send, args=("first",))
        first.start()
        time.sleep(0.5)  # the first write to the held game is waiting for its lock
        second = threading.Thread(target=send, args=("second",))
        second.start()
        time.sleep(0.3)
        timings: list[float] = []
        for n in range(5):  # writes to a free game and new games answer at once, again and again
            started = time.monotonic()
            stored = _note(base, free, free_auth, f"free {n}")
            assert stored.status_code == 201, stored.text
            _new_game(base)
            timings.append(time.monotonic() - started)
        assert max(timings) < 1.0, timings
        first.join(30)
        took, refused = answers["first"]
        assert refused.status_code == 503 and refused.json()["code"] == "storage_unavailable", refused.text
        assert refused.headers["Retry-After"] == "1"
        # The lock timeout (10 s), not the client's 30 s: the upper bound leaves room for a
        # loaded machine (a CI run beside another measured 15.4 s) but not for a hang.
        assert 9.0 < took < 22.0, took
        first_took = took
        time.sleep(1.0)  # the second write is waiting now; the holder lets go before its timeout
        holder.execute("ROLLBACK")
        holder.close()
        second.join(30)
        took, stored = answers["second"]
        assert stored.status_code == 201 and stored.json()["seq"] == 2, stored.text
        # It waited for the first one's answer, then for the holder (1 s), not for a timeout of its own.
        assert took < first_took + 1.0 + 8.0, took
        third = _note(base, held, held_auth, "third")  # and the game goes on as before
        assert third.status_code == 201 and third.json()["seq"] == 3, third.text

    db = postgres.connect(postgres_url)
    try:
        texts: dict[str, list[tuple[int, Any]]] = {
            game: [(event["seq"], event["data"].get("text")) for event in postgres.events(db, game)]
            for game in (held, free)}
    finally:
        db.close()
    assert texts[held] == [(1, None), (2, "second"), (3, "third")]  # no gap, no duplicate, nothing of the 503
    assert texts[free] == [(1, None)] + [(n + 2, f"free {n}") for n in range(5)]
