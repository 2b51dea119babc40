"""What the per-request check of a cached game costs (run by hand, not in CI), on SQLite and
on PostgreSQL: the check every read and write of a game the server holds in memory makes
(docs/tamper-evidence.md, "An edit made while the server runs").

Usage::

    python bench/cache_check_bench.py [--lengths 10,100,1000] [--calls 2000] [--rounds 3]
                                      [--postgres postgresql://…]

For each backend (SQLite on a temporary file; PostgreSQL on a fresh schema of ``--postgres``,
dropped after) and each game length (a Toepen game padded with notes), it measures, in
alternating rounds, each **with** the database's guard (``store.GUARD``: SQLite's
``schema_version``, PostgreSQL's look at the triggers) and **without** it (the same query
with ``NULL`` in its place: the reference, in the same minutes):

- ``head``: the head query every read makes (``store.head``);
- ``get``: ``FoldCache.get`` on a cached game with its games row, as every route calls it
  (``service.record.games.current``): the head query, the last event re-hashed, the row compared
  with ``game_created`` (``service.record.cache.agrees``);
- ``move read``: the one read of a move (``store.begin_move``, then a rollback): what a write
  pays before it decides;
- ``recheck``: what one cached game costs when the guard has changed (``FoldCache.get``
  reading and checking its whole log again), per event: paid once per game, only after a
  trigger guarding the log was lifted.

Each figure is µs per call: the median over the rounds of wall-clock time, and of this
process's CPU time (``time.process_time``; on PostgreSQL the server's own work shows in the
wall time only). The load average (``os.getloadavg``) is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import engine
from service.record import cache
from service.storage import backend as store
from service.storage import migrations, postgres, sqlite

CREATED = {"game": "toepen", "players": ["Ann", "Bob", "Cas", "Dee"], "visibility": "table", "options": {},
           "dealer": "Ann", "rules_version": 1}
WHEN = "2026-01-01T00:00:00.000Z"


def _stored(db: Any, length: int) -> None:
    """Game ``g`` of ``length`` events in ``db`` (created, then notes), as the service stores one."""
    store.begin_write(db, games=["g"])
    store.insert_game(db, "g", CREATED, "0" * 64, WHEN, "in_progress")
    store.append(db, "g", 1, "game_created", CREATED, WHEN)
    for seq in range(2, length + 1):
        store.append(db, "g", seq, "note", {"text": f"note {seq}"}, "2026-01-01T00:00:01.000Z")
    store.set_version(db, "g", length, "in_progress", secret_from_hand=1)
    store.commit(db)


@contextmanager
def _database(kind: str, folder: Path, length: int, url: str | None) -> Iterator[Any]:
    """A connection to a fresh database (``kind``: sqlite or postgresql) holding game ``g``."""
    if kind == "sqlite":
        db = store.connect(folder / f"g{length}.db", "FULL")
        migrations.migrate(db)
        _stored(db, length)
        try:
            yield db
        finally:
            db.close()
        return
    assert url is not None
    import psycopg

    schema = f"bench_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f"CREATE SCHEMA {schema}")
    try:
        db = postgres.connect(f"{url}{'&' if '?' in url else '?'}options=-csearch_path%3D{schema}")
        postgres.migrate(db)
        _stored(db, length)
        try:
            yield db
        finally:
            db.close()
    finally:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f"DROP SCHEMA {schema} CASCADE")


@contextmanager
def _guarded(kind: str, on: bool) -> Iterator[None]:
    """The backend's head and move read with the guard (``on``) or ``NULL`` in its place."""
    module: Any = sqlite if kind == "sqlite" else postgres
    guard, read = module.GUARD, module.MOVE_READ
    if not on:
        module.GUARD = "NULL"
        module.MOVE_READ = read.replace(f"{guard} AS h_guard", "NULL AS h_guard")
    try:
        yield
    finally:
        module.GUARD, module.MOVE_READ = guard, read


def _timed(call: Callable[[], object], calls: int) -> tuple[float, float]:
    """µs per call of ``call``: wall clock, and this process's CPU."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(calls):
        call()
    return (time.perf_counter() - wall) / calls * 1e6, (time.process_time() - cpu) / calls * 1e6


def measure(db: Any, length: int, calls: int) -> dict[str, tuple[float, float]]:
    """One round of every measure on game ``g`` of ``db`` (of ``length`` events)."""
    rules = engine.GAMES["toepen"]
    row = store.get_game(db, "g")
    assert row is not None
    folds = cache.FoldCache()
    folds.get(db, rules, "g", length, record_hash=row.get("record_hash"), row=row)

    def move_read() -> None:
        store.begin_move(db, "g", None)
        store.rollback(db)

    out = {
        "head": _timed(lambda: store.head(db, "g"), calls),
        "get": _timed(lambda: folds.get(db, rules, "g", length, record_hash=row.get("record_hash"), row=row), calls),
        "move read": _timed(move_read, calls),
    }
    rechecks = max(1, min(calls // 10, 20_000 // length))
    wall = cpu = 0.0
    for _ in range(rechecks):  # the guard seen to change: the cached game is checked in full again
        folds.generation += 1
        w, c = _timed(lambda: folds.get(db, rules, "g", length, record_hash=row.get("record_hash"), row=row), 1)
        wall, cpu = wall + w, cpu + c
    out["recheck, per event"] = (wall / rechecks / length, cpu / rechecks / length)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--lengths", default="10,100,1000")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--postgres", default=os.environ.get("KIBITZ_TEST_POSTGRES"),
                        help="a PostgreSQL URL (default $KIBITZ_TEST_POSTGRES; none: SQLite alone)")
    args = parser.parse_args()
    kinds = ["sqlite", *(["postgresql"] if args.postgres else [])]
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| backend | events | measure | without the guard, µs (wall; CPU) | with the guard, µs (wall; CPU) "
          "| ratio (wall) |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for kind in kinds:
            for length in (int(n) for n in args.lengths.split(",")):
                with _database(kind, Path(tmp), length, args.postgres) as db:
                    runs: dict[bool, list[dict[str, tuple[float, float]]]] = {False: [], True: []}
                    for n in range(args.rounds * 2):  # alternating, the reference first
                        on = n % 2 == 1
                        with _guarded(kind, on):
                            runs[on].append(measure(db, length, args.calls))
                    for name in runs[True][0]:
                        if name == "recheck, per event":
                            cells = [f"{statistics.median(r[name][0] for r in runs[True]):.1f}; "
                                     f"{statistics.median(r[name][1] for r in runs[True]):.1f}"]
                            print(f"| {kind} | {length} | {name} | — | {cells[0]} | — |")
                            continue
                        median = {on: (statistics.median(r[name][0] for r in runs[on]),
                                       statistics.median(r[name][1] for r in runs[on])) for on in (False, True)}
                        print(f"| {kind} | {length} | {name} | {median[False][0]:.1f}; {median[False][1]:.1f} "
                              f"| {median[True][0]:.1f}; {median[True][1]:.1f} "
                              f"| {median[True][0] / median[False][0]:.2f} |")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
