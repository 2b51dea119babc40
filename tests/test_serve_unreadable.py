"""``kibitz serve`` refuses a database file it cannot read in one sentence that names the file
and says what to do (permissions first), never a traceback."""

from __future__ import annotations

import subprocess

from service.web.app import create_app
from tests.club_server import unprivileged
from tests.conftest import free_port
from tests.serving import kibitz_command


def test_a_database_file_that_cannot_be_read_is_refused_in_one_sentence(tmp_path):
    prefix = unprivileged()
    path = tmp_path / "kibitz.db"
    create_app({"TESTING": True, "DATABASE": str(path)})  # the tables, then closed
    path.chmod(0o000)
    proc = subprocess.run([*prefix, *kibitz_command(), "serve", "--port", str(free_port()), "--db", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    [sentence] = proc.stderr.splitlines()
    assert sentence.startswith(f"Error: Cannot serve {path}: the database file is unreadable")
    assert "can read and write it and its folder" in sentence
