"""``kibitz export`` and ``kibitz import``: games to and from files, straight on the database.

The command line is the scorekeeper's: exports are the full view (every card recorded).
``kibitz import`` re-validates every file exactly as ``POST /games/import`` does and ends
with a summary of what was imported and what was refused, and why.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import click

from replays import export
from service import transfer, writes
from service.problems import ApiError
from service.storage import backend as store
from service.storage import migrations
from service.writer import GroupCommitter

DEFAULT_DB = "./kibitz.db"
#: From this many files on, ``kibitz import`` shows a progress bar.
PROGRESS_FROM = 5

_DB_OPTION = click.option("--db", "database", default=DEFAULT_DB, show_default=True, envvar="KIBITZ_DB",
                          type=click.Path(dir_okay=False), help="SQLite database file.")


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
    db = store.connect(database)
    try:
        migrations.migrate(db)
        if game_id is not None:
            try:
                loaded = transfer.load_game(db, game_id)
            except store.RecordDamaged as err:
                raise click.ClickException(f"{err}: nothing exported (run kibitz check).") from err
            if loaded is None:
                raise click.ClickException(f"There is no game {game_id!r} in {database}.")
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

    Prints each new game's id and token; exits with status 1 if any file was refused.
    """
    db = store.connect(database)
    imported: list[tuple[str, str, str]] = []
    refused: list[tuple[str, str]] = []
    try:
        migrations.migrate(db)
        committer = GroupCommitter(database, "FULL")
        with click.progressbar(files, label="Importing", show_pos=True,
                               file=None if len(files) >= PROGRESS_FROM else io.StringIO()) as bar:
            for name in bar:
                try:
                    doc = json.loads(Path(name).read_text(encoding="utf-8"))
                except (OSError, UnicodeDecodeError, ValueError) as err:
                    refused.append((name, f"not a JSON file ({str(err).splitlines()[0][:120]})"))
                    continue
                try:
                    done = writes.import_game(committer, None, doc)
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


def _reason(err: ApiError) -> str:
    if err.code == "import_invalid":
        return f"import_invalid at event {err.extra['seq']} ({err.extra['rule_code']}): {err.extra['rule_message']}"
    fields = "; ".join(f"{field}: {' '.join(messages)}" for field, messages in (err.errors or {}).items())
    return f"{err.code}: {err.detail}" + (f" ({fields})" if fields else "")
