"""A bounded, thread-safe, in-process cache of folded game streams.

Game id -> :class:`engine.stream.Stream`. A cached stream is always checked against the
version stored in the database: when another process has written since, only the events
after the cached version are folded in (:func:`engine.stream.advance`); a game not cached
is rebuilt from all its events (:func:`engine.stream.replay`). Streams are immutable, so a
stream handed out can be used without the lock.
"""

from __future__ import annotations

import threading
from types import ModuleType

from cachetools import LRUCache
from sqlite_utils import Database

from engine import stream as streams
from service import store


class StreamCache:
    """LRU of at most ``maxsize`` game streams."""

    def __init__(self, maxsize: int = 256) -> None:
        self._streams: LRUCache[str, streams.Stream] = LRUCache(maxsize=maxsize)
        self._lock = threading.Lock()

    def get(self, db: Database, rules: ModuleType, game_id: str, version: int) -> streams.Stream:
        """Return the stream of ``game_id`` at ``version`` (the version stored in ``db``).

        Reads from ``db`` only the events the cache lacks. Raises
        :class:`engine.core.RulesError` if a stored log no longer folds (the rules changed).
        """
        with self._lock:
            cached = self._streams.get(game_id)
        if cached is not None and cached.version == version:
            return cached
        if cached is not None and cached.version < version:
            current = cached
            for event in store.events(db, game_id, after=cached.version, upto=version):
                current = streams.advance(current, event["seq"], store.action(event))
        else:
            current = rebuild(db, rules, game_id, version)
        self.put(game_id, current)
        return current

    def put(self, game_id: str, stream: streams.Stream) -> None:
        """Cache ``stream`` unless a newer one for the game is cached already."""
        with self._lock:
            cached = self._streams.get(game_id)
            if cached is None or cached.version <= stream.version:
                self._streams[game_id] = stream

    def clear(self) -> None:
        """Forget every cached stream."""
        with self._lock:
            self._streams.clear()


def rebuild(db: Database, rules: ModuleType, game_id: str, version: int | None = None) -> streams.Stream:
    """Fold the stored events of ``game_id`` up to ``version`` (all when None) into a stream.

    Raises ``LookupError`` when the game has no events.
    """
    current: streams.Stream | None = None
    pairs = ((event["seq"], store.action(event)) for event in store.events(db, game_id, upto=version))
    for step in streams.replay(rules, pairs):
        current = step.stream
    if current is None:
        raise LookupError(f"game {game_id!r} has no events")
    return current
