"""The kibitz command."""

from __future__ import annotations

from click.testing import CliRunner

from service.cli.main import main
from service.storage import backend, postgres
from service.storage import sqlite as store
from tests.conftest import ON_BOTH_BACKENDS


def test_init_db_creates_the_tables(tmp_path):
    path = tmp_path / "new.db"
    result = CliRunner().invoke(main, ["init-db", "--db", str(path)])
    assert result.exit_code == 0, result.output
    db = store.connect(path)
    assert {"games", "events", "idempotency"} <= set(db.table_names())
    db.close()


@ON_BOTH_BACKENDS
def test_init_db_on_either_backend_and_again(database, monkeypatch):
    """``--db`` or ``KIBITZ_DB``: a file or a postgresql:// URL; a second run changes nothing."""
    assert CliRunner().invoke(main, ["init-db", "--db", database]).output == f"Initialised {database}\n"
    monkeypatch.setenv("KIBITZ_DB", database)
    again = CliRunner().invoke(main, ["init-db"])
    assert again.exit_code == 0 and again.output == f"Initialised {database}\n"
    db = backend.connect(database)
    try:
        assert backend.game_ids(db) == []
        if backend.is_postgres(db):
            assert postgres.applied(db) == [name for name, _ in postgres.MIGRATIONS]
    finally:
        db.close()


def test_a_postgresql_server_that_cannot_be_reached_is_one_sentence():
    for command in (["init-db"], ["export", "abc"], ["replay", "abc"], ["import", __file__],
                    ["token", "abc", "--no-qr"]):
        done = CliRunner().invoke(main, [*command, "--db", "postgresql://ann:secret@127.0.0.1:1/league"])
        assert done.exit_code == 1, (command, done.output)
        [line] = done.output.splitlines()
        assert line.startswith(("Error: Cannot open the database postgresql://ann@127.0.0.1:1/league: ",
                                "Error: No token was issued: ")), line
        assert "secret" not in done.output


def test_serve_help_names_its_options():
    result = CliRunner().invoke(main, ["serve", "--help"])
    assert result.exit_code == 0
    for option in ("--host", "--port", "--db", "--threads", "--allowed-host"):
        assert option in result.output


def test_serve_on_a_busy_port_says_so_in_one_line(tmp_path):
    # A real process: a socket that failed to bind is left for the garbage collector.
    import socket
    import subprocess

    from tests.serving import kibitz_command

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = subprocess.run(
            [*kibitz_command(), "serve", "--port", str(port), "--db", str(tmp_path / "k.db")],
            capture_output=True, text=True, timeout=60,
        )
    assert result.returncode == 1
    assert f"Error: Cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout
