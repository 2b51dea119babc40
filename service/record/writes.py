"""Every write of the service, one plain function each, all through the process's writer.

``create`` (``POST /games``), ``record`` (``POST …/events``, ``/undo``, ``/redo``: every
event, ``abandon`` included), ``fork`` (``POST …/fork``), ``import_game``
(``POST /games/import``, ``kibitz import``) and ``issue_token`` (``kibitz token``) take
parsed input (``service.parsing``) and return the result. Each stores in one transaction of
its own through ``service.record.writer.Writer``, committed in the calling thread, naming the games
it writes (``BEGIN IMMEDIATE`` holds a SQLite file whole; on PostgreSQL the transaction locks
those games alone). ``record`` is one read and one append (``Writer.move``). The views,
pages and CLI only translate their input into these calls and the results back.

Errors: ``service.problems.ApiError`` (422/412/409 …; nothing of the write is stored),
``service.storage.sqlite.StorageUnavailable`` (503: nothing of the write is stored).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, overload

from sqlite_utils import Database

import engine
from engine import stream as streams
from engine.core import OptionError, RulesError
from engine.interface import GameRules
from replays import audit, chain, replay
from schemas.common import utc_text
from service import http
from service.parsing import Parsed, invalid, option_field
from service.problems import ApiError
from service.record import transfer
from service.record.cache import FoldCache, Stored, checked_events, fixed_fields
from service.record.writer import Writer
from service.storage import backend as store
from service.storage import forks, history


@dataclass(frozen=True)
class NewGame:
    """A game just stored: its id, its first token (shown once), its ``games`` row and fold."""

    id: str
    token: str
    row: dict[str, Any]
    folded: replay.Folded


@dataclass(frozen=True)
class Recorded:
    """An event's answer: HTTP ``status`` (201, or the stored one of a retried key), ``body``
    (``{seq, version, event, state, irregularities, target?}``) and the game's ``version``
    the answer stands for (its ``ETag``)."""

    status: int
    body: dict[str, Any]
    version: int


#: What a request's own checks (``record``'s ``admit``) give: its ``Idempotency-Key`` (None for
#: none) and whether it is a dry run.
Admitted = tuple[str | None, bool]


@dataclass(frozen=True)
class Issued:
    """A token issued for a game: the ``token`` itself (never stored), how many live
    tokens were ``revoked`` first, and how many tokens are ``live`` now (this one included)."""

    token: str
    revoked: int
    live: int


def _now() -> str:
    return utc_text(datetime.now(UTC))


def _store_new_game(db: Database, game_id: str, created: Mapping[str, Any], token_hash: str, created_at: str,
                    folded: replay.Folded, events: list[dict[str, Any]]) -> None:
    """Insert a game row, its first token and ``events`` (``game_created`` first), with its
    version, status, secrecy and match-history rows: what create, fork and import share."""
    rules, stream = folded.stream.rules, folded.stream
    status = streams.status(stream)
    store.insert_game(db, game_id, created, token_hash, created_at, status)
    for event in events:
        store.append(db, game_id, event["seq"], event["type"], event["data"], event["recorded_at"], event.get("at"),
                     salt=event.get("salt"))
    store.set_version(db, game_id, folded.version, status,
                      secret_from_hand=forks.secret_from_hand(rules, stream.state))


def _row(db: Database, game_id: str) -> dict[str, Any]:
    """The games row just written in this transaction."""
    row = store.get_game(db, game_id)
    assert row is not None
    return row


def _run_new_game(writer: Writer, cache: FoldCache | None, write: Callable[[Database], dict[str, Any]],
                  game_id: str, token: str, folded: replay.Folded, first: Mapping[str, Any], *,
                  also: tuple[str, ...] = ()) -> NewGame:
    """Run a new game's ``write`` through the writer (locking the new game,
    and ``also``), then cache its fold with what its row copies of ``first`` (the
    ``game_created`` it stored), as of the cache's generation before the write: the end
    that create, fork and import share."""
    generation = cache.generation if cache is not None else 0
    row = writer.run(write, games=(game_id, *also))
    if cache is not None:
        cache.put(game_id, folded, row.get("record_hash"), fixed=fixed_fields(first), generation=generation)
    return NewGame(game_id, token, row, folded)


def create(writer: Writer, cache: FoldCache | None, created: dict[str, Any]) -> NewGame:
    """Store a new game from its ``game_created`` data (``service.parsing.created_data``).

    Raises ``ApiError`` 422 ``validation_failed`` when the rules refuse the set-up.
    """
    rules = engine.GAMES[created["game"]]
    try:
        folded = replay.fold(rules, [{"seq": 1, "type": streams.CREATED, "data": created}])
    except OptionError as err:
        raise invalid({option_field(err.field): [err.message]}) from err
    game_id, (token, token_hash) = http.new_game_id(), http.new_token()
    created_at = _now()
    event = {"seq": 1, "type": streams.CREATED, "data": created, "recorded_at": created_at}

    def write(db: Database) -> dict[str, Any]:
        _store_new_game(db, game_id, created, token_hash, created_at, folded, [event])
        history.refresh(db, {"id": game_id, "game": created["game"], "created_at": created_at}, folded.stream)
        return _row(db, game_id)

    return _run_new_game(writer, cache, write, game_id, token, folded, event)


#: What a queued write is told once its transaction ended (``record``'s ``then``).
Told = Callable[[Recorded | None, BaseException | None], None]


@overload
def record(writer: Writer, cache: FoldCache, game_id: str, parse: Callable[[Mapping[str, Any]], Parsed], *,
           admit: Callable[[Mapping[str, Any]], Admitted], lookup: str | None = None,
           fingerprint: str = "", if_match: str | None = None, then: None = None) -> Recorded: ...


@overload
def record(writer: Writer, cache: FoldCache, game_id: str, parse: Callable[[Mapping[str, Any]], Parsed], *,
           admit: Callable[[Mapping[str, Any]], Admitted], lookup: str | None = None,
           fingerprint: str = "", if_match: str | None = None, then: Told) -> None: ...


def record(writer: Writer, cache: FoldCache, game_id: str, parse: Callable[[Mapping[str, Any]], Parsed], *,
           admit: Callable[[Mapping[str, Any]], Admitted], lookup: str | None = None,
           fingerprint: str = "", if_match: str | None = None, then: Told | None = None) -> Recorded | None:
    """Store the action ``parse(row)`` gives (any action, ``undo``, ``redo``, ``note``,
    ``abandon``, ``correct``…) as the next event of game ``game_id``, answered once committed:
    one read and one append (``Writer.move``: the games row with its live tokens, the head of
    its log and the idempotency record, read under the game's write lock in one round trip;
    the event, the games row, the idempotency record and the notification sent with the
    ``COMMIT`` in one more).

    api.md's order of checks, all from that one read: 404 ``game_not_found``; 503
    ``record_damaged`` (the cached fold checked against the stored head: ``FoldCache.get``);
    ``admit(row)`` (the request's own checks: its token, 401/403, its query and its
    ``Idempotency-Key`` header, 422), which returns the key (None for none) and whether this is
    a dry run; the key's stored first response (or 422 ``idempotency_key_reused``);
    ``parse(row)``'s errors (422 ``validation_failed``); ``If-Match`` (``if_match``, 412
    ``version_mismatch``); the rules (409 with the rules code, ``correction_conflict`` with
    ``conflicts_with``). ``lookup`` is the key to look up in the read (the header's key when it
    is a usable one), ``fingerprint`` the request's hash (``http.request_hash``).

    Returns the 201 body, or the stored first response of a retried key; a ``correct`` adds
    ``target`` (the entry as it stood) and ``replacement`` (``{type, summary}``). A dry run
    (api.md, ``?dry_run=true``) runs every check the same way and stores and remembers
    nothing: 200 ``{"dry_run": true, "state", "irregularities"}`` (``"replayed": true`` with
    the state now when the key was seen before with this body: the write would store nothing
    either). Raises ``ApiError`` as above, ``store.RecordDamaged``,
    ``store.StorageUnavailable`` (503: nothing stored).

    With ``then`` (a move queued with ``Writer.later``, run by ``Writer.drain``): returns None
    and tells ``then(recorded, None)`` once committed, or ``then(None, error)`` with what it
    would have raised.
    """
    if len(game_id) > 100:
        raise ApiError(404, "game_not_found", f"There is no game {game_id[:100]!r}.")

    def decide(db: Database, moment: store.Moment | None) -> tuple[tuple[Recorded, replay.Folded | None,
                                                                           Stored | None],
                                                                     Callable[[Database], None] | None]:
        if moment is None or moment.row["game"] not in engine.GAMES:
            raise ApiError(404, "game_not_found", f"There is no game {game_id[:100]!r}.")
        row, head = moment.row, moment.head
        rules, version = engine.GAMES[row["game"]], int(row["version"])
        before = cache.get(db, rules, game_id, version, record_hash=row.get("record_hash"), row=row, counted=True,
                           head=head)  # the stored head checked, gaps too: record_damaged before anything else
        key, dry_run = admit(row)
        if key is not None:
            seen = moment.remembered if key == lookup else store.remembered(db, game_id, key)
            if seen is not None and seen["request_hash"] == fingerprint:
                if dry_run:
                    return (Recorded(200, {"dry_run": True, "replayed": True, "state": streams.view(before.stream, True),
                                           "irregularities": []}, version), None, None), None
                check_answer(db, rules, game_id, key, seen, row)  # the stored answer is the log's, or 503
                return (Recorded(seen["status"], seen["response"], version), None, None), None
            if seen is not None:
                raise ApiError(422, "idempotency_key_reused",
                               "This Idempotency-Key was used before with a different request.", version=version)
        parsed = parse(row)
        if parsed.errors is not None or parsed.action is None:
            raise ApiError(422, "validation_failed", "The action does not fit its schema.",
                           errors=parsed.errors or {}, version=version)
        http.check_if_match(version, if_match)
        seq = version + 1
        kind = parsed.action["type"]
        try:
            after = replay.extend(before, seq, parsed.action)
        except streams.CorrectionConflict as err:
            raise ApiError(409, err.code, err.message, version=version,
                           extra={"conflicts_with": err.conflicts_with, "rule_code": err.cause}) from err
        except RulesError as err:
            raise ApiError(409, err.code, err.message, version=version) from err
        target, fix, proved = _outcome(before, after, seq, kind)
        if dry_run:
            return (Recorded(200, {"dry_run": True, "state": streams.view(after.stream, True),
                                   "irregularities": proved}, version), None, None), None
        recorded_at = _now()
        previous = head["last_hash"]
        event: dict[str, Any] = {"seq": seq, "type": kind,
                                 "data": {k: v for k, v in parsed.action.items() if k != "type"},
                                 "recorded_at": recorded_at, "at": parsed.at, "salt": chain.new_salt()}
        event["hash"] = chain.event_hash(previous, event)
        text = store.data_text(event["data"])  # as stored: the next write's check of the head compares it
        state = after.stream.state
        status = streams.status(after.stream)
        reshaped = fix is not None or (target is not None and target.fix is not None)  # a correction, or its undo/redo
        results = status != streams.status(before.stream) or (reshaped and status == streams.FINISHED)
        out = _answer(after, event, target, fix, proved)

        def append(db: Database) -> None:  # sent with the COMMIT, in one round trip
            store.append_move(db, game_id, event, key, previous_hash=previous, status=status,
                              secret_from_hand=forks.secret_from_hand(rules, state), data_text=text)
            if results:  # finished or abandoned, reopened, or a finished game corrected
                history.refresh(db, row, after.stream)
            if key is not None:
                store.remember(db, game_id, key, fingerprint, 201, out, recorded_at)

        return (Recorded(201, out, seq), after, (previous, kind, text, recorded_at, parsed.at, event["salt"])), append

    if then is not None:
        def settle(result: tuple[Recorded, replay.Folded | None, Stored | None] | None,
                   error: BaseException | None) -> None:
            if error is not None or result is None:
                if isinstance(error, store.StorageUnavailable):  # as below
                    cache.discard(game_id)
                then(None, error)
                return
            recorded, after, stored = result
            if after is not None:
                cache.put(game_id, after, recorded.body["event"]["hash"], stored=stored)
            then(recorded, None)

        writer.move(game_id, lookup, decide, then=settle)
        return None
    try:
        moved = writer.move(game_id, lookup, decide)
    except store.StorageUnavailable:  # nothing is stored: the cache holds no fold of it (a fold is cached once committed)
        cache.discard(game_id)
        raise
    assert moved is not None
    recorded, after, stored = moved
    if after is not None:
        cache.put(game_id, after, recorded.body["event"]["hash"], stored=stored)
    return recorded


def _outcome(before: replay.Folded, after: replay.Folded, seq: int,
             kind: str) -> tuple[Any, Any, list[dict[str, Any]]]:
    """What event ``seq`` (of type ``kind``) did, folded from ``before`` to ``after``: the entry
    an undo or redo cancelled or restored (or None), a correction's fix (or None), and the
    irregularities it has just proved (api.md, ``POST …/events``)."""
    target = streams.target(before.stream, kind)
    fix = after.stream.done.head.fix if kind == streams.CORRECT else None
    if fix is not None:  # the irregularities the corrected record proves that the record before did not
        since = replay.hand_of(before, fix.stood.seq)  # the hands before the target's are as they were
        known = audit.irregularities(before, True, since)
        return target, fix, [item for item in audit.irregularities(after, True, since) if item not in known]
    proof = target.seq if target is not None and kind == streams.REDO else seq  # a redo proves again what it restores
    return target, fix, audit.proved_by(after, proof, True)


def _answer(after: replay.Folded, event: Mapping[str, Any], target: Any, fix: Any,
            proved: list[dict[str, Any]]) -> dict[str, Any]:
    """The 201 body of a write that stored ``event`` (api.md: ``{seq, version, event, state,
    target?, replacement?, irregularities}``), ``after`` the game folded through it."""
    rules, seq = after.stream.rules, event["seq"]
    out = {"seq": seq, "version": seq, "event": event, "state": streams.view(after.stream, True)}
    if target is not None:  # undo or redo: what it cancelled or restored
        out["target"] = streams.target_json(rules, target, True)
    if fix is not None:  # correct: the entry as it stood, and what took its place
        out["target"] = streams.target_json(rules, fix.stood, True)
        out["replacement"] = {"type": fix.replacement.action["type"],
                              "summary": streams.summary(rules, fix.replacement, True)}
    out["irregularities"] = proved
    return out


def answer_of(before: replay.Folded, after: replay.Folded, event: Mapping[str, Any]) -> dict[str, Any]:
    """The 201 body the write of stored ``event`` answered (and stored for its
    ``Idempotency-Key``), rebuilt from the log: ``before`` is the game folded up to the event
    before it, ``after`` through it. ``event`` is the stored event (``seq``, ``type``, ``data``,
    ``recorded_at``, ``at``, ``salt``, ``hash``)."""
    event = {key: event.get(key) for key in ("seq", "type", "data", "recorded_at", "at", "salt", "hash")}
    return _answer(after, event, *_outcome(before, after, event["seq"], event["type"]))


def same_answer(stored: Any, rebuilt: Mapping[str, Any]) -> bool:
    """True when a stored answer (decoded JSON) is the answer ``rebuilt`` from the log, as JSON."""
    return bool(stored == json.loads(json.dumps(rebuilt)))


def check_answer(db: Database, rules: Any, game_id: str, key: str, seen: Mapping[str, Any],
                 row: Mapping[str, Any]) -> None:
    """Raise ``store.RecordDamaged`` (503 ``record_damaged``) unless ``seen``, the stored first
    answer of ``Idempotency-Key`` ``key`` on game ``row``, is what the log says it was: a 201
    whose body is the one :func:`answer_of` rebuilds for the event stored with that key
    (``events.idempotency_key``, under the database's triggers), the events up to it read in
    one statement (``store.events_through_key``), checked (``checked_events``) and folded
    afresh. Costs that read and a fold of the log up to the event, on a retry only
    (docs/tamper-evidence.md)."""
    read = store.events_through_key(db, game_id, key)
    shown = f"the stored answer to Idempotency-Key {key[:40]!r}"
    if len(read) < 2:
        raise store.damaged(game_id, None, f"{shown} names no event recorded with that key: the answer was "
                                           "added or changed after it was stored")
    seq, version = int(read[-1]["seq"]), int(row["version"])
    events = checked_events(db, rules, game_id, upto=seq, record_hash=row.get("record_hash"), version=version,
                            read=read)
    try:
        before = replay.fold(rules, events[:-1])
        after = replay.extend(before, seq, replay.action(events[-1]))
    except RulesError as err:
        raise store.damaged(game_id, seq, f"it no longer rebuilds through the rules of {rules.GAME}: "
                                          f"{err.message} ({err.code})") from err
    if seen.get("status") != 201 or not same_answer(seen.get("response"), answer_of(before, after, events[-1])):
        raise store.damaged(game_id, seq, f"{shown} is not the answer this event's write gave (rebuilt from the "
                                          "log): it was changed after it was stored")


def no_longer_passes(rules: GameRules, original: replay.Folded, copy: replay.Folded, seq: int,
                     event: Mapping[str, Any], message: str) -> str:
    """A fork's refusal in card players' words (ui.md, "Words for card players"; issue 25):
    "In hand 1, trick 2, Cas played 8♣, which no longer passes the rules: Cas must follow
    clubs." The entry (event ``seq`` of the game folded as ``original``) is named by where it
    was recorded and who did what, never by its event number (the problem's ``seq`` carries
    that); ``copy`` is the fork folded up to it."""
    fact = next((fact for fact in reversed(original.facts) if fact.seq == seq), None)
    where = streams.place_words(rules, fact.hand, fact.position, fact.type) if fact is not None else ""
    what = streams.summary(rules, streams.Step(seq, replay.action(event), copy.stream.state), True)
    said = f"In {where}, {what}" if where else what[:1].upper() + what[1:]
    return f"{said}, which no longer passes the rules: {message}"


def fork(writer: Writer, cache: FoldCache | None, db: Database, row: Mapping[str, Any],
         seq: int) -> NewGame:
    """A new game from the actions of game ``row`` effective right after its event ``seq``
    (a ``ForkSchema``-loaded seq; api.md "Replay and audit"), re-validated through the rules;
    a corrected entry is copied as corrected, and no ``correct`` event is copied.

    ``db`` is a read connection (the log up to ``seq`` never changes). Raises ``ApiError``
    422 for a ``seq`` beyond the log, 409 with the rules code when an action (or the
    set-up) no longer passes the rules (the action named in words: :func:`no_longer_passes`,
    its event in the problem's ``seq``).
    """
    game_id, version = row["id"], row["version"]
    if seq > version:
        raise ApiError(422, "validation_failed", f"This game's events are 1 to {version}.",
                       errors={"seq": [f"Give an event of this game, 1 to {version}."]}, version=version)
    rules = engine.GAMES[row["game"]]
    events = checked_events(db, rules, game_id, upto=seq, record_hash=row.get("record_hash"), version=version)
    folded_at = replay.fold(rules, events)
    at_seq = folded_at.stream
    by_seq = {event["seq"]: event for event in events}
    corrected = replay.corrected(folded_at)  # a corrected entry is copied as corrected, with no correct event
    created = {**events[0]["data"], "forked_from": {"game": game_id, "seq": seq}}
    now = _now()
    copies = [{"seq": 1, "type": streams.CREATED, "data": created, "recorded_at": now}]
    try:
        folded = replay.fold(rules, [{"seq": 1, "type": streams.CREATED, "data": created}])
        kept = [seq for seq in streams.effective_seqs(at_seq)[1:] if by_seq[seq]["type"] != streams.CORRECT]
        for number, original in enumerate(kept, start=2):
            event = by_seq[original]
            if original in corrected:
                fixed = by_seq[corrected[original]]["data"]["action"]
                event = {**event, "type": fixed["type"], "data": {k: v for k, v in fixed.items() if k != "type"}}
            try:
                folded = replay.extend(folded, number, replay.action(event))
            except RulesError as err:
                raise ApiError(409, err.code, no_longer_passes(rules, folded_at, folded, original, event, err.message),
                               version=version, extra={"seq": original}) from err
            copies.append({"seq": number, "type": event["type"], "data": event["data"], "recorded_at": now,
                           "at": event["at"] or event["recorded_at"]})
    except OptionError as err:
        raise ApiError(409, "wrong_phase", f"The game's set-up no longer passes the rules: {err.message}",
                       version=version) from err
    new_id, (token, token_hash) = http.new_game_id(), http.new_token()
    shared = rules.hand_number(at_seq.state)

    def write(db: Database) -> dict[str, Any]:
        _store_new_game(db, new_id, created, token_hash, now, folded, copies)
        store.set_fork_lineage(db, new_id, forks.inherited(db, game_id, row["game"], shared))
        return _row(db, new_id)

    return _run_new_game(writer, cache, write, new_id, token, folded, copies[0])


def import_game(writer: Writer, cache: FoldCache | None, doc: Any) -> NewGame:
    """Re-validate ``doc`` (a json export, ``service.record.transfer.rebuild``) and store it as a new
    game, its ``imported_at`` in the row.

    Raises ``ApiError`` 422 (``validation_failed``, ``import_invalid``), then 409
    ``already_imported`` (with ``game_id``) when the game the export was made from is stored
    here, as the original or as an earlier import; nothing is stored then.
    """
    events, folded = transfer.rebuild(doc)
    source = transfer.source_of(doc)
    created = events[0]["data"]
    rules = folded.stream.rules
    game_id, (token, token_hash) = http.new_game_id(), http.new_token()
    imported_at = _now()
    created_at = events[0]["recorded_at"]
    version = folded.stream.rules_version
    if version is not None and version != rules.RULES_VERSION:  # the games row holds the current shape
        created = {k: v for k, v in rules.upcast(version, {"type": streams.CREATED, **created}).items() if k != "type"}

    def write(db: Database) -> dict[str, Any]:
        if source is not None:
            already = store.stored_as(db, source)
            if already is not None:
                raise ApiError(409, "already_imported",
                               f"This export's game is already stored here as game {already}: nothing was imported.",
                               extra={"game_id": already})
        _store_new_game(db, game_id, created, token_hash, created_at, folded, events)
        store.set_source_game(db, game_id, source)
        store.set_imported_at(db, game_id, imported_at)
        fork = created.get("forked_from")
        if isinstance(fork, Mapping):  # an imported fork of a game stored here inherits its secrets
            parent, seq = fork["game"], fork["seq"]
            store.set_fork_lineage(db, game_id, forks.inherited(db, parent, created["game"], forks.hand_at(db, parent, seq)))
        history.refresh(db, {"id": game_id, "game": created["game"], "created_at": created_at}, folded.stream)
        return _row(db, game_id)

    # the source's lock: two imports of one export, through two processes, take turns at the check
    return _run_new_game(writer, cache, write, game_id, token, folded, events[0],
                         also=(source,) if source else ())


def issue_token(writer: Writer, game_id: str, *, revoke: bool) -> Issued:
    """Store a new write token for game ``game_id`` (hashed), first revoking all its live
    tokens when ``revoke``. Raises ``store.StorageUnavailable`` when the storage cannot take it."""
    token, digest = http.new_token()
    now = _now()

    def write(db: Database) -> Issued:
        revoked = store.revoke_tokens(db, game_id, now) if revoke else 0
        store.add_token(db, game_id, digest, now)
        return Issued(token, revoked, len(store.live_token_hashes(db, game_id)))

    return writer.run(write, games=(game_id,))
