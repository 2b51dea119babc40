"""The kibitz command."""

from __future__ import annotations

from click.testing import CliRunner

from service.cli import main
from service.storage import sqlite as store


def test_init_db_creates_the_tables(tmp_path):
    path = tmp_path / "new.db"
    result = CliRunner().invoke(main, ["init-db", "--db", str(path)])
    assert result.exit_code == 0, result.output
    db = store.connect(path)
    assert {"games", "events", "idempotency"} <= set(db.table_names())
    db.close()


def test_serve_help_names_its_options():
    result = CliRunner().invoke(main, ["serve", "--help"])
    assert result.exit_code == 0
    for option in ("--host", "--port", "--db", "--threads"):
        assert option in result.output


def test_serve_on_a_busy_port_says_so_in_one_line(tmp_path):
    # A real process: a socket that failed to bind is left for the garbage collector.
    import socket
    import subprocess

    from tests.test_server import _kibitz

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = subprocess.run(
            [*_kibitz(), "serve", "--port", str(port), "--db", str(tmp_path / "k.db")],
            capture_output=True, text=True, timeout=60,
        )
    assert result.returncode == 1
    assert f"Error: Cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout
