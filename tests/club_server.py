"""Helpers for the club-server tests (backups, checks, storage faults): a real ``kibitz serve``
in a subprocess with its own environment, the ``kibitz`` CLI, and plain ``sqlite3`` looks at
the database file from outside the server."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from tests.conftest import free_port
from tests.serving import kibitz_command, stop, wait_until_up

PLAYERS = ["Ann", "Bob", "Cas", "Dee"]


@dataclass
class Served:
    """A running ``kibitz serve``: its base URL, process and log file."""

    base: str
    proc: subprocess.Popen[str]
    log: Path

    def new_game(self, **body: object) -> tuple[str, str]:
        """Create an open Toepen game for four; return ``(id, token)``."""
        response = requests.post(f"{self.base}/games", json={"game": "toepen", "players": PLAYERS,
                                                             "visibility": "open", **body}, timeout=30)
        assert response.status_code == 201, response.text
        created = response.json()
        return created["id"], created["token"]

    def note(self, game_id: str, token: str, text: str, key: str | None = None) -> requests.Response:
        """POST a ``note`` event (any number of them is legal at any time)."""
        headers = {"Authorization": f"Bearer {token}"}
        if key is not None:
            headers["Idempotency-Key"] = key
        return requests.post(f"{self.base}/games/{game_id}/events", json={"type": "note", "text": text},
                             headers=headers, timeout=60)


class Burst:
    """One thread per game noting into it (:meth:`Served.note`, a fresh key each time) until
    :func:`burst`'s block ends: four tablets recording at once, while the test does something
    else to the database (a backup). ``acknowledged`` holds each game's acknowledged seqs,
    ``failures`` the body of any answer that was not 201 (its thread stops there)."""

    def __init__(self, served: Served, games: Sequence[tuple[str, str]]) -> None:
        self.acknowledged: dict[str, list[int]] = {game_id: [] for game_id, _ in games}
        self.failures: list[str] = []
        self.stopped = threading.Event()
        self.threads = [threading.Thread(target=self._record, args=(served, *game)) for game in games]

    def _record(self, served: Served, game_id: str, token: str) -> None:
        while not self.stopped.is_set():
            response = served.note(game_id, token, "burst", str(uuid.uuid4()))
            if response.status_code != 201:
                self.failures.append(response.text)
                return
            self.acknowledged[game_id].append(response.json()["seq"])

    def count(self) -> int:
        """How many notes have been acknowledged so far, in every game."""
        return sum(len(seqs) for seqs in self.acknowledged.values())

    def wait_for(self, count: int, within: float = 120) -> dict[str, list[int]]:
        """Wait until ``count`` notes are acknowledged (failing the test on a refusal or after
        ``within`` seconds: a few seconds on a quiet machine); return each game's seqs then."""
        deadline = time.monotonic() + within
        while self.count() < count:
            assert not self.failures and time.monotonic() < deadline, (
                self.failures, f"{count} writes not acknowledged in {within:.0f} s")
            time.sleep(0.05)
        return {game_id: list(seqs) for game_id, seqs in self.acknowledged.items()}


@contextmanager
def burst(served: Served, games: int = 4) -> Iterator[Burst]:
    """Start a :class:`Burst` into ``games`` new games of ``served``; stop its threads and wait
    for them when the block ends."""
    noting = Burst(served, [served.new_game() for _ in range(games)])
    for thread in noting.threads:
        thread.start()
    try:
        yield noting
    finally:
        noting.stopped.set()
        for thread in noting.threads:
            thread.join()


def kibitz(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the ``kibitz`` CLI; return the finished process (never raises on a failure)."""
    return subprocess.run([*kibitz_command(), *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


def unprivileged() -> list[str]:
    """A command prefix that runs a program without the powers that let root ignore file
    permissions (``setpriv`` dropping every capability), or ``[]`` when not root. Skips the
    test when root cannot drop them here."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: cannot run a server that file permissions bind")
    prefix = [setpriv, "--bounding-set", "-all", "--inh-caps", "-all", "--"]
    probe = subprocess.run([*prefix, "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"setpriv cannot drop capabilities here: {probe.stderr.strip()}")
    return prefix


@contextmanager
def serve(db: Path | str, *, env: dict[str, str] | None = None, prefix: Sequence[str] = (),
          args: Sequence[str] = (), log_dir: Path | None = None) -> Iterator[Served]:
    """Start ``kibitz serve --db db`` on a free port (``env`` added to the environment,
    ``prefix`` before the command, ``args`` after it); yield once ``/health`` answers; stop it
    (SIGTERM) after. Its log goes beside the database file, or into ``log_dir`` (for a
    ``postgresql://`` URL)."""
    port = free_port()
    log = (log_dir or Path(db).parent) / f"server-{port}.log"
    with log.open("w") as out:
        proc = subprocess.Popen([*prefix, *kibitz_command(), "serve", "--port", str(port), "--db", str(db), *args],
                                stdout=out, stderr=subprocess.STDOUT, text=True, env={**os.environ, **(env or {})})
        served = Served(f"http://127.0.0.1:{port}", proc, log)
        try:
            wait_until_up(served.base, proc, log)
            yield served
        finally:
            stop(proc, grace=15)


def outside(db: Path, sql: str, params: Sequence[object] = ()) -> list[tuple[object, ...]]:
    """Run ``sql`` on ``db`` from a connection of the test's own (not the server's)."""
    conn = sqlite3.connect(db, timeout=30)
    try:
        rows = conn.execute(sql, params).fetchall()
        conn.commit()
        return rows
    finally:
        conn.close()
