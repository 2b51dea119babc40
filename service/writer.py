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

Checkpoints of the write-ahead log are kept off the write path: the writer's connection
does not checkpoint automatically (SQLite would do it inside the commit that crosses its
threshold, stalling that batch); instead a second thread runs a ``PASSIVE`` checkpoint on
its own connection every :data:`CHECKPOINT_EVERY` commits, while writers go on appending.

The threads start on the first write and stop after :data:`IDLE_SECONDS` without any.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from sqlite_utils import Database

from service import store

T = TypeVar("T")
Job = Callable[[Database], Any]

IDLE_SECONDS = 5.0
MAX_BATCH = 128
#: Commits between two checkpoints of the write-ahead log (SQLite's own default is about
#: every 1,000 pages, i.e. a few hundred moves, run inside the commit that crosses it).
CHECKPOINT_EVERY = 200


class GroupCommitter:
    """Runs write jobs on one connection, many per transaction, committing once per batch."""

    def __init__(self, database: str, synchronous: str) -> None:
        self._database = database
        self._synchronous = synchronous
        self._jobs: queue.Queue[tuple[Job, Future[Any]]] = queue.Queue()
        self._lock = threading.Lock()
        self._running = False

    def run(self, job: Callable[[Database], T]) -> T:
        """Run ``job(db)`` inside a write transaction and return its result once committed.

        An exception raised by ``job`` rolls back what ``job`` wrote (and nothing else) and
        is raised here; so is an error committing the batch (then nothing of it is stored).
        """
        future: Future[T] = Future()
        self._jobs.put((job, future))
        with self._lock:
            if not self._running:
                self._running = True
                threading.Thread(target=self._serve, name="kibitz-writer", daemon=True).start()
        return future.result()

    def _serve(self) -> None:
        db = store.connect(self._database, self._synchronous)
        db.execute("PRAGMA wal_autocheckpoint = 0")
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
                self._commit(db, batch)
                commits += 1
                if commits >= CHECKPOINT_EVERY:
                    commits = 0
                    due.set()
        finally:
            done.set()
            due.set()
            db.close()

    def _checkpoint(self, due: threading.Event, done: threading.Event) -> None:
        """Copy the write-ahead log into the database whenever the writer asks, until it stops."""
        db = store.connect(self._database, self._synchronous)
        try:
            while True:
                due.wait()
                due.clear()
                if done.is_set():
                    return
                try:
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)")
                except Exception:  # noqa: BLE001 - a busy checkpoint is retried next time
                    continue
        finally:
            db.close()

    @staticmethod
    def _commit(db: Database, batch: list[tuple[Job, Future[Any]]]) -> None:
        outcomes: list[tuple[Future[Any], Any, BaseException | None]] = []
        try:
            db.execute("BEGIN IMMEDIATE")
        except Exception as err:  # the database stayed locked past the busy timeout
            for _job, future in batch:
                future.set_exception(err)
            return
        for job, future in batch:
            db.execute("SAVEPOINT job")
            try:
                result = job(db)
            except BaseException as err:  # noqa: BLE001 - handed to the waiting request
                db.execute("ROLLBACK TO job")
                db.execute("RELEASE job")
                outcomes.append((future, None, err))
            else:
                db.execute("RELEASE job")
                outcomes.append((future, result, None))
        try:
            db.execute("COMMIT")
        except Exception as err:
            if db.conn.in_transaction:
                db.conn.rollback()
            outcomes = [(future, None, failure or err) for future, _result, failure in outcomes]
        for future, result, failure in outcomes:
            if failure is None:
                future.set_result(result)
            else:
                future.set_exception(failure)
