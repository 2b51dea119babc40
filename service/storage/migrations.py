"""The schema of the event store: every migration, in order, and :func:`migrate`.

Each migration is a function of a sqlite-utils ``Database`` registered on
:data:`MIGRATIONS` (sqlite-utils' ``Migrations``, which records what it applied in its own
table). Two of them fold every stored game once to fill a projection
(``service.storage.history.backfill``, ``service.storage.forks.backfill``): they live here, above the
store and the projections, so that ``service.storage.sqlite`` imports nothing of the service and no
import goes in a circle. The tables themselves are described in ``service.storage.sqlite``.
"""

from __future__ import annotations

import json

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

from replays import chain
from schemas.common import scrub
from service.storage import forks, history
from service.storage import sqlite as store

MIGRATIONS = Migrations("kibitz")


@MIGRATIONS(name="0001_initial")
def _initial(db: Database) -> None:
    db.table("games").create(
        {
            "id": str,
            "game": str,
            "title": str,
            "players": str,
            "player_keys": str,
            "visibility": str,
            "options": str,
            "token_hash": str,
            "created_at": str,
            "version": int,
            "status": str,
        },
        pk="id",
        not_null={"game", "players", "player_keys", "visibility", "options", "token_hash", "created_at", "version"},
    )
    db.table("games").create_index(["created_at"])
    db.table("events").create(
        {
            "game_id": str,
            "seq": int,
            "type": str,
            "data": str,
            "recorded_at": str,
            "at": str,
            "idempotency_key": str,
        },
        pk=("game_id", "seq"),
        not_null={"game_id", "seq", "type", "data", "recorded_at"},
    )
    db.execute(
        "CREATE UNIQUE INDEX events_idempotency ON events (game_id, idempotency_key) "
        "WHERE idempotency_key IS NOT NULL"
    )
    for verb in ("UPDATE", "DELETE"):
        db.execute(
            f"CREATE TRIGGER events_no_{verb.lower()} BEFORE {verb} ON events "
            f"BEGIN SELECT RAISE(ABORT, 'events are immutable: {verb} refused'); END"
        )
    db.table("idempotency").create(
        {"game_id": str, "key": str, "request_hash": str, "status": int, "response": str, "created_at": str},
        pk=("game_id", "key"),
        not_null={"game_id", "key", "request_hash", "status", "response"},
    )


@MIGRATIONS(name="0002_player_results")
def _player_results(db: Database) -> None:
    """Match histories (issue 7): one row per player per game, kept by ``service.storage.history``;
    ``games.imported_at`` for games created by ``POST /games/import``. Games stored before
    this migration are folded once to fill the table."""
    db.table("games").add_column("imported_at", str)
    db.table("player_results").create(
        {
            "game_id": str,
            "player_key": str,
            "name": str,
            "seat": int,
            "game": str,
            "created_at": str,
            "status": str,
            "result": str,
            "score": int,
            "unit": str,
            "hands": int,
            "tricks_won": int,
            "fools": int,
            "knocks": int,
            "stops": int,
        },
        pk=("game_id", "player_key"),
        not_null={"game_id", "player_key", "name", "seat", "game", "created_at", "status", "result"},
    )
    db.table("player_results").create_index(["player_key", "created_at"])
    history.backfill(db)


@MIGRATIONS(name="0003_forked_from")
def _forked_from(db: Database) -> None:
    """The fork relation: a what-if game names the game and seq it branched off from, so
    lists and match histories can leave forks out."""
    games = db.table("games")
    games.add_column("forked_from_game", str)
    games.add_column("forked_from_seq", int)
    games.create_index(["forked_from_game"])


@MIGRATIONS(name="0004_fork_lineage")
def _fork_lineage(db: Database) -> None:
    """Secrecy along fork chains of any length (issue 10): ``games.secret_from_hand`` on every
    game (the first hand not over, NULL once all are), kept by every write, and
    ``games.fork_lineage`` on a fork (JSON ``[[ancestor id, last hand shared], …]``), what
    it inherits from the games up its chain (``service.storage.forks``). Stored games are folded
    once to fill both."""
    games = db.table("games")
    games.add_column("secret_from_hand", int)
    games.add_column("fork_lineage", str)
    forks.backfill(db)


@MIGRATIONS(name="0005_import_source")
def _import_source(db: Database) -> None:
    """``games.source_game``: for an imported game, the id of the game its export was made
    from (the export's ``game.id``), so that importing the same game again is refused
    (api.md, 409 ``already_imported``). Imports stored before this migration have none."""
    games = db.table("games")
    games.add_column("source_game", str)
    games.create_index(["source_game"])


@MIGRATIONS(name="0006_tokens")
def _tokens(db: Database) -> None:
    """Several write tokens per game (issue 13): the ``tokens`` table, one row per token
    (the game and the token's SHA-256, the key; when it was issued; when it was revoked, or
    NULL while it works). Each game's single ``games.token_hash`` becomes its first token, issued when
    the game was created; the column is then dropped, so a token lives in one place."""
    db.table("tokens").create(
        {"game_id": str, "token_hash": str, "created_at": str, "revoked_at": str},
        pk=("game_id", "token_hash"),
        not_null={"token_hash", "game_id", "created_at"},
    )
    db.execute("INSERT INTO tokens (token_hash, game_id, created_at) SELECT token_hash, id, created_at FROM games")
    db.execute("ALTER TABLE games DROP COLUMN token_hash")


@MIGRATIONS(name="0007_player_keys_nfc")
def _player_keys_nfc(db: Database) -> None:
    """Match histories compare names as api.md's "Text people type" says (NFC, case-folded,
    without joiners): every stored row's ``player_key`` recomputed from its ``name``
    (``service.storage.history.seat_keys``, game by game in seat order); names stay as stored."""
    rows = db.execute("SELECT game_id, seat, name, player_key FROM player_results ORDER BY game_id, seat").fetchall()
    by_game: dict[str, list[tuple[int, str, str]]] = {}
    for game_id, seat, name, player_key in rows:
        by_game.setdefault(game_id, []).append((seat, name, player_key))
    for game_id, seats in by_game.items():
        keys = history.seat_keys([name for _, name, _ in seats])
        if keys == [old for _, _, old in seats]:
            continue
        db.execute("UPDATE player_results SET player_key = ? || seat WHERE game_id = ?", ["\x00", game_id])
        for (seat, _, _), new in zip(seats, keys, strict=True):
            db.execute("UPDATE player_results SET player_key = ? WHERE game_id = ? AND seat = ?", [new, game_id, seat])


@MIGRATIONS(name="0008_hash_chain")
def _hash_chain(db: Database) -> None:
    """The tamper-evident record (api.md, "A tamper-evident record"): ``events.salt`` (a
    random 16 bytes, hex) and ``events.hash`` (the chain, ``replays.chain``) on every event,
    ``games.record_hash`` (the last event's hash) on every game. The chains of games stored
    before are computed once from their stored events: the immutability triggers are lifted
    for that inside this migration's transaction and put back before it commits, so no
    other connection ever sees the log without them."""
    db.table("events").add_column("salt", str)
    db.table("events").add_column("hash", str)
    db.table("games").add_column("record_hash", str)
    db.execute("DROP TRIGGER events_no_update")
    for game_id in store.game_ids(db):
        previous = chain.GENESIS
        for row in db.execute("SELECT seq, type, data, recorded_at, at FROM events WHERE game_id = ? ORDER BY seq",
                              [game_id]).fetchall():
            seq, kind, data, recorded_at, at = row
            salt = chain.new_salt()
            try:
                decoded = scrub(json.loads(data))  # as every read decodes it (store._decode)
            except (TypeError, ValueError):  # damaged already: left without a chain, for kibitz check to name
                break
            previous = chain.event_hash(previous, {"seq": seq, "type": kind, "data": decoded,
                                                   "recorded_at": recorded_at, "at": at, "salt": salt})
            db.execute("UPDATE events SET salt = ?, hash = ? WHERE game_id = ? AND seq = ?",
                       [salt, previous, game_id, seq])
        else:
            db.execute("UPDATE games SET record_hash = ? WHERE id = ?", [previous, game_id])
    db.execute(f"CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN SELECT RAISE(ABORT, "
               f"'{IMMUTABLE.format(verb='UPDATE')}'); END")


@MIGRATIONS(name="0009_stored_events")
def _stored_events(db: Database) -> None:
    """``games.stored_events``: how many events of the game are stored, kept by two triggers
    on ``events`` (an insert adds one, a delete takes one away), so that a write checks the
    log for a gap in the one read of its head (``store.head``) instead of counting the game's
    events, which cost more the longer the game (issue 23: the append at 10,000 events).
    Games stored before are counted once here."""
    db.execute("ALTER TABLE games ADD COLUMN stored_events INTEGER NOT NULL DEFAULT 0")
    db.execute("UPDATE games SET stored_events = (SELECT count(*) FROM events WHERE events.game_id = games.id)")
    db.execute("CREATE TRIGGER events_counted_in AFTER INSERT ON events BEGIN "
               "UPDATE games SET stored_events = stored_events + 1 WHERE id = NEW.game_id; END")
    db.execute("CREATE TRIGGER events_counted_out AFTER DELETE ON events BEGIN "
               "UPDATE games SET stored_events = stored_events - 1 WHERE id = OLD.game_id; END")


@MIGRATIONS(name="0010_sealed_events")
def _sealed_events(db: Database) -> None:
    """``INSERT OR REPLACE`` (and ``REPLACE INTO``) of an event already stored is refused:
    SQLite resolves the clash by deleting the stored row without firing ``events_no_delete``
    (delete triggers fire there only with ``recursive_triggers``), so without this trigger
    an event could be changed with no trigger dropped, no change of the schema that a running
    server watches (docs/tamper-evidence.md). Kibitz never inserts a seq that is stored."""
    db.execute(f"CREATE TRIGGER events_no_replace BEFORE INSERT ON events WHEN EXISTS (SELECT 1 FROM events "
               f"WHERE game_id = NEW.game_id AND seq = NEW.seq) BEGIN SELECT RAISE(ABORT, "
               f"'{IMMUTABLE.format(verb='REPLACE')}'); END")


@MIGRATIONS(name="0011_results_seal")
def _results_seal(db: Database) -> None:
    """``results_seal``: one row per game whose ``player_results`` rows were ever written,
    counting every insert, update and delete of them (triggers on ``player_results``), and
    itself refusing any change but counting up by one (triggers on ``results_seal``). Its sum
    (``store.results_stamp``) therefore grows with every change of the match histories,
    whoever made it, and cannot be set back without dropping a trigger (a change of the schema,
    which a running server watches): a server that has compared every row it counts with the
    logs at one sum need not read them again until the sum moves (``service.record.projections``,
    docs/tamper-evidence.md)."""
    db.execute("CREATE TABLE results_seal (game_id TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL)")
    for verb, sides in (("INSERT", ("NEW",)), ("UPDATE", ("OLD", "NEW")), ("DELETE", ("OLD",))):
        counted = " ".join(
            f"INSERT INTO results_seal (game_id, n) SELECT {side}.game_id, 0 WHERE NOT EXISTS (SELECT 1 FROM "
            f"results_seal WHERE game_id = {side}.game_id); "
            f"UPDATE results_seal SET n = n + 1 WHERE game_id = {side}.game_id;" for side in sides)
        db.execute(f"CREATE TRIGGER {store.RESULTS_TRIGGERS[verb]} AFTER {verb} ON player_results BEGIN {counted} END")
    db.execute(f"CREATE TRIGGER {store.SEAL_TRIGGERS['INSERT']} BEFORE INSERT ON results_seal WHEN NEW.n IS NOT 0 OR "
               "EXISTS (SELECT 1 FROM results_seal WHERE game_id = NEW.game_id) BEGIN SELECT RAISE(ABORT, "
               f"'{store.SEALED.format(verb='INSERT')}'); END")
    db.execute(f"CREATE TRIGGER {store.SEAL_TRIGGERS['UPDATE']} BEFORE UPDATE ON results_seal WHEN NEW.n IS NOT OLD.n + 1 "
               f"OR NEW.game_id IS NOT OLD.game_id BEGIN SELECT RAISE(ABORT, '{store.SEALED.format(verb='UPDATE')}'); END")
    db.execute(f"CREATE TRIGGER {store.SEAL_TRIGGERS['DELETE']} BEFORE DELETE ON results_seal BEGIN SELECT RAISE(ABORT, "
               f"'{store.SEALED.format(verb='DELETE')}'); END")


#: The message of the triggers that make SQLite refuse to change a stored event.
IMMUTABLE = "events are immutable: {verb} refused"


def migrate(db: Database) -> None:
    """Create or upgrade the tables; safe to call from several processes at once.

    Takes the write lock only when a migration is pending, so a database that is up to date
    can be opened (and read) even where it cannot be written now."""
    if db.table(MIGRATIONS.migrations_table).exists() and not MIGRATIONS.pending(db):
        return
    with store.immediate(db):
        MIGRATIONS.apply(db)
