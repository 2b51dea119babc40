"""Every write of the process, each run and committed in the thread that asked for it.

A write is a transaction on a connection of the writer's own, begun, run and committed by
the request's thread (or the command's): no hand-off to another thread and back.
:meth:`Writer.move` is a move's walk, one read and one append (``store.begin_move``, then
the append and the ``COMMIT`` sent together: ``store.pipeline``); :meth:`Writer.run` any
other write (a new game, a fork, an import, a token), whose job writes what it likes. The
figures that chose this over a writer thread committing groups of writes are in
docs/performance.md, "Fewer hand-offs per move".

Who goes first:

- **SQLite**: one write at a time in the process, in the order they asked (a queue of
  turns, so no write waits on SQLite's busy handler, which sleeps and retries, behind
  another of the same process), then ``BEGIN IMMEDIATE`` across processes. A write that
  came while another held the turn **joins that write's open transaction** (its own writes
  in a ``SAVEPOINT``, so a refusal rolls back alone), still in its own thread; the last
  write of such a run (no one waiting, or :data:`MAX_BATCH` in it) commits for all of them,
  one ``fsync``, and each answers only then. One connection serves them all (kept in a
  pool, so there is one while writes are one at a time). A caller that need not wait in a
  thread of its own (``kibitz serve``'s direct route) queues its move instead
  (:meth:`Writer.later`): one thread drains the queue (:meth:`Writer.drain`), taking the
  turn as any write does and running the queued moves one after another in one transaction,
  so no thread per move waits for the turn or the commit; each is told how it ended once
  its transaction ended (``then``), by the thread that ended it.
- **PostgreSQL**: each write is a transaction of its own (PostgreSQL flushes the commits of
  concurrent transactions together by itself). Each game takes its turns (in the process,
  in the order asked), then its advisory lock across processes (``store.begin_move``,
  ``store.try_begin_write``): writes of other games go on meanwhile, each on a connection
  of the pool, so a game whose lock another process holds delays its own writes alone. A
  write whose turn does not come within the lock timeout, or that then waits for the lock
  as long, is a ``busy`` fault (503) for that write alone.

A storage fault (disk full, read-only, I/O error, a lock held past the timeout, a lost
PostgreSQL connection: ``store.fault``) rolls the transaction back (nothing of it is stored:
on SQLite every write that had joined it fails with the fault, a refusal among them keeping
its own error, and ``on_abandon`` forgets the games its writes named before the next write
begins) and raises ``store.StorageUnavailable`` (503); its connection is dropped, so
the next write opens a new one (a connection SQLite opened read-only would stay read-only
after the file became writable again; one a PostgreSQL server ended stays closed). A
connection found lost when its transaction begins (the server restarted while it lay idle) is
replaced and the write begun again on the new one, since nothing of it has run.

The write-ahead log (SQLite) is checkpointed off the write path: the writer's connections
never checkpoint inside a commit (``store.manual_checkpoints``), and every
:data:`CHECKPOINT_EVERY` commits a thread of its own runs a passive checkpoint on its own
connection while writers go on appending (it stops after :data:`IDLE_SECONDS` without one).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any, TypeVar, cast

from sqlite_utils import Database

from service.storage import backend as store
from service.storage import postgres, sqlite

logger = logging.getLogger(__name__)
T = TypeVar("T")
#: What a write's body returns after it decided: its result, and what to do with the
#: transaction: None rolls it back (nothing written), :data:`COMMIT` commits what the body
#: wrote, a callable appends (sent with the commit in one pipeline).
Finish = Callable[[Database], None] | None

IDLE_SECONDS = 5.0
#: The most writes one SQLite transaction takes before it is committed.
MAX_BATCH = 64
#: Commits between two checkpoints of the write-ahead log (SQLite's own default is about
#: every 1,000 pages, i.e. a few hundred moves, run inside the commit that crosses it).
CHECKPOINT_EVERY = 200


def COMMIT(db: Database) -> None:  # noqa: N802 - a marker, named as one
    """A body's :data:`Finish` that commits what it wrote, with nothing more to send."""


class _Turns:
    """Turns per key, within the process, taken in the order asked (first come, first served)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        #: the first of each queue holds its key (None: taken at once, with no event to wait on)
        self._queues: dict[str, deque[threading.Event | None]] = {}

    def take(self, keys: Iterable[str], deadline: float) -> list[str]:
        """Wait for the turn of every key (in sorted order, so two writes never wait for each
        other) until ``deadline`` (``time.monotonic()``); returns the keys taken. Raises
        ``TimeoutError`` (holding none of them) when a turn does not come in time."""
        taken: list[str] = []
        try:
            for key in sorted(set(keys)):
                self._take(key, deadline)
                taken.append(key)
        except BaseException:
            self.give(taken)
            raise
        return taken

    def _take(self, key: str, deadline: float) -> None:
        with self._lock:
            queue = self._queues.get(key)
            if queue is None:  # free: taken at once
                self._queues[key] = deque((None,))
                return
            turn = threading.Event()
            queue.append(turn)
        if turn.wait(max(0.0, deadline - time.monotonic())):
            return
        with self._lock:
            if turn.is_set():  # given at the last moment
                return
            queue.remove(turn)
        raise TimeoutError(f"the turn of {key} did not come in time")

    def waiting(self, key: str) -> bool:
        """True when a write is waiting for the turn of ``key`` (held by the caller)."""
        with self._lock:
            return len(self._queues.get(key, ())) > 1

    def give(self, keys: Iterable[str]) -> None:
        """Give the turns of ``keys`` (taken by :meth:`take`) to whoever asked next."""
        with self._lock:
            for key in keys:
                queue = self._queues[key]
                queue.popleft()
                if queue:
                    cast(threading.Event, queue[0]).set()
                else:
                    del self._queues[key]


class _Checkpoints:
    """Passive checkpoints of the write-ahead log, every :data:`CHECKPOINT_EVERY` commits, in a
    thread of their own (started when one is due, stopped after :data:`IDLE_SECONDS` idle)."""

    def __init__(self, connect: Callable[[], Database]) -> None:
        self._connect = connect
        self._lock = threading.Lock()
        self._commits = 0
        self._due = threading.Event()
        self._running = False

    def committed(self) -> None:
        """Count a commit; ask for a checkpoint every :data:`CHECKPOINT_EVERY` of them."""
        with self._lock:
            self._commits += 1
            if self._commits < CHECKPOINT_EVERY:
                return
            self._commits = 0
            self._due.set()
            if not self._running:
                self._running = True
                threading.Thread(target=self._serve, name="kibitz-checkpoint", daemon=True).start()

    def _serve(self) -> None:
        db: Database | None = None
        try:
            while True:
                if not self._due.wait(IDLE_SECONDS):
                    with self._lock:
                        if not self._due.is_set():
                            self._running = False
                            return
                    continue
                self._due.clear()
                try:
                    db = db or self._connect()
                    store.checkpoint_passive(db)
                except Exception:  # noqa: BLE001 - a busy or failed checkpoint is tried again next time
                    if db is not None:
                        with contextlib.suppress(Exception):
                            db.close()
                    db = None
        finally:
            if db is not None:
                with contextlib.suppress(Exception):
                    db.close()


#: What a queued move (:meth:`Writer.move` with ``then``) is told once its transaction ended:
#: its result, or the error it ends with (its own refusal, or the transaction's fault).
Then = Callable[[Any, BaseException | None], None]


class _Slot:
    """A queued move's place in a transaction: what it is told once the transaction ended."""

    __slots__ = ("then", "result", "own")

    def __init__(self, then: Then) -> None:
        self.then = then
        self.result: Any = None
        self.own: BaseException | None = None  # its own error (a refusal), whatever became of the transaction


class _Batch:
    """A SQLite write transaction that the writes waiting for their turn while it is open join,
    each in the thread that asked for it (or queued moves, in the thread draining them); the
    last one commits it for all of them."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.size = 0  # the writes that ran in it
        self.wrote = False
        self.done = threading.Event()  # set once committed (or abandoned: ``error``)
        self.error: BaseException | None = None
        self.slots: list[_Slot] = []  # the queued moves in it, told once it ended (:meth:`settle`)
        self.games: set[str] = set()  # the games its writes named (None: the whole database, ``"*"``)

    def settle(self) -> None:
        """Tell every queued move of this ended transaction how it ended (in the thread that
        ended it, once it gave the turn back): its result, its own error, or the fault."""
        slots, self.slots = self.slots, []
        for slot in slots:
            try:
                if slot.own is not None:
                    slot.then(None, slot.own)
                elif self.error is not None:
                    slot.then(None, self.error)
                else:
                    slot.then(slot.result, None)
            except Exception:  # noqa: BLE001 - one answer's fault is not the others'
                logger.exception("a queued write's answer failed")


class Writer:
    """Runs each write in the calling thread, in a transaction of its own (module docstring)."""

    def __init__(self, database: str, synchronous: str, *, busy_timeout_ms: int | None = None,
                 max_page_count: int | None = None, on_commit: Callable[[], None] | None = None,
                 on_abandon: Callable[[Iterable[str]], None] | None = None,
                 shared: bool | None = None) -> None:
        """``on_commit`` (if given) is called after each commit that stored something, before
        its writes return (``service.web.boards.BoardAnswers.committed``). ``busy_timeout_ms``
        bounds how long a write waits for its turn and its lock (the backend's own default
        when None). ``on_abandon`` (if given) is called with the games a transaction's writes
        named (``"*"``: a write of the whole database) when it is rolled back, before the next
        write begins: a fold read inside it (another write's uncommitted event among it) must
        not outlive it (``service.record.cache.FoldCache.forget``). ``shared``: whether a write that comes while another holds the turn joins
        its open transaction (None: on SQLite, not on PostgreSQL, as the figures chose;
        ``bench/write_path_bench.py`` compares both)."""
        self._database = database
        self._synchronous = synchronous
        self._on_commit = on_commit
        self._on_abandon = on_abandon
        self._options: dict[str, Any] = {"busy_timeout_ms": busy_timeout_ms, "max_page_count": max_page_count}
        self._postgres = store.is_postgres(database)
        default = postgres.LOCK_TIMEOUT_MS if self._postgres else sqlite.BUSY_TIMEOUT_MS
        self._timeout = (default if busy_timeout_ms is None else busy_timeout_ms) / 1000
        self._turns = _Turns()
        self._idle: list[Database] = []
        self._idle_lock = threading.Lock()
        #: the kept connections are closed with the writer, when nothing refers to it any more
        self._closer = weakref.finalize(self, _close_all, self._idle, self._idle_lock)
        self._checkpoints = None if self._postgres else _Checkpoints(self._open)
        #: SQLite: the writes waiting for their turn join the open transaction (one fsync for them all)
        self._shared = not self._postgres if shared is None else shared
        self._batch: _Batch | None = None  # the open transaction the next write joins (its turn's holder's)
        self._ended: list[_Batch] = []  # transactions ended in the turn being held, settled once it is given
        #: the moves waiting for the drain (:meth:`later`), each with its deadline (arrival + timeout)
        self._queue: deque[tuple[float, Callable[[], None]]] = deque()
        self._queue_lock = threading.Lock()
        self._draining = False  # a thread runs :meth:`drain`
        self._drainer: int | None = None  # the thread that drains while it holds the turn
        self._failing: BaseException | None = None  # the fault every queued move is told (the turn never came)
        self._until: float | None = None  # the deadline of the write run in the turn (its BEGIN waits no longer)
        self._stalled: BaseException | None = None  # the busy fault of a queued move's BEGIN (the lock never came)

    @property
    def combines(self) -> bool:
        """Whether moves queued with :meth:`later` share transactions (SQLite); a caller
        without it has each move run in a thread of its own (:meth:`move`)."""
        return self._shared

    def run(self, job: Callable[[Database], T], *, games: Iterable[str] | None = None) -> T:
        """Run ``job(db)`` inside a write transaction and return its result once committed.

        ``games`` names every game ``job`` writes (or other text it must write alone: an
        import names the game it was exported from), whose write locks the transaction
        holds (``store.begin_write``); None locks the whole database.

        An exception raised by ``job`` rolls back what it wrote and is raised here. A storage
        fault, or a lock not had within the timeout, stores nothing and raises
        ``store.StorageUnavailable``; an error committing raises that error.
        """
        named = None if games is None else tuple(games)

        def begin(db: Database, deadline: float) -> None:
            if named is not None and self._postgres:
                store.try_begin_write(db, named, patient=True, deadline=deadline)
            elif self._postgres:
                store.begin_write(db, games=named)
            else:  # the lock waited for no later than the deadline (the write's arrival + the timeout)
                sqlite.begin_write(db, games=named, deadline=deadline)

        def body(db: Database, _begun: None) -> tuple[T, Finish]:
            return job(db), COMMIT

        return self._write(named, begin, body, join=lambda db: None)

    def move(self, game_id: str, key: str | None,
             decide: Callable[[Database, store.Moment | None], tuple[T, Finish]], *,
             then: Then | None = None) -> T | None:
        """A move of game ``game_id``: ``store.begin_move`` opens its transaction with the
        game's lock and reads everything it needs in one round trip (``key``'s idempotency
        record included; None when there is no such game), ``decide(db, moment)`` decides
        and returns its result with what to do (:data:`Finish`: None stores nothing, a
        callable appends), and the append goes with the ``COMMIT`` in one round trip.
        Returns the result once committed; raises what ``decide`` raises (nothing stored),
        ``store.StorageUnavailable`` as :meth:`run`.

        With ``then``, returns None and tells ``then(result, None)`` or ``then(None, error)``
        instead, once the transaction ended: called by a move queued with :meth:`later`, the
        move runs in :meth:`drain`'s open transaction and ``then`` is called by the thread
        that ends it (nothing is told before its commit); called anywhere else, ``then`` is
        called before this returns."""

        def begin(db: Database, deadline: float) -> store.Moment | None:
            return store.begin_move(db, game_id, key, deadline=deadline)

        def join(db: Database) -> store.Moment | None:
            return store.read_move(db, game_id, key)

        if then is None:
            return self._write((game_id,), begin, decide, join=join, reads=True)
        if self._drainer != threading.get_ident():
            try:
                result = self._write((game_id,), begin, decide, join=join, reads=True)
            except Exception as err:  # noqa: BLE001 - told
                then(None, err)
            else:
                then(result, None)
            return None
        if self._failing is not None:  # the drain's turn, or a BEGIN's lock, did not come in time
            then(None, self._failing)
            return None
        slot = _Slot(then)
        try:
            batch = self._in_turn(begin, join, decide, reads=True, slot=slot, games=(game_id,))
        except Exception as err:  # noqa: BLE001 - its transaction never began (nothing stored), or was abandoned
            if not any(slot in ended.slots for ended in self._ended):
                then(None, err)  # not in a transaction that is told
                if isinstance(err, store.StorageUnavailable) and err.kind == "busy":
                    self._stalled = err  # its BEGIN waited in vain: the moves queued meanwhile are told the same
            return None
        self._batch = batch  # :meth:`drain` ends it or leaves it open
        return None

    def later(self, move: Callable[[], None]) -> bool:
        """Queue ``move`` (which calls :meth:`move` with ``then``, once) to run in the thread
        that drains the queue, in the transaction it holds open (:attr:`combines`: SQLite):
        queued moves share one ``COMMIT`` without a thread each waiting for its turn and its
        commit. Returns True when no thread drains now: the caller must run :meth:`drain` in
        a thread of its own (it returns once the queue is empty)."""
        with self._queue_lock:
            self._queue.append((time.monotonic() + self._timeout, move))
            if self._draining:
                return False
            self._draining = True
            return True

    def drain(self) -> None:
        """Run the moves queued with :meth:`later` until none is left: with the turn (taken
        in its order, as any write's), up to :data:`MAX_BATCH` of them in one transaction (or
        in the one the write before left open), then that transaction left open to the write
        waiting for the turn or committed, and the turn given back; each move is told how it
        ended once its transaction ended (``then``), by the thread that ended it. Before a
        transaction that wrote is committed, the thread lets the others run once (the event
        loop queues the moves that arrived meanwhile), so that they share its ``fsync``.

        Each move answers within the timeout of its arrival: the turn is waited for until the
        deadline of the first move queued, a move's ``BEGIN`` waits for the lock no later than
        its own deadline, and when it waited in vain (the lock held by another program) every
        move queued meanwhile is told the same ``busy`` fault at once."""
        while True:
            with self._queue_lock:
                if not self._queue:
                    self._draining = False
                    return
                first = self._queue[0][0]
            try:
                self._turns.take(("*",), first)
            except TimeoutError as err:
                self._fail_queued(self._busy(), err)
                continue
            try:
                self._drainer = threading.get_ident()
                yielded = False
                for _ in range(MAX_BATCH):
                    with self._queue_lock:
                        until, move = self._queue.popleft() if self._queue else (None, None)
                    if move is None:
                        if yielded or self._batch is None or not self._batch.wrote:
                            break
                        # before the fsync: the caller's thread (the event loop) hands over the moves
                        # that have arrived meanwhile, and they share it
                        yielded = True
                        time.sleep(0)
                        continue
                    yielded = False
                    self._until = until
                    try:
                        move()
                    except Exception:  # noqa: BLE001 - a move tells its own faults; the others go on
                        logger.exception("a queued write failed")
                    finally:
                        self._until = None
                    if self._stalled is not None:
                        stalled, self._stalled = self._stalled, None
                        self._fail_queued(stalled, stalled.__cause__)
                        break  # no transaction open: the moves queued from now on try the lock again
                    batch = self._batch
                    if batch is not None and batch.size >= MAX_BATCH:
                        break
                batch, self._batch = self._batch, None
                if batch is not None:
                    self._pass_or_end(batch)
            finally:
                self._drainer = None
                ended, self._ended = self._ended, []
                self._turns.give(("*",))
                for each in ended:
                    each.settle()

    def _fail_queued(self, fault: BaseException, cause: BaseException | None) -> None:
        """Every move queued now told ``fault`` (the turn did not come in time): each runs
        with :meth:`move` answering at once."""
        with self._queue_lock:
            moves, self._queue = list(self._queue), deque()
        fault.__cause__ = cause
        drainer, self._drainer, self._failing = self._drainer, threading.get_ident(), fault
        try:
            for _, move in moves:
                try:
                    move()
                except Exception:  # noqa: BLE001 - a move tells its own faults; the others go on
                    logger.exception("a queued write failed")
        finally:
            self._drainer, self._failing = drainer, None

    def _write(self, games: tuple[str, ...] | None, begin: Callable[[Database, float], Any],
               body: Callable[[Database, Any], tuple[T, Finish]], *, join: Callable[[Database], Any],
               reads: bool = False) -> T:
        if self._shared:
            return self._joined(begin, join, body, reads=reads, games=games)
        # SQLite: one writer holds the file; PostgreSQL: each game its own, a write of the whole database alone
        keys = games if self._postgres and games is not None else ("*",)
        try:
            taken = self._turns.take(keys, time.monotonic() + self._timeout)
        except TimeoutError as err:
            raise self._busy() from err
        try:  # the lock across processes is waited for as long again, from the turn (as one waiting for it alone would)
            return self._transaction(begin, body, time.monotonic() + self._timeout, reads=reads)
        finally:
            self._turns.give(taken)

    def _joined(self, begin: Callable[[Database, float], Any], join: Callable[[Database], Any],
                body: Callable[[Database, Any], tuple[T, Finish]], *, reads: bool, games: tuple[str, ...] | None) -> T:
        """A write in its turn (SQLite): it opens the write transaction, or joins the one the
        write before it left open because this one was waiting; it runs in its own thread, its
        writes in a savepoint when it joined (a refusal rolls back alone); then it leaves the
        transaction open to the next write waiting, or commits it for every write in it. Each
        answers once the transaction is committed: nothing is acknowledged before its commit,
        and a fault anywhere fails every write of the transaction (nothing of it stored).
        The turn, then the lock (a new transaction's ``BEGIN``), are waited for no later than
        the timeout from the write's arrival."""
        deadline = time.monotonic() + self._timeout
        try:
            self._turns.take(("*",), deadline)
        except TimeoutError as err:
            raise self._busy() from err
        slot = _Slot(_told)
        try:
            self._until = deadline
            try:
                batch = self._in_turn(begin, join, body, reads=reads, slot=slot, games=games)
            finally:
                self._until = None
            batch.slots.remove(slot)  # told here, in this thread
            self._pass_or_end(batch)
        finally:
            ended, self._ended = self._ended, []
            self._turns.give(("*",))
            for each in ended:
                each.settle()
        batch.done.wait()
        if slot.own is not None:  # a refusal keeps its own error, whatever became of the transaction
            raise slot.own
        if batch.error is not None:
            raise batch.error
        return cast(T, slot.result)

    def _in_turn(self, begin: Callable[[Database, float], Any], join: Callable[[Database], Any],
                 body: Callable[[Database, Any], tuple[Any, Finish]], *, reads: bool, slot: _Slot,
                 games: tuple[str, ...] | None) -> _Batch:
        """One write while the caller holds the turn (SQLite): in the transaction the write
        before left open (its writes in a savepoint), or in a new one; returns that
        transaction, with the write's result or own error (a refusal) in ``slot``, which is
        one of its :attr:`_Batch.slots`. Raises what beginning a new transaction raised
        (``slot`` in none), or the error that ended the transaction (abandoned: ``slot``
        in it, told with the others)."""
        batch, self._batch = self._batch, None
        apart = batch is not None  # joined: its writes kept apart from the others' in a savepoint
        if batch is None:
            batch, begun = self._open_batch(begin)
        batch.slots.append(slot)
        batch.games.update(("*",) if games is None else games)
        db = batch.db
        wrote = False
        try:
            if apart and not reads:
                store.savepoint(db, "job")  # a job writes as it goes
            if apart:
                begun = join(db)
            slot.result, finish = body(db, begun)
            if finish is not None:
                if apart and reads:
                    store.savepoint(db, "job")
                wrote = True
                finish(db)
                batch.wrote = True
            if apart and (wrote or not reads):
                store.release(db, "job")
        except Exception as err:
            slot.result = None
            if store.fault(err) is not None or store.is_lost(db):
                self._abandon(batch, err)
                raise batch.error from err  # type: ignore[misc]
            if wrote or not reads:  # it wrote something: undone
                if not apart:  # it is alone in the transaction
                    slot.own = err
                    self._abandon(batch, None)
                    raise
                try:
                    store.rollback_to(db, "job")  # its own writes undone, the others' kept
                except BaseException as fault:
                    self._abandon(batch, fault)
                    raise batch.error from fault  # type: ignore[misc]
            slot.own = err
        batch.size += 1
        return batch

    def _pass_or_end(self, batch: _Batch) -> None:
        """Leave ``batch`` open to the write waiting for the turn (the caller holds it), or
        commit it for every write in it."""
        if self._turns.waiting("*") and batch.size < MAX_BATCH:
            self._batch = batch  # the write waiting goes on in this transaction
        else:
            self._end(batch)

    def _open_batch(self, begin: Callable[[Database, float], Any]) -> tuple[_Batch, Any]:
        """Begin a write transaction on a connection of the pool (a new one when the one lent
        was found lost): the batch and what ``begin`` returned. Raises what ``begin`` raised,
        a storage fault as ``store.StorageUnavailable``, with the connection ended."""
        db = self._borrow()
        # the lock is waited for until the deadline of the write in the turn (its arrival + the timeout)
        deadline = time.monotonic() + self._timeout if self._until is None else self._until
        try:
            try:
                begun = begin(db, deadline)
            except Exception:
                if not store.is_lost(db):
                    raise
                self._close(db)  # ended while idle: nothing has run yet, so once more on a new connection
                db = self._open()
                begun = begin(db, deadline)
        except BaseException as err:
            batch = _Batch(db)
            self._abandon(batch, err if store.fault(err) is not None else None)
            if batch.error is not None and batch.error is not err:
                raise batch.error from err
            raise
        return _Batch(db), begun

    def _abandon(self, batch: _Batch, err: BaseException | None) -> None:
        """Roll ``batch`` back and answer every write in it: with ``err``'s storage fault (then
        its connection is dropped), or with nothing (None: the write alone in it failed)."""
        db = batch.db
        with contextlib.suppress(Exception):  # a lost connection's rollback never raises; nothing may mask err
            store.rollback(db)
        if err is not None:
            batch.error = store.fault(err) or err
        if err is not None and (store.fault(err) is not None or store.is_lost(db)):
            self._close(db)
        else:
            self._give_back(db)
        if self._on_abandon is not None and batch.games:  # before the turn goes on: nothing read in it is kept
            try:
                self._on_abandon(frozenset(batch.games))
            except Exception:  # noqa: BLE001 - the writes are told of the rollback all the same
                logger.exception("forgetting what an abandoned transaction read failed")
        self._ended.append(batch)
        batch.done.set()

    def _end(self, batch: _Batch) -> None:
        """Commit ``batch`` for every write in it (or abandon it when the commit fails), then
        let them answer."""
        try:
            store.commit(batch.db)
        except BaseException as err:
            self._abandon(batch, err)
            return
        self._give_back(batch.db)
        if batch.wrote:
            try:
                if self._checkpoints is not None:
                    self._checkpoints.committed()
                if self._on_commit is not None:
                    self._on_commit()
            except BaseException as err:  # noqa: BLE001 - answered to every write of the batch
                batch.error = err
        self._ended.append(batch)
        batch.done.set()

    def _busy(self) -> store.StorageUnavailable:
        """The ``busy`` fault of a write that did not get its turn in time."""
        details = postgres.FAULT_DETAILS if self._postgres else sqlite.FAULT_DETAILS
        detail, retry_after = details["busy"]
        return store.StorageUnavailable("busy", detail, retry_after, "busy")

    def _transaction(self, begin: Callable[[Database, float], Any], body: Callable[[Database, Any], tuple[T, Finish]],
                     deadline: float, *, reads: bool = False) -> T:
        """Begin, run ``body``, end: a body that only ``reads`` before it decides (a move's)
        ends a transaction it wrote nothing in with ``COMMIT``, as it does when it decides to
        store nothing (the same as a ``ROLLBACK`` there, and psycopg keeps its prepared
        statements, which it forgets, one more round trip, after a ``ROLLBACK``)."""
        db = self._borrow()
        written = False
        try:
            try:
                begun = begin(db, deadline)
            except Exception:
                if not store.is_lost(db):
                    raise
                # ended by its server while idle (PostgreSQL restarted): nothing has run yet,
                # so the write begins once more on a new connection
                self._close(db)
                db = self._open()
                begun = begin(db, deadline)
            try:
                result, finish = body(db, begun)
            except Exception as err:
                if reads and store.fault(err) is None and not store.is_lost(db):
                    with contextlib.suppress(Exception):  # else rolled back below
                        store.commit(db)  # nothing was written: ended as a ROLLBACK would, prepared statements kept
                raise
            written = finish is not None
            if finish is None:
                store.commit(db)
            else:
                with store.pipeline(db):
                    finish(db)
                    store.commit(db)
        except BaseException as err:
            unavailable = store.fault(err)
            with contextlib.suppress(Exception):  # a lost connection's rollback never raises; nothing else may mask err
                store.rollback(db)
            if unavailable is not None or store.is_lost(db):
                self._close(db)
            else:
                self._give_back(db)
            if unavailable is not None and unavailable is not err:
                raise unavailable from err
            raise
        self._give_back(db)
        if written:
            if self._checkpoints is not None:
                self._checkpoints.committed()
            if self._on_commit is not None:
                self._on_commit()
        return result

    def close(self) -> None:
        """Close the connections the writer keeps between writes (a server stopping, a command
        done). A write after it opens a connection of its own again. Done by itself when nothing
        refers to the writer any more, so a writer let go leaves no connection open."""
        _close_all(self._idle, self._idle_lock)

    def _open(self) -> Database:
        """A new connection of the writer's (never checkpointing inside a commit)."""
        db: Database = store.connect(self._database, self._synchronous, **self._options)
        try:
            store.manual_checkpoints(db)
        except BaseException:
            db.close()
            raise
        return db

    def _borrow(self) -> Database:
        with self._idle_lock:
            if self._idle:
                return self._idle.pop()
        return self._open()

    def _give_back(self, db: Database) -> None:
        with self._idle_lock:
            self._idle.append(db)

    @staticmethod
    def _close(db: Database) -> None:
        with contextlib.suppress(Exception):
            db.close()


def _told(result: Any, error: BaseException | None) -> None:
    """The ``then`` of a write that waits for its transaction's end itself (nothing to tell)."""


def _close_all(idle: list[Database], lock: threading.Lock) -> None:
    """Close and forget every connection in ``idle`` (a writer's kept connections)."""
    with lock:
        kept, idle[:] = list(idle), []
    for db in kept:
        with contextlib.suppress(Exception):
            db.close()
