"""``kibitz backup --db postgresql://…``: a pg_dump custom-format archive of one snapshot, taken
while a real ``kibitz serve`` records into the database, restored with ``pg_restore`` into a
fresh database where ``kibitz check`` passes and every acknowledged event is found; and the
one-line refusals (no pg_dump, pg_dump failing, a destination that exists, a schema that is
not a Kibitz database), never a traceback."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

from tests.club_server import burst, kibitz, serve
from tests.postgres import fresh_schema, with_schema
from tests.test_check_database import make_database


def schema_of(url: str) -> str:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT current_schema()").fetchone()
    assert row is not None
    return str(row[0])


@pytest.fixture
def fresh_database(postgres_url: str) -> Iterator[str]:
    """The URL of a new, empty database on the test server (dropped afterwards): where a backup
    is restored."""
    name = f"restored_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    parts = urlsplit(postgres_url)
    try:
        yield urlunsplit(parts._replace(path=f"/{name}", query=""))
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE {name} WITH (FORCE)")


def test_a_backup_while_kibitz_serve_records_restores_with_pg_restore(postgres_url, fresh_database, tmp_path):
    dest = tmp_path / "league.dump"
    with serve(postgres_url, log_dir=tmp_path) as served, burst(served) as noting:
        before = noting.wait_for(100)
        done = kibitz("backup", str(dest), "--db", postgres_url)
        time.sleep(0.2)
    assert not noting.failures
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    said, how = done.stdout.splitlines()
    assert said.startswith(f"Backed up {postgres_url} to {dest}: 4 games, ")
    assert said.endswith(f" events, {dest.stat().st_size:,} bytes.")
    assert how == (f"{dest} is a pg_dump custom-format archive: restore it into an empty database with "
                   f"pg_restore --no-owner --dbname postgresql://USER@HOST:PORT/DATABASE {dest}")
    assert sorted(path.name for path in tmp_path.iterdir() if path.name.startswith(".")) == []  # no temp left
    listed = subprocess.run(["pg_restore", "--list", str(dest)], capture_output=True, text=True, check=True)
    data = [line for line in listed.stdout.splitlines() if "TABLE DATA" in line]
    schema = schema_of(postgres_url)
    assert data and all(f" {schema} " in line for line in data)  # the league's schema alone

    restored = subprocess.run(["pg_restore", "--no-owner", "--dbname", fresh_database, str(dest)],
                              capture_output=True, text=True)
    assert restored.returncode == 0, restored.stderr
    there = with_schema(fresh_database, schema)  # a schema of its own, as the URL named it
    checked = kibitz("check", "--db", there)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    counted = said.split(": ", 1)[1].split(",")[:2]
    assert f"no problems ({counted[0]},{counted[1]} checked)." in checked.stdout
    with psycopg.connect(there) as conn:
        stored = {str(game_id): sorted(int(seq) for seq in seqs) for game_id, seqs in conn.execute(
            "SELECT game_id, array_agg(seq) FROM events GROUP BY game_id")}
    assert set(stored) == set(before)  # every game is there
    for game_id, seqs in before.items():
        assert set(seqs) <= set(stored[game_id])  # every event acknowledged before the backup began
        assert stored[game_id] == list(range(1, len(stored[game_id]) + 1))  # one snapshot: no gap
    with serve(there, log_dir=tmp_path) as again:  # the restored league serves and records on
        assert again.new_game()


def test_a_league_in_the_public_schema_is_backed_up_whole(fresh_database, tmp_path):
    """Tables in the database's own ``public`` schema: the archive is of the whole database and
    pg_restore takes it into a new database without an error."""
    ids = make_database(fresh_database, games=2, notes=1)
    dest = tmp_path / "whole.dump"
    dest.write_text("last week's")
    with_password = fresh_database.replace("://kibitz@", "://kibitz:secret-word@")  # the test server trusts it
    assert with_password != fresh_database
    done = kibitz("backup", str(dest), "--db", with_password, "--force")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"Backed up {fresh_database} to {dest}: 2 games, 8 events, ")
    assert "secret-word" not in done.stdout + done.stderr
    with psycopg.connect(fresh_database, autocommit=True) as conn:
        conn.execute("DROP SCHEMA public CASCADE")
        conn.execute("CREATE SCHEMA public")
    restored = subprocess.run(["pg_restore", "--no-owner", "--dbname", fresh_database, str(dest)],
                              capture_output=True, text=True)
    assert restored.returncode == 0, restored.stderr
    checked = kibitz("check", "--db", fresh_database)
    assert checked.stdout.strip() == f"{fresh_database}: no problems (2 games, 8 events checked)."
    assert ids


def test_backup_refusals_are_one_line(postgres_url, tmp_path):
    make_database(postgres_url, games=1, notes=0)
    dest = tmp_path / "out.dump"
    dest.write_text("an older backup")
    exists = kibitz("backup", str(dest), "--db", postgres_url)
    assert exists.returncode == 1
    assert exists.stderr.strip() == f"Error: {dest} exists already: choose another name, or add --force to replace it."
    assert dest.read_text() == "an older backup"

    empty = tmp_path / "bin"
    empty.mkdir()
    missing = kibitz("backup", str(tmp_path / "new.dump"), "--db", postgres_url, env={"PATH": str(empty)})
    assert missing.returncode == 1 and missing.stdout == ""
    assert missing.stderr.strip() == ("Error: No backup was made: pg_dump is not installed (on Debian: apt-get install "
                                      "postgresql-client), and a PostgreSQL database is backed up through pg_dump.")

    failed = kibitz("backup", "/proc/kibitz.dump", "--db", postgres_url)  # pg_dump cannot write there
    assert failed.returncode == 1
    [line] = failed.stderr.splitlines()
    assert line.startswith("Error: No backup was made: pg_dump failed: pg_dump: error: could not open output file"), line

    with fresh_schema() as blank:  # a schema of the server that holds no Kibitz table
        unkibitz = kibitz("backup", str(tmp_path / "none.dump"), "--db", blank)
    assert unkibitz.returncode == 1
    assert unkibitz.stderr.strip() == (f"Error: {blank} is not a Kibitz database "
                                       "(no games, events, idempotency table).")
    unreachable = kibitz("backup", str(tmp_path / "none.dump"), "--db", "postgresql://ann:secret@127.0.0.1:1/league")
    assert unreachable.returncode == 1
    [line] = unreachable.stderr.splitlines()
    assert line.startswith("Error: Could not back up postgresql://ann@127.0.0.1:1/league: ") and "secret" not in line
    for done in (exists, missing, failed, unkibitz, unreachable):
        assert "Traceback" not in done.stdout + done.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["bin", "out.dump"]
    assert shutil.which("pg_dump")  # the refusals above were not for want of it


def test_a_password_goes_to_pg_dump_through_its_environment():
    from service.storage import postgres_admin

    target, env = postgres_admin._dump_target("postgresql://ann:s3cret@db.example:5433/league?sslmode=prefer")
    assert "s3cret" not in target and env["PGPASSWORD"] == "s3cret"
    assert {"host=db.example", "port=5433", "dbname=league", "user=ann", "sslmode=prefer"} <= set(target.split())


def test_the_documented_restore_steps_run_as_written(fresh_database, tmp_path):
    """docs/league.md "Backing up a league": the restore block, run line by line against the
    test server with only its user, host, port, the archive's path and the new database's name
    put in (no PGUSER, PGHOST or PGPORT to make up for a step that names less), creates the
    database, restores the archive, checks it clean and serves it."""
    make_database(fresh_database, games=2, notes=1)
    dump = tmp_path / "league.dump"
    assert kibitz("backup", str(dump), "--db", fresh_database).returncode == 0
    doc = (Path(__file__).resolve().parents[1] / "docs" / "league.md").read_text(encoding="utf-8")
    section = doc[doc.index("## Backing up a league"):doc.index("## Checking a league")]
    block = section[section.index("To restore,"):]
    block = block[block.index("```sh\n") + 6:]
    lines = block[:block.index("```")].strip().splitlines()
    server = urlsplit(fresh_database)
    name = f"restored_{uuid.uuid4().hex[:12]}"
    fill = {"kibitz@db.league.example:5432": f"{server.username}@{server.hostname}:{server.port}",
            "league_restored": name, "/srv/backups/league-2026-12-03.dump": str(dump)}
    assert all("postgresql://kibitz@db.league.example:5432/" in line for line in lines), lines  # user, host, port
    assert all(placeholder in "\n".join(lines) for placeholder in fill), lines
    steps = []
    for line in lines:
        for placeholder, value in fill.items():
            line = line.replace(placeholder, value)
        steps.append(shlex.split(line))
    env = {key: value for key, value in os.environ.items() if not key.startswith("PG")}
    create, restore, check, served = steps
    try:
        assert create[0] == "psql"
        made = subprocess.run(create, capture_output=True, text=True, env=env, timeout=60)
        assert made.returncode == 0, made.stderr
        assert restore[0] == "pg_restore"
        restored = subprocess.run(restore, capture_output=True, text=True, env=env, timeout=120)
        assert restored.returncode == 0, restored.stderr
        assert check[:3] == ["kibitz", "check", "--db"] and len(check) == 4
        checked = kibitz(*check[1:], env={key: "" for key in os.environ if key.startswith("PG")})
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert checked.stdout.strip() == f"{check[3]}: no problems (2 games, 8 events checked)."
        assert served[:3] == ["kibitz", "serve", "--db"] and len(served) == 4 and served[3] == check[3]
        with serve(served[3], log_dir=tmp_path) as again:
            assert again.new_game()
    finally:
        with psycopg.connect(fresh_database, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
