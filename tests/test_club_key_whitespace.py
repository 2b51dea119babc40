"""A club key of only whitespace (``KIBITZ_CLUB_KEY`` or ``--club-key-file``) stops a real
``kibitz serve`` with one sentence: a key meant but lost never leaves the server open."""

from __future__ import annotations

import pytest

from tests.club_server import kibitz
from tests.conftest import free_port


@pytest.mark.parametrize("blank", ["        ", " ", "\t\t", " \n "])
def test_a_whitespace_environment_key_stops_serve(tmp_path, blank):
    done = kibitz("serve", "--port", str(free_port()), "--db", str(tmp_path / "club.db"),
                  env={"KIBITZ_CLUB_KEY": blank})
    assert done.returncode == 1
    assert done.stderr.strip() == ("Error: The club key in KIBITZ_CLUB_KEY is only whitespace: give 8 to 200 "
                                   "printable characters, or leave it unset for an open server.")
    assert "No club key" not in done.stdout and "Traceback" not in done.stderr + done.stdout


@pytest.mark.parametrize("blank", ["        ", "\n", "  \n\n"])
def test_a_whitespace_key_file_stops_serve(tmp_path, blank):
    path = tmp_path / "club.key"
    path.write_text(blank)
    done = kibitz("serve", "--port", str(free_port()), "--db", str(tmp_path / "club.db"),
                  "--club-key-file", str(path))
    assert done.returncode == 1
    assert done.stderr.strip() == (f"Error: The club key in the file {path} is only whitespace: give 8 to 200 "
                                   "printable characters, or leave it unset for an open server.")
    assert "Traceback" not in done.stderr + done.stdout
