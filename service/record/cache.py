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
``games.record_hash``, ``games.status`` or ``games.secret_from_hand`` changed is found at
once; the games row's own fields (game, players, visibility, options, title, created_at,
the fork it branched off) are compared with the log's ``game_created`` on every read
(:func:`agrees`, no query).

An event before the last cannot be changed without lifting the triggers that refuse it
(``service.storage``), which changes the database's schema. The head's ``guard`` (SQLite's
``schema_version``; on PostgreSQL the identity and state of the triggers guarding
``events``, ``service.storage.postgres.GUARD``) rides on the same query: when it is not the
one the cache last saw, every cached game is read and checked in full again (its whole
chain recomputed, and compared with the hashes the cache holds) before its next read or
write is served (docs/tamper-evidence.md, "An edit made while the server runs").
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from cachetools import LRUCache
from sqlite_utils import Database

import schemas
from engine import stream as streams
from engine.core import RulesError
from engine.interface import GameRules
from replays import chain, replay
from schemas.common import scrub
from service.storage import backend as store
from service.storage import forks


@dataclass(frozen=True)
class _Entry:
    """A cached game: its fold, its last event's stored hash (None: not known), the log's
    ``game_created`` as the games row must copy it (:func:`fixed_fields`; None: not read yet)
    and the :attr:`FoldCache.generation` it was checked in full in (or caught up from one);
    ``stored``: its last event as this server stored it (:data:`Stored`; None: not known)."""

    folded: replay.Folded
    last_hash: str | None
    fixed: Mapping[str, Any] | None
    generation: int
    stored: Stored | None = None


#: An event as a write of this server stored it, whose hash it computed as ``last_hash``: the
#: stored hash before it, its ``type``, its ``data`` as stored (``store.data_text``),
#: ``recorded_at``, ``at`` and ``salt``, the fields of a head (``store.head``) that its hash covers.
Stored = tuple[str, str, str, str, str | None, str]


class FoldCache:
    """LRU of at most ``maxsize`` folded games, each with the hash of its last event.

    ``on_suspect`` (if given) is called when the database's ``guard`` changed (a trigger
    guarding the log was dropped, disabled or replaced: ``service.web.boards`` then stops
    answering from memory)."""

    def __init__(self, maxsize: int = 256, *, on_suspect: Callable[[], None] | None = None) -> None:
        self._games: LRUCache[str, _Entry] = LRUCache(maxsize=maxsize)
        self._lock = threading.Lock()
        self._guard: object = None
        self._on_suspect = on_suspect
        #: Moves on each time the guard changes: an entry checked in an older one is checked in full again.
        self.generation = 0

    def observe(self, guard: object) -> int:
        """Note the database's ``guard`` as just read (``store.head``'s or ``store.guard``'s);
        returns the :attr:`generation` that what was read with it belongs to. A guard other
        than the one last seen moves the generation on (every cached game is then checked in
        full before it is served again) and calls ``on_suspect``; so does the first one seen
        while games are cached already (they were cached before any guard was read)."""
        if guard is None:
            with self._lock:
                return self.generation
        with self._lock:
            if guard == self._guard:
                return self.generation
            first = self._guard is None
            self._guard = guard
            if first and not self._games:
                return self.generation
            self.generation += 1
            generation = self.generation
        if not first and self._on_suspect is not None:
            self._on_suspect()
        return generation

    def get(self, db: Database, rules: GameRules, game_id: str, version: int, *,
            record_hash: str | None = None, row: Mapping[str, Any] | None = None,
            counted: bool = False, head: Mapping[str, Any] | None = None, keep: bool = True) -> replay.Folded:
        """Return ``game_id`` folded up to ``version`` (the version stored in ``db``).

        Reads from ``db`` only the events the cache lacks, and checks them
        (:func:`verified`; against ``record_hash`` and the games ``row``, when given). A
        cached fold is checked too, on every call, against what is stored now
        (``store.head``, one query, or ``head`` when the caller read it in this transaction):
        the last event the version (with ``counted``, the write
        path's, as many events stored as the version: ``games.stored_events``, which triggers
        keep, read at the same cost however long the game), the last one re-hashed, its hash and
        ``games.record_hash`` the hash the fold was cached with, ``games.status`` the one it
        ends in; when that fails the whole log is read and checked afresh, which names the
        event. The ``row``'s own fields are compared with the log's ``game_created``
        (:func:`agrees`). When the head's ``guard`` is not the one last seen
        (:meth:`observe`), or the game was cached in an older generation, the whole log is
        read and checked afresh, and its hashes compared with the ones cached. Raises
        ``store.RecordDamaged`` for a record that is not what Kibitz writes (a
        gap, a broken hash chain, a row that disagrees with its log, an event that no longer
        folds, a record changed since it was read). ``head``: the head already read in this
        transaction (``store.begin_move``'s, with the count), checked instead of a query.
        ``keep`` False: a game not cached already is folded and checked but not cached (a
        check of many games, ``service.record.projections``, leaves the games being played cached).
        """
        return self._get(db, rules, game_id, version, record_hash=record_hash, row=row, counted=counted,
                         head=head, keep=keep).folded

    def checked(self, db: Database, rules: GameRules, game_id: str, version: int, *, record_hash: str | None,
                keep: bool = True) -> tuple[replay.Folded, Mapping[str, Any]]:
        """:meth:`get` (with ``record_hash``, ``keep``), and what the games row must copy of
        the log's ``game_created`` (:func:`fixed_fields`), read and checked along with it."""
        entry = self._get(db, rules, game_id, version, record_hash=record_hash, keep=keep)
        if entry.fixed is None:  # not known yet: read it (event 1, its hash checked) and keep it
            first = store.events(db, game_id, upto=1)
            if not first or chain.first_break(first[:1]) is not None:
                raise store.damaged(game_id, 1, "its hash does not follow the chain: the event was changed after it "
                                                "was recorded")
            return entry.folded, fixed_fields(first[0])
        return entry.folded, entry.fixed

    def _get(self, db: Database, rules: GameRules, game_id: str, version: int, *,
             record_hash: str | None = None, row: Mapping[str, Any] | None = None,
             counted: bool = False, head: Mapping[str, Any] | None = None, keep: bool = True) -> _Entry:
        """:meth:`get`, returning the entry it cached (or would have, with ``keep`` False)."""
        if head is None:
            head = store.head(db, game_id, count=counted)
        generation = self.observe(head.get("guard") if head is not None else None)
        with self._lock:
            entry = self._games.get(game_id)
        steady = head is not None and head["version"] == version  # no write committed between the reads
        stored_hash = head["record_hash"] if head is not None and steady else record_hash
        fixed: Mapping[str, Any] | None = None
        last_hash: str | None
        if entry is not None and (entry.generation != generation or entry.fixed is None or entry.last_hash is None):
            current, last_hash, fixed, hashes = _rebuilt(db, rules, game_id, version, stored_hash)
            cached = entry.folded
            if cached.version <= version and entry.last_hash is not None \
                    and hashes[cached.version - 1] != entry.last_hash:
                raise store.damaged(game_id, cached.version, "the record changed after the server read it: the "
                                                             "stored events were rewritten with a new hash chain")
        elif entry is not None and entry.folded.version == version:
            current, last_hash, fixed = entry.folded, entry.last_hash, entry.fixed
            if steady and head is not None and holds(current, last_hash, head, entry.stored):  # nothing to change
                if row is not None:
                    agrees(game_id, row, fixed, current)
                return entry
        elif entry is not None and entry.folded.version < version:
            # the event already cached comes along: it must be as it was, the new ones must follow its hash
            events = store.events(db, game_id, after=entry.folded.version - 1, upto=version)
            current = verified(rules, game_id, version, events, stored_hash, entry.folded, previous=entry.last_hash)
            last_hash, fixed = events[-1].get("hash"), entry.fixed
        else:
            current, last_hash, fixed, _ = _rebuilt(db, rules, game_id, version, stored_hash)
        if steady and head is not None and not holds(current, last_hash, head):
            rebuilt, rebuilt_hash, fixed, _ = _rebuilt(db, rules, game_id, version, stored_hash)  # names the event
            if rebuilt_hash != last_hash:
                raise store.damaged(game_id, version, "the record changed after the server read it: the stored "
                                                      "events were rewritten with a new hash chain")
            if isinstance(head["last_seq"], int) and head["last_seq"] > version:  # whole up to the version, and more
                raise store.damaged(game_id, version + 1, f"event {version + 1} is stored past games.version "
                                                          f"{version}: an event was added behind the server")
            if head.get("count") not in (None, version):  # the log is whole: the count kept beside it is not
                raise store.damaged(game_id, None, f"games.stored_events is {head['count']} but {version} events "
                                                   "are stored")
            current = rebuilt
            agrees(game_id, {"status": head["status"]}, None, current)
        if row is not None:
            agrees(game_id, row, fixed, current)
        new = _Entry(current, last_hash, fixed, generation)
        if keep or entry is not None:
            self._store(game_id, new)
        return new

    def put(self, game_id: str, folded: replay.Folded, last_hash: str | None = None, *,
            fixed: Mapping[str, Any] | None = None, generation: int | None = None,
            stored: Stored | None = None) -> None:
        """Cache ``folded`` with ``last_hash`` (its last event's stored hash; None: not known,
        so the next :meth:`get` reads the whole log again) unless a newer fold of the game is
        cached already. A write's fold extends the one its :meth:`get` checked and keeps that
        one's generation and ``fixed``; a new game's comes with what its row copies of the
        ``game_created`` just stored (``fixed``, :func:`fixed_fields`) and the
        :attr:`generation` read before it was written (without them, the next :meth:`get`
        reads and checks the whole log). ``stored``: the last event as the write stored it
        (:data:`Stored`), which spares the next :meth:`get` re-hashing it while it is stored so."""
        with self._lock:
            entry = self._games.get(game_id)
            if entry is not None and fixed is None:
                new = _Entry(folded, last_hash, entry.fixed, entry.generation, stored)
            else:
                new = _Entry(folded, last_hash, fixed, -1 if generation is None else generation, stored)
            if entry is None or entry.folded.version <= new.folded.version:
                self._games[game_id] = new

    def _store(self, game_id: str, new: _Entry) -> None:
        """Cache ``new`` unless a newer fold of the game is cached already."""
        with self._lock:
            entry = self._games.get(game_id)
            if entry is None or entry.folded.version <= new.folded.version:
                self._games[game_id] = new

    def fixed(self, game_id: str) -> Mapping[str, Any] | None:
        """What the games row of cached game ``game_id`` copies of its ``game_created``
        (:func:`fixed_fields`), or None when it is not cached with it."""
        with self._lock:
            entry = self._games.get(game_id)
        return None if entry is None else entry.fixed

    def discard(self, game_id: str) -> None:
        """Forget ``game_id``: after a failed batch, whose writes may have cached a fold of
        events that were never committed."""
        with self._lock:
            self._games.pop(game_id, None)

    def forget(self, games: Iterable[str]) -> None:
        """Forget each of ``games`` (every game when ``"*"`` is among them): a transaction that
        wrote them was rolled back, and a fold read inside it (another write's uncommitted
        event among it) may be cached (``service.record.writer.Writer``'s ``on_abandon``)."""
        games = set(games)
        with self._lock:
            if "*" in games:
                self._games.clear()
                return
            for game_id in games:
                self._games.pop(game_id, None)

    def clear(self) -> None:
        """Forget every cached game."""
        with self._lock:
            self._games.clear()


def holds(folded: replay.Folded, last_hash: str | None, head: Mapping[str, Any], stored: Stored | None = None) -> bool:
    """True when the stored ``head`` (``store.head``) is still that of ``folded`` whose last
    event's hash was ``last_hash``: as many events as its version (when counted), the last of them its
    version, its hash and ``games.record_hash`` both ``last_hash`` and that hash the one its
    stored content gives after the stored hash before it (``replays.chain``), its type the
    one folded, ``games.status`` the status ``folded`` ends in.

    ``stored``: the last event as this server's write stored it (:data:`Stored`), hashed by
    that write as ``last_hash``; when the head holds exactly those texts, its content gives
    that hash without hashing it again (the same canonical JSON: ``data`` read back from its
    stored text is the value the write hashed), else it is hashed as ever."""
    version = folded.version
    if not (head["count"] in (None, version) and head["last_seq"] == version and last_hash is not None
            and head["last_hash"] == last_hash and head["record_hash"] == last_hash
            and head["status"] == streams.status(folded.stream) and head["last_type"] == folded.facts[-1].type):
        return False
    previous = chain.GENESIS if version == 1 else head["previous_hash"]
    if stored is not None and stored == (previous, head["last_type"], head["last_data"], head["last_recorded_at"],
                                         head["last_at"], head["last_salt"]):
        return True
    try:
        data = json.loads(head["last_data"])
        event = {"seq": version, "type": head["last_type"], "data": data, "recorded_at": head["last_recorded_at"],
                 "at": head["last_at"], "salt": head["last_salt"]}
        return isinstance(previous, str) and isinstance(data, dict) and chain.event_hash(previous, event) == last_hash
    except (TypeError, ValueError, KeyError):
        return False


def _rebuilt(db: Database, rules: GameRules, game_id: str, version: int,
             record_hash: str | None) -> tuple[replay.Folded, str | None, dict[str, Any], list[str | None]]:
    """The whole log of ``game_id`` read, checked (:func:`verified`) and folded: the fold, its
    last event's hash, what the games row must copy of it (:func:`fixed_fields`) and every
    event's stored hash (index ``seq - 1``). The cyclic collector is paused for the read as
    for the fold (``replays.replay.collector_paused``): the rows read are dicts of strings,
    none in a cycle, which it would otherwise walk again and again while the next are read."""
    with replay.collector_paused():
        return _read_and_folded(db, rules, game_id, version, record_hash)


def _read_and_folded(db: Database, rules: GameRules, game_id: str, version: int,
                     record_hash: str | None) -> tuple[replay.Folded, str | None, dict[str, Any], list[str | None]]:
    events = store.events(db, game_id, upto=version)
    folded = verified(rules, game_id, version, events, record_hash)
    return folded, events[-1].get("hash"), fixed_fields(events[0]), [event.get("hash") for event in events]


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


#: The ``games`` columns that copy ``game_created`` and must agree with it (``kibitz check``
#: compares every one of :func:`fixed_fields`; these are the ones a ``games`` row of the
#: oldest stored databases always has).
COPIED = ("game", "players", "visibility")


def fixed_fields(created: Mapping[str, Any]) -> dict[str, Any]:
    """What a ``games`` row copies of its log's first event ``created`` (``game_created`` as
    stored: ``data`` and ``recorded_at``), by column: ``game``, ``players``, ``visibility``,
    ``options``, ``title`` (None when it has none), ``created_at`` (when it was recorded),
    ``forked_from_game`` and ``forked_from_seq`` (None unless it is a what-if fork). All of
    them are under the hash chain."""
    data = created.get("data")
    data = data if isinstance(data, Mapping) else {}
    fork = data.get("forked_from")
    fork = fork if isinstance(fork, Mapping) else {}
    title = data.get("title")
    out: dict[str, Any] = {column: data[column] for column in ("game", "players", "visibility", "options")
                           if column in data}
    out.update({"title": scrub(title) if isinstance(title, str) else title, "created_at": created.get("recorded_at"),
                "forked_from_game": fork.get("game"), "forked_from_seq": fork.get("seq")})
    return out


def agrees(game_id: str, row: Mapping[str, Any], fixed: Mapping[str, Any] | None, folded: replay.Folded) -> None:
    """Raise ``store.RecordDamaged`` unless the games ``row`` agrees with its log: each of its
    columns that copies ``game_created`` the value ``fixed`` (:func:`fixed_fields`; None:
    not compared) names, its status the one ``folded`` (the log up to the row's version) ends
    in, and its ``secret_from_hand`` the first hand of ``folded`` not over
    (``service.storage.forks.secret_from_hand``)."""
    for column, value in (fixed or {}).items():
        if column in row and row[column] != value:
            said = "was recorded at" if column == "created_at" else "says"
            raise store.damaged(game_id, None, f"games.{column} is {_shown(row[column])} but the log's game_created "
                                               f"{said} {_shown(value)}")
    status = streams.status(folded.stream)
    if "status" in row and row["status"] != status:
        raise store.damaged(game_id, None, f"games.status is {row['status']!r} but its events make it {status!r}")
    if "secret_from_hand" in row:
        secret = forks.secret_from_hand(folded.stream.rules, folded.stream.state)
        if row["secret_from_hand"] != secret:
            raise store.damaged(game_id, None, f"games.secret_from_hand is {row['secret_from_hand']!r} but its "
                                               f"events make it {secret!r}")


def _shown(value: Any) -> str:
    """``value`` as a problem names it: its ``repr``, cut at 200 characters."""
    text = repr(value)
    return text if len(text) <= 200 else text[:199] + "…"


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
                   record_hash: str | None = None, version: int | None = None,
                   read: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The stored events of ``game_id`` with ``after < seq <= upto`` (``store.events``),
    checked before anything folds them: numbered ``after + 1`` to ``upto`` without a gap,
    each ``hash`` following the one before (from event ``after``'s stored hash, read along),
    each type one the game knows (:func:`known_types`), and, when ``upto`` is ``version``
    (the games row's), the last hash ``record_hash`` (when given). This is the one read of
    stored events every route that returns or refolds them goes through
    (``service.record.games.events``), so a record edited under a running server is a 503, never a
    500 or an edited event served.

    ``read``: those events, read already (by ``store.events_through_key``, say).

    Raises ``store.RecordDamaged`` naming the game and the first event that fails.
    """
    if upto <= after:
        return []
    first = max(after, 1)
    if read is None:
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
