"""Another program holds the SQLite write lock while writes come to a real ``kibitz serve``:
each write answers within the busy timeout of its arrival, a move of the direct route and a
new game alike (docs/club-server.md, "When the storage fails": the database locked by another
program for more than 10 s is a 503 storage_unavailable, Retry-After 1), not one
busy timeout after another as the queued writes' turns come (breaker finding 4), and the
writes are 201 again once the lock is released."""

from __future__ import annotations

import sqlite3
import threading
import time
import uuid
from pathlib import Path

import requests

from service.storage import sqlite
from tests.serving import serving

WRITES = 8
#: New games sent meanwhile: writes of the Flask app, each in a thread of the scorekeeper's pool
#: (four, one of them draining the moves: a request that finds none free waits for one, before
#: the writer sees it, and that wait is not bounded here).
CREATIONS = 3
#: The longest the other program holds the lock (the test lets it go once every write answered).
HOLD = 25.0
#: What an answer may take beyond the busy timeout on a loaded machine.
ROOM = 4.0


def test_writes_queued_behind_a_lock_held_by_another_program_each_answer_within_the_busy_timeout(tmp_path: Path) -> None:
    with serving(tmp_path) as base:
        games = []
        for _ in range(4):
            made = requests.post(f"{base}/games", json={"game": "toepen", "players": ["a", "b", "c", "d"]},
                                 timeout=30)
            assert made.status_code == 201, made.text
            games.append((made.json()["id"], {"Authorization": f"Bearer {made.json()['token']}"}))
        holder = sqlite3.connect(tmp_path / "kibitz.db", isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        answers: list[tuple[int, float, int, str | None, str | None]] = []
        lock = threading.Lock()

        def write(i: int) -> None:
            game_id, auth = games[i % len(games)]
            started = time.monotonic()
            if i >= WRITES:  # a new game: a write of the Flask app, in a thread of its own
                got = requests.post(f"{base}/games", json={"game": "toepen", "players": ["a", "b", "c", "d"]},
                                    timeout=HOLD + 30)
            else:  # a move: the direct route, queued for the thread that drains them
                got = requests.post(f"{base}/games/{game_id}/events", json={"type": "note", "text": f"w{i}"},
                                    headers={**auth, "Idempotency-Key": uuid.uuid4().hex}, timeout=HOLD + 30)
            with lock:
                answers.append((i, time.monotonic() - started, got.status_code, got.json().get("code"),
                                got.headers.get("Retry-After")))

        try:
            writers = [threading.Thread(target=write, args=(i,)) for i in range(WRITES + CREATIONS)]
            for each in writers:
                each.start()
            until = time.monotonic() + HOLD
            for each in writers:
                each.join(max(0.0, until - time.monotonic()))
        finally:
            holder.rollback()
            holder.close()
        for each in writers:
            each.join(60)
        limit = sqlite.BUSY_TIMEOUT_MS / 1000 + ROOM
        assert len(answers) == WRITES + CREATIONS
        wrong = [(i, round(took, 2), status, code, retry) for i, took, status, code, retry in answers
                 if (status, code, retry) != (503, "storage_unavailable", "1") or took >= limit]
        assert not wrong, (wrong, sorted(round(took, 2) for _, took, *_ in answers))
        for game_id, auth in games:  # the lock released: writes are taken again, none of the refused ones stored
            after = requests.post(f"{base}/games/{game_id}/events", json={"type": "note", "text": "after"},
                                  headers=auth, timeout=30)
            assert after.status_code == 201, after.text
            notes = [e for e in requests.get(f"{base}/games/{game_id}/events", headers=auth, timeout=30).json()["events"]
                     if e["type"] == "note"]
            assert [e["data"]["text"] for e in notes] == ["after"], notes


def test_a_write_that_waited_for_its_turn_waits_for_the_lock_only_until_its_own_deadline(tmp_path: Path) -> None:
    """A new game (the Flask app's write) sent 3 s after a move, while the lock is held: the
    move's transaction waits for the lock first, and the new game's turn comes when it gave up
    (10 s); the new game then waits for the lock only until 10 s after its own arrival, not
    10 s more (17 s in all)."""
    with serving(tmp_path) as base:
        made = requests.post(f"{base}/games", json={"game": "toepen", "players": ["a", "b", "c", "d"]}, timeout=30)
        assert made.status_code == 201, made.text
        game_id, auth = made.json()["id"], {"Authorization": f"Bearer {made.json()['token']}"}
        holder = sqlite3.connect(tmp_path / "kibitz.db", isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        answers: dict[str, tuple[float, int, str | None]] = {}

        def send(name: str, url: str, body: dict[str, object], headers: dict[str, str]) -> None:
            started = time.monotonic()
            got = requests.post(url, json=body, headers=headers, timeout=HOLD + 30)
            answers[name] = (time.monotonic() - started, got.status_code, got.json().get("code"))

        move = threading.Thread(target=send, args=("move", f"{base}/games/{game_id}/events",
                                                   {"type": "note", "text": "m"}, auth))
        new = threading.Thread(target=send, args=("new game", f"{base}/games",
                                                  {"game": "toepen", "players": ["a", "b", "c", "d"]}, {}))
        try:
            move.start()
            time.sleep(3)
            new.start()
            until = time.monotonic() + HOLD
            for each in (move, new):
                each.join(max(0.0, until - time.monotonic()))
        finally:
            holder.rollback()
            holder.close()
        for each in (move, new):
            each.join(60)
        limit = sqlite.BUSY_TIMEOUT_MS / 1000 + ROOM
        assert set(answers) == {"move", "new game"}
        assert all(status == 503 and code == "storage_unavailable" and took < limit
                   for took, status, code in answers.values()), answers
        assert requests.post(f"{base}/games", json={"game": "toepen", "players": ["a", "b", "c", "d"]},
                             timeout=30).status_code == 201
