"""``kibitz copy SRC DST``: a club's whole history from one database into another
(``service.record.copying``; docs/league.md, "Moving a club's history").

SRC and DST are each a SQLite file, a ``sqlite:`` URL or a ``postgresql://`` URL. SRC is
opened read-only; DST's tables are created or migrated first. Each game is re-validated and
copied in a transaction of its own, with a progress bar on a terminal; then every game is
compared on both sides. The command prints one line for each game refused or differing and
a summary, and exits with status 1 when any game was refused or differs.
"""

from __future__ import annotations

import click

from service.record import copying
from service.storage import backend as store
from service.storage.interface import Connection


@click.command("copy")
@click.argument("src")
@click.argument("dst")
def copy(src: str, dst: str) -> None:
    """Copy every game of SRC into DST, keeping ids, times, tokens, salts and hashes.

    SRC and DST are SQLite files (or sqlite: URLs) or postgresql:// URLs. Each game is
    re-validated through its rules and copied in one transaction; a game already in DST
    and equal there is skipped (run it again after an interruption to finish), one that
    differs there is reported and left alone. Ends by comparing every game on both sides
    (stored rows, event hashes, export documents). Exits with status 1 when any game was
    refused or differs.
    """
    if src == dst or copying.same_files(src, dst):
        raise click.UsageError("SRC and DST are the same database.")
    try:
        source = copying.open_source(src)
    except copying.CopyError as err:
        raise click.ClickException(str(err)) from err
    try:
        try:
            target = copying.open_destination(dst, source)
        except copying.SameDatabase as err:
            raise click.UsageError(str(err)) from err
        except copying.CopyError as err:
            raise click.ClickException(str(err)) from err
        try:
            _run(source, target)
        finally:
            target.close()
    finally:
        source.close()


def _run(source: Connection, target: Connection) -> None:
    summary = copying.Summary()
    ids = copying.game_ids(source)
    with click.progressbar(ids, label="Copying", show_pos=True, show_eta=True) as bar:
        for game_id in bar:
            try:
                summary.outcomes.append(copying.copy_game(source, target, game_id))
            except Exception as err:
                fault = store.fault(err)
                if fault is None:
                    raise
                done, already = len(summary.of("copied")), len(summary.of("skipped"))
                raise click.ClickException(
                    f"Stopped at game {game_id} ({ids.index(game_id) + 1} of {len(ids)}): {fault.detail} "
                    f"Games copied before it stay in DST ({done} now, {already} already there): run the same "
                    "command again to finish.") from err
    there = [outcome.game_id for outcome in summary.outcomes if outcome.kind in ("copied", "skipped")]
    unequal: list[tuple[str, str]] = []
    with click.progressbar(there, label="Verifying", show_pos=True) as bar:
        for game_id in bar:
            what = copying.verify(source, target, game_id)
            if what is not None:
                unequal.append((game_id, what))
    for outcome in summary.of("refused"):
        click.echo(f"refused {outcome.game_id}: {outcome.why}")
    for outcome in summary.of("differs"):
        click.echo(f"differs {outcome.game_id}: {outcome.why}")
    for game_id, what in unequal:
        click.echo(f"differs {game_id} after the copy: {what}")
    click.echo(copying.summary_line(summary, len(summary.of("differs")) + len(unequal)))
    if summary.of("refused") or summary.of("differs") or unequal:
        raise SystemExit(1)
