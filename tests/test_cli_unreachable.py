"""Every command given a PostgreSQL server it cannot reach says so in one sentence.

psycopg's message runs to two lines (``… failed: Connection refused`` and, indented,
``Is the server running on that host and accepting TCP/IP connections?``); every command
prints it through ``service.storage.messages.one_sentence``: one line, the two sentences
parted by a full stop, and every line it prints ends with a newline (nothing glued to what
comes after). Run through the real ``kibitz`` CLI; nothing listens on port 1. So does a
malformed URL (never printing its password: ``service.storage.messages.shown`` and ``failure``),
a schema without the Kibitz tables ("… is not a Kibitz database") and one that does not exist.
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


# --- a malformed URL, a schema without the Kibitz tables, a driver's other refusals ----------

SECRET = "s3cretPW"
MALFORMED = f"postgresql://kibitz:{SECRET}@[::1:1/kibitz"


def every_command(tmp, db, other):
    """Every command that takes a database, each given ``db`` (``other``: the other side of a copy)."""
    return {
        "check": ["check", "--db", db],
        "verify": ["verify", "abc", "abcdefabcdef", "--db", db],
        "backup": ["backup", str(tmp / "league.dump"), "--db", db],
        "export": ["export", "abc", "--db", db],
        "import": ["import", __file__, "--db", db],
        "token": ["token", "abc", "--no-qr", "--db", db],
        "replay": ["replay", "abc", "--db", db],
        "init-db": ["init-db", "--db", db],
        "serve": ["serve", "--port", "0", "--db", db],
        "copy from": ["copy", db, other],
        "copy to": ["copy", other, db],
    }


NAMES = sorted(every_command(__import__("pathlib").Path("."), "", ""))


def said(done):
    """The lines a finished command printed, after checking it printed them as every command must:
    an exit status of 1 or 2, no traceback, no password, each line ended."""
    out = done.stdout + done.stderr
    assert done.returncode in (1, 2), (done.returncode, out)
    assert "Traceback" not in out and SECRET not in out and "pw123secret" not in out, out
    for stream in (done.stdout, done.stderr):
        assert stream == "" or stream.endswith("\n"), repr(stream)
    return out.splitlines()


@pytest.mark.parametrize("name", NAMES)
def test_a_malformed_url_is_one_sentence_without_its_password(name, tmp_path):
    other = sqlite_file(tmp_path) if name == "copy to" else str(tmp_path / "copy.db")
    lines = said(kibitz(*every_command(tmp_path, MALFORMED, other)[name]))
    assert len(lines) == (2 if name == "check" else 1), lines
    assert "IPv6 host address" in lines[0] and "[::1:1/kibitz" in lines[0], lines


def test_copy_between_malformed_urls_never_shows_a_password(tmp_path):
    lines = said(kibitz("copy", "postgresql://kibitz:pw123secret@[::1/x", str(tmp_path / "copy.db")))
    assert lines == ["Error: Cannot open postgresql://…@[::1/x to read it: end of string reached when looking "
                     'for matching "]" in IPv6 host address in URI: "postgresql://kibitz@[::1/x".'], lines


@pytest.fixture
def empty_schema():
    """An existing, empty schema of the test server, named by a URL that carries a password
    (the test server trusts its local users, so the password is never checked)."""
    from tests.postgres import fresh_schema

    with fresh_schema() as url:
        yield url.replace("://", f"://{SECRET}@", 1) if "@" not in url else url.replace("@", f":{SECRET}@", 1)


def tables_of(url):
    import psycopg

    with psycopg.connect(url) as conn:
        return [row[0] for row in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")]


#: The commands that read or write games a database holds: each refuses one without the tables.
READERS = {"check": 1, "verify": 2, "backup": 1, "export": 1, "token": 1, "replay": 1, "copy from": 1}


@pytest.mark.parametrize("name", sorted(READERS))
def test_a_schema_without_kibitz_tables_is_not_a_kibitz_database(name, tmp_path, empty_schema):
    done = kibitz(*every_command(tmp_path, empty_schema, str(tmp_path / "copy.db"))[name])
    lines = said(done)
    assert done.returncode == READERS[name], lines
    assert len(lines) == (2 if name == "check" else 1), lines
    if name in ("check", "verify"):
        assert lines[0] == "database: not a Kibitz database: no games, events, idempotency table", lines
    else:
        assert lines[0].endswith(" is not a Kibitz database (no games, events, idempotency table)."), lines
        assert "?options=" in lines[0], lines  # the database is named, without its password
    assert tables_of(empty_schema) == []  # nothing was created in it


@pytest.mark.parametrize("name", NAMES)
def test_a_schema_that_does_not_exist_is_one_sentence(name, tmp_path, empty_schema):
    missing = empty_schema.replace("search_path%3Dt_", "search_path%3Dnone_")
    other = sqlite_file(tmp_path) if name == "copy to" else str(tmp_path / "copy.db")
    done = kibitz(*every_command(tmp_path, missing, other)[name])
    lines = said(done)
    assert len(lines) == (2 if name == "check" else 1), lines
    if name in ("check", "verify"):
        assert lines[0] == "database: not a Kibitz database: no games, events, idempotency table", lines
    elif name == "backup":
        assert lines[0].endswith(" is not a Kibitz database (no games, events, idempotency table)."), lines
    elif name in READERS:
        assert lines[0].endswith(" is not a Kibitz database (no schema of its search_path exists)."), lines
    else:  # init-db, import, serve, copy to: they would create the tables, and say where they cannot
        assert lines[0].endswith(": no schema of its search_path exists to create the tables in: create it "
                                 "(CREATE SCHEMA name) or name one that exists."), lines


@pytest.mark.parametrize("fault, cause", [
    ("sslmode=require", "server does not support SSL, but SSL was required."),
    ("user=nobody", 'FATAL: role "nobody" does not exist.'),
])
def test_token_names_the_drivers_cause(fault, cause, empty_schema):
    lines = said(kibitz("token", "abc", "--no-qr", "--db", f"{empty_schema}&{fault}"))
    assert len(lines) == 1 and lines[0].startswith("Error: No token was issued: ") and lines[0].endswith(cause), lines
    assert "cannot reach" not in lines[0]


@pytest.mark.parametrize("database", [
    MALFORMED, "postgresql://kibitz:s3cretPW@", "postgresql://:s3cretPW@h/db", "postgresql://kibitz:s3cret%50W@h/db",
    "postgresql://h/db?password=s3cretPW&user=kibitz", "postgres://kibitz:s3cretPW@h:notaport/db", "postgresql://[",
])
def test_shown_and_failure_never_raise_and_never_show_a_password(database):
    from service.storage.messages import failure, shown

    assert SECRET not in shown(database) and "s3cret%50W" not in shown(database)
    message = failure(f'invalid URI: "{database}"\nLINE 1: SELECT 1\n        ^\n', database)
    assert SECRET not in message and "s3cret%50W" not in message and "LINE 1" not in message, message
    assert "\n" not in message and message.endswith(".")
