"""``kibitz check`` rebuilds every game from its log (the rules ``game_created`` names), not
from the ``games`` row: a row that disagrees with ``game_created`` (game, players, options,
visibility) is named, and a damaged event is named by its own seq. On SQLite and on PostgreSQL,
in the same words."""

from __future__ import annotations

import pytest

from tests.club_server import kibitz
from tests.test_check_database import json_set, make_database, tamper


@pytest.fixture
def stored(database):
    """Two games on SQLite or PostgreSQL (``database`` is parametrized: tests/conftest.py)."""
    return database, make_database(database, games=2, notes=2)


def _problems(path) -> list[str]:
    done = kibitz("check", "--db", str(path))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    return done.stdout.splitlines()


def test_a_game_created_naming_another_game_is_named(stored):
    path, (game_id, sound) = stored
    tamper(path, f"UPDATE events SET data = {json_set(path, 'data', 'game', 'chess')} "
                 f"WHERE game_id = '{game_id}' AND seq = 1")
    assert _problems(path) == [f"game {game_id}, event 1: game_created names an unknown game 'chess': "
                               "the log cannot be rebuilt",
                               f"game {game_id}, event 1: its hash does not match the record's hash chain: this "
                               "event was changed, or one before it deleted, after it was recorded"]


def test_a_games_row_that_disagrees_with_game_created_is_named(stored):
    path, (game_id, sound) = stored
    tamper(path, f"UPDATE games SET game = 'fool', visibility = 'hidden' WHERE id = '{game_id}'",
           f"UPDATE games SET players = '[\"Ann\",\"Bob\",\"Cas\",\"Zed\"]', options = '{{}}' WHERE id = '{sound}'")
    problems = _problems(path)
    assert f"game {game_id}: games.game is 'fool' but the log's game_created says 'toepen'" in problems
    assert f"game {game_id}: games.visibility is 'hidden' but the log's game_created says 'open'" in problems
    assert (f"game {sound}: games.players is ['Ann', 'Bob', 'Cas', 'Zed'] but the log's game_created says "
            "['Ann', 'Bob', 'Cas', 'Dee']") in problems
    assert any(line.startswith(f"game {sound}: games.options is {{}} but the log's game_created says {{")
               for line in problems)
    assert len(problems) == 4, problems


def test_games_players_that_is_not_json_is_named(stored):
    path, (game_id, _) = stored
    tamper(path, f"UPDATE games SET players = 'nope' WHERE id = '{game_id}'")
    [line] = _problems(path)
    assert line.startswith(f"game {game_id}: games.players cannot be read: it is not JSON ")


@pytest.mark.parametrize("data, why", [
    ("'{not json'", "its data cannot be read: it is not JSON "),
    ("'[1,2]'", "its data is a JSON list, not an object"),
])
def test_a_damaged_event_is_named_by_its_own_seq(stored, data, why):
    path, (game_id, _) = stored
    tamper(path, f"UPDATE events SET data = {data} WHERE game_id = '{game_id}' AND seq = 3")
    line, *chained = _problems(path)
    assert line.startswith(f"game {game_id}, event 3: {why}"), line
    # data that still decodes is hashed again, and its hash no longer matches; unreadable data stops the chain
    assert chained == ([f"game {game_id}, event 3: its hash does not match the record's hash chain: this event "
                        "was changed, or one before it deleted, after it was recorded"] if "list" in why else [])


def test_event_data_that_is_not_utf8_is_named_by_its_own_seq(tmp_path):
    """SQLite's alone: PostgreSQL stores only valid UTF-8 text."""
    path = tmp_path / "kibitz.db"
    game_id, _ = make_database(path, games=2, notes=2)
    tamper(path, f"UPDATE events SET data = CAST(x'00ff' AS TEXT) WHERE game_id = '{game_id}' AND seq = 3")
    assert _problems(path) == [f"game {game_id}, event 3: its data cannot be read: it is not UTF-8 text "
                               "(invalid start byte at byte 1)"]
