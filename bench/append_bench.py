"""What one append costs in the store itself (run by hand, not in CI): ``service.storage.sqlite.append``
as the writer calls it, without HTTP around it.

Usage::

    python bench/append_bench.py [--appends 2000] [--rounds 5] [--note-bytes 200]

Two measurements on a fresh database in a temporary folder, each repeated ``--rounds``
times, printed as a Markdown table row per measurement (median and spread of the rounds):

1. ``committed``: one append per ``BEGIN IMMEDIATE`` … ``COMMIT`` at ``synchronous=FULL``
   (the path of a single write: its fsync included), microseconds per append;
2. ``in one transaction``: ``--appends`` appends in one transaction at ``synchronous=OFF``
   (no fsync: the store's own CPU cost per append, the SQL and, with the hash chain, the
   salt, the canonical JSON and the SHA-256);
3. with the hash chain only: recomputing the chain of that log, per event, as a rebuild
   from storage does (a cache miss).

The script uses only functions every version of the store has (``connect``, ``migrate``,
``insert_game``, ``append``, ``immediate``), so the same file measures the code of any
checkout: run it with ``PYTHONPATH`` set to an older tree for the "before" figures, in the
same minute as the "after" ones.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from service.storage import migrations
from service.storage import sqlite as store

CREATED = {"game": "toepen", "players": ["Ann", "Bob", "Cas", "Dee"], "visibility": "table", "options": {},
           "dealer": "Ann", "rules_version": 1}


def _game(db: object, game_id: str) -> None:
    with store.immediate(db):  # type: ignore[arg-type]
        store.insert_game(db, game_id, CREATED, "0" * 64, "2026-01-01T00:00:00.000Z", "in_progress")  # type: ignore[arg-type]
        store.append(db, game_id, 1, "game_created", CREATED, "2026-01-01T00:00:00.000Z")  # type: ignore[arg-type]


def committed(folder: Path, appends: int, text: str) -> float:
    """Microseconds per append, one committed transaction each (synchronous=FULL)."""
    db = store.connect(folder / "committed.db", "FULL")
    migrations.migrate(db)
    _game(db, "g")
    start = time.perf_counter()
    for seq in range(2, appends + 2):
        with store.immediate(db):
            store.append(db, "g", seq, "note", {"text": text}, "2026-01-01T00:00:01.000Z")
    elapsed = time.perf_counter() - start
    db.close()
    return elapsed / appends * 1e6


def batched(folder: Path, appends: int, text: str) -> float:
    """Microseconds per append, all in one transaction (synchronous=OFF: no fsync)."""
    db = store.connect(folder / "batched.db", "OFF")
    migrations.migrate(db)
    _game(db, "g")
    start = time.perf_counter()
    with store.immediate(db):
        for seq in range(2, appends + 2):
            store.append(db, "g", seq, "note", {"text": text}, "2026-01-01T00:00:01.000Z")
    elapsed = time.perf_counter() - start
    db.close()
    return elapsed / appends * 1e6


def chain_check(folder: Path, appends: int, text: str) -> float | None:
    """Microseconds per event to recompute a stored log's chain, as a rebuild from storage
    does (``replays.chain.first_break`` over ``store.events``); None without the chain."""
    if not hasattr(store, "RecordDamaged"):  # a store from before the hash chain
        return None
    from replays import chain

    db = store.connect(folder / "batched.db", "OFF")
    events = store.events(db, "g")
    start = time.perf_counter()
    assert chain.first_break(events) is None
    elapsed = time.perf_counter() - start
    db.close()
    return elapsed / len(events) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--appends", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--note-bytes", type=int, default=200)
    args = parser.parse_args()
    text = ("Zoë ♥ " * args.note_bytes)[: args.note_bytes]
    chained = hasattr(store, "RecordDamaged")  # the store of the hash chain
    results: dict[str, list[float]] = {"committed (FULL, one append per commit)": [],
                                       "in one transaction (OFF)": []}
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory() as folder:
            results["committed (FULL, one append per commit)"].append(
                committed(Path(folder), max(args.appends // 10, 50), text))
            results["in one transaction (OFF)"].append(batched(Path(folder), args.appends, text))
            checked = chain_check(Path(folder), args.appends, text)
            if checked is not None:
                results.setdefault("recomputing the chain on a rebuild, per event", []).append(checked)
    code = "with the hash chain" if chained else "without the hash chain"
    for name, values in results.items():
        spread = f"{min(values):.1f}–{max(values):.1f}"
        print(f"| {code} | {name} | {statistics.median(values):.1f} µs | {spread} µs |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
