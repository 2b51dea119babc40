"""The real server: `kibitz serve` in a subprocess, driven over HTTP.

Runs every shared scenario file (``../shared/examples/*.json``, the Toepen ones included)
whose game is registered, with ``../shared/tools/scenarios.py``; skipped when ``../shared``
is not beside the repository.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import requests

import engine
from tests.serving import serving

SHARED = Path(__file__).resolve().parents[2] / "shared"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("server")
    db = folder / "kibitz.db"
    with serving(folder, database=db) as base:
        assert db.exists()
        yield base


def _scenarios() -> list[Path]:
    return sorted((SHARED / "examples").glob("*.json")) if SHARED.is_dir() else []


def test_shared_examples_are_there():
    if not SHARED.is_dir():
        pytest.skip(f"no shared scenarios: {SHARED} is absent (expected ../shared beside the repository)")
    assert any(path.name.startswith("toepen-") for path in _scenarios())


@pytest.mark.parametrize("path", _scenarios(), ids=lambda path: path.stem)
def test_scenario_passes_against_the_real_server(server, path):
    game = json.loads(path.read_text())["create"]["game"]
    if game not in engine.GAMES:
        pytest.skip(f"{game} is not registered in engine.GAMES")
    result = subprocess.run([sys.executable, str(SHARED / "tools" / "scenarios.py"), "--base", server, str(path)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed, 0 failed" in result.stdout


def test_real_server_if_match_race(server):
    created = requests.post(f"{server}/games", json={"game": "toepen", "players": ["Ann", "Bob", "Cas"]},
                            timeout=30).json()
    url = f"{server}/games/{created['id']}/events"
    headers = {"Authorization": f"Bearer {created['token']}", "If-Match": '"1"'}
    barrier, statuses = threading.Barrier(2), []

    def post(text):
        barrier.wait()
        statuses.append(requests.post(url, json={"type": "note", "text": text}, headers=headers, timeout=30).status_code)

    threads = [threading.Thread(target=post, args=(text,)) for text in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [201, 412]
    log = requests.get(url, timeout=30).json()
    assert [e["seq"] for e in log["events"]] == [1, 2]


def test_real_server_problem_bodies(server):
    response = requests.post(f"{server}/games", data="x" * (1024 * 1024 + 10),
                             headers={"Content-Type": "application/json"}, timeout=30)
    assert response.status_code == 413
    assert response.headers["Content-Type"].startswith("application/problem+json")
    assert response.json()["code"] == "payload_too_large"
    assert requests.get(f"{server}/nope", timeout=30).json()["code"] == "not_found"
