"""Kibitz's rebuild against the ``eventsourcing`` library's aggregate reload, and append
latency as a game grows (issue 23's targets; run by hand, not in CI).

Usage::

    python bench/rebuild_vs_eventsourcing.py [--events 1500] [--rounds 5] [--seed 7]
        [--appends 200] [--long 10000] [--games toepen,fool,fuji_flush,stop_the_bus]
        [--postgres URL] [--skip-rebuild] [--skip-append]

**Rebuild** (one core, CPU time: ``time.process_time``). For each game, one random legal
game of exactly ``--events`` events (``bench.playouts``, the shapes of ``bench/rebuild*.py``,
cut at that length) is stored twice in the same temporary folder:

- in Kibitz's SQLite store, as the service stores it (``service.storage.sqlite``: each
  event with its salt and hash, the games row with its version, status and record hash);
- in the ``eventsourcing`` library's SQLite event store (``eventsourcing.sqlite``), as an
  aggregate whose first event carries the ``game_created`` data and each later event one
  recorded action's type and data, the same payloads; applying an event only counts it and
  keeps it (the library's own cost per event, no rules).

Then, alternately, ``--rounds`` times each, in the same minutes:

- ``eventsourcing``: ``Application.repository.get(id)``, the aggregate reloaded from its
  stored events (no snapshots, no aggregate cache);
- ``kibitz, cache miss``: what the service does for a game it has not folded
  (``service.record.cache.FoldCache.get`` on an empty cache): the stored head, every event read,
  numbered without a gap, the hash chain recomputed, the game folded through its rules
  (``replays.replay.fold``: ``engine.stream`` and the game's ``apply``);
- ``kibitz, fold alone``: ``replays.replay.fold`` over the events already read.

Each ratio is the library's median CPU time over Kibitz's for the same number of events
(above 1: Kibitz rebuilds faster); the target is 1.5 for every game.

**Append** (``--appends``): the service's write function (``service.record.writes.record``, as
``POST /games/<id>/events`` calls it after its token and schema checks: the writer's
one read and one append, the fold cache, the SQLite commit at ``synchronous=FULL``) timed per move, wall
clock and the process's CPU time, with the fold cache warm:

- at 10 events: ``--appends`` / 30 games of Stop the Bus for 10 players stored with their
  first 10 events, then events 11 to 40 recorded through the write function in each (every
  game read once first, so its fold is cached): the first round, every kind of move (a single
  11th event would be a swap each time, the cheapest move, while the long game's moves are
  swaps, stops, shows and the scoring of rounds);
- at ``--long`` events: one game of the same table stored with ``--long`` events, then its
  next ``--appends`` moves recorded one after the other.

The target: p99 at 10,000 events within 1.5x of p99 at 10. With ``--postgres URL`` (a
throwaway server, such as ``tests/postgres_cluster.sh`` starts) the same runs on a fresh
schema of it. The load average (1 min, ``os.getloadavg``) is printed before and after each
part.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from eventsourcing.application import Application  # noqa: E402
from eventsourcing.domain import Aggregate, event  # noqa: E402

import engine  # noqa: E402
from bench.playouts import NAMES, Log, play  # noqa: E402
from engine import stream as streams  # noqa: E402
from replays import replay  # noqa: E402
from service.record.cache import FoldCache  # noqa: E402
from service.storage import backend as store  # noqa: E402
from service.storage import (
    forks,
    migrations,  # noqa: E402
)

STAMP = "2026-01-01T00:00:00.000Z"
ALL_GAMES = ("toepen", "fool", "fuji_flush", "stop_the_bus")
#: Moves recorded in each short game, from its 11th event on: a 10-player game's first round
#: (its deal, swaps, the stop, the final turns and the shows that score it), so that the short
#: games' appends are every kind of move, as the long game's are.
SHORT_MOVES = 30


# --------------------------------------------------------------------------- the games


def long_game(game: str, rng: random.Random, events: int) -> Log:
    """One random legal game of ``game`` cut at ``events`` events (long shapes, so that it runs that
    far; the next random game is played while one ends sooner)."""
    for _ in range(50):
        log = _random_game(game, rng, events)
        if len(log) == events:
            return log
    raise SystemExit(f"{game}: no random game ran to {events} events")


def _random_game(game: str, rng: random.Random, events: int) -> Log:
    if game == "toepen":  # 8 players, limit 99, table visibility; knocks, folds, laundries now and then
        log = play("toepen", rng, NAMES[:8], {"limit": 99}, "table", side_rate=(0.1, 0.05), max_events=events).events
    elif game == "fool":  # bench/rebuild_fool.py's long game: table visibility, undo/redo, rulings
        log = play("fool", rng, NAMES[:8], {}, "table", undo_rate=0.05, undo_depth=1, note_rate=0,
                   rescue_below=0, max_events=events).events
    elif game == "fuji_flush":  # bench/rebuild_fuji_flush.py's long game
        log = play("fuji_flush", rng, NAMES[:8], {"deck": {str(v): 20 for v in range(2, 21)}, "hand_size": 30},
                   "open", undo_rate=0.1, undo_depth=1, note_rate=0, max_events=events).events
    else:  # bench/rebuild_stop_the_bus.py's shape, 10 players with 99 chips so that it runs long enough
        log = play("stop_the_bus", rng, NAMES[:10], {"chips": 99, "swap_all": True}, "table", stop_chance=0.2,
                   max_events=events).events
    return log


def data_of(action: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in action.items() if k != "type"}


def store_kibitz(db: Any, game: str, game_id: str, log: Log) -> dict[str, Any]:
    """Store ``log`` as game ``game_id`` the way the service does (one transaction); its games row."""
    rules = engine.GAMES[game]
    created = {"game": game, **data_of(log[0][1])}
    folded = replay.fold(rules, [{"seq": seq, "type": a["type"], "data": created if seq == 1 else data_of(a)}
                                 for seq, a in log])
    status = streams.status(folded.stream)
    with store.of(db).immediate(db):
        store.of(db).insert_game(db, game_id, created, "0" * 64, STAMP, "in_progress")
        for seq, action in log:
            store.of(db).append(db, game_id, seq, action["type"], created if seq == 1 else data_of(action), STAMP)
        store.of(db).set_version(db, game_id, len(log), status,
                                 secret_from_hand=forks.secret_from_hand(rules, folded.stream.state))
    row = store.of(db).get_game(db, game_id)
    assert row is not None
    return row


class Table(Aggregate):
    """The eventsourcing library's aggregate of one recorded game: the same payloads as Kibitz's
    events, and nothing but a count and the last action kept (the library's cost, no rules)."""

    @event("Created")
    def __init__(self, created: dict[str, Any]) -> None:
        self.created = created
        self.recorded = 0
        self.last: dict[str, Any] = {}

    @event("Recorded")
    def record(self, kind: str, data: dict[str, Any]) -> None:
        self.recorded += 1
        self.last = {"type": kind, **data}


def store_eventsourcing(app: Application, log: Log) -> uuid.UUID:
    table = Table(data_of(log[0][1]))
    for _, action in log[1:]:
        table.record(action["type"], data_of(action))
    app.save(table)
    return table.id


# --------------------------------------------------------------------------- timing


def cpu(call: Callable[[], Any]) -> float:
    started = time.process_time()
    call()
    return time.process_time() - started


def load() -> str:
    return "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def rebuild_game(game: str, log: Log, rounds: int, folder: Path) -> None:
    """One game's row of the rebuild table: ``log`` stored in both stores, reloaded alternately."""
    events = len(log)
    os.environ["SQLITE_DBNAME"] = str(folder / f"es-{game}.db")
    app: Application = Application()
    table_id = store_eventsourcing(app, log)
    db = store.connect(folder / f"kibitz-{game}.db", "FULL")
    migrations.migrate(db)
    row = store_kibitz(db, game, "g", log)
    rules = engine.GAMES[game]
    read = store.events(db, "g")
    assert app.repository.get(table_id).recorded == events - 1
    assert FoldCache().get(db, rules, "g", row["version"]).version == events
    times: dict[str, list[float]] = {"es": [], "miss": [], "fold": []}
    gc.collect()
    gc.freeze()  # the bench's own objects (the logs, both stores' set-up) out of the collector's walks
    for _ in range(rounds):
        times["es"].append(cpu(lambda: app.repository.get(table_id)))
        times["miss"].append(cpu(lambda: FoldCache().get(db, rules, "g", row["version"])))
        times["fold"].append(cpu(lambda: replay.fold(rules, read)))
    es, miss, fold = (statistics.median(times[k]) for k in ("es", "miss", "fold"))
    per = 1e6 / events
    print(f"| {game} | {es * per:.1f} µs/event | {miss * per:.1f} µs/event | {fold * per:.1f} µs/event "
          f"| **{es / miss:.2f}×** | {es / fold:.2f}× |")
    db.close()
    app.close()
    gc.unfreeze()


def rebuild_part(games: list[str], events: int, rounds: int, seed: int, folder: Path) -> None:
    os.environ["PERSISTENCE_MODULE"] = "eventsourcing.sqlite"
    print(f"## Rebuild: {events} events per game, median of {rounds} alternating rounds, CPU time ({load()})")
    print()
    print("| game | eventsourcing reload | kibitz cache miss (read, chain, fold) | kibitz fold alone "
          "| ratio, cache miss | ratio, fold alone |")
    print("|---|---|---|---|---|---|")
    for number, game in enumerate(games):
        rebuild_game(game, long_game(game, random.Random(seed + number), events), rounds, folder)
        sys.stdout.flush()
    print()
    print(f"({load()} at the end)")
    print()


# --------------------------------------------------------------------------- append latency


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def append_part(database: str, appends: int, long: int, seed: int, label: str) -> None:
    from service.parsing import Parsed
    from service.record import writer as writers
    from service.record import writes

    db = store.connect(database, "FULL")
    if store.is_postgres(db):
        from service.storage import postgres

        postgres.migrate(db)
    else:
        migrations.migrate(db)
    cache = FoldCache()
    rules = engine.GAMES["stop_the_bus"]
    rng = random.Random(seed)
    record: Callable[[dict[str, Any], dict[str, Any]], Any]
    if hasattr(writers, "Writer"):  # the write as one read and one append, in the request's thread
        writer = writers.Writer(database, "FULL")

        def record(row: dict[str, Any], action: dict[str, Any]) -> Any:
            return writes.record(writer, cache, row["id"], lambda _row: Parsed(dict(action), None, None),
                                 admit=lambda _row: (None, False))
    else:  # the code before it: the group committer's writer thread
        committer = writers.GroupCommitter(database, "FULL")  # type: ignore[attr-defined]

        def record(row: dict[str, Any], action: dict[str, Any]) -> Any:
            return writes.record(committer, cache, row, Parsed(dict(action), None, None))  # type: ignore[arg-type, call-arg]

    def timed(row: dict[str, Any], action: dict[str, Any]) -> tuple[float, float]:
        wall, used = time.perf_counter(), time.process_time()
        recorded = record(row, action)
        wall, used = time.perf_counter() - wall, time.process_time() - used
        assert recorded.status == 201, recorded.body
        return wall, used

    print(f"## Append through service.record.writes.record, {label}, synchronous=FULL, fold cache warm ({load()})")
    print()
    results: dict[str, tuple[list[float], list[float]]] = {}
    short: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    for number in range(max(appends // SHORT_MOVES, 1)):
        log = long_game("stop_the_bus", rng, 10 + SHORT_MOVES)
        row = store_kibitz(db, "stop_the_bus", f"s{seed}-{number}", log[:10])
        cache.get(db, rules, row["id"], row["version"])
        short.append((row, [action for _, action in log[10:]]))
    walls, cpus = [], []
    for row, actions in short:
        for action in actions:
            wall, used = timed(row, action)
            walls.append(wall)
            cpus.append(used)
    results[f"10 to {10 + SHORT_MOVES} events"] = (walls, cpus)
    log = long_game("stop_the_bus", rng, long + appends)
    row = store_kibitz(db, "stop_the_bus", f"l{seed}", log[:long])
    if store.is_postgres(db):  # stored in one transaction, its games row has one dead version per event:
        db.execute("VACUUM ANALYZE")  # what autovacuum does to a game recorded move by move over hours
    cache.get(db, rules, row["id"], row["version"])
    walls, cpus = [], []
    for _, action in log[long:]:
        wall, used = timed(row, action)
        walls.append(wall)
        cpus.append(used)
    results[f"{long:,} events"] = (walls, cpus)
    print("| game length | wall p50 | wall p99 | CPU p50 | CPU p99 |")
    print("|---|---|---|---|---|")
    for name, (walls, cpus) in results.items():
        print(f"| {name} | {percentile(walls, .5) * 1e3:.2f} ms | {percentile(walls, .99) * 1e3:.2f} ms "
              f"| {percentile(cpus, .5) * 1e3:.2f} ms | {percentile(cpus, .99) * 1e3:.2f} ms |")
    (short_walls, short_cpus), (long_walls, long_cpus) = results.values()
    print()
    print(f"p99 at {long:,} / p99 at 10-{10 + SHORT_MOVES}: wall **{percentile(long_walls, .99) / percentile(short_walls, .99):.2f}×**, "
          f"CPU **{percentile(long_cpus, .99) / percentile(short_cpus, .99):.2f}×** (target ≤ 1.5×; {load()})")
    print()
    db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1500)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--appends", type=int, default=200)
    parser.add_argument("--long", type=int, default=10_000)
    parser.add_argument("--games", default=",".join(ALL_GAMES))
    parser.add_argument("--postgres", help="also time the appends on a fresh schema of this PostgreSQL server")
    parser.add_argument("--skip-rebuild", action="store_true")
    parser.add_argument("--skip-append", action="store_true")
    args = parser.parse_args()
    games = [game for game in args.games.split(",") if game]
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        if not args.skip_rebuild:
            rebuild_part(games, args.events, args.rounds, args.seed, folder)
        if not args.skip_append:
            append_part(str(folder / "append.db"), args.appends, args.long, args.seed, "SQLite")
            if args.postgres:
                from tests.postgres import fresh_schema

                os.environ["KIBITZ_TEST_POSTGRES"] = args.postgres
                with fresh_schema() as url:
                    append_part(url, args.appends, args.long, args.seed, "PostgreSQL")


if __name__ == "__main__":
    main()
