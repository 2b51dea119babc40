"""A client generated from the OpenAPI document records a move with its own authenticated
client and no hand-written header (api.md, "Other"): ``openapi-python-client`` (pinned in the
test extras; it runs offline) writes a package from ``GET /openapi.json`` of a real ``kibitz
serve`` that has a club key into a temporary folder; the test imports it, creates a Toepen
game with an ``AuthenticatedClient`` holding the club key (the ``clubKey`` bearer scheme),
then deals and plays with one holding the game's token (``gameToken``), and reads the game
back through the generated client. The document has no ``Authorization`` header parameter.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from tests.serving import serving

CLUB_KEY = "generated-client-club-key"


def _generator() -> list[str]:
    beside = Path(sys.executable).with_name("openapi-python-client")
    assert beside.exists(), "openapi-python-client is not installed (pip install -e '.[test]')"
    return [str(beside)]


def _no_authorization_parameter(document: dict) -> None:
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            names = [p.get("name", "").lower() for p in operation.get("parameters", []) if p.get("in") == "header"]
            assert "authorization" not in names, (method, path)


@pytest.mark.timeout(480)  # the generator is CPU-bound: room for a loaded machine
def test_a_generated_client_records_a_move_with_its_authenticated_client(tmp_path, monkeypatch):
    monkeypatch.setenv("KIBITZ_CLUB_KEY", CLUB_KEY)
    with serving(tmp_path) as base:
        document = requests.get(f"{base}/openapi.json", timeout=30).json()
        _no_authorization_parameter(document)
        assert document["components"]["securitySchemes"]["gameToken"] == {
            **document["components"]["securitySchemes"]["gameToken"], "type": "http", "scheme": "bearer"}
        spec = tmp_path / "openapi.json"
        spec.write_text(json.dumps(document))
        env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
        run = subprocess.run([*_generator(), "generate", "--path", str(spec), "--meta", "none",
                              "--output-path", str(tmp_path / "kibitz_client")],
                             capture_output=True, text=True, timeout=400, cwd=tmp_path, env=env)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        monkeypatch.syspath_prepend(str(tmp_path))
        client_module = importlib.import_module("kibitz_client")
        api = importlib.import_module("kibitz_client.api.default")
        models = importlib.import_module("kibitz_client.models")
        post_games = importlib.import_module("kibitz_client.api.default.post_games")
        post_events = importlib.import_module("kibitz_client.api.default.post_games_game_id_events")
        get_game = importlib.import_module("kibitz_client.api.default.get_games_game_id")
        assert api is not None

        with client_module.AuthenticatedClient(base_url=base, token=CLUB_KEY) as club:
            created = post_games.sync_detailed(client=club, body=models.CreateGameToepen(
                game=models.CreateGameToepenGame.TOEPEN, players=["Ann", "Bob", "Cas", "Dee"]))
        assert created.status_code == 201, created.content
        game_id, token = created.parsed.id, created.parsed.token

        with client_module.AuthenticatedClient(base_url=base, token=token) as table:
            dealt = post_events.sync_detailed(game_id, client=table,
                                              body=models.ToepenDeal(type_=models.ToepenDealType.DEAL))
            assert dealt.status_code == 201, dealt.content
            played = post_events.sync_detailed(game_id, client=table, body=models.ToepenPlay(
                type_=models.ToepenPlayType.PLAY, player="Bob", card="TH"))
            assert played.status_code == 201, played.content
            assert played.parsed.seq == 3
            read = get_game.sync_detailed(game_id, client=table)
            assert read.status_code == 200 and read.parsed.version == 3

        # the same kind of move from the generated plain Client (no token) is refused: the
        # header above was the authenticated client's own
        with client_module.Client(base_url=base) as anonymous:
            refused = post_events.sync_detailed(game_id, client=anonymous, body=models.ToepenPlay(
                type_=models.ToepenPlayType.PLAY, player="Cas", card="9H"))
        assert refused.status_code == 401
