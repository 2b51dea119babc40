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

Checkpoints of the write-ahead log are kept off the write path: the writer's connection
does not checkpoint automatically (SQLite would do it inside the commit that crosses its
threshold, stalling that batch); instead a second thread runs a ``PASSIVE`` checkpoint on
its own connection every :data:`CHECKPOINT_EVERY` commits, while writers go on appending.

The threads start on the first write and stop after :data:`IDLE_SECONDS` without any.

A storage fault anywhere in a batch (disk full, read-only, I/O error, a lock held past the
busy timeout: ``store.fault``) rolls the whole transaction back, so none of the batch's
events, idempotency records or projection rows is stored, and every write of the batch
fails with ``store.StorageUnavailable`` (503). The writer then drops its connection and
opens a new one for the next batch: a connection SQLite opened read-only (because the file
was read-only then) would stay read-only after the file became writable again, and one a
PostgreSQL server ended (it stopped or restarted) stays closed. While the database cannot be
reached each batch fails at once with a 503 (opening the connection fails), and the first
batch after it is back commits. Nothing stops the writer thread for good: should it ever
fail, every write of its batch is answered with the error and a new thread takes over the
queued ones.
"""

from __future__ import annotations

import contextlib
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

    def run(self, job: Callable[[Database], T], *, games: Iterable[str] | None = None) -> T:
        """Run ``job(db)`` inside a write transaction and return its result once committed.

        ``games`` names every game ``job`` writes (or other text it must write alone: an
        import names the game it was exported from), whose write locks the transaction
        holds (``store.begin_write``); None locks the whole database.

        An exception raised by ``job`` rolls back what ``job`` wrote (and nothing else) and
        is raised here. A storage fault in the batch (``store.fault``), or an error
        committing it, stores nothing of the batch and raises ``store.StorageUnavailable``
        (or the commit's error) for every job in it.
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
                    db = self._commit(db, batch)
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

    def _commit(self, db: Database | None, batch: list[Queued]) -> Database | None:
        """Run ``batch`` in one transaction on ``db`` (opened if None); answer every future.

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
                store.begin_write(db, games=locked)
            except Exception:
                if not store.is_lost(db):
                    raise
                # ended by its server while idle (PostgreSQL restarted): nothing of the batch
                # has run yet, so it is tried once more on a new connection
                with contextlib.suppress(Exception):
                    db.close()
                db = None
                db = self._connect()
                store.manual_checkpoints(db)
                store.begin_write(db, games=locked)
            for job, _games, future in batch:
                store.savepoint(db, "job")
                try:
                    result = job(db)
                except BaseException as err:  # noqa: BLE001 - handed to the waiting request
                    if store.fault(err) is not None:
                        raise  # the storage failed, not this write: the whole batch is abandoned
                    store.rollback_to(db, "job")
                    outcomes.append((future, None, err))
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
