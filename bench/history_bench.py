"""Match histories over 10,000 stored games: how fast a player's history answers.

Usage: ``python bench/history_bench.py [--games 10000] [--seed 7] [--db PATH] [--runs 20]``.

Stores ``--games`` finished games (random legal Toepen and Stop the Bus games, each folded
through the rules and written with its ``player_results`` rows exactly as the service
writes them) in a fresh database, with seats drawn from a club of 40 names; "Ann" sits at
every table, so her history is the largest possible (every game). Then times, through the
Flask app (the whole request: routing, SQL, JSON or CSV), the median and worst of
``--runs`` requests each for ``GET /players/Ann`` (stats per game type and the newest 100
games), ``GET /players/Ann/games?format=csv`` (all of them), ``GET /players/Bob`` and
``GET /players``. Done when ``GET /players/Ann`` answers in under 200 ms.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.playouts import play  # noqa: E402
from engine import stop_the_bus, toepen  # noqa: E402
from engine import stream as streams  # noqa: E402
from replays import replay  # noqa: E402
from service.storage import forks, history, migrations
from service.storage import sqlite as store
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
                    db.conn.executemany(
                        "INSERT INTO events (game_id, seq, type, data, recorded_at) VALUES (?, ?, ?, ?, ?)",
                        [(game_id, e["seq"], e["type"], json.dumps(e["data"], separators=(",", ":")), when)
                         for e in events])
                    history.refresh(db, {"id": game_id, "game": rules.GAME, "created_at": when}, rules, state)
    finally:
        db.close()
    return time.perf_counter() - started


def timed(client: Any, url: str, runs: int) -> tuple[float, float, int]:
    """Median and worst milliseconds of ``runs`` GETs of ``url`` (after one warm-up), and the body size."""
    size = len(client.get(url).get_data())
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, response.get_data(as_text=True)[:200]
    return statistics.median(times), max(times), size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--db", help="database file (default: a temporary one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.db or str(Path(tmp) / "history.db")
        seconds = fill(path, args.games, random.Random(args.seed))
        db = store.connect(path)
        rows = db.execute("SELECT COUNT(*) FROM player_results").fetchone()[0]
        events = db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        db.close()
        print(f"stored {args.games} games ({events} events, {rows} player_results rows) in {seconds:.1f} s")
        client = create_app({"DATABASE": path}).test_client()
        worst_ann = 0.0
        for url in ("/players/Ann", "/players/ann?limit=1000", "/players/Ann/games?format=csv", "/players/Bob",
                    "/players"):
            median, worst, size = timed(client, url, args.runs)
            print(f"GET {url:34} median {median:7.1f} ms   worst {worst:7.1f} ms   {size / 1024:8.1f} KiB")
            if url == "/players/Ann":
                worst_ann = worst
        verdict = "under" if worst_ann < 200 else "OVER"
        print(f"a player's history (GET /players/Ann, {args.games} games): worst {worst_ann:.1f} ms, {verdict} 200 ms")


if __name__ == "__main__":
    main()
