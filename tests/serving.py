"""A real ``kibitz serve`` in a subprocess: the one place the tests find the ``kibitz`` command,
wait for a started server's ``/health`` and stop it (the module-scoped server of
``tests/test_server.py``, ``tests/club_server.py``'s and the browser tests' servers all start
through here), and :func:`serving` for tests that need more than the one module-scoped server
(a second server to import into, raw sockets)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests

from tests.conftest import OPEN_DEAL, PLAYERS, free_port
from tests.lost_answers import LOST


def kibitz_command() -> list[str]:
    """The ``kibitz`` console script of this environment (beside its Python), else the one on
    ``PATH``, else ``python -m service.cli``."""
    script = Path(sys.executable).parent / "kibitz"
    if script.exists():
        return [str(script)]
    found = shutil.which("kibitz")
    return [found] if found else [sys.executable, "-m", "service.cli"]


def wait_until_up(base: str, proc: subprocess.Popen[str], log: Path, *, poll: float = 0.1) -> None:
    """Return once ``GET base/health`` answers 200. Fails the test with the server's ``log`` when
    ``proc`` ends first or 90 s pass (a loaded 2-core CI machine met more than 30 s); the caller
    stops the process."""
    deadline = time.monotonic() + 90
    while True:
        try:
            if requests.get(f"{base}/health", timeout=1).status_code == 200:
                return
        except LOST:  # not up yet, or too slow to answer under load
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"kibitz serve did not start: {log.read_text()}")
        time.sleep(poll)


def start(folder: Path, args: Sequence[str] = (), database: Path | str | None = None) -> tuple[subprocess.Popen[str], str]:
    """Start ``kibitz serve`` on a free port with the database ``folder/kibitz.db`` (or
    ``database``: a path or a ``postgresql://`` URL) and any further ``args``, its output in
    ``folder/server.log``; return the process and its base URL once ``/health`` answers (the
    caller stops it: :func:`stop`)."""
    port = free_port()
    log_path = folder / "server.log"
    with log_path.open("w") as log:
        proc = subprocess.Popen([*kibitz_command(), "serve", "--port", str(port), "--db", str(database or folder / "kibitz.db"),
                                 *args], stdout=log, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base, proc, log_path)
    except BaseException:
        stop(proc)
        raise
    return proc, base


def stop(proc: subprocess.Popen[str], *, grace: float = 10) -> None:
    """Stop a ``kibitz serve`` (SIGTERM, then SIGKILL after ``grace`` seconds) and reap it."""
    if proc.poll() is None:
        proc.terminate()
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextmanager
def serving(folder: Path, args: Sequence[str] = (), database: Path | str | None = None) -> Iterator[str]:
    """Start ``kibitz serve`` (:func:`start`); yield its base URL once ``/health`` answers;
    stop it afterwards."""
    proc, base = start(folder, args, database)
    try:
        yield base
    finally:
        stop(proc)


@contextmanager
def serving_process(folder: Path, args: Sequence[str] = (),
                    database: Path | str | None = None) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """:func:`serving`, yielding the base URL and the server's process."""
    proc, base = start(folder, args, database)
    try:
        yield base, proc
    finally:
        stop(proc)


def recorded(base: str, steps: Sequence[tuple[str, dict[str, object]]]) -> tuple[str, dict[str, str]]:
    """An open Toepen game for four on the real server at ``base``, dealt (``OPEN_DEAL``), then
    each ``(path, body)`` of ``steps`` posted to ``/games/<id>/<path>`` (each must answer 201):
    returns the game's URL and the token's ``Authorization`` header."""
    made = requests.post(f"{base}/games", json={"game": "toepen", "players": PLAYERS, "visibility": "open"},
                         timeout=30).json()
    url, auth = f"{base}/games/{made['id']}", {"Authorization": f"Bearer {made['token']}"}
    for path, body in [("events", OPEN_DEAL), *steps]:
        done = requests.post(f"{url}/{path}", json=body, headers=auth, timeout=30)
        assert done.status_code == 201, done.text
    return url, auth


def raw_exchange(port: int, request: bytes, timeout: float = 30) -> tuple[str, dict[str, str], bytes]:
    """Send ``request`` to ``kibitz serve`` on ``port`` as it is, over a raw socket, and read
    the whole answer (the server closes after it): ``(status line, headers lower-cased, body)``.
    Fails the test when no complete answer comes within ``timeout`` seconds (between two reads);
    a reset or a broken pipe propagates."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(request)
        received = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                pytest.fail(f"no complete answer within {timeout:.0f} s; got {received!r}")
            if not chunk:
                break
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    return status, headers, body
