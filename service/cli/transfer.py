"""``kibitz export`` and ``kibitz import``: games to and from files, straight on the database.

The command line is the scorekeeper's: exports are the full view (every card recorded).
``kibitz import`` re-validates every file exactly as ``POST /games/import`` does and ends
with a summary of what was imported and what was refused, and why.
"""

from __future__ import annotations

import io
import json
import sqlite3
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import psycopg
from click.decorators import FC

from replays import export
from service.problems import ApiError
from service.record import transfer, writes
from service.record.writer import Writer
from service.storage import backend as store
from service.storage import migrations, postgres

DEFAULT_DB = "./kibitz.db"
#: From this many files on, ``kibitz import`` shows a progress bar.
PROGRESS_FROM = 5

#: What ``--db`` says of itself in every command's help.
DB_HELP = "SQLite database file, or a postgresql:// URL (docs/league.md)"


def db_option(what: str = DB_HELP, *, exists: bool = False) -> Callable[[FC], FC]:
    """The ``--db`` option of a command (``$KIBITZ_DB`` too): a ``postgresql://`` URL as it is,
    else a SQLite file's path (``click.Path``: with ``exists``, a missing file is a usage error)."""
    path = click.Path(dir_okay=False, exists=exists, readable=False)

    def checked(ctx: click.Context, param: click.Parameter, value: str) -> str:
        return value if store.is_postgres(value) else str(path.convert(value, param, ctx))

    return click.option("--db", "database", default=DEFAULT_DB, show_default=True, envvar="KIBITZ_DB",
                        metavar="PATH|URL", callback=checked, help=what)


def shown(database: str) -> str:
    """``database`` as the commands print it: a URL without its password."""
    return store.whole_database(database).shown(database)


def open_database(database: str, *, migrate: bool = True, existing: bool = False) -> Any:
    """A connection to ``database`` (a SQLite file, created if missing, or a ``postgresql://``
    URL), its tables created or upgraded unless ``migrate`` is false. A database that cannot be opened or reached stops the
    command with one sentence (``click.ClickException``), never a traceback, and never with a
    password (``store.shown``, ``store.failure``); so does one without the Kibitz tables when
    ``existing`` is true (a command that reads games it holds: "… is not a Kibitz database (no
    games, events, idempotency table).")."""
    db = None
    try:
        db = store.connect(database)
        reason = store.not_kibitz(db) if existing else None
        if reason is not None:
            db.close()
            raise click.ClickException(f"{shown(database)} is not a Kibitz database ({reason}).")
        if not migrate:
            pass
        elif store.is_postgres(db):
            postgres.migrate(db)
        else:
            migrations.migrate(db)
    except (sqlite3.Error, psycopg.Error, store.StorageUnavailable) as err:
        if db is not None:
            db.close()
        raise click.ClickException(f"Cannot open the database {shown(database)}: {store.failure(err, database)}") from err
    return db


_DB_OPTION = db_option()


@click.command("export")
@click.argument("game_id", required=False)
@click.option("--format", "fmt", default="json", show_default=True, type=click.Choice(export.FORMATS),
              help="json (what import takes), jsonl, csv or text.")
@click.option("--all", "directory", type=click.Path(file_okay=False), default=None,
              help="Export every game into this directory, one <id>.<ext> file each.")
@_DB_OPTION
def export_games(game_id: str | None, fmt: str, directory: str | None, database: str) -> None:
    """Export GAME_ID to standard output, or every game with --all DIR."""
    if (game_id is None) == (directory is None):
        raise click.UsageError("Give a GAME_ID or --all DIR (not both).")
    db = open_database(database, existing=True)
    try:
        if game_id is not None:
            try:
                loaded = transfer.load_game(db, game_id)
            except store.RecordDamaged as err:
                raise click.ClickException(f"{err}: nothing exported (run kibitz check).") from err
            if loaded is None:
                raise click.ClickException(f"There is no game {game_id!r} in {shown(database)}.")
            click.echo(transfer.render(fmt, *loaded[:2], loaded[2], full=True), nl=False)
            return
        assert directory is not None
        target = Path(directory)
        target.mkdir(parents=True, exist_ok=True)
        ids = store.game_ids(db)
        written = 0
        with click.progressbar(ids, label="Exporting", show_pos=True, file=None) as bar:
            for each in bar:
                try:
                    loaded = transfer.load_game(db, each)
                except store.RecordDamaged as err:  # the sound games are exported all the same
                    click.echo(f"\n{err}: not exported (run kibitz check).", err=True)
                    continue
                if loaded is None:
                    continue
                text = transfer.render(fmt, *loaded[:2], loaded[2], full=True)
                (target / f"{each}.{export.EXTENSIONS[fmt]}").write_text(text, encoding="utf-8")
                written += 1
        click.echo(f"Exported {written} game{'s' if written != 1 else ''} to {target} ({fmt}).")
    finally:
        db.close()


@click.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@_DB_OPTION
def import_games(files: tuple[str, ...], database: str) -> None:
    """Import json exports as new games, re-validating every event through the rules.

    A zip (a night's games from ``GET /games/export`` or the home page) imports each of its
    ``.json`` members, named ``night.zip:member.json``. Prints each new game's id and token;
    exits with status 1 if any file (or member) was refused.
    """
    db = open_database(database)
    imported: list[tuple[str, str, str]] = []
    refused: list[tuple[str, str]] = []
    try:
        writer = Writer(database, "FULL")
        documents = _documents(files, refused)
        with click.progressbar(documents, label="Importing", show_pos=True,
                               file=None if len(documents) >= PROGRESS_FROM else io.StringIO()) as bar:
            for name, doc in bar:
                try:
                    done = writes.import_game(writer, None, doc)
                except ApiError as err:
                    refused.append((name, _reason(err)))
                    continue
                imported.append((name, done.id, done.token))
    finally:
        db.close()
    for name, game_id, token in imported:
        click.echo(f"imported {name}: game {game_id} token {token}")
    click.echo(f"{len(imported)} imported, {len(refused)} refused.")
    for name, why in refused:
        click.echo(f"refused {name}: {why}")
    if refused:
        raise SystemExit(1)


def _documents(files: tuple[str, ...], refused: list[tuple[str, str]]) -> list[tuple[str, Any]]:
    """The export documents in ``files``, each as ``(name, parsed JSON)``: a json file as it
    is, a zip as its ``.json`` members (``file.zip:member.json``); what cannot be read or
    parsed goes to ``refused`` with the reason."""
    found: list[tuple[str, Any]] = []
    for name in files:
        try:
            data = Path(name).read_bytes()
        except OSError as err:
            refused.append((name, f"not readable ({err.strerror or err})"))
            continue
        if zipfile.is_zipfile(io.BytesIO(data)):
            try:
                members = transfer.archived_documents(data)
            except (zipfile.BadZipFile, OSError) as err:
                refused.append((name, f"not a readable zip ({str(err)[:120]})"))
                continue
            if not members:
                refused.append((name, "a zip without any .json export in it"))
            for member, doc in members:
                if isinstance(doc, ValueError):
                    refused.append((f"{name}:{member}", f"not a JSON file ({doc})"))
                else:
                    found.append((f"{name}:{member}", doc))
            continue
        try:
            found.append((name, json.loads(data.decode("utf-8"))))
        except (UnicodeDecodeError, ValueError) as err:
            refused.append((name, f"not a JSON file ({str(err).splitlines()[0][:120]})"))
    return found


def _reason(err: ApiError) -> str:
    if err.code == "import_invalid":
        return f"import_invalid at event {err.extra['seq']} ({err.extra['rule_code']}): {err.extra['rule_message']}"
    fields = "; ".join(f"{field}: {' '.join(messages)}" for field, messages in (err.errors or {}).items())
    return f"{err.code}: {err.detail}" + (f" ({fields})" if fields else "")
