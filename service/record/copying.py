"""Moving a club's whole history from one database to another (``kibitz copy SRC DST``).

Either side is a SQLite file (or ``sqlite:`` URL) or a ``postgresql://`` URL; everything
goes through the storage interface (``service.storage.backend``), so every pair of backends
is the same code. Each game of SRC is:

1. read whole, in one read transaction: its ``games`` row, every event (with its salt, hash
   and ``Idempotency-Key``), every write token (hashed, revoked ones with when), every
   stored first answer of an ``Idempotency-Key`` and its match-history rows
   (:class:`StoredGame`);
2. re-validated as the service rebuilds a game on every read (``service.record.cache.verified``
   and ``agrees``): numbered without a gap, each hash following the one before, the last
   the row's ``record_hash``, every event of a type its game knows, folding through its
   rules to the row's status. A game that fails is *refused*, with the reason, and the
   others go on;
3. written into DST in one transaction of its own: the row with its id and times, each
   event appended with its own salt (``append`` recomputes the hash, which must be the
   stored one), the tokens, the fork lineage, the import's source and time, the stored
   answers, and the match-history rows rebuilt from the fold (``service.storage.history.refresh``);
   then DST's copy is read back inside the transaction and must equal SRC's in every field,
   or the transaction is rolled back and the game refused: a game is never half copied.

A game already in DST is *skipped* when it is equal there in every field (a second run after
an interruption finishes the rest), and reported as *differing*, never overwritten, when it
is not. :func:`verify` then compares each game on both sides once more, after the commits:
the stored rows, the event hashes and the ``kibitz export`` JSON document.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

import engine
from service.record import transfer
from service.record.cache import agrees, fixed_fields, known_types, verified
from service.storage import backend as store
from service.storage import history, migrations, postgres
from service.storage.interface import Connection


class CopyError(Exception):
    """A database that cannot be copied from or into at all; the message is a sentence."""


class SameDatabase(CopyError):
    """SRC and DST are one database (however differently they are written)."""

    def __init__(self) -> None:
        super().__init__("SRC and DST are the same database.")


def same_files(src: str, dst: str) -> bool:
    """True when ``src`` and ``dst`` (``--db`` values) name one SQLite file: the same real
    path once a ``sqlite:`` prefix is stripped and links resolved, or the same file on disk
    (a hard link). False for a PostgreSQL URL (:func:`open_destination` compares those)."""
    if store.is_postgres(src) or store.is_postgres(dst):
        return False
    a, b = (os.path.realpath(store.database_path(name)) for name in (src, dst))
    if a == b:
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


@dataclass(frozen=True)
class StoredGame:
    """Everything stored of one game: its ``games`` row (without the database's own row
    number), its events (each with its ``idempotency_key``, or None), its write tokens, its
    stored first answers and its ``player_results`` rows."""

    row: dict[str, Any]
    events: list[dict[str, Any]]
    tokens: list[dict[str, Any]]
    idempotency: list[dict[str, Any]]
    results: list[dict[str, Any]]


@dataclass(frozen=True)
class Outcome:
    """What happened to one game: ``kind`` is ``copied``, ``skipped`` (already in DST, equal),
    ``refused`` (it does not rebuild, its chain is broken, or DST would not hold it as it is)
    or ``differs`` (in DST already, not equal: left alone); ``why`` says why in words;
    ``events`` is how many events were copied."""

    game_id: str
    kind: str
    why: str | None = None
    events: int = 0


@dataclass
class Summary:
    """The outcomes of a copy, by kind, and the events copied."""

    outcomes: list[Outcome] = field(default_factory=list)

    def of(self, kind: str) -> list[Outcome]:
        """The outcomes of ``kind``."""
        return [outcome for outcome in self.outcomes if outcome.kind == kind]

    @property
    def events(self) -> int:
        """How many events were copied."""
        return sum(outcome.events for outcome in self.outcomes)


def shown(target: str) -> str:
    """``target`` as a message may print it: a URL's user name and password left out."""
    if store.is_postgres(target) and "@" in target:
        scheme, _, rest = target.partition("://")
        return f"{scheme}://…@{rest.rsplit('@', 1)[-1]}"
    return target


def open_source(src: str) -> Connection:
    """Open SRC read-only (``store.connect_read_only``) and check that it is a Kibitz database
    with every migration applied. Raises :class:`CopyError` otherwise."""
    try:
        db = store.connect_read_only(src)
    except Exception as err:
        raise CopyError(f"Cannot open {shown(src)} to read it: {store.failure(err, src)}") from err
    try:
        reason = store.not_kibitz(db)
        if reason is not None:
            db.close()
            raise CopyError(f"{shown(src)} is not a Kibitz database ({reason}).")
        pending = _pending(db)
    except CopyError:
        raise
    except Exception as err:
        db.close()
        raise CopyError(f"{shown(src)} is not a Kibitz database: {store.failure(err, src)}") from err
    if pending:
        db.close()
        raise CopyError(f"{shown(src)} is not at this version's schema (migrations {', '.join(pending)} not applied): "
                        "open it once with this version (kibitz init-db --db SRC), then copy.")
    return db


def _pending(db: Connection) -> list[str]:
    """The migrations not applied to ``db`` (all of them for a database without any)."""
    if store.is_postgres(db):
        done = set(postgres.applied(db))
        return [name for name, _ in postgres.MIGRATIONS if name not in done]
    store.get_game(db, "")  # a file without a games table is not a Kibitz database
    return [migration.name for migration in migrations.MIGRATIONS.pending(db)]


def open_destination(dst: str, source: Connection | None = None) -> Connection:
    """Open DST for writing, creating its tables or migrating them first. Raises
    :class:`CopyError` when it cannot be opened, and :class:`SameDatabase` (before anything
    is written) when both it and ``source`` are PostgreSQL's and reach the same schema of the
    same database (``postgres.same_database``)."""
    try:
        db = store.connect(dst)
    except Exception as err:
        raise CopyError(f"Cannot open {shown(dst)} to write to it: {store.failure(err, dst)}") from err
    try:
        same = source is not None and store.is_postgres(source) and store.is_postgres(db) and \
            postgres.same_database(source, db)
    except Exception as err:
        db.close()
        raise CopyError(f"Cannot open {shown(dst)} to write to it: {store.failure(err, dst)}") from err
    if same:
        db.close()
        raise SameDatabase()
    try:
        if store.is_postgres(db):
            postgres.migrate(db)
        else:
            migrations.migrate(db)
    except Exception as err:
        db.close()
        raise CopyError(f"Cannot create or migrate the tables of {shown(dst)}: {store.failure(err, dst)}") from err
    return db


def game_ids(src: Connection) -> list[str]:
    """The id of every game of SRC, oldest first."""
    return store.game_ids(src)


def read_game(db: Connection, game_id: str, *, in_transaction: bool = False) -> StoredGame | None:
    """Everything stored of ``game_id`` in ``db``, read in one read transaction (or in the
    transaction already open, when ``in_transaction``); None when there is no such game.
    Raises ``store.RecordDamaged`` for stored text that cannot be read."""
    if not in_transaction:
        with store.snapshot(db):
            return read_game(db, game_id, in_transaction=True)
    row = store.get_game(db, game_id)
    if row is None:
        return None
    keys = store.event_keys(db, game_id)
    events = [{**event, "idempotency_key": keys.get(event["seq"])} for event in store.events(db, game_id)]
    return StoredGame({k: v for k, v in row.items() if k != "_rowid"}, events, store.tokens(db, game_id),
                      store.idempotency_records(db, game_id), store.player_results_of(db, game_id))


def rebuild(game: StoredGame) -> Any:
    """Re-validate ``game`` as the service does before it serves a game, and return its fold
    (``replays.replay.Folded``). Raises ``store.RecordDamaged`` naming the game and the first
    event that is not what Kibitz writes (a gap, a broken hash chain, an unknown type, an
    event the rules refuse, a row that disagrees with its log)."""
    row, events = game.row, game.events
    rules = engine.GAMES.get(row["game"])
    if rules is None:
        raise store.damaged(row["id"], None, f"its game {str(row['game'])[:40]!r} is not one this version knows")
    known = known_types(rules)
    for event in events:
        if event["type"] not in known:
            raise store.damaged(row["id"], event["seq"], f"its type {str(event['type'])[:40]!r} is not one of "
                                                         f"{rules.GAME}'s events")
    folded = verified(rules, row["id"], int(row["version"]), events, row.get("record_hash"))
    agrees(row["id"], row, fixed_fields(events[0]) if events else None, folded)
    return folded


def differences(a: StoredGame, b: StoredGame) -> list[str]:
    """What differs between two reads of one game (empty when they are equal in every
    stored field), in words: ``games.<column>``, ``event <seq>``, ``tokens`` …"""
    found = [f"games.{column}" for column in sorted(set(a.row) | set(b.row)) if a.row.get(column) != b.row.get(column)]
    if len(a.events) != len(b.events):
        found.append(f"the number of events ({len(a.events)} against {len(b.events)})")
    found += [f"event {x['seq']}" for x, y in zip(a.events, b.events, strict=False) if x != y]
    for name in ("tokens", "idempotency", "results"):
        if _sorted(getattr(a, name)) != _sorted(getattr(b, name)):
            found.append({"tokens": "its write tokens", "idempotency": "its stored Idempotency-Key answers",
                          "results": "its match-history rows"}[name])
    return found


def _sorted(rows: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(row, sort_keys=True, default=str) for row in rows)


class _Refused(Exception):
    """A game that DST would not hold exactly as SRC does: rolls its transaction back."""


def copy_game(src: Connection, dst: Connection, game_id: str) -> Outcome:
    """Copy game ``game_id`` from ``src`` into ``dst`` in one transaction (see the module's
    doc) and say what happened. Storage faults of either side (``store.StorageUnavailable``,
    driver errors) are raised: nothing of the game is stored then."""
    try:
        game = read_game(src, game_id)
        if game is None:
            return Outcome(game_id, "refused", "it is no longer in SRC")
        folded = rebuild(game)
    except store.RecordDamaged as err:
        return Outcome(game_id, "refused", f"{err.what}" + (f" (event {err.seq})" if err.seq is not None else ""))
    try:
        there = read_game(dst, game_id)
    except store.RecordDamaged as err:
        return Outcome(game_id, "differs", f"already in DST, and damaged there ({err.what}): left as it is")
    if there is not None:
        found = differences(game, there)
        if found:
            return Outcome(game_id, "differs", "already in DST, not the same (" + ", ".join(found[:5]) + "): left as it is")
        return Outcome(game_id, "skipped")
    if not game.tokens:
        return Outcome(game_id, "refused", "it has no write token (every stored game has one)")
    try:
        with store.immediate(dst):
            _write(dst, game, folded)
            copied = read_game(dst, game_id, in_transaction=True)
            found = ["the game"] if copied is None else differences(game, copied)
            if found:
                raise _Refused("DST does not hold it as SRC does (" + ", ".join(found[:5]) + "): nothing of it was "
                               "stored")
    except _Refused as err:
        return Outcome(game_id, "refused", str(err))
    return Outcome(game_id, "copied", events=len(game.events))


def _write(dst: Connection, game: StoredGame, folded: Any) -> None:
    """Store ``game`` in ``dst`` inside the open transaction; raises :class:`_Refused` when an
    appended event's hash is not the stored one."""
    row = game.row
    game_id = row["id"]
    created: dict[str, Any] = {key: row[key] for key in ("game", "title", "players", "visibility", "options")}
    if row.get("forked_from_game") is not None:
        created["forked_from"] = {"game": row["forked_from_game"], "seq": row["forked_from_seq"]}
    store.insert_game(dst, game_id, created, game.tokens[0]["token_hash"], row["created_at"], row["status"])
    for token in game.tokens:
        store.restore_token(dst, game_id, token["token_hash"], token["created_at"], token["revoked_at"])
    for event in game.events:
        stored = store.append(dst, game_id, event["seq"], event["type"], event["data"], event["recorded_at"],
                              event["at"], event["idempotency_key"], salt=event["salt"])
        if stored["hash"] != event["hash"]:
            raise _Refused(f"event {event['seq']}'s hash, recomputed as DST stores it, is not the stored one: "
                           "nothing of it was stored")
    store.set_version(dst, game_id, int(row["version"]), row["status"], secret_from_hand=row.get("secret_from_hand"))
    if row.get("fork_lineage"):
        store.set_fork_lineage(dst, game_id, json.loads(row["fork_lineage"]))
    if row.get("source_game") is not None:
        store.set_source_game(dst, game_id, row["source_game"])
    if row.get("imported_at") is not None:
        store.set_imported_at(dst, game_id, row["imported_at"])
    for answer in game.idempotency:
        store.remember(dst, game_id, answer["key"], answer["request_hash"], answer["status"], answer["response"],
                       answer["created_at"])
    history.refresh(dst, row, folded.stream)


def export_text(db: Connection, game_id: str) -> str | None:
    """The ``kibitz export`` JSON document of ``game_id`` in ``db`` (the full view), or None
    when there is no such game. Raises ``store.RecordDamaged`` for a record that is damaged."""
    loaded = transfer.load_game(db, game_id)
    if loaded is None:
        return None
    return transfer.render("json", loaded[0], loaded[1], loaded[2], full=True)


def verify(src: Connection, dst: Connection, game_id: str) -> str | None:
    """Compare game ``game_id`` on both sides after the copy: every stored field, the event
    hashes and the export document. None when they agree, else what differs, in words."""
    try:
        a, b = read_game(src, game_id), read_game(dst, game_id)
        if a is None or b is None:
            return "missing in " + ("SRC" if a is None else "DST")
        found = differences(a, b)
        if store.event_hashes(src, game_id) != store.event_hashes(dst, game_id):
            found.append("the event hashes")
        if export_text(src, game_id) != export_text(dst, game_id):
            found.append("the export document")
    except store.RecordDamaged as err:
        return f"it cannot be read back ({err})"
    return ", ".join(found) if found else None


def summary_line(summary: Summary, differing: int) -> str:
    """The last line of ``kibitz copy``: games copied, skipped, refused, differing, events."""
    def games(n: int) -> str:
        return f"{n} game{'s' if n != 1 else ''}"

    return (f"{games(len(summary.of('copied')))} copied, {len(summary.of('skipped'))} skipped (already there), "
            f"{len(summary.of('refused'))} refused, {differing} differing; "
            f"{summary.events} event{'s' if summary.events != 1 else ''} copied.")

