"""``kibitz serve --lan``: listens on every address and prints the LAN URLs and a QR code.

The test machines have no network beyond loopback, so the test checks what is printed (the
addresses psutil reports, the QR code segno draws of the first URL) and talks to the server
over loopback only, never to the printed addresses.
"""

from __future__ import annotations

import os
import subprocess
import time

import requests

from service.cli import lan
from tests.conftest import free_port
from tests.lost_answers import LOST
from tests.serving import kibitz_command


def _serve(tmp_path, *args: str) -> tuple[subprocess.Popen[str], list[str]]:
    proc = subprocess.Popen([*kibitz_command(), "serve", "--db", str(tmp_path / "k.db"), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert proc.stdout is not None
    lines = [proc.stdout.readline().rstrip("\n")]
    return proc, lines


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    proc.wait(timeout=10)
    if proc.stdout is not None:
        proc.stdout.close()


def test_lan_prints_every_lan_url_and_a_qr_code_of_the_first(tmp_path):
    port = free_port()
    proc, lines = _serve(tmp_path, "--lan", "--port", str(port))
    try:
        assert lines[0].startswith(f"Kibitz on http://0.0.0.0:{port} ")
        urls = lan.lan_urls(port)
        assert proc.stdout is not None
        if not urls:
            assert "No network address other than loopback" in proc.stdout.readline()
            return
        assert proc.stdout.readline().strip() == "Open on a tablet on the same network:"
        printed = [proc.stdout.readline().strip() for _ in urls]
        assert printed == urls
        for url in printed:
            assert url.startswith("http://") and url.endswith(f":{port}/")
            assert not url.startswith("http://127.")
        qr = lan.terminal_qr(urls[0]).splitlines()
        drawn = [proc.stdout.readline().rstrip("\n") for _ in qr]
        assert drawn == qr
        assert any("▀" in line or "▄" in line for line in drawn)
        # the same server answers on loopback too (0.0.0.0 includes it)
        deadline = time.monotonic() + 90  # as tests/serving.py: a loaded machine
        while True:
            try:
                health = requests.get(f"http://127.0.0.1:{port}/health", timeout=1)
                break
            except LOST:  # not up yet, or too slow to answer under load
                assert time.monotonic() < deadline
                time.sleep(0.1)
        assert health.json() == {"status": "ok"}
        # a share link asked for on this machine points at the LAN address a tablet can open
        game = requests.post(f"http://127.0.0.1:{port}/games", json={"game": "toepen", "players": ["A", "B", "C"]},
                             timeout=30).json()
        shared = requests.post(f"http://127.0.0.1:{port}/table/{game['id']}/share",
                               headers={"Authorization": f"Bearer {game['token']}"}, timeout=30).json()
        assert shared["link"] == f"{urls[0]}table/{game['id']}#token={game['token']}"
        assert shared["svg"].startswith("<svg")
    finally:
        _stop(proc)


def test_without_lan_it_stays_on_loopback(tmp_path):
    port = free_port()
    proc, lines = _serve(tmp_path, "--port", str(port))
    try:
        assert lines[0].startswith(f"Kibitz on http://127.0.0.1:{port} ")
    finally:
        _stop(proc)


def test_lan_addresses_leave_out_loopback_and_link_local():
    for address in lan.lan_addresses():
        assert not address.startswith(("127.", "169.254."))


def test_a_signal_at_once_after_start_stops_the_server_every_time(tmp_path):
    """SIGTERM sent the moment the first line is out (before or after the server's own loop
    catches signals) stops ``kibitz serve`` within seconds, every time: no window where it is
    noted and the server serves on regardless."""
    for attempt in range(5):
        port = free_port()
        proc, lines = _serve(tmp_path, "--port", str(port))
        assert lines[0].startswith(f"Kibitz on http://127.0.0.1:{port} "), attempt
        _stop(proc)
        assert proc.returncode is not None, attempt
