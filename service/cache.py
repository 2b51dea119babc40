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
``record_damaged``); a cached read checks nothing again.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from cachetools import LRUCache
from sqlite_utils import Database

from engine import stream as streams
from engine.core import RulesError
from engine.interface import GameRules
from replays import chain, replay
from service.storage import backend as store


class FoldCache:
    """LRU of at most ``maxsize`` folded games."""

    def __init__(self, maxsize: int = 256) -> None:
        self._games: LRUCache[str, replay.Folded] = LRUCache(maxsize=maxsize)
        self._lock = threading.Lock()

    def get(self, db: Database, rules: GameRules, game_id: str, version: int, *,
            record_hash: str | None = None, row: Mapping[str, Any] | None = None) -> replay.Folded:
        """Return ``game_id`` folded up to ``version`` (the version stored in ``db``).

        Reads from ``db`` only the events the cache lacks, and checks them
        (:func:`verified`; against ``record_hash`` and the games ``row``, when given). Raises
        ``store.RecordDamaged`` for a record that is not what Kibitz writes (a gap, a broken
        hash chain, a row that disagrees with its log, an event that no longer folds).
        """
        with self._lock:
            cached = self._games.get(game_id)
        if cached is not None and cached.version == version:
            return cached
        if cached is not None and cached.version < version:
            # the event already cached comes along: the new ones must follow its hash
            events = store.events(db, game_id, after=cached.version - 1, upto=version)
            current = verified(rules, game_id, version, events, record_hash, cached)
            created = None
        else:
            events = store.events(db, game_id, upto=version)
            current = verified(rules, game_id, version, events, record_hash)
            created = events[0]["data"]
        if row is not None:
            agrees(game_id, row, created, current)
        self.put(game_id, current)
        return current

    def put(self, game_id: str, folded: replay.Folded) -> None:
        """Cache ``folded`` unless a newer fold of the game is cached already."""
        with self._lock:
            cached = self._games.get(game_id)
            if cached is None or cached.version <= folded.version:
                self._games[game_id] = folded

    def discard(self, game_id: str) -> None:
        """Forget ``game_id``: after a failed batch, whose writes may have cached a fold of
        events that were never committed."""
        with self._lock:
            self._games.pop(game_id, None)

    def clear(self) -> None:
        """Forget every cached game."""
        with self._lock:
            self._games.clear()


def verified(rules: GameRules, game_id: str, version: int, events: list[dict[str, Any]],
             record_hash: str | None, cached: replay.Folded | None = None) -> replay.Folded:
    """``events`` (the whole log, or the last cached event and those after it) folded onto
    ``cached`` (None: from the start), once the record is checked: numbered without a gap up
    to ``version``, each ``hash`` following the one before, the last equal to
    ``record_hash`` (when given), each event folding through the rules.

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
