"""A bounded, thread-safe, in-process cache of folded games.

Game id -> :class:`replays.replay.Folded` (the ``engine.stream.Stream`` plus one fact per
event). A cached game is always checked against the version stored in the database: when
another process has written since, only the events after the cached version are folded in
(``engine.stream.advance``); a game not cached is rebuilt from all its events
(``engine.stream.replay``). Folded games are immutable, so one handed out can be used
without the lock.

Whatever is read from storage is checked before it is cached (:func:`verified`): the
events numbered 1 to the stored version without a gap, every hash following the one
before (``replays.chain``), the last one the row's ``record_hash``, every event folding
through the rules. A record that fails raises ``store.RecordDamaged`` (503
``record_damaged``). A cached fold is checked against the stored head of its log on every
read and write (:func:`holds`, one query): an event deleted, the last event or
``games.record_hash`` or ``games.status`` changed is found at once; an event in the middle
changed while its stored hash is left as it was is found by every read that returns or
refolds stored events (``service.games.events``), and on the next rebuild.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any

from cachetools import LRUCache
from sqlite_utils import Database

import schemas
from engine import stream as streams
from engine.core import RulesError
from engine.interface import GameRules
from replays import chain, replay
from service.storage import backend as store


class FoldCache:
    """LRU of at most ``maxsize`` folded games, each with the hash of its last event."""

    def __init__(self, maxsize: int = 256) -> None:
        self._games: LRUCache[str, tuple[replay.Folded, str | None]] = LRUCache(maxsize=maxsize)
        self._lock = threading.Lock()

    def get(self, db: Database, rules: GameRules, game_id: str, version: int, *,
            record_hash: str | None = None, row: Mapping[str, Any] | None = None,
            counted: bool = False, head: Mapping[str, Any] | None = None) -> replay.Folded:
        """Return ``game_id`` folded up to ``version`` (the version stored in ``db``).

        Reads from ``db`` only the events the cache lacks, and checks them
        (:func:`verified`; against ``record_hash`` and the games ``row``, when given). A
        cached fold is checked too, on every call, against what is stored now
        (``store.head``, one query): the last event the version (with ``counted``, the write
        path's, as many events stored as the version: a count that reads the log's whole
        index, some 20-300 µs for 10-1,000 events), the last one re-hashed, its hash and
        ``games.record_hash`` the hash the fold was cached with, ``games.status`` the one it
        ends in; when that fails the whole log is read and checked afresh, which names the
        event. Raises ``store.RecordDamaged`` for a record that is not what Kibitz writes (a
        gap, a broken hash chain, a row that disagrees with its log, an event that no longer
        folds, a record changed since it was read). ``head``: the head already read in this
        transaction (``store.begin_move``'s, with the count), checked instead of a query.
        """
        with self._lock:
            entry = self._games.get(game_id)
        if head is None:
            head = store.head(db, game_id, count=counted)
        steady = head is not None and head["version"] == version  # no write committed between the reads
        stored_hash = head["record_hash"] if head is not None and steady else record_hash
        cached, cached_hash = entry if entry is not None else (None, None)
        created = None
        last_hash: str | None
        if cached is not None and cached_hash is not None and cached.version == version:
            current, last_hash = cached, cached_hash
        elif cached is not None and cached_hash is not None and cached.version < version:
            # the event already cached comes along: it must be as it was, the new ones must follow its hash
            events = store.events(db, game_id, after=cached.version - 1, upto=version)
            current = verified(rules, game_id, version, events, stored_hash, cached, previous=cached_hash)
            last_hash = events[-1].get("hash")
        else:
            current, last_hash, created = _rebuilt(db, rules, game_id, version, stored_hash)
        if steady and head is not None and not holds(current, last_hash, head):
            rebuilt, rebuilt_hash, created = _rebuilt(db, rules, game_id, version, stored_hash)  # names the event
            if rebuilt_hash != last_hash:
                raise store.damaged(game_id, version, "the record changed after the server read it: the stored "
                                                      "events were rewritten with a new hash chain")
            current = rebuilt
            agrees(game_id, {"status": head["status"]}, None, current)
        if row is not None:
            agrees(game_id, row, created, current)
        self.put(game_id, current, last_hash)
        return current

    def put(self, game_id: str, folded: replay.Folded, last_hash: str | None = None) -> None:
        """Cache ``folded`` with ``last_hash`` (its last event's stored hash; None: not known,
        so the next :meth:`get` reads the whole log again) unless a newer fold of the game is
        cached already."""
        with self._lock:
            entry = self._games.get(game_id)
            if entry is None or entry[0].version <= folded.version:
                self._games[game_id] = (folded, last_hash)

    def discard(self, game_id: str) -> None:
        """Forget ``game_id``: after a failed batch, whose writes may have cached a fold of
        events that were never committed."""
        with self._lock:
            self._games.pop(game_id, None)

    def clear(self) -> None:
        """Forget every cached game."""
        with self._lock:
            self._games.clear()


def holds(folded: replay.Folded, last_hash: str | None, head: Mapping[str, Any]) -> bool:
    """True when the stored ``head`` (``store.head``) is still that of ``folded`` whose last
    event's hash was ``last_hash``: as many events as its version (when counted), the last of them its
    version, its hash and ``games.record_hash`` both ``last_hash`` and that hash the one its
    stored content gives after the stored hash before it (``replays.chain``), its type the
    one folded, ``games.status`` the status ``folded`` ends in."""
    version = folded.version
    if not (head["count"] in (None, version) and head["last_seq"] == version and last_hash is not None
            and head["last_hash"] == last_hash and head["record_hash"] == last_hash
            and head["status"] == streams.status(folded.stream) and head["last_type"] == folded.facts[-1].type):
        return False
    try:
        data = json.loads(head["last_data"])
        previous = chain.GENESIS if version == 1 else head["previous_hash"]
        event = {"seq": version, "type": head["last_type"], "data": data, "recorded_at": head["last_recorded_at"],
                 "at": head["last_at"], "salt": head["last_salt"]}
        return isinstance(previous, str) and isinstance(data, dict) and chain.event_hash(previous, event) == last_hash
    except (TypeError, ValueError, KeyError):
        return False


def _rebuilt(db: Database, rules: GameRules, game_id: str, version: int,
             record_hash: str | None) -> tuple[replay.Folded, str | None, dict[str, Any]]:
    """The whole log of ``game_id`` read, checked (:func:`verified`) and folded: the fold, its
    last event's hash and the ``game_created`` data."""
    events = store.events(db, game_id, upto=version)
    folded = verified(rules, game_id, version, events, record_hash)
    return folded, events[-1].get("hash"), events[0]["data"]


def verified(rules: GameRules, game_id: str, version: int, events: list[dict[str, Any]],
             record_hash: str | None, cached: replay.Folded | None = None, *,
             previous: str | None = None) -> replay.Folded:
    """``events`` (the whole log, or the last cached event and those after it) folded onto
    ``cached`` (None: from the start), once the record is checked: numbered without a gap up
    to ``version``, each ``hash`` following the one before, the last equal to
    ``record_hash`` (when given), each event folding through the rules; with ``cached``,
    the first event given (its last) still has ``previous`` (when given), the hash it had.

    Raises ``store.RecordDamaged`` naming the game and the first event that fails.
    """
    start = 1 if cached is None else cached.version
    seqs = [event["seq"] for event in events]
    if seqs != list(range(start, start + len(seqs))):
        missing = next(want for want, seq in enumerate(seqs, start) if seq != want)
        raise store.damaged(game_id, missing, f"event {missing} is missing: a gap in the stored log")
    if not seqs or seqs[-1] != version:
        last = seqs[-1] if seqs else start - 1
        gone = f"event {last + 1} is" if version == last + 1 else f"events {last + 1} to {version} are"
        raise store.damaged(game_id, last + 1, f"{gone} missing: games.version is {version} but the stored "
                                               f"log ends at event {last}")
    if cached is not None and previous is not None and events[0].get("hash") != previous:
        raise store.damaged(game_id, start, "its hash is not the one it had when the server read it: the event "
                                            "was changed after it was recorded")
    previous = chain.GENESIS if cached is None else events[0].get("hash")
    broken = chain.first_break(events if cached is None else events[1:], previous or "")
    if broken is not None:
        raise store.damaged(game_id, broken, "its hash does not follow the chain: the event was changed, or one "
                                             "before it deleted, after it was recorded")
    if record_hash is not None and events[-1].get("hash") != record_hash:
        raise store.damaged(game_id, version, "games.record_hash is not the last event's hash: the log's last "
                                              "event(s) were deleted, or the games row was changed")
    seq = start
    try:
        if cached is None:
            return replay.fold(rules, events)
        current = cached
        for event in events[1:]:
            seq = event["seq"]
            current = replay.extend(current, seq, replay.action(event))
        return current
    except RulesError as err:
        where = _failing_seq(rules, events) if cached is None else seq
        raise store.damaged(game_id, where, f"it no longer rebuilds through the rules of {rules.GAME}: "
                                            f"{err.message} ({err.code})") from err
    except (KeyError, TypeError, ValueError, AttributeError, LookupError) as err:
        where = _failing_seq(rules, events) if cached is None else seq
        raise store.damaged(game_id, where, f"it no longer rebuilds through the rules of {rules.GAME} "
                                            f"({type(err).__name__})") from err


#: The ``games`` columns that copy ``game_created`` and must agree with it.
COPIED = ("game", "players", "visibility")


def agrees(game_id: str, row: Mapping[str, Any], created: Mapping[str, Any] | None, folded: replay.Folded) -> None:
    """Raise ``store.RecordDamaged`` unless the games ``row`` agrees with its log: its game,
    players and visibility those ``created`` (the log's ``game_created`` data; None: not
    read again) names, its status the one ``folded`` (the log up to the row's version) ends in."""
    for column in COPIED:
        if created is None:
            break
        if column in created and column in row and row[column] != created[column]:
            raise store.damaged(game_id, None, f"games.{column} is {row[column]!r} but the log's game_created "
                                               f"says {created[column]!r}")
    status = streams.status(folded.stream)
    if "status" in row and row["status"] != status:
        raise store.damaged(game_id, None, f"games.status is {row['status']!r} but its events make it {status!r}")


def _failing_seq(rules: GameRules, events: list[dict[str, Any]]) -> int | None:
    """The seq of the first event of ``events`` (a whole log) that does not fold."""
    try:
        current = replay.fold(rules, events[:1])
    except Exception:  # noqa: BLE001 - the first event itself is the one
        return 1
    for event in events[1:]:
        try:
            current = replay.extend(current, event["seq"], replay.action(event))
        except Exception:  # noqa: BLE001 - any failure to fold names this event
            return int(event["seq"])
    return None


def known_types(rules: GameRules) -> frozenset[str]:
    """Every event type a log of ``rules``' game may hold: ``game_created``, the
    bookkeeping events (``engine.stream.BOOKKEEPING``) and the game's actions (its
    ``schemas`` module's ``ACTIONS``)."""
    return frozenset({streams.CREATED, *streams.BOOKKEEPING, *schemas.GAMES[rules.GAME].ACTIONS})


def checked_events(db: Database, rules: GameRules, game_id: str, *, after: int = 0, upto: int,
                   record_hash: str | None = None, version: int | None = None) -> list[dict[str, Any]]:
    """The stored events of ``game_id`` with ``after < seq <= upto`` (``store.events``),
    checked before anything folds them: numbered ``after + 1`` to ``upto`` without a gap,
    each ``hash`` following the one before (from event ``after``'s stored hash, read along),
    each type one the game knows (:func:`known_types`), and, when ``upto`` is ``version``
    (the games row's), the last hash ``record_hash`` (when given). This is the one read of
    stored events every route that returns or refolds them goes through
    (``service.games.events``), so a record edited under a running server is a 503, never a
    500 or an edited event served.

    Raises ``store.RecordDamaged`` naming the game and the first event that fails.
    """
    if upto <= after:
        return []
    first = max(after, 1)
    read = store.events(db, game_id, after=first - 1, upto=upto)
    seqs = [event["seq"] for event in read]
    if seqs != list(range(first, first + len(seqs))) or not seqs or seqs[-1] != upto:
        missing = next((want for want, seq in enumerate(seqs, first) if seq != want), first + len(seqs))
        raise store.damaged(game_id, missing, f"event {missing} is missing: a gap in the stored log")
    given = read if after == 0 else read[1:]
    previous = chain.GENESIS if after == 0 else read[0].get("hash")
    broken = chain.first_break(given, previous if isinstance(previous, str) else "")
    if broken is not None:
        raise store.damaged(game_id, broken, "its hash does not follow the chain: the event was changed, or one "
                                             "before it deleted, after it was recorded")
    known = known_types(rules)
    for event in given:
        if event["type"] not in known:
            raise store.damaged(game_id, event["seq"], f"its type {str(event['type'])[:40]!r} is not one of "
                                                       f"{rules.GAME}'s events")
    if record_hash is not None and upto == version and read[-1].get("hash") != record_hash:
        raise store.damaged(game_id, upto, "games.record_hash is not the last event's hash: the log's last "
                                           "event(s) were deleted, or the games row was changed")
    return given
