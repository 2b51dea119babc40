"""Game ids are letters and digits only: never read as a command-line option, never quoted."""

from __future__ import annotations

import re

from click.testing import CliRunner

from service.cli.main import main
from service.http import new_game_id
from tests.conftest import create

ID = re.compile(r"[A-Za-z0-9]{16}")


def test_new_ids_are_letters_and_digits() -> None:
    ids = {new_game_id() for _ in range(5000)}
    assert len(ids) == 5000
    assert all(ID.fullmatch(game_id) for game_id in ids)


def test_created_forked_and_imported_games_get_such_ids(client, other_client, other_db_path) -> None:
    game = create(client)
    assert ID.fullmatch(game.id)
    fork = client.post(f"/games/{game.id}/fork", json={"seq": 1}, headers={"Authorization": f"Bearer {game.token}"})
    assert fork.status_code == 201 and ID.fullmatch(fork.get_json()["id"])
    exported = client.get(f"/games/{game.id}/export", headers={"Authorization": f"Bearer {game.token}"}).get_json()
    imported = other_client.post("/games/import", json=exported)  # another server: the original is here
    assert imported.status_code == 201 and ID.fullmatch(imported.get_json()["id"])
    out = CliRunner().invoke(main, ["export", imported.get_json()["id"], "--db", str(other_db_path)])
    assert out.exit_code == 0, out.output
