"""``kibitz check`` names every table and column the service needs that a database lacks
(``store_admin.SCHEMA``, kept equal to what the migrations create), and a real ``kibitz
serve`` refuses such a file at start with one sentence instead of answering 500 later."""

from __future__ import annotations

import sqlite3

import pytest

from service.storage import admin as store_admin
from tests.club_server import kibitz
from tests.conftest import free_port
from tests.test_check_database import make_database, tamper


def test_the_schema_is_what_the_migrations_create(tmp_path):
    path = tmp_path / "fresh.db"
    make_database(path, games=1, notes=0)
    conn = sqlite3.connect(path)
    try:
        for table, columns in store_admin.SCHEMA.items():
            assert tuple(row[1] for row in conn.execute(f"PRAGMA table_info({table})")) == columns, table
        assert store_admin.schema_problems(conn) == []
    finally:
        conn.close()


@pytest.mark.parametrize("sql, what", [
    ("DROP TABLE player_results", "no player_results table"),
    ("DROP TABLE tokens", "no tokens table"),
    ("ALTER TABLE tokens DROP COLUMN revoked_at", "no column revoked_at in tokens"),
    ("ALTER TABLE games DROP COLUMN imported_at", "no column imported_at in games"),
])
def test_check_names_and_serve_refuses_a_missing_table_or_column(tmp_path, sql, what):
    path = tmp_path / "kibitz.db"
    make_database(path, games=2, notes=1)
    tamper(path, sql)
    checked = kibitz("check", "--db", str(path))
    assert checked.returncode == 1, checked.stdout
    assert f"database: the schema lacks what the service needs: {what}" in checked.stdout.splitlines()
    served = kibitz("serve", "--port", str(free_port()), "--db", str(path))
    assert served.returncode == 1
    assert served.stderr.strip() == (
        f"Error: Cannot serve {path}: the database file is missing part of its schema ({what}); restore it from "
        f"a backup (stop, copy the backup made with kibitz backup over it, run kibitz check --db {path}) as "
        "README's 'Running a club server' explains.")
    assert "Traceback" not in served.stderr + served.stdout


def test_check_finds_a_sound_database_sound(tmp_path):
    path = tmp_path / "kibitz.db"
    make_database(path, games=2, notes=1)
    checked = kibitz("check", "--db", str(path))
    assert checked.returncode == 0, checked.stdout + checked.stderr
