"""The ``kibitz`` command: ``kibitz serve`` (uvicorn, ``service.web.server``), ``kibitz init-db``,
``kibitz replay``, ``kibitz backup``, ``kibitz check`` and ``kibitz verify`` (and ``export``/``import``,
``service.cli.transfer``; ``copy``, ``service.cli.copy``; ``token``, ``service.cli.tokens``)."""

from __future__ import annotations

import gc
import signal
import sqlite3
from typing import TYPE_CHECKING, Any

import click

from service.cli.copy import copy
from service.cli.tokens import token
from service.cli.transfer import db_option, export_games, import_games, open_database, shown

if TYPE_CHECKING:
    from collections.abc import Callable

    from flask import Flask

DEFAULT_DB = "./kibitz.db"


@click.group()
def main() -> None:
    """Kibitz: record physical card games as events."""


@main.command()
@click.option("--host", default=None, help="Interface to listen on.  [default: 127.0.0.1; 0.0.0.0 with --lan]")
@click.option("--lan", is_flag=True,
              help="Listen on every network address (0.0.0.0) and print the URLs and a QR code a tablet can open.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="TCP port.")
@click.option("--db", "database", default=DEFAULT_DB, show_default=True, envvar="KIBITZ_DB",
              type=click.Path(dir_okay=False, readable=False),
              help="SQLite database file (created on first start), or a postgresql:// URL (docs/league.md).")
@click.option("--threads", default=8, show_default=True, type=click.IntRange(1, 256), help="Worker threads.")
@click.option("--synchronous", default="FULL", show_default=True,
              type=click.Choice(["OFF", "NORMAL", "FULL", "EXTRA"], case_sensitive=False),
              help="SQLite synchronous level.")
@click.option("--club-key-file", type=click.Path(dir_okay=False), default=None,
              help="A file holding the club key that creating and importing games need "
                   "(else $KIBITZ_CLUB_KEY; without either, anyone may create and import).")
@click.option("--scorekeeper-threads", default=4, show_default=True, type=click.IntRange(1, 64),
              help="Threads kept for writes and requests with a token (never shared with watchers; /health has one of its own).")
@click.option("--connection-limit", default=4096, show_default=True, type=click.IntRange(16, 1_000_000),
              help="Connections kept open; past it the ones idle longest are closed (docs/crowds.md).")
@click.option("--idle-timeout", default=20.0, show_default=True, type=click.FloatRange(1, 3600),
              help="Seconds a connection may take to send a request (after opening or the last answer).")
@click.option("--create-limit", default=60, show_default=True, type=click.IntRange(0, 1_000_000),
              help="Games one address may create (and import) per minute where there is no club key; "
                   "past it 429 with Retry-After (0: no limit; docs/crowds.md).")
@click.option("--timezone", "timezone", default=None, envvar="KIBITZ_TIMEZONE", metavar="ZONE",
              help="The club's time zone the pages show times in, an IANA name such as Europe/London "
                   "(else $KIBITZ_TIMEZONE, else this computer's zone); the API and exports stay in UTC.")
@click.option("--allowed-host", "allowed_hosts", multiple=True, metavar="NAME",
              help="Another host name this server may be opened under (a DNS name, a proxy's name); repeatable. "
                   "Requests naming any host that is not this machine's are refused (docs/text-and-headers.md).")
def serve(host: str | None, lan: bool, port: int, database: str, threads: int, synchronous: str,
          club_key_file: str | None, scorekeeper_threads: int, connection_limit: int, idle_timeout: float,
          create_limit: int, allowed_hosts: tuple[str, ...], timezone: str | None = None) -> None:
    """Serve the API and the pages (uvicorn, ``service.web.server``), creating the database and its
    tables if needed.

    Refuses a damaged or unreadable database file (``PRAGMA quick_check``) or an unusable club
    key or time zone in one sentence, and says in one line whether creating and importing need
    a club key, and in another the zone the pages show times in (``--timezone``).
    On SIGTERM or SIGINT it finishes the requests in progress, then checkpoints the
    write-ahead log into the database file (``PRAGMA wal_checkpoint(TRUNCATE)``).

    Answers only requests addressed to this machine's own names and addresses and the
    ``--allowed-host`` names (``service.cli.lan.known_hosts``: Flask's ``TRUSTED_HOSTS``); any
    other ``Host`` is a 400 ``host_not_allowed``."""
    from service.storage import admin as store_admin
    from service.storage import backend
    from service.web.app import create_app
    from service.web.server import Limits, open_files_for

    host = host or ("0.0.0.0" if lan else "127.0.0.1")
    key, key_line = _club_key(club_key_file)
    zone = _zone(timezone)
    key_line += "\n" + _zone_line(zone)
    if backend.is_postgres(database):
        _serve_postgres(database, host, port, threads, synchronous, key, key_line, lan, scorekeeper_threads,
                        connection_limit, idle_timeout, create_limit, allowed_hosts, zone)
        return
    problem = store_admin.startup_problem(database)
    if problem is not None:
        raise click.ClickException(_refusal(database, problem))
    try:
        app = create_app({"DATABASE": database, "SYNCHRONOUS": synchronous.upper(), "CLUB_KEY": key, "TIMEZONE": zone})
    except sqlite3.Error as err:
        raise click.ClickException(_refusal(database, f"unusable ({err})")) from err
    except ValueError as err:  # a KIBITZ_* setting that is not a number
        raise click.ClickException(str(err)) from err
    try:
        problem = store_admin.schema_problem(database)
    except sqlite3.Error as err:
        problem = f"unreadable ({err})"
    if problem is not None:
        raise click.ClickException(_refusal(database, problem))
    allowed = open_files_for(connection_limit)
    if allowed < connection_limit:
        click.echo(f"Only {allowed} connections can be kept open (the open-file limit of this process); "
                   "raise it (ulimit -n) to keep more.", err=True)
    limits = Limits(connection_limit=allowed, idle_timeout=idle_timeout, threads=threads,
                    scorekeeper_threads=scorekeeper_threads, create_limit=create_limit)
    def checkpoint() -> None:
        try:
            store_admin.checkpoint(database)
        except sqlite3.Error as err:
            click.echo(f"Stopped; the write-ahead log of {database} could not be checkpointed ({err}): "
                       "it is kept beside the file and read on the next start.", err=True)
        else:
            click.echo(f"Stopped; every event is in {database}.")

    _listen_and_run(app, host, port, limits, database, lan, key_line, checkpoint, allowed_hosts)

def _serve_postgres(url: str, host: str, port: int, threads: int, synchronous: str, key: str | None,
                    key_line: str, lan: bool, scorekeeper_threads: int, connection_limit: int,
                    idle_timeout: float, create_limit: int = 60, allowed_hosts: tuple[str, ...] = (),
                    zone: Any = None) -> None:
    """``kibitz serve --db postgresql://…``: the same server on a PostgreSQL database (its
    tables created or upgraded); the SQLite file checks have no part here."""
    import psycopg

    from service.storage import backend
    from service.web.app import create_app
    from service.web.server import Limits, open_files_for

    shown = backend.shown(url).split("@")[-1]  # never print a password
    try:
        app = create_app({"DATABASE": url, "SYNCHRONOUS": synchronous.upper(), "CLUB_KEY": key, "TIMEZONE": zone})
    except psycopg.Error as err:
        raise click.ClickException(f"Cannot use the PostgreSQL database {shown}: {backend.failure(err, url)}") from err
    except ValueError as err:
        raise click.ClickException(backend.failure(err, url)) from err
    allowed = open_files_for(connection_limit)
    limits = Limits(connection_limit=allowed, idle_timeout=idle_timeout, threads=threads,
                    scorekeeper_threads=scorekeeper_threads, create_limit=create_limit)
    _listen_and_run(app, host, port, limits, shown, lan, key_line,
                    lambda: click.echo(f"Stopped; every event is in {shown}."), allowed_hosts)


def _listen_and_run(app: Flask, host: str, port: int, limits: Any, shown: str, lan: bool, key_line: str,
                    on_stop: Callable[[], None], allowed_hosts: tuple[str, ...] = ()) -> None:
    """Listen on ``host``:``port``, say where (``shown``: the database as it may be printed)
    and serve ``app`` until SIGTERM or SIGINT, then call ``on_stop`` (whatever happened);
    only requests addressed to ``service.cli.lan.known_hosts(host, allowed_hosts)`` are answered.
    Raises ``click.ClickException`` when the port is taken or the host is not this machine's."""
    from service.cli import lan as addresses
    from service.web.server import create_server

    app.config["TRUSTED_HOSTS"] = addresses.known_hosts(host, allowed_hosts)
    try:
        server = create_server(app, host=host, port=port, limits=limits)
    except OSError as err:  # the port is taken, or the host is not an address of this machine
        raise click.ClickException(
            f"Cannot listen on {host}:{port}: {err.strerror or err}. Choose another with --port (or --host)."
        ) from err
    bound = server.effective_port
    app.config["LISTEN_HOST"] = host  # the share dialog says when other devices cannot reach it
    click.echo(f"Kibitz on http://{host}:{bound} (database {shown})")
    if lan:
        _announce_lan(app, bound)
    click.echo(key_line)
    _signalled.clear()
    _serving[:] = [server]
    previous = {sig: signal.signal(sig, _stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        if not _signalled:  # a signal during start-up: stop without serving
            # what start-up built (the modules, the app) lives as long as the process: out of
            # the cyclic collector's walks, which otherwise cross all of it at each full
            # collection (docs/performance.md, "Server CPU per recorded move")
            gc.collect()
            gc.freeze()
            server.run()  # returns once a signal stopped it, after the requests in progress
    except KeyboardInterrupt:
        pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        on_stop()

#: The signals received outside the server's loop (see :func:`_stop`).
_signalled: list[int] = []
#: The server being started or run, which a signal outside its loop stops (see :func:`_stop`).
_serving: list[Any] = []


def _stop(signum: int, _frame: Any) -> None:
    """SIGTERM/SIGINT outside the server's loop, which catches them itself while it runs,
    finishes the requests in progress and hands the signal on here: noted, so that a signal
    during start-up stops ``kibitz serve`` before it serves; the caller then checkpoints. A
    signal that lands after that check and before the server's loop catches signals itself
    asks the server to stop, so that it never serves on regardless."""
    _signalled.append(signum)
    for server in _serving:
        server.stop()


def _refusal(database: str, problem: str) -> str:
    """The one sentence ``kibitz serve`` refuses a database file with: a damaged file is
    restored from a backup, an unreadable one needs its permissions (or its disk) seen to."""
    if problem.startswith("unreadable") or problem.startswith("unusable"):
        return (f"Cannot serve {database}: the database file is {problem}; make sure the user running "
                "kibitz serve can read and write it and its folder (the -wal and -shm files are created "
                "there), or restore it from a backup as README's 'Running a club server' explains.")
    return (f"Cannot serve {database}: the database file is {problem}; restore it from a backup "
            f"(stop, copy the backup made with kibitz backup over it, run kibitz check --db {database}) "
            "as README's 'Running a club server' explains.")


def _club_key(path: str | None) -> tuple[str | None, str]:
    """The club key ``kibitz serve`` uses (from ``--club-key-file``, else ``$KIBITZ_CLUB_KEY``,
    else None) and the one line it says at start-up about it. An unusable key stops the
    command with one sentence (``service.record.club_key.check``)."""
    from service.record import club_key

    try:
        key = club_key.read_file(path) if path is not None else club_key.from_environment()
    except club_key.ClubKeyError as err:
        raise click.ClickException(str(err)) from err
    if key is None:
        return None, ("No club key: anyone who can reach this server can create and import games "
                      f"(set one with --club-key-file PATH or {club_key.ENV}).")
    source = f"the file {path}" if path is not None else club_key.ENV
    return key, f"Club key from {source}: creating and importing games need it; reads stay public."


def _zone(name: str | None) -> Any:
    """The club's zone for ``kibitz serve --timezone NAME`` (``service.clubtime.zone``: this
    computer's without one); a name that is no zone stops the command with one sentence."""
    from service import clubtime

    try:
        return clubtime.zone(name)
    except clubtime.TimeZoneError as err:
        raise click.ClickException(str(err)) from err


def _zone_line(zone: Any) -> str:
    """The line ``kibitz serve`` says at start-up about the zone the pages show times in."""
    from service import clubtime

    return (f"Times on the pages in club time, {clubtime.zone_words(zone)} (choose with --timezone); "
            "the API and exports keep UTC.")


def _announce_lan(app: Flask, port: int) -> None:
    """Print the URLs a tablet on this network can open, and the first one as a QR code."""
    from service.cli import lan

    urls = lan.lan_urls(port)
    if not urls:
        click.echo("No network address other than loopback was found: connect this machine to the club's "
                   f"Wi-Fi and start again. On this machine: http://127.0.0.1:{port}/")
        return
    app.config["SHARE_BASE"] = urls[0].rstrip("/")
    click.echo("Open on a tablet on the same network:")
    for url in urls:
        click.echo(f"  {url}")
    click.echo(lan.terminal_qr(urls[0]), nl=False)


@main.command("init-db")
@db_option()
def init_db(database: str) -> None:
    """Create the database and its tables (or upgrade them); safe to run again."""
    open_database(database).close()
    click.echo(f"Initialised {shown(database)}")


@main.command()
@click.argument("game_id")
@click.option("--hand", type=click.IntRange(0), default=None, help="Only this hand or round.")
@db_option(exists=True)
@click.option("--public", is_flag=True, help="Only what a reader without the game's token may see.")
def replay(game_id: str, hand: int | None, database: str, public: bool) -> None:
    """Print a game's timeline, one step per line, for an 80-column terminal."""
    import engine
    from replays import timeline
    from service.storage import backend as store

    db = open_database(database, migrate=False, existing=True)
    try:
        row = store.get_game(db, game_id)
        if row is None or row["game"] not in engine.GAMES:
            raise click.ClickException(f"There is no game {game_id!r} in {shown(database)}.")
        events = store.events(db, game_id)
    finally:
        db.close()
    rules = engine.GAMES[row["game"]]
    steps = timeline.timeline(rules, events, full=not public)
    if hand is not None:
        steps = timeline.for_hand(steps, hand)
        if not steps:
            raise click.ClickException(f"Game {game_id} has no {rules.HAND_WORD} {hand}.")
    title = " · ".join(str(part) for part in (
        row["title"] or row["game"], ", ".join(row["players"]), row["visibility"], row["status"],
        f"version {row['version']}") if part)
    for line in timeline.render(title, steps, word=rules.HAND_WORD):
        click.echo(line)


@main.command()
@click.argument("dest", type=click.Path(dir_okay=False))
@db_option("SQLite database file to back up (may be in use), or a postgresql:// URL (backed up with pg_dump).")
@click.option("--force", is_flag=True, help="Replace DEST if it exists.")
def backup(dest: str, database: str, force: bool) -> None:
    """Copy the database, while it is in use, into DEST: one consistent, self-contained file.

    A SQLite database becomes a SQLite file; a PostgreSQL one (--db postgresql://…) a pg_dump
    custom-format archive of one snapshot, restored with pg_restore (docs/league.md)."""
    from service.storage import admin as store_admin
    from service.storage import backend as store

    try:
        copied = store.whole_database(database).backup(store.database_path(database), dest, force=force)
    except store_admin.BackupError as err:
        raise click.ClickException(str(err)) from err
    click.echo(f"Backed up {shown(database)} to {copied.path}: {copied.games} games, {copied.events} events, "
               f"{copied.bytes:,} bytes.")
    if store.is_postgres(database):
        click.echo(f"{copied.path} is a pg_dump custom-format archive: restore it into an empty database with "
                   f"pg_restore --no-owner --dbname postgresql://USER@HOST:PORT/DATABASE {copied.path}")


@main.command()
@db_option("SQLite database file to check (opened read-only), or a postgresql:// URL (read in one "
           "read-only transaction).")
def check(database: str) -> None:
    """Verify a database: SQLite's integrity check (on PostgreSQL: the events table's primary key,
    unique idempotency keys and immutability triggers), every game's events numbered 1..n, every game
    rebuilt through its rules, every game's hash chain recomputed (the first event that does
    not match named; a deleted last event found by its record_hash). Prints each problem;
    exit status 1 when there is one."""
    from service.record import checking

    report = checking.check(database)
    for problem in report.problems:
        click.echo(str(problem))
    counted = f"{report.games} games, {report.events} events"
    if report.ok:
        click.echo(f"{shown(database)}: no problems ({counted} checked).")
        return
    click.echo(f"{shown(database)}: {len(report.problems)} problem(s) ({counted} checked).", err=True)
    raise SystemExit(1)


@main.command()
@click.argument("game_id")
@click.argument("fingerprint")
@db_option("SQLite database file (opened read-only), or a postgresql:// URL.")
def verify(game_id: str, fingerprint: str, database: str) -> None:
    """Prove GAME_ID's record against a FINGERPRINT noted earlier (the 16 hex digits the game
    page shows, or at least 12 of them; docs/tamper-evidence.md). The game is checked as
    kibitz check does first.

    Exit status 0: the fingerprint matches the record as it stands now, or as it stood after
    an earlier event (the sentence says which); 1: it matches no moment of the record; 2: not
    a fingerprint, or no such game or database; 3: the game's record is damaged (each problem
    printed, as kibitz check names it).
    """
    from replays import chain
    from service.record import checking

    normal = chain.normal_fingerprint(fingerprint)
    if normal is None:
        click.echo(f"{fingerprint!r} is not a fingerprint: give the {chain.FINGERPRINT_LENGTH} hex digits "
                   f"(0-9, a-f) the game page shows (at least {chain.SHORTEST_FINGERPRINT} of them).", err=True)
        raise SystemExit(2)
    found = checking.verify(database, game_id, normal)
    if found.verdict is None:
        for problem in found.problems:
            click.echo(str(problem), err=found.problems[0].game_id is None)
        if found.problems and found.problems[0].game_id is None:
            raise SystemExit(2)
        click.echo(f"The record of game {game_id} is damaged: it cannot be proved against a fingerprint. "
                   "Run kibitz check and restore a backup.", err=True)
        raise SystemExit(3)
    click.echo(found.verdict.line)
    raise SystemExit(0 if found.verdict.seq is not None else 1)


main.add_command(export_games)
main.add_command(import_games)
main.add_command(token)
main.add_command(copy)


if __name__ == "__main__":
    main()
