"""Match histories, the club table and the lists of games over 10,000 stored games: how fast
they answer, and what checking them against the logs costs.

Usage: ``python bench/history_bench.py [--games 10000] [--seed 7] [--db PATH] [--runs 20]
[--rounds 2] [--only TEXT]``.

Stores ``--games`` finished games (random legal Toepen and Stop the Bus games, each folded
through the rules and written with its ``player_results`` rows exactly as the service
writes them, each event chained as ``store.append`` chains it) in a fresh database, with
seats drawn from a club of 40 names; "Ann" sits at every table, so her history is the
largest possible (every game). Then times, through the Flask app (the whole request:
routing, SQL, JSON, CSV or HTML), the first ``GET /club`` and ``GET /`` after the start
(which fold every game counted or listed once, to check the stored rows against the logs),
then the median and worst wall time and the median CPU time of ``--runs`` requests each of
:data:`URLS` in three ways, alternating, ``--rounds`` times each, in the same minutes:

- ``checked``: as served (``service.record.projections``: nothing changed since the last check, so
  the stored rows are not read again);
- ``unchecked``: the checks turned off (the reference: the answers as built before them);
- ``rechecked``: one game's results written again before each request (as a write that
  finishes a game does), so every history re-reads and compares the rows it counts.

The load average is printed before and after. Done when ``GET /players/Ann`` answers in under
200 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine  # noqa: E402
from bench.playouts import play  # noqa: E402
from engine import stop_the_bus, toepen  # noqa: E402
from engine import stream as streams  # noqa: E402
from replays import chain, replay  # noqa: E402
from service.record import projections  # noqa: E402
from service.storage import forks, history, migrations  # noqa: E402
from service.storage import sqlite as store  # noqa: E402
from service.web.app import create_app  # noqa: E402

CLUB = ["Bob", "Cas", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jan", "Kim", "Lou", "Max", "Ned", "Oda", "Pim",
        "Quin", "Rik", "Sam", "Tes", "Uwe", "Vic", "Wim", "Xan", "Yan", "Zoe", "Bas", "Cor", "Dirk", "Els", "Fien",
        "Geert", "Hans", "Inge", "Joop", "Kees", "Lies", "Mien", "Noor", "Otto"]
SEATS = ["Zq0", "Zq1", "Zq2", "Zq3"]  # placeholders replaced by real names in each stored copy
TEMPLATES = 40


def templates(rng: random.Random) -> list[tuple[Any, str]]:
    """Finished game logs with placeholder seats: (engine module, JSON of the event list)."""
    out = []
    for i in range(TEMPLATES):
        if i % 2:
            rules, game = stop_the_bus, play("stop_the_bus", rng, SEATS, {"chips": 2}, "table")
        else:
            rules, game = toepen, play("toepen", rng, SEATS, {"limit": 3}, "open", side_rate=(0.12, 0.12))
        events = [{"seq": 1, "type": streams.CREATED, "data": {"game": rules.GAME, **game.created}}]
        events += [{"seq": n, "type": a["type"], "data": {k: v for k, v in a.items() if k != "type"}}
                   for n, a in game.events[1:]]
        assert rules.status(replay.fold(rules, events).stream.state) == "finished"
        out.append((rules, json.dumps(events)))
    return out


def fill(path: str, games: int, rng: random.Random) -> float:
    """Store ``games`` games; returns the seconds it took."""
    started = time.perf_counter()
    logs = templates(rng)
    db = store.connect(path, "OFF")
    migrations.migrate(db)
    day = datetime(2024, 1, 5, 20, 0, tzinfo=UTC)
    try:
        for first in range(0, games, 500):
            with store.immediate(db):
                for n in range(first, min(first + 500, games)):
                    rules, text = logs[n % len(logs)]
                    names = ["Ann", *rng.sample(CLUB, 3)]
                    rng.shuffle(names)
                    for placeholder, name in zip(SEATS, names, strict=True):
                        text = text.replace(f'"{placeholder}"', json.dumps(name))
                    events = json.loads(text)
                    when = (day + timedelta(minutes=17 * n)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
                    game_id = f"g{n:05d}"
                    folded = replay.fold(rules, events)
                    state = folded.stream.state
                    store.insert_game(db, game_id, events[0]["data"], "x" * 64, when, rules.status(state))
                    store.set_version(db, game_id, folded.version, rules.status(state),
                                      secret_from_hand=forks.secret_from_hand(rules, state))
                    previous, stored = chain.GENESIS, []
                    for e in events:  # each event chained as store.append chains it, written at once
                        salt = chain.new_salt()
                        previous = chain.event_hash(previous, {**e, "recorded_at": when, "at": None, "salt": salt})
                        stored.append((game_id, e["seq"], e["type"], json.dumps(e["data"], separators=(",", ":")),
                                       when, salt, previous))
                    db.conn.executemany("INSERT INTO events (game_id, seq, type, data, recorded_at, salt, hash) "
                                        "VALUES (?, ?, ?, ?, ?, ?, ?)", stored)
                    db.execute("UPDATE games SET record_hash = ? WHERE id = ?", [previous, game_id])
                    history.refresh(db, {"id": game_id, "game": rules.GAME, "created_at": when}, folded.stream)
    finally:
        db.close()
    return time.perf_counter() - started


def timed(client: Any, url: str, runs: int, before: Any = None) -> tuple[float, float, float, int]:
    """Median and worst wall milliseconds and median CPU milliseconds of ``runs`` GETs of
    ``url`` (after one warm-up), and the body size; ``before`` (if given) is called, untimed,
    before each request."""
    size = len(client.get(url).get_data())
    times, cpus = [], []
    for _ in range(runs):
        if before is not None:
            before()
        started, cpu = time.perf_counter(), time.process_time()
        response = client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
        assert response.status_code == 200, response.get_data(as_text=True)[:200]
    return statistics.median(times), max(times), statistics.median(cpus), size


@contextmanager
def unchecked(on: bool) -> Iterator[None]:
    """With ``on`` False, the block runs with ``service.record.projections``' checks turned into
    no-ops (the reference: the answers as they were built before the checks)."""
    if on:
        yield
        return
    check, listed = projections.check, projections.check_listed
    projections.check = lambda **_: None  # type: ignore[assignment]
    projections.check_listed = lambda _rows: None  # type: ignore[assignment]
    try:
        yield
    finally:
        projections.check, projections.check_listed = check, listed


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


#: What is timed: the history routes, the club table and the lists of games (API and pages).
URLS = ("/players/Ann", "/players/ann?limit=1000", "/players/Ann/games?format=csv", "/players/Bob", "/players",
        "/club", "/people", "/people/Bob", "/games", "/games?limit=500", "/")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds, checked and unchecked, each")
    parser.add_argument("--db", help="database file (default: a temporary one)")
    parser.add_argument("--only", help="time only the URLs containing this text")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.db or str(Path(tmp) / "history.db")
        seconds = fill(path, args.games, random.Random(args.seed))
        db = store.connect(path)
        rows = db.execute("SELECT COUNT(*) FROM player_results").fetchone()[0]
        events = db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        print(f"stored {args.games} games ({events} events, {rows} player_results rows) in {seconds:.1f} s")
        print(f"load average: {load()}")
        app = create_app({"DATABASE": path})
        client = app.test_client()
        for url in ("/club", "/"):  # a server just started: every game's rows checked once
            started, cpu = time.perf_counter(), time.process_time()
            assert client.get(url).status_code == 200
            print(f"first GET {url} after the start (the logs folded once): {time.perf_counter() - started:.2f} s "
                  f"wall, {time.process_time() - cpu:.2f} s CPU")
        game = db.execute("SELECT id, game, created_at FROM games ORDER BY created_at DESC LIMIT 1").fetchone()
        rules = engine.GAMES[game[1]]
        folded = replay.fold(rules, store.events(db, game[0]))

        def rewrite() -> None:  # one game's results written again, as a write that finishes a game does
            with store.immediate(db):
                history.refresh(db, {"id": game[0], "game": game[1], "created_at": game[2]}, folded.stream)

        worst_ann = 0.0
        header = f"{'GET':34} {'':9} {'median':>9} {'worst':>9} {'CPU':>8} {'size':>10}"
        print(header)
        for url in URLS:
            if args.only and args.only not in url:
                continue
            runs: dict[str, list[tuple[float, float, float, int]]] = {"checked": [], "unchecked": [], "rechecked": []}
            for _ in range(args.rounds):  # alternating, in the same minutes
                for kind in runs:
                    with unchecked(kind != "unchecked"):
                        runs[kind].append(timed(client, url, args.runs, rewrite if kind == "rechecked" else None))
            for kind, found in runs.items():
                median = statistics.median(run[0] for run in found)
                worst = max(run[1] for run in found)
                cpu = statistics.median(run[2] for run in found)
                print(f"{url:34} {kind:9} {median:7.1f} ms {worst:7.1f} ms {cpu:5.1f} ms {found[0][3] / 1024:7.1f} KiB")
                if url == "/players/Ann" and kind == "checked":
                    worst_ann = worst
        db.close()
        print(f"load average: {load()}")
        verdict = "under" if worst_ann < 200 else "OVER"
        print(f"a player's history (GET /players/Ann, {args.games} games): worst {worst_ann:.1f} ms, {verdict} 200 ms")


if __name__ == "__main__":
    main()
