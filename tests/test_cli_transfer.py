"""``kibitz export`` and ``kibitz import`` with click's CliRunner, straight on a database: a SQLite
file, or a PostgreSQL schema (``database`` is parametrized: tests/conftest.py)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from service.cli.main import main
from service.storage import backend
from tests.conftest import EXAMPLES, needs_examples, play_scenario
from tests.test_transfer import comparable

pytestmark = needs_examples


@pytest.fixture
def other(database, tmp_path, request) -> str:
    """A second database of the same backend as ``database``: a file, or another schema."""
    if backend.is_postgres(database):
        return str(request.getfixturevalue("other_postgres_url"))
    return str(tmp_path / "other.db")


def test_export_one_game_in_every_format(client, database):
    game = play_scenario(client, next(p for p in EXAMPLES if p.stem == "toepen-open-hand"))
    runner = CliRunner()
    out = runner.invoke(main, ["export", game.id, "--db", database])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output)
    assert doc["view"] == "full" and doc == client.get(f"{game.url}/export", headers=game.auth).get_json()
    rows = list(csv.reader(io.StringIO(runner.invoke(main, ["export", game.id, "--format", "csv", "--db",
                                                            database]).output)))
    assert rows[0][:2] == ["hand", "dealer"] and len(rows) == 3
    text = runner.invoke(main, ["export", game.id, "--format", "text", "--db", database]).output
    assert text.startswith('[Game "toepen"]')
    missing = runner.invoke(main, ["export", "nope", "--db", database])
    assert missing.exit_code == 1 and "no game 'nope'" in missing.output
    assert runner.invoke(main, ["export", "--db", database]).exit_code == 2


def test_export_all_then_import_them_into_another_database(client, database, other, tmp_path):
    games = [play_scenario(client, path) for path in EXAMPLES]
    runner = CliRunner()
    out = runner.invoke(main, ["export", "--all", str(tmp_path / "night"), "--db", database])
    assert out.exit_code == 0, out.output
    assert f"Exported {len(games)} games" in out.output
    files = sorted((tmp_path / "night").glob("*.json"))
    assert {f.stem for f in files} == {g.id for g in games}
    loaded = runner.invoke(main, ["import", *map(str, files), "--db", other])
    assert loaded.exit_code == 0, loaded.output
    assert f"{len(files)} imported, 0 refused." in loaded.output
    assert "Importing" in loaded.output  # a progress bar for five files or more
    new_ids = [line.split()[3] for line in loaded.output.splitlines() if line.startswith("imported ")]
    for path, new_id in zip(files, new_ids, strict=True):
        again = json.loads(runner.invoke(main, ["export", new_id, "--db", other]).output)
        assert comparable(again) == comparable(json.loads(path.read_text()))


def test_import_summarises_what_was_refused_and_why(client, database, other, tmp_path):
    game = play_scenario(client, next(p for p in EXAMPLES if p.stem == "toepen-open-hand"))
    doc = client.get(f"{game.url}/export", headers=game.auth).get_json()
    good = tmp_path / "good.json"
    good.write_text(json.dumps(doc))
    doc["events"][3]["data"]["card"] = "TH"
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(doc))
    junk = tmp_path / "junk.json"
    junk.write_text("not json")
    out = CliRunner().invoke(main, ["import", str(good), str(tampered), str(junk), "--db", other])
    assert out.exit_code == 1
    assert "1 imported, 2 refused." in out.output
    assert "Importing" not in out.output  # no progress bar for a few files
    assert f"refused {tampered}: import_invalid at event 4 (card_not_available)" in out.output
    assert f"refused {junk}: not a JSON file" in out.output
    assert backend.is_postgres(other) or Path(other).exists()
