"""Recording benchmarks over real HTTP against ``kibitz serve`` (run by hand, not in CI).

Usage::

    python bench/http_bench.py [--clients 8] [--games 40] [--lengths 10,1000,10000]
                               [--stored 10000] [--synchronous FULL]

Starts ``kibitz serve`` on a free port with a fresh database in a temporary folder, then
reports, as a Markdown table:

1. recorded moves per second: ``--clients`` threads each record whole random Toepen games
   (deals, plays, knocks, folds, laundries) through ``POST /games/<id>/events``;
2. append latency p50/p99 at game lengths 10, 1,000 and 10,000 events: a game is padded
   with ``note`` events to the length, then 200 real moves are recorded and timed one by one;
3. the server's resident memory after ``--stored`` games were created and each was read
   once (so every game passed through the stream cache), and after the same again.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import psutil
import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import PLAYERS, SIDE_RATE, free_port  # noqa: E402
from bench.playouts import play  # noqa: E402


class Server:
    """``kibitz serve`` in a subprocess on a free port, with its own database."""

    def __init__(self, folder: str, synchronous: str, threads: int) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        db = str(Path(folder) / "bench.db")
        cmd = ["kibitz", "serve", "--port", str(self.port), "--db", db, "--synchronous", synchronous]
        if threads:
            cmd += ["--threads", str(threads)]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                if requests.get(self.base + "/health", timeout=1).ok:
                    return
            except requests.ConnectionError:
                time.sleep(0.1)
        raise SystemExit("kibitz serve did not start")

    def rss_mib(self) -> float:
        return float(psutil.Process(self.proc.pid).memory_info().rss) / 2**20

    def cpu_seconds(self) -> float:
        """CPU time (user + system) the server process has used so far."""
        times = psutil.Process(self.proc.pid).cpu_times()
        return float(times.user + times.system)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


class Client:
    """A keep-alive HTTP/1.1 connection (the standard library's: light on the shared CPU)."""

    def __init__(self, base: str) -> None:
        host, port = base.removeprefix("http://").split(":")
        self.conn = http.client.HTTPConnection(host, int(port), timeout=30)

    def request(self, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.conn.request(method, path, None if body is None else json.dumps(body), headers)
        reply = self.conn.getresponse()
        return reply.status, json.loads(reply.read() or b"null")


def create(client: Client, options: dict[str, Any] | None = None) -> tuple[str, str]:
    body = {"game": "toepen", "players": PLAYERS, "visibility": "open", "options": options or {}}
    status, data = client.request("POST", "/games", body)
    if status != 201:
        raise SystemExit(f"create -> {status} {data}")
    return data["id"], data["token"]


def post(client: Client, game: str, token: str, action: dict[str, Any]) -> float:
    start = time.perf_counter()
    status, data = client.request("POST", f"/games/{game}/events", action, token)
    elapsed = time.perf_counter() - start
    if status != 201:
        raise SystemExit(f"{action} -> {status} {str(data)[:300]}")
    return elapsed


def throughput(base: str, clients: int, games: int, seed: int) -> tuple[int, float]:
    """Record ``games`` random games with ``clients`` threads; return (moves, seconds)."""
    rng = random.Random(seed)
    logs = [play("toepen", rng, PLAYERS, {"limit": 10}, side_rate=SIDE_RATE).actions for _ in range(games)]
    queue = list(logs)
    lock = threading.Lock()
    count = [0]

    def worker() -> None:
        client = Client(base)
        while True:
            with lock:
                if not queue:
                    return
                log = queue.pop()
            game, token = create(client)
            for action in log:
                post(client, game, token, action)
            with lock:
                count[0] += len(log)

    threads = [threading.Thread(target=worker) for _ in range(clients)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return count[0], time.perf_counter() - start


def latency_at(base: str, length: int, seed: int, moves: int = 200) -> tuple[float, float]:
    """p50 and p99 (ms) of recording real moves once the game holds ``length`` events."""
    client = Client(base)
    game, token = create(client, {"limit": 99})
    for i in range(max(0, length - 1)):
        post(client, game, token, {"type": "note", "text": f"padding {i}"})
    rng = random.Random(seed)
    actions = play("toepen", rng, PLAYERS, {"limit": 99}, max_events=moves + 1, side_rate=SIDE_RATE).actions
    times = [post(client, game, token, action) for action in actions]
    times.sort()
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    return statistics.median(times) * 1000, p99 * 1000


def memory(server: Server, stored: int) -> tuple[float, float]:
    """RSS (MiB) after ``stored`` games were created and read once, and after twice as many."""
    client = Client(server.base)
    readings = []
    for _ in range(2):
        for _ in range(stored):
            game, _token = create(client)
            status, _body = client.request("GET", f"/games/{game}")
            if status != 200:
                raise SystemExit(f"GET /games/{game} -> {status}")
        readings.append(server.rss_mib())
    return readings[0], readings[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--lengths", default="10,1000,10000")
    parser.add_argument("--stored", type=int, default=10000)
    parser.add_argument("--synchronous", default="FULL")
    parser.add_argument("--threads", type=int, default=0, help="server threads (default: kibitz serve's)")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        server = Server(folder, args.synchronous, args.threads)
        try:
            print(f"| measure ({os.cpu_count()} cores, synchronous={args.synchronous}) | result |")
            print("|---|---|")
            print(f"| load average (1, 5, 15 min) at the start | {', '.join(f'{x:.2f}' for x in os.getloadavg())} |")
            cpu = server.cpu_seconds()
            moves, seconds = throughput(server.base, args.clients, args.games, args.seed)
            cpu = server.cpu_seconds() - cpu
            print(f"| recorded moves/s over HTTP, {args.clients} clients | {moves / seconds:,.0f} ({moves} moves in {seconds:.1f} s) |")
            requests_made = moves + args.games  # every move, and the POST /games of each game
            print(f"| server CPU per request while recording (load-independent) | {cpu / requests_made * 1000:.2f} ms |")
            for length in (int(x) for x in args.lengths.split(",")):
                p50, p99 = latency_at(server.base, length, args.seed)
                print(f"| append latency at {length:,} events: p50 / p99 | {p50:.2f} ms / {p99:.2f} ms |")
            if args.stored:
                first, second = memory(server, args.stored)
                print(f"| server RSS after {args.stored:,} games stored and read | {first:.0f} MiB |")
                print(f"| server RSS after {2 * args.stored:,} games stored and read | {second:.0f} MiB |")
            print(f"| load average (1, 5, 15 min) at the end | {', '.join(f'{x:.2f}' for x in os.getloadavg())} |")
        finally:
            server.stop()


if __name__ == "__main__":
    main()
