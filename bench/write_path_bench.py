"""The write path in the process, without HTTP around it (run by hand, not in CI): a move
committed in the thread that received it against a writer thread committing groups of
moves, on SQLite and on PostgreSQL, in CPU per move, hand-offs and moves per second; and
what a move costs the database in statements (SQLite) and round trips (PostgreSQL).

Usage::

    python bench/write_path_bench.py [--backends sqlite,postgresql] [--postgres URL]
                                     [--threads 1,4,8] [--moves 1500] [--rounds 2] [--json FILE]

``--postgres`` (default ``$KIBITZ_TEST_POSTGRES``) names a PostgreSQL server; each run gets
a fresh schema of its own. For figures that include the flush, start it with
``KIBITZ_PG_FSYNC=on tests/postgres_cluster.sh start DIR`` (``synchronous_commit`` is on
either way, as ``synchronous=FULL`` keeps it); SQLite runs at ``synchronous=FULL`` on a file
in a temporary folder.

Each run records random legal Toepen games (``bench/playouts.py``, the same seed in every
run), created beforehand (untimed): ``--threads`` threads, each the request thread of one
scorekeeper recording its own games, call ``service.record.writes.record`` (the whole write path:
the one read, the cached fold's check, the token, the ``Idempotency-Key``, ``If-Match``,
the rules, the append and its commit) until ``--moves`` moves are stored. Two ways to
commit, run alternately, ``--rounds`` times each:

- ``thread``: ``service.record.writer.Writer(shared=False)``: each move committed in the thread
  that asked for it, in a transaction of its own;
- ``batch`` (SQLite only): ``service.record.writer.Writer(shared=True)``: each move in the thread
  that asked for it, but a move that comes while another holds the file's write lock joins
  its transaction, and the last of them commits for all (one fsync);
- ``writer``: :class:`GroupWriter` below, the shape of the writer before it (one writer
  thread per process, the moves waiting at one moment in one transaction, each in a
  savepoint, one ``COMMIT`` for the batch), running the same walk: each request thread
  hands its move to the writer thread and waits for the answer.

Per run: the process's CPU time (``getrusage``: every thread, user + system) per move, its
context switches per move (voluntary: a thread waiting for another; involuntary), the
PostgreSQL server's CPU per move (its processes, ``psutil``), the moves per second, and the
load average (1 min) at the start and end. Then one counting pass per backend and way
(``--count`` moves on one thread): SQLite statements per move (``set_trace_callback``) and
PostgreSQL round trips per move (tests/round_trips.py's counting proxy).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import resource
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine  # noqa: E402
from bench._common import PLAYERS, toepen_games  # noqa: E402
from bench.league_bench import cpu_of, cpu_since, postgres_pids  # noqa: E402
from service import http, parsing
from service.record import writes
from service.record.cache import FoldCache  # noqa: E402
from service.record.writer import Writer  # noqa: E402
from service.storage import backend as store  # noqa: E402
from service.storage import migrations, postgres, sqlite  # noqa: E402


class GroupWriter:
    """One writer thread committing the moves waiting at one moment together (the shape of
    ``service.record.writer`` before this work): one transaction per batch (``BEGIN IMMEDIATE``;
    on PostgreSQL ``BEGIN`` with the batch's games locked), each move in its own
    ``SAVEPOINT`` with the same one read and one append as :class:`service.record.writer.Writer`'s,
    one ``COMMIT``; each caller waits for its answer. No game is ever busy here (one
    process), so nothing is set aside."""

    MAX_BATCH = 128

    def __init__(self, database: str, synchronous: str) -> None:
        self._database, self._synchronous = database, synchronous
        self._postgres = store.is_postgres(database)
        self._jobs: queue.Queue[tuple[Any, ...]] = queue.Queue()
        self._thread = threading.Thread(target=self._serve, name="kibitz-writer", daemon=True)
        self._thread.start()

    def run(self, job: Callable[[Any], Any], *, games: Any = None) -> Any:
        return self._hand("run", job, tuple(games or ()), None)

    def move(self, game_id: str, key: str | None, decide: Callable[[Any, Any], Any]) -> Any:
        return self._hand("move", decide, game_id, key)

    def _hand(self, kind: str, job: Any, game_id: str | tuple[str, ...], key: str | None) -> Any:
        future: Future[Any] = Future()
        self._jobs.put((kind, job, game_id, key, future))
        return future.result()

    def _read(self, db: Any, game_id: str, key: str | None) -> Any:
        if self._postgres:
            with db.pipeline():
                db.execute("SAVEPOINT job")
                found = db.execute(postgres.MOVE_READ, [key, game_id])
            row = found.fetchone()
            return None if row is None else postgres._moment(game_id, key, dict(row))
        db.execute("SAVEPOINT job")
        cursor = db.execute(sqlite.MOVE_READ, [key, game_id])
        names = [column[0] for column in cursor.description]
        values = cursor.fetchone()
        return None if values is None else sqlite._moment(game_id, key, dict(zip(names, values, strict=True)))

    def _begin(self, db: Any, batch: list[tuple[Any, ...]]) -> None:
        if not self._postgres:
            db.execute("BEGIN IMMEDIATE")
            return
        games = [game for item in batch for game in ((item[2],) if item[0] == "move" else item[2])]
        space = postgres.lock_space(db)
        keys = sorted({postgres.game_lock_key(game, space) for game in games})
        with db.pipeline():
            db.execute("BEGIN")
            db.execute(f"SELECT pg_advisory_xact_lock_shared({postgres.write_lock_key(db)})".encode())
            if keys:
                db.execute(f"SELECT pg_advisory_xact_lock({postgres.GAME_LOCK}, k) FROM "
                           f"unnest(ARRAY[{', '.join(map(str, keys))}]::integer[]) AS k".encode())
        postgres._HELD[db] = frozenset(keys)

    def _serve(self) -> None:
        db = store.connect(self._database, self._synchronous)
        store.manual_checkpoints(db)
        while True:
            batch = [self._jobs.get()]
            with contextlib.suppress(queue.Empty):
                while len(batch) < self.MAX_BATCH:
                    batch.append(self._jobs.get_nowait())
            outcomes: list[tuple[Future[Any], Any, BaseException | None]] = []
            try:
                self._begin(db, batch)
                for kind, job, game_id, key, future in batch:
                    try:
                        if kind == "move":
                            result, finish = job(db, self._read(db, game_id, key))
                        else:
                            store.savepoint(db, "job")
                            result, finish = job(db), None
                        with store.pipeline(db):
                            if finish is not None:
                                finish(db)
                            store.release(db, "job")
                        outcomes.append((future, result, None))
                    except Exception as err:  # noqa: BLE001 - handed to its caller
                        store.rollback_to(db, "job")
                        outcomes.append((future, None, err))
                store.commit(db)
            except BaseException as err:  # noqa: BLE001 - the whole batch fails
                with contextlib.suppress(Exception):
                    store.rollback(db)
                for *_rest, future in batch:
                    future.set_exception(err)
                continue
            for future, result, err in outcomes:
                if err is None:
                    future.set_result(result)
                else:
                    future.set_exception(err)


def make(way: str, url: str) -> Any:
    """The writer of ``way``: ``thread``, ``batch`` (SQLite: the writes waiting join the open
    transaction) or ``writer`` (:class:`GroupWriter`)."""
    if way == "writer":
        return GroupWriter(url, "FULL")
    return Writer(url, "FULL", shared=way == "batch")


@contextlib.contextmanager
def database(backend: str, folder: Path, postgres_url: str | None) -> Iterator[str]:
    """A fresh database: a SQLite file in ``folder``, or a new schema on ``postgres_url``."""
    if backend == "sqlite":
        path = str(folder / f"{uuid.uuid4().hex[:8]}.db")
        db = store.connect(path, "FULL")
        migrations.migrate(db)
        db.close()
        yield path
        return
    import psycopg

    from tests.postgres import with_schema

    assert postgres_url is not None
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    url = with_schema(postgres_url, schema)
    try:
        db = store.connect(url, "FULL")
        postgres.migrate(db)
        db.close()
        yield url
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


def created(game: str = "toepen") -> dict[str, Any]:
    rules = engine.GAMES[game]
    return {"game": game, "players": PLAYERS, "visibility": "open", "title": None,
            "options": rules.resolve_options({"limit": 10}, PLAYERS), "dealer": PLAYERS[0],
            "rules_version": rules.RULES_VERSION}


def record_all(writer: Any, cache: FoldCache, plan: list[tuple[str, str, list[dict[str, Any]]]],
               counter: list[int], limit: int, lock: threading.Lock) -> None:
    """Record the actions of ``plan`` (game id, token hash, actions) one by one as a
    scorekeeper's request thread does, until ``limit`` moves are stored in all."""
    for game_id, token_hash, actions in plan:
        version = 1
        for action in actions:
            with lock:
                if counter[0] >= limit:
                    return
                counter[0] += 1
            key = uuid.uuid4().hex

            def admit(row: Any, key: str = key, token_hash: str = token_hash) -> writes.Admitted:
                if token_hash not in row["token_hashes"]:
                    raise AssertionError("token refused")
                return key, False

            done = writes.record(writer, cache, game_id, lambda row, action=action: parsing.parse_action(row, action),
                                 admit=admit, lookup=key, fingerprint=http.request_hash("events", action),
                                 if_match=f'"{version}"')
            assert done.status == 201, done.body
            version = done.body["version"]


def one_run(backend: str, way: str, threads: int, moves: int, logs: list[list[dict[str, Any]]], folder: Path,
            postgres_url: str | None) -> dict[str, Any]:
    with database(backend, folder, postgres_url) as url:
        writer = make(way, url)
        cache = FoldCache(1024)
        plans: list[list[tuple[str, str, list[dict[str, Any]]]]] = [[] for _ in range(threads)]
        for n, actions in enumerate(logs):  # untimed: the games exist before the clock starts
            new = writes.create(writer, cache, created())
            plans[n % threads].append((new.id, http.token_hash(new.token), actions))
        pg = postgres_pids(url) if backend == "postgresql" else None
        counter, lock = [0], threading.Lock()
        workers = [threading.Thread(target=record_all, args=(writer, cache, plan, counter, moves, lock))
                   for plan in plans]
        load = os.getloadavg()[0]
        pg_before = cpu_of(pg) if pg else {}
        usage = resource.getrusage(resource.RUSAGE_SELF)
        started = time.perf_counter()
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_SELF)
        pg_cpu = cpu_since(pg_before, postgres_pids(url) or pg) if pg else None  # backends opened since count too
        done = min(counter[0], moves)
    cpu = (after.ru_utime - usage.ru_utime) + (after.ru_stime - usage.ru_stime)
    return {"backend": backend, "way": way, "threads": threads, "moves": done, "seconds": wall,
            "moves_per_s": done / wall, "cpu_ms_per_move": cpu / done * 1000,
            "system_share": (after.ru_stime - usage.ru_stime) / cpu if cpu else 0.0,
            "voluntary_switches_per_move": (after.ru_nvcsw - usage.ru_nvcsw) / done,
            "involuntary_switches_per_move": (after.ru_nivcsw - usage.ru_nivcsw) / done,
            "postgres_cpu_ms_per_move": None if pg_cpu is None else pg_cpu / done * 1000,
            "load": [round(load, 2), round(os.getloadavg()[0], 2)]}


def counted(backend: str, way: str, moves: int, logs: list[list[dict[str, Any]]], folder: Path,
            postgres_url: str | None) -> float:
    """Statements (SQLite) or round trips (PostgreSQL) per move of ``moves`` moves on one thread."""
    with database(backend, folder, postgres_url) as url:
        proxy = None
        lines: list[str] = []
        if backend == "postgresql":
            from tests.round_trips import CountingProxy

            proxy = CountingProxy(url)
            url = proxy.url
        else:
            import sqlite3

            connect = sqlite3.connect

            def traced(*args: Any, **kwargs: Any) -> sqlite3.Connection:
                conn = connect(*args, **kwargs)
                conn.set_trace_callback(lambda text: lines.append(text) if not lines or lines[-1] != text else None)
                return conn

            sqlite3.connect = traced  # type: ignore[assignment]
        try:
            writer = make(way, url)
            cache = FoldCache(1024)
            plan = []
            for actions in logs:
                new = writes.create(writer, cache, created())
                plan.append((new.id, http.token_hash(new.token), actions))
            before = proxy.count() if proxy is not None else len(lines)
            record_all(writer, cache, plan, [0], moves, threading.Lock())
            after = proxy.count() if proxy is not None else len(lines)
        finally:
            if proxy is not None:
                proxy.close()
            else:
                sqlite3.connect = connect  # type: ignore[assignment]
    return (after - before) / moves


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--postgres", default=os.environ.get("KIBITZ_TEST_POSTGRES"))
    parser.add_argument("--threads", default="1,4,8")
    parser.add_argument("--ways", default="thread,batch,writer")
    parser.add_argument("--moves", type=int, default=1500)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    backends = args.backends.split(",")
    if "postgresql" in backends and not args.postgres:
        parser.error("PostgreSQL needs --postgres URL (or $KIBITZ_TEST_POSTGRES)")
    logs = toepen_games(args.moves + 200, 2026)
    print(f"machine: {os.cpu_count()} cores, {psutil.virtual_memory().total / 2**30:.1f} GiB; "
          f"Python {sys.version.split()[0]}; load {os.getloadavg()[0]:.2f}; "
          f"{time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}", flush=True)
    if args.postgres and "postgresql" in backends:
        from bench.league_bench import postgres_settings

        print(f"PostgreSQL: {postgres_settings(args.postgres)}", flush=True)
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(dir=os.environ.get("KIBITZ_BENCH_DIR")) as folder:
        for backend in backends:
            ways = [way for way in args.ways.split(",") if way != "batch" or backend == "sqlite"]
            for way in ways:
                per_move = counted(backend, way, args.count, logs, Path(folder), args.postgres)
                unit = "round trips" if backend == "postgresql" else "statements"
                print(f"{backend} {way}: {per_move:.2f} {unit} per move", flush=True)
                results.append({"backend": backend, "way": way, f"{unit.replace(' ', '_')}_per_move": per_move})
            for threads in map(int, args.threads.split(",")):
                for _round in range(args.rounds):
                    for way in ways:
                        run = one_run(backend, way, threads, args.moves, logs, Path(folder), args.postgres)
                        results.append(run)
                        pg = run["postgres_cpu_ms_per_move"]
                        print(f"| {backend} | {way} | {threads} | {run['moves_per_s']:.0f} | "
                              f"{run['cpu_ms_per_move']:.3f} | {run['system_share']:.0%} | "
                              f"{run['voluntary_switches_per_move']:.1f} / {run['involuntary_switches_per_move']:.1f} | "
                              f"{'' if pg is None else f'{pg:.3f}'} | {run['load'][0]}–{run['load'][1]} |", flush=True)
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2))
    print("medians (CPU ms per move, moves/s):")
    keys = sorted({(r["backend"], r["way"], r["threads"]) for r in results if "threads" in r})
    for key in keys:
        runs = [r for r in results if (r.get("backend"), r.get("way"), r.get("threads")) == key]
        print(f"  {key}: {statistics.median(r['cpu_ms_per_move'] for r in runs):.3f} ms, "
              f"{statistics.median(r['moves_per_s'] for r in runs):.0f} moves/s")


if __name__ == "__main__":
    main()
