"""``kibitz check``: verify a whole database without changing it.

Three things, each problem named with its game and event where it has one:

1. SQLite's own ``PRAGMA integrity_check`` of the file (damaged pages, broken indexes); on
   PostgreSQL the guarantees the database enforces on the event log (the primary key of
   ``events``, its unique idempotency keys, the triggers that refuse to change or delete an
   event, present and enabled); every table and column the service needs there
   (``store_admin.SCHEMA``) and each table readable;
2. every game's events numbered ``1..n`` without a gap, ``n`` being ``games.version``, as
   many as its ``games.stored_events`` says (the count a write checks), and no event without
   its game;
3. every game rebuilds from its log through the rules its ``game_created`` names
   (``replays.replay``: ``engine.stream`` and the game's reducer), event by event, every
   event's data a JSON object; its ``games`` row agrees with ``game_created`` (game,
   players and their match keys, options, visibility, title, ``created_at``, the game and
   event it was forked from) and with the fold (its status and ``secret_from_hand``);
   every stored projection is rebuilt from the logs and compared: the game's
   ``player_results`` rows (``service.storage.history.rows``; none for a fork; none for a game that
   is not stored) and a fork's ``fork_lineage`` (``service.storage.forks.inherited``, from its
   parent's);
4. every game's hash chain (``replays.chain``), recomputed from event 1: the first event
   whose stored ``hash`` does not match is named (a changed note, a changed
   ``recorded_at``, an event deleted before it), and ``games.record_hash`` must be the
   last event's hash (a deleted last event, even with ``games.version`` lowered to hide it).

The database is opened read-only (``open_read_only`` of ``service.storage.admin``, or of
``service.storage.postgres_admin`` for a ``postgresql://`` URL: one read-only transaction, so
the check sees one committed state while servers go on writing). The problems are named in
the same words on both backends.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import engine
from engine import stream as streams
from engine.core import RulesError
from replays import chain, replay, timeline
from service.record import writes
from service.record.cache import fixed_fields
from service.storage import admin as store_admin
from service.storage import backend, forks, history
from service.storage.interface import WholeDatabase


@dataclass(frozen=True)
class Problem:
    """One thing wrong: the game (None for the file as a whole), the event's seq (None when
    it is not about one event) and what is wrong, in words."""

    game_id: str | None
    seq: int | None
    what: str

    def __str__(self) -> str:
        where = "database" if self.game_id is None else f"game {self.game_id}"
        if self.seq is not None:
            where += f", event {self.seq}"
        return f"{where}: {self.what}"


@dataclass
class Report:
    """What :func:`check` found: the problems, and how many games and events it looked at."""

    path: str | Path
    problems: list[Problem] = field(default_factory=list)
    games: int = 0
    events: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems


def check(path: str | Path) -> Report:
    """Check the database at ``path`` (see the module's docstring); never raises for what
    it finds, and never writes to the database. ``path`` is a SQLite file, or a
    ``postgresql://`` URL."""
    report = Report(path)
    adm = backend.whole_database(path)
    try:
        with adm.open_read_only(backend.database_path(path)) as conn:
            _check(adm, conn, report)
    except FileNotFoundError as err:
        report.problems.append(Problem(None, None, str(err)))
    except adm.Error as err:
        report.problems.append(Problem(None, None, f"cannot be read: {backend.failure(err, str(report.path))}"))
    return report


def _check(adm: WholeDatabase, conn: Any, report: Report) -> None:
    try:
        damage = adm.integrity(conn)
    except adm.DatabaseError as err:  # too damaged to finish: go on, to name the games it hit
        damage = [f"{err} (the check could not finish)"]
    report.problems.extend(Problem(None, None, f"{adm.INTEGRITY}: {message}") for message in damage)
    try:
        missing = adm.missing_tables(conn)
    except adm.DatabaseError as err:
        report.problems.append(Problem(None, None, f"the list of tables cannot be read: {backend.failure(err, str(report.path))}"))
        return
    if missing:
        report.problems.append(Problem(None, None, f"not a Kibitz database: no {', '.join(missing)} table"))
        return
    try:
        schema = adm.schema_problems(conn)
    except adm.DatabaseError as err:
        report.problems.append(Problem(None, None, f"the schema cannot be read: {backend.failure(err, str(report.path))}"))
        return
    report.problems.extend(Problem(None, None, f"the schema lacks what the service needs: {what}") for what in schema)
    for table in store_admin.SCHEMA:
        if table == "events":  # read event by event below, each problem named by its seq
            continue
        if not any(what.startswith(f"no {table} table") or what.endswith(f" in {table}") for what in schema):
            try:
                adm.read_table(conn, table)
            except adm.Error as err:
                report.problems.append(Problem(None, None, f"the {table} table cannot be read: {backend.failure(err, str(report.path))}"))
    try:
        rows = adm.games(conn)
        orphans = adm.orphan_events(conn)
    except adm.DatabaseError as err:
        report.problems.append(Problem(None, None, f"the games cannot be listed: {err}"))
        return
    for game_id, count in orphans:
        report.problems.append(Problem(game_id, None, f"{count} stored event(s) belong to no game (no games row)"))
    with contextlib.suppress(adm.DatabaseError):  # a table that cannot be read is named above
        report.problems.extend(Problem(game_id, seq, what) for game_id, seq, what in adm.wrong_types(conn))
    with contextlib.suppress(adm.DatabaseError):
        report.problems.extend(Problem(game_id, seq, f"it was recorded with Idempotency-Key {key[:40]!r} but the "
                                                     "idempotency table holds no answer to that key: the answer's "
                                                     "row was deleted after it was stored")
                               for game_id, seq, key in adm.unanswered_keys(conn))
    chained = adm.has_chain(conn)
    results = None
    if not any(what.startswith("no player_results table") or what.endswith(" in player_results") for what in schema):
        with contextlib.suppress(adm.DatabaseError):  # named by the read of every table above
            results = adm.player_results(conn)
    for row in rows:
        report.games += 1
        try:
            _check_game(adm, conn, row, report, results)
            if chained:
                _check_chain(adm, conn, row, report)
        except adm.DatabaseError as err:
            report.problems.append(Problem(row["id"], None, f"cannot be read: {backend.failure(err, str(report.path))}"))
    _check_lineages(adm, conn, rows, rows, report)
    stored = {str(row["id"]) for row in rows}
    for game_id, found in sorted((results or {}).items()):
        if game_id not in stored:
            report.problems.append(Problem(game_id, None, f"player_results has {len(found)} row(s) for this game, "
                                                          "which is not stored: the histories count a game that has "
                                                          "no log"))


def _check_chain(adm: WholeDatabase, conn: Any, row: dict[str, Any], report: Report) -> None:
    """Recompute ``row``'s game's hash chain from event 1 and name the first event whose
    stored hash does not match, then compare ``games.record_hash`` with the last event's."""
    game_id = str(row["id"])
    previous, last = chain.GENESIS, None
    for event in adm.chain_events(conn, game_id):
        seq = int(event["seq"])
        if event["hash"] is None or event["salt"] is None:
            report.problems.append(Problem(game_id, seq, "it has no salt or hash: it is not in the record's hash chain"))
            return
        if event["data"] is None or event["type"] is None or event["recorded_at"] is None:
            return  # unreadable: named by the rebuild above; the chain cannot be recomputed past it
        expected = chain.event_hash(previous, event)
        if event["hash"] != expected:
            report.problems.append(Problem(game_id, seq, "its hash does not match the record's hash chain: this "
                                                         "event was changed, or one before it deleted, after it "
                                                         "was recorded"))
            return
        previous = last = expected
    if last is not None and row.get("record_hash") != last:
        report.problems.append(Problem(game_id, None, "games.record_hash is not the hash of the last stored event: "
                                                      "the log's last event(s) were deleted, or the games row "
                                                      "was changed"))


def _check_game(adm: WholeDatabase, conn: Any, row: dict[str, Any], report: Report,
                results: dict[str, list[dict[str, Any]]] | None) -> None:
    """Rebuild ``row``'s game from its log and compare the row and its projections with it
    (``results``: every stored ``player_results`` row by game; None: not compared)."""
    game_id = str(row["id"])
    seqs = adm.event_seqs(conn, game_id)
    report.events += len(seqs)
    if not seqs:
        report.problems.append(Problem(game_id, None, "has no events (not even game_created)"))
        return
    expected = 1
    for seq in seqs:
        if seq > expected:
            missing = f"event {expected}" if seq == expected + 1 else f"events {expected} to {seq - 1}"
            report.problems.append(Problem(game_id, expected, f"{missing} missing: a gap in the log before "
                                                              f"event {seq}"))
        expected = seq + 1
    if row["version"] != seqs[-1]:
        report.problems.append(Problem(game_id, None, f"games.version is {row['version']} but the last stored "
                                                      f"event is {seqs[-1]}"))
    if row.get("stored_events") is not None and row["stored_events"] != len(seqs):
        report.problems.append(Problem(game_id, None, f"games.stored_events is {row['stored_events']} but "
                                                      f"{len(seqs)} events are stored: an event was added or deleted "
                                                      "with the database's triggers disabled, or the count changed "
                                                      "(each write of the game then re-reads its whole log)"))
    folded: replay.Folded | None = None
    created_at = None
    seq = 0
    answers = _stored_answers(adm, conn, game_id, report)
    chained = {int(event["seq"]): event for event in adm.chain_events(conn, game_id)} if answers else {}
    try:
        for event in adm.game_events(conn, game_id):
            seq = int(event["seq"])
            if folded is None:
                rules = _rules_of_the_log(row, event, report)
                if rules is None:
                    return
                folded = replay.fold(rules, [event])
                created_at = event["recorded_at"]
            else:
                before, folded = folded, replay.extend(folded, seq, replay.action(event))
                if seq in answers:
                    _check_answer(game_id, answers[seq], before, folded, chained.get(seq, event), report)
    except store_admin.BadEvent as err:
        report.problems.append(Problem(game_id, err.seq, str(err)))
        return
    except adm.DatabaseError as err:
        report.problems.append(Problem(game_id, seq + 1, f"cannot be read: {backend.failure(err, str(report.path))}"))
        return
    except RulesError as err:
        report.problems.append(Problem(game_id, seq, f"no longer rebuilds through the rules of {rules.GAME}: "
                                                     f"{err.message} ({err.code})"))
        return
    except Exception as err:  # noqa: BLE001 - any failure to fold is reported, never raised
        report.problems.append(Problem(game_id, seq, f"no longer rebuilds through the rules of {rules.GAME}: "
                                                     f"{type(err).__name__}: {err}"))
        return
    if folded is None:
        return
    if streams.status(folded.stream) != row["status"]:
        report.problems.append(Problem(game_id, None, f"games.status is {row['status']!r} but its events make it "
                                                      f"{streams.status(folded.stream)!r}"))
    if "secret_from_hand" in row:
        secret = forks.secret_from_hand(folded.stream.rules, folded.stream.state)
        if row["secret_from_hand"] != secret:
            report.problems.append(Problem(game_id, None, f"games.secret_from_hand is {row['secret_from_hand']!r} "
                                                          f"but its events make it {secret!r}"))
    if results is not None:  # compared with the rows the log gives (its game and time, not the row's)
        _check_results({**row, "game": folded.stream.rules.GAME, "created_at": created_at}, folded,
                       results.get(game_id, []), report)


def _stored_answers(adm: WholeDatabase, conn: Any, game_id: str, report: Report) -> dict[int, dict[str, Any]]:
    """The stored first answers of ``game_id``'s ``Idempotency-Key``s by the seq of the event
    stored with each key (none before the hash chain: the answers then carried no hash); one
    whose key no event was stored with is named at once."""
    if not adm.has_chain(conn):
        return {}
    out = {}
    for answer in adm.stored_answers(conn, game_id):
        if answer["seq"] is None or int(answer["seq"]) < 2:
            report.problems.append(Problem(game_id, None, f"the stored answer to Idempotency-Key "
                                                          f"{answer['key'][:40]!r} names no event recorded with that "
                                                          "key: it was added or changed after it was stored"))
        else:
            out[int(answer["seq"])] = answer
    return out


def _check_answer(game_id: str, answer: dict[str, Any], before: replay.Folded, after: replay.Folded,
                  event: dict[str, Any], report: Report) -> None:
    """Compare the stored first answer of the ``Idempotency-Key`` that ``event`` was stored with
    with the answer its write gave, rebuilt from the log (``writes.answer_of``)."""
    rebuilt = writes.answer_of(before, after, event)
    if answer["status"] != 201 or not writes.same_answer(answer["response"], rebuilt):
        report.problems.append(Problem(game_id, int(event["seq"]), f"the stored answer to Idempotency-Key "
                                                                   f"{answer['key'][:40]!r} is not the answer this "
                                                                   "event's write gave (rebuilt from the log): it was "
                                                                   "changed after it was stored"))


def _check_results(row: dict[str, Any], folded: replay.Folded, stored: list[dict[str, Any]], report: Report) -> None:
    """Compare the stored ``player_results`` rows of ``row``'s game with the ones its fold
    gives (``service.storage.history.rows``; none for a what-if fork), naming each that differs."""
    game_id = str(row["id"])
    expected = [] if row.get("forked_from_game") else [
        dict(zip(history.COLUMNS, values, strict=True)) for values in history.rows(row, folded.stream)]
    by_key = {str(found["player_key"]): found for found in stored}
    if expected and not stored:
        report.problems.append(Problem(game_id, None, "player_results has no rows for it: its players' histories "
                                                      "leave this game out"))
        return
    for want in expected:
        found = by_key.pop(str(want["player_key"]), None)
        if found is None:
            report.problems.append(Problem(game_id, None, f"player_results has no row for {want['name']!r} (seat "
                                                          f"{want['seat']}): its history leaves this game out"))
            continue
        wrong = [column for column in history.COLUMNS if found.get(column) != want[column]]
        if wrong:
            said = ", ".join(f"{column} {found.get(column)!r} (its events make it {want[column]!r})"
                             for column in wrong)
            report.problems.append(Problem(game_id, None, f"player_results of {want['name']!r} (seat {want['seat']}) "
                                                          f"says {said}"))
    for found in by_key.values():
        report.problems.append(Problem(game_id, None, f"player_results has a row for {found.get('name')!r} that its "
                                                      "events do not give" + (" (a what-if fork has none)"
                                                                              if row.get("forked_from_game") else "")))


def _check_lineages(adm: WholeDatabase, conn: Any, checked: list[dict[str, Any]], rows: list[dict[str, Any]],
                    report: Report) -> None:
    """Compare the stored ``fork_lineage`` of each fork of ``checked`` with the one
    ``service.storage.forks.inherited`` gives from its parent's stored lineage and the parent's hand
    at the fork's event (``rows``: every games row, oldest first). A parent stored after the
    fork (an import of a fork before its game) may have been unknown when the fork was
    stored: its lineage may then be empty."""
    order = {str(row["id"]): n for n, row in enumerate(rows)}
    by_id = {str(row["id"]): row for row in rows}
    for row in checked:
        if "fork_lineage" not in row:
            return  # a database before migration 0004
        game_id, parent, seq = str(row["id"]), row.get("forked_from_game"), row.get("forked_from_seq")
        try:
            stored = _lineage(row.get("fork_lineage"))
        except ValueError:
            report.problems.append(Problem(game_id, None, "games.fork_lineage cannot be read"))
            continue
        expected: list[list[Any]] = []
        above = by_id.get(str(parent)) if parent else None
        if above is not None and above.get("game") == row["game"] and isinstance(seq, int):
            try:
                hand = _hand_at(adm, conn, str(parent), seq)
                lineage = _lineage(above.get("fork_lineage"))
            except (ValueError, adm.DatabaseError):
                continue  # the parent's own problems are named with it
            if hand >= 1:
                expected = [*([ancestor, min(shared, hand)] for ancestor, shared in lineage), [str(parent), hand]]
        later = above is not None and order[str(parent)] > order[game_id]
        if stored != expected and not (later and stored == []):
            report.problems.append(Problem(game_id, None, f"games.fork_lineage is {stored!r} but the games it was "
                                                          f"forked from give {expected!r}"))


def _lineage(stored: object) -> list[list[Any]]:
    """A stored ``fork_lineage`` (JSON text or bytes, or NULL) as ``[[ancestor, shared], …]``;
    raises ``ValueError`` for anything else."""
    if stored is None or stored == "":
        return []
    value = store_admin.decode_json(stored if isinstance(stored, bytes) else str(stored).encode("utf-8"))
    if not isinstance(value, list) or not all(isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)
                                              and isinstance(pair[1], int) for pair in value):
        raise ValueError("not a lineage")
    return [list(pair) for pair in value]


def _hand_at(adm: WholeDatabase, conn: Any, game_id: str, seq: int) -> int:
    """The hand number of stored game ``game_id`` right after its event ``seq`` (0 when its
    log does not fold that far), as ``service.storage.forks.hand_at`` reads it."""
    folded = None
    try:
        for event in adm.game_events(conn, game_id):
            if event["seq"] > seq:
                break
            if folded is None:
                rules = engine.GAMES.get(str(event["data"].get("game")))
                if rules is None:
                    return 0
                folded = replay.fold(rules, [event])
            else:
                folded = replay.extend(folded, int(event["seq"]), replay.action(event))
    except Exception:  # noqa: BLE001 - a log that does not fold shares nothing (named with its game)
        return 0
    return 0 if folded is None else int(folded.stream.rules.hand_number(folded.stream.state))


def _rules_of_the_log(row: dict[str, Any], first: dict[str, Any], report: Report) -> Any:
    """The rules module of the game that ``first`` (the log's first event) creates, after
    comparing the ``games`` row with it (the row is a cache of ``game_created``: game,
    players, options, visibility); None, with the problem reported, when the log cannot
    be rebuilt at all."""
    game_id = str(row["id"])
    if first["type"] != "game_created" or first["seq"] != 1:
        report.problems.append(Problem(game_id, int(first["seq"]), f"the log starts with {first['type']!r}, "
                                                                    "not game_created: it cannot be rebuilt"))
        return None
    created = first["data"]
    rules = engine.GAMES.get(str(created.get("game")))
    if rules is None:
        report.problems.append(Problem(game_id, 1, f"game_created names an unknown game {created.get('game')!r}: "
                                                   "the log cannot be rebuilt"))
        return None
    stored: dict[str, Any] = {"game": row["game"], "visibility": row["visibility"]}
    for column in ("players", "options", "player_keys"):
        if column not in row:
            continue
        try:
            raw = row[column]
            stored[column] = store_admin.decode_json(raw if isinstance(raw, bytes) or raw is None
                                                     else str(raw).encode("utf-8"))
        except ValueError as err:
            report.problems.append(Problem(game_id, None, f"games.{column} cannot be read: {backend.failure(err, str(report.path))}"))
            stored[column] = _UNREADABLE
    stored.update({column: row[column] for column in ("title", "created_at", "forked_from_game", "forked_from_seq")
                   if column in row})
    fixed = fixed_fields(first)
    for column, value in fixed.items():
        if column in stored and stored[column] is not _UNREADABLE and stored[column] != value \
                and (column in created or column not in ("game", "players", "options", "visibility")):
            said = "was recorded at" if column == "created_at" else "says"
            report.problems.append(Problem(game_id, None, f"games.{column} is {stored[column]!r} but the log's "
                                                          f"game_created {said} {value!r}"))
    keys = stored.get("player_keys")
    if keys is not None and keys is not _UNREADABLE and isinstance(created.get("players"), list) \
            and keys != [str(name).casefold() for name in created["players"]]:
        report.problems.append(Problem(game_id, None, f"games.player_keys is {keys!r} but the players of the log's "
                                                      "game_created give "
                                                      f"{[str(name).casefold() for name in created['players']]!r}"))
    return rules


_UNREADABLE = object()


@dataclass(frozen=True)
class Verified:
    """What :func:`verify` found: the ``verdict`` (None when the record could not be
    compared) and the ``problems`` that stopped it (an unknown game, a damaged record)."""

    verdict: chain.Verdict | None
    problems: list[Problem]


def verify(path: str | Path, game_id: str, fingerprint: str) -> Verified:
    """``kibitz verify``: check game ``game_id`` of the database at ``path`` as ``kibitz
    check`` does (rebuilt through its rules, its hash chain recomputed), then compare the
    normalised ``fingerprint`` (``replays.chain.normal_fingerprint``) with the hash of every
    moment of its record. Never writes to the database; never raises for what it finds.
    ``path`` is a SQLite file, or a ``postgresql://`` URL."""
    report = Report(path)
    adm = backend.whole_database(path)
    try:
        with adm.open_read_only(backend.database_path(path)) as conn:
            missing = adm.missing_tables(conn)
            if missing:
                return Verified(None, [Problem(None, None, f"not a Kibitz database: no {', '.join(missing)} table")])
            row = next((row for row in adm.games(conn) if row["id"] == game_id), None)
            if row is None:
                return Verified(None, [Problem(None, None, f"there is no game {game_id!r} in {adm.shown(str(path))}")])
            _check_game(adm, conn, row, report, adm.player_results(conn))
            _check_lineages(adm, conn, [row], adm.games(conn), report)
            if not adm.has_chain(conn):
                report.problems.append(Problem(game_id, None, "the database has no hash chains yet: open it once "
                                                              "with kibitz serve or kibitz init-db to add them"))
            else:
                _check_chain(adm, conn, row, report)
            stored = list(adm.chain_events(conn, game_id))
    except FileNotFoundError as err:
        return Verified(None, [Problem(None, None, str(err))])
    except adm.Error as err:
        return Verified(None, [Problem(None, None, f"cannot be read: {backend.failure(err, str(report.path))}")])
    if report.problems:
        return Verified(None, report.problems)
    hashes = [(int(event["seq"]), str(event["hash"])) for event in stored]
    # each moment named as card players name it, as the scorekeeper sees it (whoever can read the database can)
    moments = chain.moments(timeline.timeline(engine.GAMES[row["game"]], stored, True))
    return Verified(chain.verdict(fingerprint, hashes, moments), [])
