"""The match histories (``player_results``) forged behind a running ``kibitz serve``, column
by column, and the count that lets a server skip reading them again (``results_seal``,
migration ``0011_results_seal``), on SQLite and on PostgreSQL (docs/tamper-evidence.md,
"What is derived from a game, beyond its own routes").

- Every column of ``player_results`` forged on its own, with plain SQL, after the server
  compared every row with the logs (so it answers from that check): the club table and the
  histories answer 503 ``record_damaged`` naming the game, and ``kibitz check`` names the
  row; put back, they answer 200 again.
- ``results_seal`` only counts up: setting it back, deleting or replacing a row of it, or
  truncating either table, is refused.
- A forger who lifts the triggers that count (and puts them back) changes the database's
  guard: the histories are checked again, and the forged row found.
- ``kibitz check`` names a counting trigger that is missing or (PostgreSQL) not ``ALWAYS``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from service.storage import backend, history, postgres
from service.storage import sqlite as sqlite_store
from tests.club_server import Served, kibitz, serve
from tests.postgres import empty_database

LOSERS = ["Rita", "Rex", "Roy"]
SOUND = ["Vic", "Val", "Vin", "Viv"]
#: Each column of ``player_results`` and what it is forged to (SQL, on the row of Roy's game at seat 3).
FORGED = {"game_id": "{sound}", "player_key": "'zzz'", "name": "'Zed'", "seat": "9", "game": "'fool'",
          "created_at": "'2020-01-01T00:00:00.000Z'", "status": "'abandoned'",
          "result": "CASE result WHEN 'lost' THEN 'won' ELSE 'lost' END", "score": "coalesce(score, 0) + 1",
          "unit": "'x'", **{counter: f"coalesce({counter}, 0) + 1" for counter in history.COUNTERS}}


def _run(database: str, *statements: str) -> list[Any]:
    """Run ``statements`` on a connection of the test's own (autocommit); the rows of the last."""
    rows: list[Any] = []
    if backend.is_postgres(database):
        import psycopg

        with psycopg.connect(database, autocommit=True) as conn:
            for sql in statements:
                cursor = conn.execute(sql)  # type: ignore[arg-type]
                rows = cursor.fetchall() if cursor.description else []
        return rows
    conn = sqlite3.connect(database, isolation_level=None, timeout=30)
    try:
        for sql in statements:
            rows = conn.execute(sql).fetchall()
    finally:
        conn.close()
    return rows


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def club(request, tmp_path_factory) -> Iterator[tuple[str, Served, str, str]]:
    """A running server per backend with a finished game (Roy lost) and a sound game in
    progress; ``(database, served, game, sound)``."""
    folder = tmp_path_factory.mktemp(f"seal-{request.param}")
    with empty_database(request.param, folder) as database, serve(database, log_dir=folder) as served:
        game, token = served.new_game(players=LOSERS, options={"limit": 2})
        answer = requests.post(f"{served.base}/games/{game}/events", timeout=30,
                               json={"type": "adjust", "player": "Roy", "amount": 2, "reason": "left"},
                               headers={"Authorization": f"Bearer {token}"})
        assert answer.status_code == 201, answer.text
        sound, _ = served.new_game(players=SOUND)
        yield database, served, game, sound


def _answers(served: Served) -> None:
    for route in ("/players", "/club", "/players/Roy"):
        answer = requests.get(served.base + route, timeout=30)
        assert answer.status_code == 200, (route, answer.text[:300])


def _refused(served: Served, games: set[str]) -> None:
    for route in ("/players", "/club", "/people"):
        answer = requests.get(served.base + route, timeout=30)
        assert answer.status_code == 503, (route, answer.text[:300])
        if route == "/players":
            problem = answer.json()
            assert problem["code"] == "record_damaged" and problem["game_id"] in games, problem
        else:
            assert "kibitz check" in answer.text and any(f"game {g}" in answer.text for g in games), answer.text


@pytest.mark.parametrize("column", list(FORGED))
def test_every_column_of_player_results_forged_is_found(club, column):
    database, served, game, sound = club
    _answers(served)  # every row compared with the logs: the next histories answer from that check
    before = _run(database, "SELECT * FROM player_results ORDER BY game_id, player_key")
    value = FORGED[column].format(sound=f"'{sound}'")
    _run(database, f"UPDATE player_results SET {column} = {value} WHERE game_id = '{game}' AND seat = 3")
    try:
        _refused(served, {game, sound})
        done = kibitz("check", "--db", database)
        assert done.returncode == 1, done.stdout + done.stderr
        assert any(line.startswith((f"game {game}: player_results", f"game {sound}: player_results"))
                   for line in done.stdout.splitlines()), done.stdout
    finally:  # put back as it was: the histories answer again
        marks = ", ".join(["%s" if backend.is_postgres(database) else "?"] * len(before[0]))
        if backend.is_postgres(database):
            import psycopg

            with psycopg.connect(database, autocommit=True) as conn, conn.transaction():
                conn.execute("DELETE FROM player_results")
                conn.cursor().executemany(f"INSERT INTO player_results VALUES ({marks})", before)
        else:
            conn = sqlite3.connect(database, isolation_level=None, timeout=30)
            try:
                conn.execute("BEGIN IMMEDIATE")
                conn.execute("DELETE FROM player_results")
                conn.executemany(f"INSERT INTO player_results VALUES ({marks})", before)
                conn.execute("COMMIT")
            finally:
                conn.close()
    _answers(served)
    assert kibitz("check", "--db", database).returncode == 0


def test_the_results_seal_cannot_be_set_back(club):
    database, _, game, _ = club
    refusals = [f"UPDATE results_seal SET n = n - 1 WHERE game_id = '{game}'",
                f"UPDATE results_seal SET n = n + 2 WHERE game_id = '{game}'",
                f"DELETE FROM results_seal WHERE game_id = '{game}'",
                "INSERT INTO results_seal (game_id, n) VALUES ('new', 5)"]
    if backend.is_postgres(database):
        import psycopg

        refusals += ["TRUNCATE results_seal", "TRUNCATE player_results",
                     f"INSERT INTO results_seal (game_id, n) VALUES ('{game}', 0) ON CONFLICT (game_id) "
                     "DO UPDATE SET n = 0"]
        errors: tuple[type[Exception], ...] = (psycopg.errors.RestrictViolation,)
    else:
        refusals += [f"INSERT OR REPLACE INTO results_seal (game_id, n) VALUES ('{game}', 0)",
                     f"REPLACE INTO results_seal (game_id, n) VALUES ('{game}', 0)"]
        errors = (sqlite3.IntegrityError,)
    before = _run(database, "SELECT game_id, n FROM results_seal ORDER BY game_id")
    assert any(row[0] == game and row[1] >= 1 for row in before), before
    for sql in refusals:
        with pytest.raises(errors, match="results_seal only counts up"):
            _run(database, sql)
    assert _run(database, "SELECT game_id, n FROM results_seal ORDER BY game_id") == before
    _run(database, "INSERT INTO results_seal (game_id, n) VALUES ('new', 0)")  # a new game's count starts at 0


def _lifted(database: str, *statements: str) -> None:
    """Run ``statements`` with every trigger that counts changes of ``player_results`` (and
    keeps ``results_seal`` from being set back) lifted, and put them back after."""
    if backend.is_postgres(database):
        toggled = [("player_results", name) for name in postgres.RESULTS_TRIGGERS.values()] + [
            ("results_seal", name) for name in postgres.SEAL_TRIGGERS.values()]
        _run(database, "BEGIN", *(f"ALTER TABLE {table} DISABLE TRIGGER {name}" for table, name in toggled),
             *statements, *(f"ALTER TABLE {table} ENABLE ALWAYS TRIGGER {name}" for table, name in toggled),
             "COMMIT")
        return
    names = [*sqlite_store.RESULTS_TRIGGERS.values(), *sqlite_store.SEAL_TRIGGERS.values()]
    kept = _run(database, "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name IN "
                          f"({', '.join(repr(name) for name in names)})")
    assert len(kept) == len(names)
    _run(database, "BEGIN IMMEDIATE", *(f"DROP TRIGGER {name}" for name in names), *statements,
         *(sql for (sql,) in kept), "COMMIT")


def test_a_forger_who_lifts_the_counting_triggers_is_still_found(club):
    database, served, game, sound = club
    _answers(served)
    seal = _run(database, "SELECT game_id, n FROM results_seal ORDER BY game_id")
    _lifted(database, f"UPDATE player_results SET result = 'won' WHERE game_id = '{game}' AND seat = 3")
    try:
        assert _run(database, "SELECT game_id, n FROM results_seal ORDER BY game_id") == seal  # nothing counted
        _refused(served, {game})
    finally:
        _lifted(database, f"UPDATE player_results SET result = 'lost' WHERE game_id = '{game}' AND seat = 3")
    _answers(served)


@pytest.mark.parametrize("name", ["counting", "sealing"])
def test_kibitz_check_names_a_counting_trigger_missing(tmp_path, name):
    from tests.test_check_database import make_database

    path = tmp_path / "kibitz.db"
    make_database(path, games=1, notes=1)
    trigger = (sqlite_store.RESULTS_TRIGGERS if name == "counting" else sqlite_store.SEAL_TRIGGERS)["UPDATE"]
    _run(str(path), f"DROP TRIGGER {trigger}")
    done = kibitz("check", "--db", str(path))
    assert done.returncode == 1
    assert f"database: SQLite integrity check: the trigger {trigger} is missing: " in done.stdout, done.stdout


@pytest.mark.parametrize("state", ["DISABLE", "ENABLE"])
def test_kibitz_check_names_a_counting_trigger_that_does_not_always_fire(postgres_url, state):
    from service.storage import postgres as pg

    with pg.connect(postgres_url) as conn:
        pg.migrate(conn)
    name = postgres.RESULTS_TRIGGERS["INSERT, UPDATE, DELETE"]
    _run(postgres_url, f"ALTER TABLE player_results {state} TRIGGER {name}")
    done = kibitz("check", "--db", postgres_url)
    assert done.returncode == 1
    assert (f"database: PostgreSQL's guarantees: the trigger {name} is missing or does not fire for every session: "
            "a player_results row may be changed unseen by a running server") in done.stdout, done.stdout
