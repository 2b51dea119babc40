"""Helpers for the club-server tests (backups, checks, storage faults): a real ``kibitz serve``
in a subprocess with its own environment, the ``kibitz`` CLI, and plain ``sqlite3`` looks at
the database file from outside the server."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
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
