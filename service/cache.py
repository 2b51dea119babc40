"""A bounded, thread-safe, in-process cache of folded games.

Game id -> :class:`replays.replay.Folded` (the ``engine.stream.Stream`` plus one fact per
event). A cached game is always checked against the version stored in the database: when
another process has written since, only the events after the cached version are folded in
(``engine.stream.advance``); a game not cached is rebuilt from all its events
(``engine.stream.replay``). Folded games are immutable, so one handed out can be used
without the lock.
"""

from __future__ import annotations

import threading

from cachetools import LRUCache
from sqlite_utils import Database

from engine.interface import GameRules
from replays import replay
from service import store


class FoldCache:
    """LRU of at most ``maxsize`` folded games."""

    def __init__(self, maxsize: int = 256) -> None:
        self._games: LRUCache[str, replay.Folded] = LRUCache(maxsize=maxsize)
        self._lock = threading.Lock()

    def get(self, db: Database, rules: GameRules, game_id: str, version: int) -> replay.Folded:
        """Return ``game_id`` folded up to ``version`` (the version stored in ``db``).

        Reads from ``db`` only the events the cache lacks. Raises
        :class:`engine.core.RulesError` if a stored log no longer folds (the rules changed).
        """
        with self._lock:
            cached = self._games.get(game_id)
        if cached is not None and cached.version == version:
            return cached
        if cached is not None and cached.version < version:
            current = cached
            for event in store.events(db, game_id, after=cached.version, upto=version):
                current = replay.extend(current, event["seq"], replay.action(event))
        else:
            current = replay.fold(rules, store.events(db, game_id, upto=version))
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
