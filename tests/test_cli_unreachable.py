"""Every command given a PostgreSQL server it cannot reach says so in one sentence.

psycopg's message runs to two lines (``… failed: Connection refused`` and, indented,
``Is the server running on that host and accepting TCP/IP connections?``); every command
prints it through ``service.storage.messages.one_sentence``: one line, the two sentences
parted by a full stop, and every line it prints ends with a newline (nothing glued to what
comes after). Run through the real ``kibitz`` CLI; nothing listens on port 1.
"""

from __future__ import annotations

import pytest

from service.storage.messages import one_sentence
from tests.club_server import kibitz

UNREACHABLE = "postgresql://ann:secret@127.0.0.1:1/league"
SHOWN = "postgresql://ann@127.0.0.1:1/league"
SENTENCE = ('connection failed: connection to server at "127.0.0.1", port 1 failed: Connection refused. '
            "Is the server running on that host and accepting TCP/IP connections?")


def sqlite_file(tmp_path):
    path = tmp_path / "club.db"
    done = kibitz("init-db", "--db", str(path))
    assert done.returncode == 0, done.stderr
    return str(path)


COMMANDS = {
    "check": (lambda tmp: ["check", "--db", UNREACHABLE], f"database: cannot be read: {SENTENCE}",
              f"{SHOWN}: 1 problem(s) (0 games, 0 events checked)."),
    "verify": (lambda tmp: ["verify", "abc", "abcdefabcdef", "--db", UNREACHABLE],
               f"database: cannot be read: {SENTENCE}", None),
    "backup": (lambda tmp: ["backup", str(tmp / "league.dump"), "--db", UNREACHABLE],
               f"Error: Could not back up {SHOWN}: {SENTENCE}", None),
    "export": (lambda tmp: ["export", "abc", "--db", UNREACHABLE],
               f"Error: Cannot open the database {SHOWN}: {SENTENCE}", None),
    "import": (lambda tmp: ["import", __file__, "--db", UNREACHABLE],
               f"Error: Cannot open the database {SHOWN}: {SENTENCE}", None),
    "token": (lambda tmp: ["token", "abc", "--no-qr", "--db", UNREACHABLE],
              f"Error: No token was issued: cannot open the database {SHOWN}: {SENTENCE}", None),
    "replay": (lambda tmp: ["replay", "abc", "--db", UNREACHABLE],
               f"Error: Cannot open the database {SHOWN}: {SENTENCE}", None),
    "init-db": (lambda tmp: ["init-db", "--db", UNREACHABLE],
                f"Error: Cannot open the database {SHOWN}: {SENTENCE}", None),
    "copy from": (lambda tmp: ["copy", UNREACHABLE, str(tmp / "copy.db")],
                  f"Error: Cannot open postgresql://…@127.0.0.1:1/league to read it: {SENTENCE}", None),
    "copy to": (lambda tmp: ["copy", sqlite_file(tmp), UNREACHABLE],
                f"Error: Cannot open postgresql://…@127.0.0.1:1/league to write to it: {SENTENCE}", None),
    "serve": (lambda tmp: ["serve", "--port", "0", "--db", UNREACHABLE],
              f"Error: Cannot use the PostgreSQL database 127.0.0.1:1/league: {SENTENCE}", None),
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_an_unreachable_server_is_one_sentence_on_a_line_of_its_own(name, tmp_path):
    command, said, summary = COMMANDS[name]
    done = kibitz(*command(tmp_path))
    assert done.returncode in (1, 2), (done.returncode, done.stdout, done.stderr)
    out = done.stdout + done.stderr
    assert "Traceback" not in out and "secret" not in out and "\t" not in out
    for stream in (done.stdout, done.stderr):
        assert stream == "" or stream.endswith("\n"), repr(stream)  # every line ends with a newline
    lines = out.splitlines()
    assert said in lines, lines
    assert lines == [said] if summary is None else lines == [said, summary]


def test_one_sentence_joins_a_drivers_lines():
    two = ('connection to server at "127.0.0.1", port 1 failed: Connection refused\n'
           "\tIs the server running on that host and accepting TCP/IP connections?\n")
    assert one_sentence(two) == ('connection to server at "127.0.0.1", port 1 failed: Connection refused. '
                                 "Is the server running on that host and accepting TCP/IP connections?")
    assert one_sentence('ERROR:  relation "games" does not exist\nLINE 1: SELECT  *\n') == (
        'ERROR: relation "games" does not exist. LINE 1: SELECT *.')
    assert one_sentence("FATAL:\n  role \"root\" does not exist") == 'FATAL: role "root" does not exist.'
    assert one_sentence(OSError()) == "OSError."
    assert one_sentence("unable to open database file") == "unable to open database file."
