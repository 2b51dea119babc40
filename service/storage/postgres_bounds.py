"""Bounded waits on a PostgreSQL server: no call waits for ever on a server that stops
answering without failing (docs/league.md, "A database that stops answering").

A server whose processes are paused (``SIGSTOP``, the postmaster too), or whose network path is
cut, fails nothing by itself: a paused machine's kernel still accepts connections and
acknowledges what is sent, so TCP keepalives and ``tcp_user_timeout`` never fire and a statement
waits for its answer for ever. Every connection of ``service.storage.postgres`` is therefore
bounded four ways:

- **by the server**, on every connection (:data:`SESSION`): ``statement_timeout`` and
  ``idle_in_transaction_session_timeout`` of :data:`ANSWER_SECONDS`, so a server that works
  answers every statement within that time (a slow one with ``QueryCanceled``: a ``busy`` 503,
  the connection kept). The idle timeout is also what keeps a write the client gave up on from
  being committed when a paused server resumes: its backend, idle in the transaction since
  before the client's ``COMMIT`` was sent, ends the session before reading it;
- **by the client**, for every wait on the server (:class:`BoundedConnection`): a statement
  unanswered :data:`MARGIN` seconds after the server's own timeout would have answered is given
  up, its connection closed (it is in an unknown state) and :class:`NotAnswering` raised (a
  storage fault, 503 ``storage_unavailable``), as is an attempt to connect that gets no answer
  within :data:`CONNECT_SECONDS` (``connect_timeout``, unless the URL names its own);
- **by TCP** (:data:`TCP`, unless the URL names its own): keepalives and ``tcp_user_timeout``,
  so an idle connection whose network path is gone is found lost;
- **by remembering** (:class:`Silence`, one per database URL in this process): once a wait
  found the server not answering, other connections to it do not each wait again: a statement
  on any of them and an attempt to connect fail at once with :class:`NotAnswering`, except one
  attempt to connect every :data:`RETRY_SECONDS` and those of a *probing* connection (the
  listener's, ``service.listener``, which tries again by itself); the first connection that
  succeeds ends the silence, and everything works again by itself.
"""

from __future__ import annotations

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

#: How long the server works on one statement, or leaves a transaction idle, before it ends it
#: (``statement_timeout``, ``idle_in_transaction_session_timeout``), in seconds.
ANSWER_SECONDS = 5
#: How much longer than that the client waits for an answer before it gives up (seconds).
MARGIN = 1.0
#: How long an attempt to connect may take (``connect_timeout``, seconds) unless the URL says.
CONNECT_SECONDS = 5
#: While a server is not answering, how often one attempt to connect to it is let through (seconds).
RETRY_SECONDS = 2.0
#: What each connection asks of TCP unless its URL names its own: a probe after 5 s without
#: traffic, every 2 s, 3 unanswered ones end it; data unacknowledged for 20 s ends it.
TCP = {"keepalives": "1", "keepalives_idle": "5", "keepalives_interval": "2", "keepalives_count": "3",
       "tcp_user_timeout": "20000"}
#: The bounds the server keeps on each session (``SET``, in one round trip with the others).
SESSION = (f"SET statement_timeout = {ANSWER_SECONDS * 1000}; "
           f"SET idle_in_transaction_session_timeout = {ANSWER_SECONDS * 1000}")

_WAIT_INTERVAL = 0.1  # psycopg's own: how often a wait looks for a signal (Ctrl-C)


class NotAnswering(psycopg.OperationalError):
    """The database server did not answer in time (a statement, or an attempt to connect),
    or this process found it not answering a moment ago; the connection is closed."""


class Silence:
    """What this process knows of one database: since when (``time.monotonic()``) its server
    has not answered, or None while it answers. Thread-safe."""

    def __init__(self) -> None:
        self.since: float | None = None
        self._tried = 0.0
        self._lock = threading.Lock()

    @property
    def silent(self) -> bool:
        """True while the server is known not to answer."""
        return self.since is not None

    def found(self) -> None:
        """A wait on the server went unanswered: it is silent (from now, unless already)."""
        with self._lock:
            now = time.monotonic()
            if self.since is None:
                self.since = now
            self._tried = now

    def answered(self) -> None:
        """The server answered (a connection was opened): it is no longer silent."""
        with self._lock:
            self.since = None

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


_SILENCES: LRUCache[str, Silence] = LRUCache(maxsize=256)
_SILENCES_LOCK = threading.Lock()


def silence(url: str) -> Silence:
    """The :class:`Silence` of the database at ``url`` in this process (one per URL)."""
    with _SILENCES_LOCK:
        found = _SILENCES.get(url)
        if found is None:
            found = _SILENCES[url] = Silence()
        return found


def not_answering(url: str) -> bool:
    """True while this process knows the server of ``url`` not to answer."""
    return silence(url).silent


class BoundedConnection(psycopg.Connection[DictRow]):
    """A psycopg connection whose every wait for its server is bounded (see the module): a
    wait longer than :attr:`answer_within` seconds closes the connection and raises
    :class:`NotAnswering`, and so does any wait while its database's :attr:`silence` says the
    server is not answering (unless :attr:`probing`). Opened by :func:`open_bounded`."""

    #: How long a wait for the server may take (seconds): the server's own statement timeout and then some.
    answer_within: float = ANSWER_SECONDS + MARGIN
    #: The silence of its database (None: not shared).
    silence: Silence | None = None
    #: A probing connection goes on asking a silent server (the listener's).
    probing = False

    def wait(self, gen: PQGen[Any], interval: float = _WAIT_INTERVAL, timeout: float | None = None) -> Any:
        """psycopg's wait for the server, bounded (see the class). A caller's own shorter
        ``timeout`` (waiting for notifications) is left to the caller."""
        if timeout is not None and timeout <= self.answer_within:
            return super().wait(gen, interval, timeout)
        silence = self.silence
        if silence is not None and silence.silent and not self.probing:
            gen.close()
            self.pgconn.finish()
            raise NotAnswering("the database server is not answering (found a moment ago)")
        try:
            return super().wait(gen, interval, self.answer_within)
        except errors.OperationalError as err:
            if type(err).__name__ != "_WaitTimeout":  # psycopg's own, for the timeout given
                raise
            self.pgconn.finish()  # the statement may be half sent or half answered: never used again
            if silence is not None:
                silence.found()
            raise NotAnswering(f"the database server did not answer within {self.answer_within:g} s") from None


@contextmanager
def waiting(conn: object, seconds: float) -> Iterator[None]:
    """Within the block, let each wait of ``conn`` (a :class:`BoundedConnection`; anything else
    is left alone) take up to ``seconds`` (at least what it may take already): for statements
    that wait for a lock up to ``lock_timeout`` on purpose."""
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
    ``connect_timeout`` or is known not to answer, and the driver's error when it refuses."""
    known = silence(url)
    if not probing:
        known.admit()
    try:
        conn = BoundedConnection.connect(url, **{**options(url), **kwargs})
    except errors.ConnectionTimeout as err:
        known.found()
        raise NotAnswering(f"the database server did not answer within its connect_timeout ({err})") from None
    known.answered()
    conn.silence = known
    conn.probing = probing
    return conn
