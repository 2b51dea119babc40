"""Another program holds the SQLite write lock while writes come to a real ``kibitz serve``:
each write answers within the busy timeout of its arrival (docs/club-server.md, "the database
locked by another program for more than 10 s": 503 storage_unavailable, Retry-After 1), not one
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
        answers: list[tuple[float, int, str | None, str | None]] = []
        lock = threading.Lock()

        def write(i: int) -> None:
            game_id, auth = games[i % len(games)]
            started = time.monotonic()
            got = requests.post(f"{base}/games/{game_id}/events", json={"type": "note", "text": f"w{i}"},
                                headers={**auth, "Idempotency-Key": uuid.uuid4().hex}, timeout=HOLD + 30)
            with lock:
                answers.append((time.monotonic() - started, got.status_code, got.json().get("code"),
                                got.headers.get("Retry-After")))

        try:
            writers = [threading.Thread(target=write, args=(i,)) for i in range(WRITES)]
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
        assert len(answers) == WRITES
        assert all((status, code, retry) == (503, "storage_unavailable", "1") and took < limit
                   for took, status, code, retry in answers), sorted(answers)
        for game_id, auth in games:  # the lock released: writes are taken again, none of the refused ones stored
            after = requests.post(f"{base}/games/{game_id}/events", json={"type": "note", "text": "after"},
                                  headers=auth, timeout=30)
            assert after.status_code == 201, after.text
            notes = [e for e in requests.get(f"{base}/games/{game_id}/events", headers=auth, timeout=30).json()["events"]
                     if e["type"] == "note"]
            assert [e["data"]["text"] for e in notes] == ["after"], notes
