"""What the game page polls, answered from memory: each game's current version and its public
board, known without a query (``docs/crowds.md``).

Every spectator's game page asks ``/watch/<id>/board`` once a second with ``If-None-Match``
naming the version it shows. While nothing changed the answer is a 304, and after a write the
same new board for every public reader. :class:`BoardAnswers` remembers, per game, the version
the last board read found and the public board rendered for it, so that ``service.web.server``
can answer those polls in its event loop: no thread, no database query, no refold, no
template.

What it remembers is trusted only while nothing it depends on has been committed since. Each
entry carries the *epoch* (:meth:`BoardAnswers.epoch`) taken just before the game row was
read, and :meth:`BoardAnswers.current` hands it out only while the epoch is still the same:

* **SQLite**: the ``PRAGMA data_version`` a guard connection of its own shows
  (``store.data_version``). Any commit by another connection changes it, this process's own
  writer (connections of its own) and other processes alike, so a poll that starts after a
  write's 201 never gets an older version from memory: it goes to the app, whose board read
  records the new version. One ``data_version`` costs tens of microseconds.
* **PostgreSQL**: counters kept in memory, with no query at all. Every append notifies the
  database (``service.storage.postgres.CHANNEL``) and the process's :class:`~service.record.listener.Listener`
  hears it within milliseconds of the commit and moves the game's counter on; this process's
  own commits (:meth:`BoardAnswers.committed`, called by the writer before a write answers)
  and each (re)connection of the listener move on the counter of everything; while the
  listener has no connection, nothing is trusted. So a poll that starts after a 201 of this
  process never gets an older version from memory, and one that starts after a 201 of
  another process only within the notification's delay. A what-if fork's entry is trusted
  only while no game at all changed (its public view can be sealed by the games it was
  forked from).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from cachetools import LRUCache
from sqlite_utils import Database

from service.record.listener import Listener
from service.storage import backend as store
from service.storage import postgres_bounds

#: An epoch: (the counter of everything, the counter of any game's change, the counter of
#: this game's change). SQLite's ``data_version`` is all three.
Epoch = tuple[int, int, int]


@dataclass(frozen=True)
class Known:
    """What a board read found: the game's ``version``, the :data:`Epoch` before the row was
    read (``epoch``), the public board's HTML for that version when it is one that every
    public reader gets (``board``, else None), and whether the answer depends on this game's
    record ``alone`` (False for a what-if fork)."""

    version: int
    epoch: Epoch
    board: bytes | None = None
    alone: bool = True


class _Stamps(LRUCache[str, int]):
    """Game id -> the count of notifications when its last one was heard; a game forgotten
    to keep the size moves :attr:`floor` (the stamp of every game not kept) up to its own."""

    floor = 0

    def popitem(self) -> tuple[str, int]:
        key, value = super().popitem()
        self.floor = max(self.floor, value)
        return key, value


class BoardAnswers:
    """At most ``maxsize`` games' current versions and public boards, trusted through the
    database (see the module). Thread-safe. On PostgreSQL, :meth:`start` starts the
    listener (``kibitz serve`` does) and :meth:`close` stops it; until then nothing is
    trusted."""

    def __init__(self, database: str, synchronous: str = "FULL", maxsize: int = 1024, *,
                 on_lost: Callable[[], None] | None = None) -> None:
        """``on_lost`` (if given) is called on the listener's thread each time its connection
        is found lost (``service.storage.connections.Connections.found_lost``: the server most likely ended
        every connection of the process)."""
        self._database = database
        self._on_lost = on_lost
        self._synchronous = synchronous
        self._games: LRUCache[str, Known] = LRUCache(maxsize=maxsize)
        self._lock = threading.Lock()
        self._guard: Database | None = None
        self._guard_lock = threading.Lock()
        postgres = store.is_postgres(database)
        self.listener: Listener | None = Listener(database, self) if postgres else None
        self._listening = False
        self._everything = 0
        self._changes = 0
        self._stamps = _Stamps(maxsize=maxsize * 16)

    def start(self) -> None:
        """Start hearing of other processes' commits (PostgreSQL; nothing to do on SQLite)."""
        if self.listener is not None:
            self.listener.start()

    def epoch(self, game_id: str) -> Epoch | None:
        """The :data:`Epoch` of ``game_id`` now; None when nothing can be trusted (the SQLite
        database cannot be read, PostgreSQL's listener is not listening)."""
        if self.listener is not None:
            with self._lock:
                if not self._listening:
                    return None
                return self._everything, self._changes, self._stamps.get(game_id, self._stamps.floor)
        with self._guard_lock:
            try:
                if self._guard is None:
                    self._guard = store.connect(self._database, self._synchronous)
                version = store.data_version(self._guard)
                return version, version, version
            except Exception:  # noqa: BLE001 - a fault here only means: ask the app
                if self._guard is not None:
                    self._guard.close()
                self._guard = None
                return None

    def note(self, game_id: str, version: int, epoch: Epoch | None, board: bytes | None = None, *,
             alone: bool = True) -> None:
        """Remember that game ``game_id`` was at ``version`` when read at ``epoch`` (from
        :meth:`epoch`, taken *before* the row was read), with ``board`` its public board at
        that version (or None: not one to share); ``alone``: the answer depends on this
        game's record alone (False for a what-if fork). An older version than the one
        remembered is ignored, and a board is only kept beside the version it was read at."""
        if epoch is None:
            return
        with self._lock:
            known = self._games.get(game_id)
            if known is not None and known.version > version:
                return
            if board is None and known is not None and known.version == version and known.board is not None:
                board = known.board
            self._games[game_id] = Known(version, epoch, board, alone)

    def current(self, game_id: str) -> Known | None:
        """What is remembered of ``game_id`` if nothing it depends on has been committed since
        it was read; None otherwise (the caller then asks the app)."""
        with self._lock:
            known = self._games.get(game_id)
        if known is None:
            return None
        now = self.epoch(game_id)
        if now is None or now[0] != known.epoch[0]:
            return None
        return known if (now[2] == known.epoch[2] if known.alone else now[1] == known.epoch[1]) else None

    # --- what the listener and the writer tell (PostgreSQL) ---------------------------------

    def listening(self) -> None:
        """The listener is (again) in place: whatever was remembered before is stale."""
        with self._lock:
            self._everything += 1
            self._listening = True

    def heard(self, game_ids: list[str]) -> None:
        """Another process (or this one) committed changes to ``game_ids``."""
        with self._lock:
            for game_id in game_ids:
                self._changes += 1
                self._stamps[game_id] = self._changes

    def lost(self) -> None:
        """The listener lost its connection: notifications may be missed until it listens again."""
        with self._lock:
            self._listening = False
            self._everything += 1
        if self._on_lost is not None:
            self._on_lost()

    def suspect(self) -> None:
        """A trigger guarding the stored events was dropped, disabled or replaced (the
        listener's look at the database's guard, or ``service.record.cache.FoldCache.observe`` on a
        request's read of it): a stored event may have been changed without any notification,
        so nothing remembered is trusted; every poll goes to the app, which checks the game
        in full again (docs/tamper-evidence.md)."""
        with self._lock:
            self._games.clear()
            self._everything += 1

    def committed(self) -> None:
        """This process committed a write (the writer says so before the write answers):
        on PostgreSQL nothing remembered is trusted until read again, as on SQLite, where the
        guard's ``data_version`` shows it by itself."""
        if self.listener is not None:
            with self._lock:
                self._everything += 1

    def trouble(self) -> str | None:
        """What this process knows, without asking, to be wrong with its PostgreSQL database:
        ``"not answering"`` (a wait on it went unanswered, or the listener's query of the guard did) or
        ``"cannot be reached"`` (the listener's connection was lost or refused), else None
        (None on SQLite, and before the listener first fails)."""
        if self.listener is None:
            return None
        if self.listener.trouble is not None:
            return self.listener.trouble
        return "not answering" if postgres_bounds.not_answering(self._database) else None

    def close(self) -> None:
        """Stop the listener (PostgreSQL) and close the guard connection (SQLite)."""
        if self.listener is not None:
            self.listener.stop()
        with self._guard_lock:
            if self._guard is not None:
                self._guard.close()
            self._guard = None
