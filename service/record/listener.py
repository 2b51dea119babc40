"""Hearing, in one ``kibitz serve`` process, of the moves recorded through any other process on
the same PostgreSQL database (docs/league.md, docs/crowds.md).

Every append notifies the database's channel (``service.storage.postgres.CHANNEL``) with the
game's id, delivered by PostgreSQL when the append's transaction commits. :class:`Listener` is
one daemon thread per process holding one connection of its own that ``LISTEN``\\ s on that
channel and tells what it hears to a :class:`Hearer` (``service.web.boards.BoardAnswers``):

* ``listening()`` once ``LISTEN`` is in place, after each (re)connection: what was heard
  before may be incomplete, so everything remembered is stale;
* ``heard(game_ids)`` for each batch of notifications;
* ``lost()`` as soon as the connection is found lost (the server stopped or restarted, the
  listener's backend was terminated, the network failed): from then until ``listening()``
  notifications are missed, so nothing remembered may be trusted.
* ``suspect()`` when the database's guard (``service.storage.postgres.GUARD``: the triggers
  that refuse to change a stored event) changed since the thread last looked, which it does
  after each wait for notifications (at least every :data:`WAIT` seconds, one small query on
  its own connection): a trigger was dropped, disabled or replaced, even if it is back, so
  a stored event may have been changed without any notification.

A server that stops answering without failing (paused, or cut off by the network) sends no
notification and no error: the query of the guard after each wait is also the server's
answer, bounded as every wait on the server is (``service.storage.postgres_bounds``: within
``PROBE_SECONDS`` on this connection), and a query left unanswered loses the connection like
any other failure. :attr:`Listener.trouble` says what the last failure was (None while
listening): what ``/health`` tells a load balancer.

After a lost connection it connects again at once and, while that fails, again after 0.05 s,
doubling up to 2 s, for as long as the process runs (its attempts are let through even while
the server is known not to answer, and the first that succeeds lets every other connection of
the process try again); any other error of its own is logged
and it connects again after 2 s, so the thread never ends before :meth:`Listener.stop`. :meth:`Listener.stop` ends the thread
within about :data:`WAIT` seconds (or the wait for an answer under way) and closes its connection.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Protocol

from service.storage import postgres
from service.storage.interface import StorageUnavailable

_log = logging.getLogger(__name__)

#: Seconds one wait for notifications lasts before the thread looks whether it must stop.
WAIT = 0.25
#: The first pause before connecting again after a failure, and the longest one (seconds).
RETRY_FIRST, RETRY_MOST = 0.05, 2.0
#: What :attr:`Listener.trouble` says for each kind of storage fault (else: cannot be reached).
TROUBLE = {"not_answering": "not answering"}


class Hearer(Protocol):
    """What a :class:`Listener` tells (see the module); each is called on the listener's thread."""

    def listening(self) -> None:
        """``LISTEN`` is in place (again): whatever was remembered before is stale."""

    def heard(self, game_ids: list[str]) -> None:
        """Commits changed the games ``game_ids`` (an id once per event, in commit order)."""

    def lost(self) -> None:
        """The connection is lost: trust nothing until :meth:`listening`."""

    def suspect(self) -> None:
        """The database's guard changed: a stored event may have been changed unheard."""


class Listener:
    """One thread listening on the database at ``url`` (a ``postgresql://`` URL) for
    ``hearer`` (see the module). Its connection is named ``kibitz listener <pid>`` in
    ``pg_stat_activity``. Not started until :meth:`start`."""

    def __init__(self, url: str, hearer: Hearer) -> None:
        self.url = url
        self.hearer = hearer
        self.name = f"kibitz listener {os.getpid()}"
        #: how many times ``LISTEN`` was put in place (1 after the first connection)
        self.connections = 0
        #: None while listening (or before the first failure), else what the last failure says
        #: of the database: ``"not answering"`` or ``"cannot be reached"``
        self.trouble: str | None = None
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start the thread (once; a second call does nothing)."""
        with self._lock:
            if self._thread is not None:
                return
            self._stopping.clear()
            self._thread = threading.Thread(target=self._run, name="kibitz-listener", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the thread and close its connection; waits up to ``timeout`` seconds."""
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is None:
            return
        self._stopping.set()
        thread.join(timeout)

    def _run(self) -> None:
        pause = RETRY_FIRST
        while not self._stopping.is_set():
            try:
                conn = postgres.listen(self.url, application_name=self.name)
            except StorageUnavailable as err:
                self.trouble = TROUBLE.get(err.kind, "cannot be reached")
                self._stopping.wait(pause)
                pause = min(pause * 2, RETRY_MOST)
                continue
            pause = RETRY_FIRST
            try:
                self.connections += 1
                seen = postgres.guard(conn)
                self.trouble = None
                self.hearer.listening()
                while not self._stopping.is_set():
                    games = postgres.changes(conn, WAIT)
                    if games:
                        self.hearer.heard(games)
                    guard = postgres.guard(conn)  # also the server's answer: a silent one is found here
                    if guard != seen:
                        seen = guard
                        self.hearer.suspect()
            except StorageUnavailable as err:
                self.trouble = TROUBLE.get(err.kind, "cannot be reached")  # connect again at once
            except Exception:  # a bug, not the connection: the thread goes on, after a pause
                _log.exception("the listener failed; it connects again")
                self._stopping.wait(RETRY_MOST)
            finally:
                self.hearer.lost()
                conn.close()
