"""Bounded waits on a PostgreSQL server: no call waits for ever on a server that stops
answering without failing (docs/league.md, "A database that stops answering").

A server whose processes are paused (``SIGSTOP``, the postmaster too), or whose network path is
cut, fails nothing by itself: a paused machine's kernel still accepts connections and
acknowledges what is sent, so TCP keepalives and ``tcp_user_timeout`` never fire and a statement
waits for its answer for ever. A statement that waits long is not enough to tell, though: on a
server that answers, a write may wait for another's lock up to ``lock_timeout`` on purpose. So
every connection of ``service.storage.postgres`` (a :class:`BoundedConnection`) is bounded so:

- **the server's own bounds** (:func:`session_settings`): ``statement_timeout`` (``lock_timeout``
  and :data:`ANSWER_SECONDS` more) and ``idle_in_transaction_session_timeout``
  (:data:`IDLE_SECONDS`: a transaction left idle, its process paused or cut off, frees its locks);
- **a watchdog** (one thread per process, :class:`Silence` per database URL): a wait on the
  server that has lasted :data:`SUSPECT_SECONDS` while no connection of the process has heard
  from the server for as long makes it ask the server itself, on a connection of its own (a
  new one, ``SELECT 1``, within :data:`PROBE_SECONDS`). A server that answers is left to finish
  its work; one that does not is *silent*: every wait on it is given up (its socket shut down,
  the connection closed, :class:`NotAnswering` raised: a ``not_answering`` storage fault, 503);
- **no wait once silent**: a statement on any connection to a silent server, and an attempt to
  connect, fail at once with :class:`NotAnswering`, sending nothing, except one attempt to
  connect every :data:`RETRY_SECONDS` and those of *probing* connections (the watchdog's, the
  listener's of ``service.record.listener``, which asks the server after each wait for notifications); the first
  connection that succeeds ends the silence, and everything works again by itself;
- **a last bound on each wait**: the server's ``statement_timeout`` and :data:`MARGIN` more,
  should the watchdog not have ended it;
- **``connect_timeout``** (:data:`CONNECT_SECONDS`) and **TCP keepalives and ``tcp_user_timeout``**
  (:data:`TCP`), each unless the URL names its own.

Nothing given up is stored twice: a statement already sent is given up no sooner than
:data:`IDLE_SECONDS` after its connection's last answer, so the backend of a transaction whose
``COMMIT`` is given up (idle in the transaction since then, or before) has passed its
``idle_in_transaction_session_timeout`` and ends the session before it reads the ``COMMIT``
when the server resumes. (A server paused after it had read the ``COMMIT`` commits it when it
resumes: the client's ``Idempotency-Key`` makes that move's next sending find its answer.)
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from cachetools import LRUCache
from psycopg import errors
from psycopg.abc import PQGen
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import DictRow

#: How long the server works on one statement beyond its ``lock_timeout`` before it ends it
#: (``statement_timeout``), in seconds.
ANSWER_SECONDS = 5
#: ``idle_in_transaction_session_timeout``, in seconds; and how long after a connection's last
#: answer a statement it sent may be given up, at the soonest.
IDLE_SECONDS = 5
#: How much longer than the server's ``statement_timeout`` a wait lasts before it is given up
#: even without the watchdog (seconds).
MARGIN = 1.0
#: How long a wait may go on with no word from the server on any connection before the
#: watchdog asks the server whether it answers (seconds).
SUSPECT_SECONDS = 2.0
#: How long the watchdog's question may take (to connect, and to answer ``SELECT 1``), and
#: the listener's query of the guard after each wait for notifications (seconds).
PROBE_SECONDS = 3
#: How long an attempt to connect may take (``connect_timeout``, seconds) unless the URL says.
CONNECT_SECONDS = 5
#: While a server is silent, how often one attempt to connect to it is let through (seconds).
RETRY_SECONDS = 2.0
#: How often the watchdog looks at the waits (seconds).
WATCH_EVERY = 0.25
#: What each connection asks of TCP unless its URL names its own: a probe after 5 s without
#: traffic, every 2 s, 3 unanswered ones end it; data unacknowledged for 20 s ends it.
TCP = {"keepalives": "1", "keepalives_idle": "5", "keepalives_interval": "2", "keepalives_count": "3",
       "tcp_user_timeout": "20000"}
#: A wait without a bound of its own, before :func:`session_settings` gave the connection one.
_FIRST_BOUND = 10.0 + ANSWER_SECONDS + MARGIN
_WAIT_INTERVAL = 0.1  # psycopg's own: how often a wait looks for a signal (Ctrl-C)


class NotAnswering(psycopg.OperationalError):
    """The database server did not answer (a statement, or an attempt to connect), or this
    process found it silent a moment ago; the connection is closed."""


def session_settings(conn: psycopg.Connection[Any], lock_timeout_ms: int) -> str:
    """The ``SET`` statements giving ``conn``'s session its server-side bounds, for a session
    with ``lock_timeout`` ``lock_timeout_ms`` (sent with the connection's other settings, in one
    round trip); ``conn`` (a :class:`BoundedConnection`) then waits as long as its statements may take."""
    statement_ms = int(lock_timeout_ms) + ANSWER_SECONDS * 1000
    if isinstance(conn, BoundedConnection):
        conn.answer_within = statement_ms / 1000 + MARGIN
    return (f"SET statement_timeout = {statement_ms}; "
            f"SET idle_in_transaction_session_timeout = {IDLE_SECONDS * 1000}")


class Silence:
    """What this process knows of the database at ``url``: since when (``time.monotonic()``) its
    server is silent (:attr:`since`, None while it answers), when any connection last heard from
    it, and which connections wait on it now. Thread-safe."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.since: float | None = None
        self.heard_at = time.monotonic()
        self._tried = 0.0
        self._lock = threading.Lock()
        self._waiting: dict[BoundedConnection, float] = {}

    @property
    def silent(self) -> bool:
        """True while the server is known not to answer."""
        return self.since is not None

    def found(self) -> None:
        """The server did not answer: it is silent (from now, unless already)."""
        with self._lock:
            now = time.monotonic()
            if self.since is None:
                self.since = now
            self._tried = now

    def answered(self) -> None:
        """The server answered a new connection: it is no longer silent."""
        with self._lock:
            self.since = None
            self.heard_at = time.monotonic()

    def admit(self) -> None:
        """Let an attempt to connect through, or raise :class:`NotAnswering` while the server
        is silent (letting one attempt through every :data:`RETRY_SECONDS`)."""
        with self._lock:
            if self.since is None:
                return
            now = time.monotonic()
            if now - self._tried >= RETRY_SECONDS:
                self._tried = now
                return
            silent_for = now - self.since
        raise NotAnswering(f"the database server has not answered for {silent_for:.0f} s")

    def waits(self, conn: BoundedConnection) -> None:
        """``conn`` waits on the server from now (until :meth:`heard`)."""
        with self._lock:
            self._waiting[conn] = time.monotonic()
        _watchdog.watch(self)

    def heard(self, conn: BoundedConnection, answered: bool) -> None:
        """``conn``'s wait is over (``answered``: with the server's answer)."""
        with self._lock:
            self._waiting.pop(conn, None)
            if answered:
                conn.heard_at = self.heard_at = time.monotonic()

    def watch(self) -> bool:
        """Look at the waits (the watchdog, every :data:`WATCH_EVERY` s): ask the server when one
        has lasted :data:`SUSPECT_SECONDS` with no word from it; once it is silent, give up every
        wait sent :data:`IDLE_SECONDS` or more after its connection's last answer. True while
        any connection waits."""
        now = time.monotonic()
        with self._lock:
            waiting = {conn: began for conn, began in self._waiting.items() if not conn.probing}
            heard_at = self.heard_at
        if not waiting:
            return False
        if self.since is None:
            if now - min(waiting.values()) < SUSPECT_SECONDS or now - heard_at < SUSPECT_SECONDS:
                return True
            if _answers(self.url):
                with self._lock:
                    self.heard_at = max(self.heard_at, now)
                return True
            self.found()
        with self._lock:
            for conn in self._waiting:  # under the lock: a connection cannot end its wait (nor close) meanwhile
                if not conn.probing and time.monotonic() - conn.heard_at >= IDLE_SECONDS:
                    conn.give_up()
        return True


def _answers(url: str) -> bool:
    """Whether the server of ``url`` answers a new connection's ``SELECT 1`` within
    :data:`PROBE_SECONDS` (a server that refuses, or fails, answers: it is not silent)."""
    try:
        with open_bounded(url, probing=True, autocommit=True, connect_timeout=str(PROBE_SECONDS),
                          application_name=f"kibitz probe {os.getpid()}") as conn:
            conn.answer_within = PROBE_SECONDS
            conn.execute("SELECT 1")
    except NotAnswering:
        return False
    except psycopg.Error:
        return True
    return True


class _Watchdog:
    """One daemon thread per process looking at the waits of every :class:`Silence` with one
    (started by the first wait; it stops when none is left)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._silences: set[Silence] = set()
        self._running = False

    def watch(self, silence: Silence) -> None:
        with self._lock:
            self._silences.add(silence)
            if not self._running:
                self._running = True
                threading.Thread(target=self._run, name="kibitz-watchdog", daemon=True).start()

    def _run(self) -> None:
        while True:
            time.sleep(WATCH_EVERY)
            with self._lock:
                silences = list(self._silences)
            for silence in silences:
                try:
                    busy = silence.watch()
                except Exception:  # noqa: BLE001 - the watchdog goes on; the last bound still holds
                    busy = True
                if not busy:
                    with self._lock:
                        self._silences.discard(silence)
            with self._lock:
                if not self._silences:
                    self._running = False
                    return


_watchdog = _Watchdog()
_SILENCES: LRUCache[str, Silence] = LRUCache(maxsize=256)
_SILENCES_LOCK = threading.Lock()


def silence(url: str) -> Silence:
    """The :class:`Silence` of the database at ``url`` in this process (one per URL)."""
    with _SILENCES_LOCK:
        found = _SILENCES.get(url)
        if found is None:
            found = _SILENCES[url] = Silence(url)
        return found


def not_answering(url: str) -> bool:
    """True while this process knows the server of ``url`` to be silent."""
    return silence(url).silent


class BoundedConnection(psycopg.Connection[DictRow]):
    """A psycopg connection whose every wait for its server is bounded (see the module): given up
    by the watchdog once its :attr:`silence` finds the server silent, refused at once while it
    is, and given up after :attr:`answer_within` seconds in any case; a wait given up closes the
    connection and raises :class:`NotAnswering`. Opened by :func:`open_bounded`."""

    #: The last bound on a wait (seconds): the server's statement timeout and then some.
    answer_within: float = _FIRST_BOUND
    #: The silence of its database (None: not watched).
    silence: Silence | None = None
    #: A probing connection goes on asking a silent server (the watchdog's, the listener's).
    probing = False
    #: When it last heard from the server (``time.monotonic()``).
    heard_at = 0.0
    _given_up = False

    def wait(self, gen: PQGen[Any], interval: float = _WAIT_INTERVAL, timeout: float | None = None) -> Any:
        """psycopg's wait for the server, bounded (see the class). A caller's own shorter
        ``timeout`` (waiting for notifications) is left to the caller."""
        if timeout is not None and timeout <= self.answer_within:
            return super().wait(gen, interval, timeout)
        silence = self.silence
        if silence is not None and silence.silent and not self.probing:
            gen.close()  # nothing was sent
            self.pgconn.finish()
            raise NotAnswering("the database server is not answering (found a moment ago)")
        if silence is not None:
            silence.waits(self)
        answered = False
        try:
            result = super().wait(gen, interval, self.answer_within)
            answered = True
            return result
        except errors.OperationalError as err:
            if type(err).__name__ == "_WaitTimeout":  # psycopg's own, for the bound given
                self.pgconn.finish()  # the statement may be half sent or half answered: never used again
                if silence is not None:
                    silence.found()
                raise NotAnswering(f"the database server did not answer within {self.answer_within:g} s") from None
            if self._given_up:
                raise NotAnswering("the database server is not answering") from None
            raise
        finally:
            if silence is not None:
                silence.heard(self, answered)

    def give_up(self) -> None:
        """End the wait under way (the watchdog's, from another thread): its socket is shut down,
        so the wait ends at once and the connection is closed. Never raises."""
        self._given_up = True
        with contextlib.suppress(OSError, ValueError):
            fd = self.pgconn.socket
            with socket.socket(fileno=os.dup(fd)) as doomed:
                doomed.shutdown(socket.SHUT_RDWR)


@contextmanager
def waiting(conn: object, seconds: float) -> Iterator[None]:
    """Within the block, let each wait of ``conn`` (a :class:`BoundedConnection`; anything else
    is left alone) last up to ``seconds`` before its last bound (at least what it may already):
    for statements the server itself sets no ``statement_timeout`` (migrations)."""
    if not isinstance(conn, BoundedConnection):
        yield
        return
    before = conn.answer_within
    conn.answer_within = max(before, seconds)
    try:
        yield
    finally:
        conn.answer_within = before


def options(url: str) -> dict[str, str]:
    """The connection parameters added to ``url``'s: :data:`CONNECT_SECONDS` and :data:`TCP`,
    each unless the URL names its own."""
    named = conninfo_to_dict(url)
    ours = {"connect_timeout": str(CONNECT_SECONDS), **TCP}
    return {key: value for key, value in ours.items() if key not in named}


def open_bounded(url: str, *, probing: bool = False, **kwargs: Any) -> BoundedConnection:
    """A :class:`BoundedConnection` to ``url`` (``kwargs``: psycopg's, such as ``row_factory``,
    ``autocommit``, ``application_name``) with :func:`options`; ``probing``: it is never refused
    for its server's silence. Raises :class:`NotAnswering` when the server does not answer within
    ``connect_timeout`` or is known to be silent, and the driver's error when it refuses."""
    known = silence(url)
    if not probing:
        known.admit()
    try:
        conn = BoundedConnection.connect(url, **{**options(url), **kwargs})
    except errors.ConnectionTimeout:
        known.found()
        raise NotAnswering("the database server did not answer within its connect_timeout") from None
    known.answered()
    conn.heard_at = time.monotonic()
    conn.silence = known
    conn.probing = probing
    return conn
