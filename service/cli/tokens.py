"""``kibitz token``: a new write token for a game, for whoever runs the club's server.

A token is shown once, when its game is created; a tablet that lost it (a cleared browser, a
new device) gets a new one here. The command works on the database file itself, so only
someone who can run programs on the server machine can use it: that is the permission. The
new token is printed with the table page's share link (``/table/<id>#token=<token>``, the
fragment the pages read, ``service.web.pages.share``) and, on a terminal, its QR code. Without
``--url`` the link's address is a guess (this machine's LAN address, which a server started
without ``--lan`` does not listen on), and a line under it says so.
``--revoke`` first revokes every token the game has, so that only the new one works.
"""

from __future__ import annotations

import sqlite3
import sys
from typing import Any

import click
import psycopg

from service.cli.transfer import db_option, shown
from service.record import writes
from service.record.writer import Writer
from service.storage import backend as store
from service.storage import migrations, postgres

DEFAULT_DB = "./kibitz.db"
DEFAULT_PORT = 8000


#: Said under a share link built on a guessed LAN address: whether a tablet can open it
#: depends on how the server was started, which ``kibitz token`` cannot see (the words of the
#: table page's Share panel, ``service.web.pages.share_warning``).
LAN_GUESS = ("This link uses this machine's network address: it works only when the server was started for the "
             "club with kibitz serve --lan (it then listens on the club's network); otherwise give --url with "
             "the address the tablets open.")
#: Said under a share link built on loopback (this machine has no LAN address).
LOOPBACK_GUESS = ("This link names this computer's own address, which other devices cannot open: give --url with "
                  "the address the tablets open.")


def share_base(url: str | None, port: int) -> tuple[str, str | None]:
    """The origin of the share link and what to say about it: ``url`` when given (nothing to
    say), else this machine's first LAN address on ``port`` (what ``kibitz serve --lan``
    prints first; :data:`LAN_GUESS`), else loopback (:data:`LOOPBACK_GUESS`)."""
    if url:
        return url.rstrip("/"), None
    from service.cli import lan

    urls = lan.lan_urls(port)
    if urls:
        return urls[0].rstrip("/"), LAN_GUESS
    return f"http://127.0.0.1:{port}", LOOPBACK_GUESS


@click.command("token")
@click.argument("game_id")
@db_option("SQLite database file (the server's), or a postgresql:// URL (docs/league.md)", exists=True)
@click.option("--revoke", is_flag=True, help="Revoke every token the game has first: only the new one works.")
@click.option("--url", default=None,
              help="The server's address as a tablet opens it, for the share link (e.g. http://192.168.1.20:8000). "
                   "[default: this machine's first LAN address on --port]")
@click.option("--port", default=DEFAULT_PORT, show_default=True, type=click.IntRange(1, 65535),
              help="The server's port, for the default share link.")
@click.option("--qr/--no-qr", default=None, help="Print the share link's QR code.  [default: on a terminal]")
def token(game_id: str, database: str, revoke: bool, url: str | None, port: int, qr: bool | None) -> None:
    """Issue a new write token for GAME_ID and print it with the table page's share link.

    The game keeps its other tokens (one per device) unless --revoke is given. Run it on the
    server machine (or, on PostgreSQL, anywhere that can reach the database): it writes to the
    database directly, next to the running servers.
    """
    db: Any = None
    try:
        try:
            db = store.connect(database)
            reason = store.not_kibitz(db)
        except (sqlite3.Error, psycopg.Error) as err:
            raise click.ClickException(f"No token was issued: cannot open the database {shown(database)}: "
                                       f"{store.failure(err, database)}") from err
        if reason is not None:
            raise click.ClickException(f"No token was issued: {shown(database)} is not a Kibitz database ({reason}).")
        if store.is_postgres(db):
            postgres.migrate(db)
        else:
            migrations.migrate(db)
        row = store.get_game(db, game_id)
        if row is None:
            raise click.ClickException(f"There is no game {game_id!r} in {shown(database)}.")
        issued = writes.issue_token(Writer(database, "FULL"), row["id"], revoke=revoke)
    except (sqlite3.Error, psycopg.Error, store.StorageUnavailable) as err:
        fault = store.fault(err)
        if fault is None or fault.kind == "cannot_open":  # the driver's own words name the cause
            cause = err.__cause__ if isinstance(err, store.StorageUnavailable) and err.__cause__ else err
            raise click.ClickException(f"No token was issued: {store.failure(cause, database)}") from err
        raise click.ClickException(f"No token was issued: {fault.detail}") from err
    finally:
        if db is not None:
            db.close()
    base, guessed = share_base(url, port)
    link = f"{base}/table/{row['id']}#token={issued.token}"
    described = " · ".join(str(part) for part in (row["title"], row["game"], ", ".join(row["players"])) if part)
    click.echo(f"New token for game {row['id']} ({described}):")
    click.echo(f"  {issued.token}")
    click.echo(f"Share link (opens the table page with the token): {link}")
    if guessed is not None:
        click.echo(guessed)
    if qr if qr is not None else sys.stdout.isatty():
        from service.cli import lan

        click.echo(lan.terminal_qr(link), nl=False)
    if revoke:
        click.echo(f"Revoked {issued.revoked} older token{'s' if issued.revoked != 1 else ''}: "
                   "only this one works now.")
    else:
        others = issued.live - 1
        click.echo(f"The game's {others} other token{'s' if others != 1 else ''} still work"
                   f"{'s' if others == 1 else ''} (--revoke makes only the new one work).")
