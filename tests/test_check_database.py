"""``kibitz check`` names every planted fault (a gap in a log, a damaged page, an event that no
longer rebuilds) and never changes the file; ``kibitz serve`` refuses a damaged or unreadable
file at start-up in one sentence, never a traceback.

The tests taking ``database`` run on SQLite and on PostgreSQL (a fresh schema of the test
server, tests/postgres.py), damaging the record with SQL past the triggers that refuse it,
lifted and put back (``tests.tampering``)."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from service.storage import backend
from service.web.app import create_app
from tests.club_server import kibitz
from tests.conftest import OPEN_DEAL, PLAYERS, free_port
from tests.serving import kibitz_command
from tests.tampering import lifted


def make_database(path: Path | str, games: int = 3, notes: int = 5) -> list[str]:
    """A database of ``games`` open Toepen games, each dealt, Bob's lead 7H played, then
    ``notes`` notes; checkpointed into the file alone (``path`` a SQLite file, or a
    ``postgresql://`` URL). Returns the game ids."""
    client = create_app({"TESTING": True, "DATABASE": str(path)}).test_client()
    ids = []
    for _ in range(games):
        body = client.post("/games", json={"game": "toepen", "players": PLAYERS, "visibility": "open"}).get_json()
        auth = {"Authorization": f"Bearer {body['token']}"}
        url = f"/games/{body['id']}/events"
        assert client.post(url, json=OPEN_DEAL, headers=auth).status_code == 201
        assert client.post(url, json={"type": "play", "player": "Bob", "card": "7H"}, headers=auth).status_code == 201
        for n in range(notes):
            assert client.post(url, json={"type": "note", "text": f"note {n} " + "x" * 400},
                               headers=auth).status_code == 201
        ids.append(body["id"])
    if backend.is_postgres(str(path)):
        return ids
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return ids


def tamper(path: Path | str, *sql: str) -> None:
    """Change a test copy the way no Kibitz code can, as an outside tester does with the
    database's own tools: lift the triggers that refuse it, run ``sql``, put them back
    (``tests.tampering.lifted``)."""
    with lifted(path) as run:
        for statement in sql:
            run(statement)
    if not backend.is_postgres(str(path)):
        conn = sqlite3.connect(path, isolation_level=None)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.close()


def json_set(database: Path | str, column: str, key: str, value: str) -> str:
    """SQL setting ``key`` of the JSON object in ``column`` to the text ``value``, in the dialect
    of ``database``."""
    if backend.is_postgres(str(database)):
        return f"jsonb_set({column}::jsonb, '{{{key}}}', to_jsonb('{value}'::text))::text"
    return f"json_set({column}, '$.{key}', '{value}')"


def digest(path: Path | str) -> str:
    """The whole stored state: the file's bytes, or on PostgreSQL every row of every table."""
    if backend.is_postgres(str(path)):
        import psycopg

        with psycopg.connect(str(path)) as pg:
            rows = [pg.execute(f"SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM {table} AS t"
                               ).fetchone() for table in ("games", "events", "tokens", "idempotency")]
        return repr(rows)
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@pytest.fixture
def stored(database) -> tuple[str, list[str]]:
    return database, make_database(database)


def test_a_sound_database_passes(stored):
    path, ids = stored
    done = kibitz("check", "--db", str(path))
    assert done.returncode == 0, done.stdout
    assert done.stdout.strip() == f"{path}: no problems (3 games, {3 * 8} events checked)."


def test_a_gap_and_a_version_that_disagrees_are_named_with_game_and_event(stored):
    path, ids = stored
    tamper(path, f"DELETE FROM events WHERE game_id = '{ids[0]}' AND seq = 4",
           f"DELETE FROM events WHERE game_id = '{ids[1]}' AND seq IN (2, 3)",
           f"DELETE FROM events WHERE game_id = '{ids[2]}' AND seq = 8")
    before = digest(path)
    done = kibitz("check", "--db", str(path))
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert f"game {ids[0]}, event 4: event 4 missing: a gap in the log before event 5" in lines
    assert f"game {ids[1]}, event 2: events 2 to 3 missing: a gap in the log before event 4" in lines
    assert f"game {ids[2]}: games.version is 8 but the last stored event is 7" in lines
    assert f"{path}: " in done.stderr and "problem(s)" in done.stderr
    assert digest(path) == before  # checking never changes the file


def test_an_event_that_no_longer_rebuilds_is_named(stored):
    path, ids = stored
    # event 3 is Bob's lead 7H; Bob was dealt 7H 8C AD KS, so 9S is a card he cannot hold
    tamper(path, f"""UPDATE events SET data = '{{"player":"Bob","card":"9S"}}' WHERE game_id = '{ids[1]}' AND seq = 3""")
    done = kibitz("check", "--db", str(path))
    assert done.returncode == 1
    rebuilt, chained = [line for line in done.stdout.splitlines() if ids[1] in line]
    assert rebuilt.startswith(f"game {ids[1]}, event 3: no longer rebuilds through the rules of toepen: ")
    assert chained.startswith(f"game {ids[1]}, event 3: its hash does not match the record's hash chain")
    assert not [line for line in done.stdout.splitlines() if ids[0] in line or ids[2] in line]


def test_a_damaged_page_is_found_and_kibitz_serve_refuses_the_file_in_one_sentence(tmp_path):
    path = tmp_path / "kibitz.db"
    make_database(path, games=25, notes=8)
    size = path.stat().st_size
    assert size > 80_000
    with path.open("r+b") as file:  # 8 KiB of damage in the middle of the file
        file.seek(size // 2 // 4096 * 4096)
        file.write(bytes((n * 37 + 11) % 256 for n in range(8192)))
    done = kibitz("check", "--db", str(path))
    assert done.returncode == 1
    assert any(line.startswith("database: SQLite integrity check: ") for line in done.stdout.splitlines()), done.stdout
    assert f"{path}: " in done.stderr

    proc = subprocess.run([*kibitz_command(), "serve", "--port", str(free_port()), "--db", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stdout == ""
    [sentence] = proc.stderr.splitlines()
    assert sentence.startswith(f"Error: Cannot serve {path}: the database file is damaged")
    assert "restore it from a backup" in sentence and f"kibitz check --db {path}" in sentence
    assert "Traceback" not in proc.stderr


def test_kibitz_serve_refuses_a_file_that_is_not_a_database_in_one_sentence(tmp_path):
    path = tmp_path / "kibitz.db"
    path.write_bytes(b"these are the minutes of the club meeting, not a database\n" * 100)
    proc = subprocess.run([*kibitz_command(), "serve", "--port", str(free_port()), "--db", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    [sentence] = proc.stderr.splitlines()
    assert sentence.startswith(f"Error: Cannot serve {path}: the database file is damaged or not a database")
    checked = kibitz("check", "--db", str(path))
    assert checked.returncode == 1 and "database: " in checked.stdout


def test_check_of_a_copy_with_foreign_events_names_them(stored, tmp_path):
    path, ids = stored
    copy = path  # a PostgreSQL schema is damaged in place
    if not backend.is_postgres(path):
        copy = str(tmp_path / "copy.db")
        shutil.copy(path, copy)
    tamper(copy, f"DELETE FROM games WHERE id = '{ids[0]}'")
    done = kibitz("check", "--db", str(copy))
    assert done.returncode == 1
    assert f"game {ids[0]}: 8 stored event(s) belong to no game (no games row)" in done.stdout.splitlines()


def test_postgresql_triggers_turned_off_are_named(postgres_url):
    """On PostgreSQL, what the database itself enforces is checked: the triggers refusing to
    change a stored event, present and enabled ALWAYS (a session_replication_role skips one
    enabled as usual)."""
    ids = make_database(postgres_url, games=1, notes=1)
    before = digest(postgres_url)
    assert kibitz("check", "--db", postgres_url).returncode == 0
    import psycopg

    with psycopg.connect(postgres_url, autocommit=True) as pg:
        for statement in ("ALTER TABLE events DISABLE TRIGGER events_no_update", "DROP TRIGGER events_no_delete ON events",
                          "ALTER TABLE events DROP CONSTRAINT events_pkey", "DROP INDEX events_idempotency",
                          "ALTER TABLE events ENABLE TRIGGER events_no_truncate"):  # not ALWAYS: replica skips it
            pg.execute(statement)
    done = kibitz("check", "--db", postgres_url)
    assert done.returncode == 1, done.stdout
    assert done.stdout.splitlines() == [
        "database: PostgreSQL's guarantees: events has no primary key (game_id, seq): two events may share a seq",
        "database: PostgreSQL's guarantees: events has no unique index events_idempotency: an Idempotency-Key may "
        "be stored twice",
        "database: PostgreSQL's guarantees: the trigger events_no_update is disabled: a stored event may be changed "
        "(UPDATE); ALTER TABLE events ENABLE ALWAYS TRIGGER events_no_update",
        "database: PostgreSQL's guarantees: the trigger events_no_delete is missing: a stored event may be changed "
        "(DELETE)",
        "database: PostgreSQL's guarantees: the trigger events_no_truncate does not fire for every session "
        "(session_replication_role skips it): a stored event may be changed (TRUNCATE); ALTER TABLE events ENABLE "
        "ALWAYS TRIGGER events_no_truncate",
    ]
    assert f"{postgres_url}: 5 problem(s) (1 games, 4 events checked)." in done.stderr
    assert digest(postgres_url) == before  # the rows are untouched, and checking changed none
    assert ids


def test_postgresql_check_of_an_unreachable_server_is_one_line():
    done = kibitz("check", "--db", "postgresql://nobody:secret@127.0.0.1:1/none")
    assert done.returncode == 1
    [line] = done.stdout.splitlines()
    assert line.startswith("database: cannot be read: ") and "Traceback" not in done.stdout + done.stderr
    assert "secret" not in done.stdout + done.stderr
    assert done.stderr.strip() == "postgresql://nobody@127.0.0.1:1/none: 1 problem(s) (0 games, 0 events checked)."
