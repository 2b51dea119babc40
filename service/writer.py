"""Group commit: one writer thread per process appends the moves of many requests at once.

With ``synchronous=FULL`` a 201 means the event is on disk, so every ``COMMIT`` waits for
an ``fsync``. Committing each move on its own caps a server at one move per ``fsync``
however many tablets are recording. Here request threads hand their write to the writer
thread, which runs every write waiting at that moment inside one ``BEGIN IMMEDIATE``
transaction, each in its own ``SAVEPOINT`` (a refused write rolls back only itself), then
commits once and answers them all. Each write still sees the ones before it in the same
batch (same connection), so versions, ``If-Match`` and idempotency keys behave exactly as
with one transaction per write; and ``BEGIN IMMEDIATE`` still serialises writers across
processes.

Each job names the games it writes (``run(job, games=...)``), and the batch's transaction
locks those of all its jobs (``store.begin_write(db, games=...)``): on PostgreSQL only those
games' writers in other processes wait for it, not the whole database's; a job that names
none locks the whole database, as SQLite's ``BEGIN IMMEDIATE`` always does.

A held game never holds up the others (PostgreSQL): the writer takes the games' locks
without waiting (``store.try_begin_write``); a job whose game's lock another transaction
holds (a writer on another machine, a slow transaction), or whose game has jobs set aside
already, is set aside to a waiting thread (at most :data:`MAX_WAITERS`, each on its own
connection), which waits for that game's lock (trying it again and again, holding no lock
in between, up to the lock timeout, then a ``busy`` 503 for those jobs alone) and commits
the game's jobs in the order they came; the batch commits every other game's jobs at once.
On SQLite nothing is ever set aside.

Checkpoints of the write-ahead log are kept off the write path: the writer's connection
does not checkpoint automatically (SQLite would do it inside the commit that crosses its
threshold, stalling that batch); instead a second thread runs a ``PASSIVE`` checkpoint on
its own connection every :data:`CHECKPOINT_EVERY` commits, while writers go on appending.

The threads start on the first write and stop after :data:`IDLE_SECONDS` without any.

A storage fault anywhere in a batch (disk full, read-only, I/O error, a lock held past the
busy timeout: ``store.fault``; on PostgreSQL a busy game's lock is waited for only by its
own set-aside jobs) rolls the whole transaction back, so none of the batch's
events, idempotency records or projection rows is stored, and every write of the batch
fails with ``store.StorageUnavailable`` (503); except on PostgreSQL a lock one job waited
for past the lock timeout (``busy``), which rolls back that job's savepoint alone. The
writer then drops its connection and opens a new one for the next batch: a connection SQLite
opened read-only (because the file was read-only then) would stay read-only after the file
became writable again, and one a PostgreSQL server ended (it stopped or restarted) stays
closed. While the database cannot be reached each batch fails at once with a 503 (opening
the connection fails), and the first batch after it is back commits. Nothing stops the
writer thread for good: should it ever fail, every write of its batch is answered with the
error and a new thread takes over the queued ones.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import queue
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from typing import Any, TypeVar

from sqlite_utils import Database

from service.storage import backend as store

T = TypeVar("T")
Job = Callable[[Database], Any]
#: What a queued write is: the job, the games it writes (None: the whole database), its answer.
Queued = tuple[Job, frozenset[str] | None, Future[Any]]

_log = logging.getLogger(__name__)

IDLE_SECONDS = 5.0
MAX_BATCH = 128
#: Commits between two checkpoints of the write-ahead log (SQLite's own default is about
#: every 1,000 pages, i.e. a few hundred moves, run inside the commit that crosses it).
CHECKPOINT_EVERY = 200
#: Threads (each with its own connection) waiting for games whose locks are busy (PostgreSQL).
MAX_WAITERS = 4


class _Waiter:
    """A thread's queue of set-aside jobs, and how many of them write each game."""

    def __init__(self) -> None:
        self.jobs: list[Queued] = []
        self.games: dict[str, int] = {}


class GroupCommitter:
    """Runs write jobs on one connection, many per transaction, committing once per batch."""

    def __init__(self, database: str, synchronous: str, *, busy_timeout_ms: int | None = None,
                 max_page_count: int | None = None, on_commit: Callable[[], None] | None = None) -> None:
        """``on_commit`` (if given) is called after each commit, before any write of the batch
        is answered (``service.boards.BoardAnswers.committed``)."""
        self._database = database
        self._on_commit = on_commit
        self._synchronous = synchronous
        self._options: dict[str, Any] = {"busy_timeout_ms": busy_timeout_ms, "max_page_count": max_page_count}
        self._jobs: queue.Queue[Queued] = queue.Queue()
        self._lock = threading.Lock()
        self._running = False
        self._aside_lock = threading.Lock()
        self._waiters: list[_Waiter] = []
        self._waiting_for: dict[str, _Waiter] = {}  # a game with jobs set aside: its waiter

    def run(self, job: Callable[[Database], T], *, games: Iterable[str] | None = None) -> T:
        """Run ``job(db)`` inside a write transaction and return its result once committed.

        ``games`` names every game ``job`` writes (or other text it must write alone: an
        import names the game it was exported from), whose write locks the transaction
        holds (``store.begin_write``); None locks the whole database.

        An exception raised by ``job`` rolls back what ``job`` wrote (and nothing else) and
        is raised here. A storage fault in the batch (``store.fault``), or an error
        committing it, stores nothing of the batch and raises ``store.StorageUnavailable``
        (or the commit's error) for every job in it; on PostgreSQL a game whose lock stays
        busy past the lock timeout (or a lock a job waits for that long) raises
        ``store.StorageUnavailable`` (``busy``) for that game's jobs (that job) alone.
        """
        future: Future[T] = Future()
        self._jobs.put((job, None if games is None else frozenset(games), future))
        with self._lock:
            if not self._running:
                self._running = True
                self._start()
        return future.result()

    def _start(self) -> None:
        """Start the writer thread (``_running`` is already True, under ``_lock``)."""
        threading.Thread(target=self._serve_until_stopped, name="kibitz-writer", daemon=True).start()

    def _serve_until_stopped(self) -> None:
        """:meth:`_serve`; should it ever fail (a bug: storage faults are answered as such), a
        new writer takes over the writes still queued, so none waits for ever."""
        try:
            self._serve()
        except BaseException:  # noqa: BLE001 - logged; the batch was answered with it
            _log.exception("the writer failed; the next write starts another")
            with self._lock:
                if self._jobs.empty():
                    self._running = False
                else:
                    self._start()

    def _connect(self) -> Any:
        return store.connect(self._database, self._synchronous, **self._options)

    def _serve(self) -> None:
        db: Database | None = None
        due, done = threading.Event(), threading.Event()
        threading.Thread(target=self._checkpoint, args=(due, done), name="kibitz-checkpoint", daemon=True).start()
        commits = 0
        try:
            while True:
                try:
                    first = self._jobs.get(timeout=IDLE_SECONDS)
                except queue.Empty:
                    with self._lock:
                        if self._jobs.empty():
                            self._running = False
                            return
                    continue
                batch = [first]
                while len(batch) < MAX_BATCH:
                    try:
                        batch.append(self._jobs.get_nowait())
                    except queue.Empty:
                        break
                try:
                    db = self._commit(db, batch, aside=True)
                except BaseException as err:  # answer every write of the batch, then stop
                    for _job, _games, future in batch:
                        if not future.done():
                            future.set_exception(err)
                    raise
                commits += 1
                if commits >= CHECKPOINT_EVERY:
                    commits = 0
                    due.set()
        finally:
            done.set()
            due.set()
            if db is not None:
                with contextlib.suppress(Exception):
                    db.close()

    def _checkpoint(self, due: threading.Event, done: threading.Event) -> None:
        """Copy the write-ahead log into the database whenever the writer asks, until it stops."""
        db: Database | None = None
        try:
            while True:
                due.wait()
                due.clear()
                if done.is_set():
                    return
                try:
                    db = db or self._connect()
                    store.checkpoint_passive(db)
                except Exception:  # noqa: BLE001 - a busy or failed checkpoint is retried next time
                    if db is not None:
                        db.close()
                    db = None
        finally:
            if db is not None:
                db.close()

    def _set_aside(self, queued: Queued) -> None:
        """Hand ``queued`` (a job naming its games) to the waiter of its games (a new one,
        or the least busy when :data:`MAX_WAITERS` run), behind that game's jobs set aside."""
        games = queued[1] or frozenset()
        with self._aside_lock:
            waiter = next((self._waiting_for[game] for game in sorted(games) if game in self._waiting_for), None)
            if waiter is None and len(self._waiters) >= MAX_WAITERS:
                waiter = min(self._waiters, key=lambda each: len(each.jobs))
            if waiter is None:
                waiter = _Waiter()
                self._waiters.append(waiter)
                threading.Thread(target=self._wait, args=(waiter,), name="kibitz-writer-waiting", daemon=True).start()
            waiter.jobs.append(queued)
            for game in games:
                waiter.games[game] = waiter.games.get(game, 0) + 1
                self._waiting_for[game] = waiter

    def _wait(self, waiter: _Waiter) -> None:
        """Commit ``waiter``'s jobs, those waiting at once together, each transaction waiting for
        its games' locks; stop (closing its connection) when it has none left."""
        db: Database | None = None
        try:
            while True:
                with self._aside_lock:
                    if not waiter.jobs:
                        self._waiters.remove(waiter)
                        return
                    batch, waiter.jobs = waiter.jobs[:MAX_BATCH], waiter.jobs[MAX_BATCH:]
                db = self._commit(db, batch)
                with self._aside_lock:  # once answered, later jobs of these games go the usual way
                    for game in itertools.chain.from_iterable(games or () for _job, games, _future in batch):
                        waiter.games[game] -= 1
                        if not waiter.games[game]:
                            del waiter.games[game]
                            if self._waiting_for.get(game) is waiter:
                                del self._waiting_for[game]
        finally:
            if db is not None:
                db.close()

    def _begin(self, db: Database, batch: list[Queued], locked: frozenset[str] | None, *,
               aside: bool) -> list[Queued]:
        """Open ``batch``'s write transaction on ``db`` holding the locks of ``locked`` (its games;
        None: the whole database). With ``aside`` (the writer's own batches) a job of a game whose
        lock is busy, or whose game has jobs set aside, is set aside (:meth:`_set_aside`) and left
        out of the returned batch; a waiter's batch tries its games' locks until the lock timeout."""
        if aside and locked is not None:
            with self._aside_lock:
                pending = set(locked & self._waiting_for.keys())
            pending |= store.try_begin_write(db, locked - pending)
            if not pending:
                return batch
            kept = []
            for queued in batch:
                if queued[1] and queued[1] & pending:
                    pending |= queued[1]  # later jobs of its games follow it
                    self._set_aside(queued)
                else:
                    kept.append(queued)
            return kept
        if locked is not None:
            store.try_begin_write(db, locked, patient=True)
        else:
            store.begin_write(db, games=None)
        return batch

    def _commit(self, db: Database | None, batch: list[Queued], *, aside: bool = False) -> Database | None:
        """Run ``batch`` in one transaction on ``db`` (opened if None); answer every future.

        With ``aside`` (the writer's own batches), a job writing a game whose lock is busy, or
        whose game has jobs set aside, is set aside (:meth:`_set_aside`) instead of waited for.
        Returns the connection to use for the next batch: None after a storage fault (the
        next batch opens a fresh one)."""
        outcomes: list[tuple[Future[Any], Any, BaseException | None]] = []
        try:
            if db is None:
                db = self._connect()
                store.manual_checkpoints(db)
            named = [games for _job, games, _future in batch]
            locked = None if any(games is None for games in named) else frozenset(
                game for games in named if games is not None for game in games)
            try:
                batch = self._begin(db, batch, locked, aside=aside)
            except Exception:
                if not store.is_lost(db):
                    raise
                # ended by its server while idle (PostgreSQL restarted): nothing of the batch
                # has run yet (none of it set aside), so it is tried once more on a new connection
                with contextlib.suppress(Exception):
                    db.close()
                db = None
                db = self._connect()
                store.manual_checkpoints(db)
                batch = self._begin(db, batch, locked, aside=aside)
            for job, _games, future in batch:
                store.savepoint(db, "job")
                try:
                    result = job(db)
                except BaseException as err:  # noqa: BLE001 - handed to the waiting request
                    unavailable = store.fault(err)
                    if unavailable is not None and not (unavailable.kind == "busy" and store.is_postgres(db)):
                        raise  # the storage failed, not this write: the whole batch is abandoned
                    # a lock this write waited for too long (PostgreSQL): this write's 503 alone
                    store.rollback_to(db, "job")
                    outcomes.append((future, None, unavailable or err))
                else:
                    store.release(db, "job")
                    outcomes.append((future, result, None))
            store.commit(db)
            if self._on_commit is not None:
                self._on_commit()
        except Exception as err:  # noqa: BLE001 - nothing of the batch is stored; each request is told
            unavailable = store.fault(err)
            if db is not None:
                # SQLite may have rolled back already, or the connection is unusable: dropped below
                # (a lost one's rollback never raises; nothing else may leave a request unanswered)
                with contextlib.suppress(Exception):
                    store.rollback(db)
                if unavailable is not None or store.is_lost(db):
                    with contextlib.suppress(Exception):
                        db.close()
                    db = None
            failure: BaseException = unavailable or err
            done = {id(future): own for future, _result, own in outcomes if own is not None}
            for _job, _games, future in batch:
                future.set_exception(done.get(id(future)) or failure)
            return db
        for future, result, own in outcomes:
            if own is None:
                future.set_result(result)
            else:
                future.set_exception(own)
        return db
