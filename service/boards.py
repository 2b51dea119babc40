"""What the game page polls, answered from memory: each game's current version and its public
board, known without a query (``docs/crowds.md``).

Every spectator's game page asks ``/watch/<id>/board`` once a second with ``If-None-Match``
naming the version it shows. While nothing changed the answer is a 304, and after a write the
same new board for every public reader. :class:`BoardAnswers` remembers, per game, the version
the last board read found and the public board rendered for it, so that ``service.server``
can answer those polls in its event loop: no thread, no database query, no refold, no
template.

What it remembers is trusted only while nothing has been committed to the database since:
each entry carries the ``PRAGMA data_version`` that a guard connection of its own showed just
before the game row was read (``store.data_version``), and :meth:`BoardAnswers.current` hands
it out only while the guard still shows that value. Any commit by another connection changes
it, this process's own writer (a connection of its own) and other processes alike, so a poll
that starts after a write's 201 never gets an older version from memory: it goes to the app,
whose board read records the new version. Correct across processes through the database
alone; one ``data_version`` costs tens of microseconds, far less than the request it saves.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from cachetools import LRUCache
from sqlite_utils import Database

from service.storage import backend as store


@dataclass(frozen=True)
class Known:
    """What a board read found: the game's ``version``, the guard's ``data_version`` before
    the row was read (``epoch``), and the public board's HTML for that version when it is one
    that every public reader gets (``board``, else None)."""

    version: int
    epoch: int
    board: bytes | None = None


class BoardAnswers:
    """At most ``maxsize`` games' current versions and public boards, trusted through the
    database's ``data_version`` (see the module). Thread-safe."""

    def __init__(self, database: str, synchronous: str = "FULL", maxsize: int = 1024) -> None:
        self._database = database
        self._synchronous = synchronous
        self._games: LRUCache[str, Known] = LRUCache(maxsize=maxsize)
        self._lock = threading.Lock()
        self._guard: Database | None = None
        self._guard_lock = threading.Lock()

    def epoch(self) -> int | None:
        """The guard connection's ``data_version`` now; None when the database cannot be read
        (nothing is then trusted)."""
        with self._guard_lock:
            try:
                if self._guard is None:
                    self._guard = store.connect(self._database, self._synchronous)
                return store.data_version(self._guard)
            except Exception:  # noqa: BLE001 - a fault here only means: ask the app
                if self._guard is not None:
                    self._guard.close()
                self._guard = None
                return None

    def note(self, game_id: str, version: int, epoch: int | None, board: bytes | None = None) -> None:
        """Remember that game ``game_id`` was at ``version`` when read after the guard showed
        ``epoch`` (from :meth:`epoch`, taken *before* the row was read), with ``board`` its
        public board at that version (or None: not one to share). An older version than the
        one remembered is ignored, and a board is only kept beside the version it was read at."""
        if epoch is None:
            return
        with self._lock:
            known = self._games.get(game_id)
            if known is not None and known.version > version:
                return
            if board is None and known is not None and known.version == version and known.board is not None:
                board = known.board
            self._games[game_id] = Known(version, epoch, board)

    def current(self, game_id: str) -> Known | None:
        """What is remembered of ``game_id`` if nothing has been committed since it was read;
        None otherwise (the caller then asks the app)."""
        with self._lock:
            known = self._games.get(game_id)
        if known is None:
            return None
        return known if self.epoch() == known.epoch else None

    def close(self) -> None:
        """Close the guard connection."""
        with self._guard_lock:
            if self._guard is not None:
                self._guard.close()
            self._guard = None
