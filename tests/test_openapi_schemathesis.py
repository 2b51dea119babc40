"""schemathesis against a real ``kibitz serve`` finds no failure (api.md, "Other").

A bounded run (``st run``: the examples, coverage and fuzzing phases, at most 10 cases per
operation and phase, one worker, a fixed seed) against a fresh server, with the token of a
Toepen game it holds as the ``Authorization`` of every request (the document's bearer
scheme ``gameToken``; the server has no club key, so ``clubKey`` operations take it too) and
that game's id as ``game_id``, so writes are exercised (recorded, refused by the rules, undone). The checks are
the ones api.md names; ``positive_data_acceptance`` is not one of them (a schema-valid move
can still break the rules, and its 409 is correct).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from tests.serving import serving

CHECKS = ("not_a_server_error", "status_code_conformance", "content_type_conformance",
          "response_headers_conformance", "response_schema_conformance", "negative_data_rejection")


def _st() -> list[str]:
    beside = Path(sys.executable).with_name("st")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("st")
    assert found, "schemathesis is not installed (pip install -e '.[test]')"
    return [found]


# About 40 s on an idle 2-core machine; the bound leaves room for a loaded one (CPU-bound: two
# busy cores beside it and another test make it several times slower).
@pytest.mark.timeout(600)
def test_schemathesis_finds_no_failure(tmp_path):
    with serving(tmp_path) as base:
        game = requests.post(f"{base}/games", json={"game": "toepen", "players": ["Ann", "Bob", "Cas", "Dee"]},
                             timeout=30).json()
        assert requests.post(f"{base}/games/{game['id']}/events", json={"type": "deal"},
                             headers={"Authorization": f"Bearer {game['token']}"}, timeout=30).status_code == 201
        config = tmp_path / "schemathesis.toml"
        config.write_text(f'[parameters]\ngame_id = "{game["id"]}"\n')
        run = subprocess.run(
            [*_st(), "--config-file", str(config), "run", f"{base}/openapi.json",
             "-H", f"Authorization: Bearer {game['token']}", "--checks", ",".join(CHECKS),
             "--phases", "examples,coverage,fuzzing", "--max-examples", "10", "--workers", "1", "--seed", "1",
             "--no-shrink", "--request-timeout", "10", "--max-failures", "20"],
            capture_output=True, text=True, timeout=560, cwd=tmp_path)
        assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
        assert " passed" in run.stdout and "generated" in run.stdout, run.stdout[-2000:]
