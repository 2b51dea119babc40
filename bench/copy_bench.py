"""``kibitz copy``: how long moving a club's history takes, by pair of backends.

Usage: ``python bench/copy_bench.py [--games 100] [--seed 7] [--postgres URL]``.

Records ``--games`` random legal games (Toepen, to their end; bench/playouts.py) through the
API (the Flask app on a fresh SQLite file, ``synchronous=OFF`` for the set-up alone), then
times the real command (``kibitz copy``, a process of its own, every game re-validated,
copied in its own transaction and verified at the end) for SQLite → SQLite, SQLite →
PostgreSQL, PostgreSQL → SQLite, and a second SQLite → PostgreSQL run over the finished copy
(every game skipped as already there, and verified). PostgreSQL is the server at
``--postgres`` (else ``$KIBITZ_TEST_POSTGRES``), in a fresh schema dropped afterwards;
without one, only SQLite → SQLite runs. Prints one line per run (games, events, seconds,
games/s, events/s) and the load average (1 min) before and after.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.playouts import play  # noqa: E402
from service.web.app import create_app  # noqa: E402

PLAYERS = ["Ann", "Bob", "Cas", "Dee"]
KIBITZ = [sys.executable, "-c", "from service.cli.main import main; main()"]


def record(path: Path, games: int, seed: int) -> int:
    """Record ``games`` finished Toepen games into ``path`` through the API; returns the events stored."""
    client = create_app({"DATABASE": str(path), "SYNCHRONOUS": "OFF"}).test_client()
    rng = random.Random(seed)
    events = 0
    for _ in range(games):
        game = play("toepen", rng, PLAYERS, {"limit": 3}, "open")
        created = client.post("/games", json={"game": "toepen", "players": PLAYERS, "visibility": "open",
                                              "options": {"limit": 3}})
        assert created.status_code == 201, created.get_json()
        body = created.get_json()
        auth = {"Authorization": f"Bearer {body['token']}"}
        for action in game.actions:
            kind = action["type"]
            path_part = kind if kind in ("undo", "redo") else "events"
            payload = {k: v for k, v in action.items() if k != "type"} if path_part != "events" else action
            answer = client.post(f"/games/{body['id']}/{path_part}", json=payload, headers=auth)
            assert answer.status_code == 201, answer.get_json()
        events += len(game.events)
    return events


def load() -> float:
    return os.getloadavg()[0]


def timed(src: str, dst: str) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run([*KIBITZ, "copy", src, dst], capture_output=True, text=True, check=False,
                          cwd=Path(__file__).resolve().parents[1])
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"kibitz copy {src} {dst} failed:\n{done.stdout}{done.stderr}")
    return took, done.stdout.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--postgres", default=os.environ.get("KIBITZ_TEST_POSTGRES"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "club.db"
        started = time.perf_counter()
        events = record(source, args.games, args.seed)
        print(f"recorded {args.games} games, {events} events through the API in {time.perf_counter() - started:.1f} s")
        print(f"load average before: {load():.2f}")
        runs = [("SQLite -> SQLite", str(source), str(Path(folder) / "copy.db"))]
        schema = None
        if args.postgres:
            import psycopg

            schema = f"bench_{uuid.uuid4().hex[:12]}"
            with psycopg.connect(args.postgres, autocommit=True) as conn:
                conn.execute(f"CREATE SCHEMA {schema}")
            url = f"{args.postgres}{'&' if '?' in args.postgres else '?'}options={quote(f'-csearch_path={schema}')}"
            runs += [("SQLite -> PostgreSQL", str(source), url),
                     ("PostgreSQL -> SQLite", url, str(Path(folder) / "back.db")),
                     ("SQLite -> PostgreSQL again (all skipped)", str(source), url)]
        try:
            for name, src, dst in runs:
                took, summary = timed(src, dst)
                print(f"{name}: {args.games} games, {events} events in {took:.2f} s = {args.games / took:.1f} games/s, "
                      f"{events / took:.0f} events/s ({summary})")
        finally:
            if schema is not None:
                import psycopg

                with psycopg.connect(args.postgres, autocommit=True) as conn:
                    conn.execute(f"DROP SCHEMA {schema} CASCADE")
        print(f"load average after: {load():.2f}")


if __name__ == "__main__":
    main()
