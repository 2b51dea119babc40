"""What the per-request check of a cached game costs (run by hand, not in CI):
``service.cache.FoldCache.get`` on a game already in the cache, as every read and write of
the game calls it (``service.games.load``; the write path inside its transaction), and
``service.cache.checked_events`` (a route that returns or refolds stored events).

Usage::

    python bench/cache_check_bench.py [--lengths 10,100,1000] [--calls 2000] [--rounds 3]

For each game length (a Toepen game padded with notes) on a fresh database in a temporary
folder, prints a Markdown table row: microseconds per cached ``get`` (median of the rounds,
and their spread), and, where the code has it, per event of ``checked_events`` over the whole
log. The cached ``get`` uses only what every version of the cache has, so the same file
measures an older checkout through ``PYTHONPATH``.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import engine
from service import cache, migrations, store

CREATED = {"game": "toepen", "players": ["Ann", "Bob", "Cas", "Dee"], "visibility": "table", "options": {},
           "dealer": "Ann", "rules_version": 1}


def _stored(folder: Path, length: int) -> object:
    db = store.connect(folder / f"g{length}.db", "OFF")
    migrations.migrate(db)
    with store.immediate(db):
        store.insert_game(db, "g", CREATED, "0" * 64, "2026-01-01T00:00:00.000Z", "in_progress")
        store.append(db, "g", 1, "game_created", CREATED, "2026-01-01T00:00:00.000Z")
        for seq in range(2, length + 1):
            store.append(db, "g", seq, "note", {"text": f"note {seq}"}, "2026-01-01T00:00:01.000Z")
        store.set_version(db, "g", length, "in_progress", secret_from_hand=None)
    return db


def measure(db: object, length: int, calls: int) -> tuple[float, float | None]:
    rules = engine.GAMES["toepen"]
    row = store.get_game(db, "g")  # type: ignore[arg-type]
    assert row is not None
    folds = cache.FoldCache()
    folds.get(db, rules, "g", length, record_hash=row.get("record_hash"), row=row)  # type: ignore[arg-type]
    start = time.perf_counter()
    for _ in range(calls):
        folds.get(db, rules, "g", length, record_hash=row.get("record_hash"), row=row)  # type: ignore[arg-type]
    cached = (time.perf_counter() - start) / calls * 1e6
    checked = getattr(cache, "checked_events", None)
    if checked is None:
        return cached, None
    start = time.perf_counter()
    checked(db, rules, "g", upto=length, record_hash=row.get("record_hash"), version=length)
    return cached, (time.perf_counter() - start) / length * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lengths", default="10,100,1000")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print("| events | cached get, µs (median; spread) | checked read, µs per event |")
    print("|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for length in (int(n) for n in args.lengths.split(",")):
            db = _stored(Path(tmp), length)
            runs = [measure(db, length, args.calls) for _ in range(args.rounds)]
            gets = [run[0] for run in runs]
            reads = [run[1] for run in runs if run[1] is not None]
            read = f"{statistics.median(reads):.1f}" if reads else "—"
            print(f"| {length} | {statistics.median(gets):.1f}; {min(gets):.1f}–{max(gets):.1f} | {read} |")


if __name__ == "__main__":
    main()
