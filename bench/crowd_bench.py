"""A crowd of watchers must not lock the scorekeeper out (api.md, "What a crowd must not break").

Starts a real ``kibitz serve`` on a loopback port with a fresh database, creates one game and
runs two timed runs against it, each for ``--seconds``:

* **polling**: ``--clients`` watchers (500) do what the game page does (``service/web/static/watch.js``):
  each keeps its own keep-alive connection and asks ``/watch/<id>/board`` once a second with
  ``If-None-Match`` naming the version it shows (304 while nothing changed, the new board and
  its ``ETag`` after a write);
* **idle**: ``--idle`` connections (500) are held open, half of them idle (connected, sending
  nothing), half slow (a request's headers trickled a line every 2 s, never finished); one the
  server closes is opened again, as a hostile client would.

and three more on request (``--runs``):

* **quiet**: the scorekeeper alone, the reference for the others;
* **junk**: ``--flooders`` clients (20) each sending ``--flood-rate`` times a second (5) a
  0.87 MiB write with a junk token to the game, the whole body before reading the answer;
* **creators**: ``--flooders`` anonymous clients creating games ``--flood-rate`` times a second each,
  from ``--addresses`` loopback addresses (1 by default: one machine; 127.0.0.2, …).

Meanwhile the scorekeeper, in a process of its own, records a move (a ``note``, without an
``Idempotency-Key``) every 0.5–2 s and asks ``/health`` every 0.25 s, each over a new
connection, timing each answer. The load runs in its own processes (``--role``), never in the
server's. The report gives p50/p99 of the writes and ``/health``, the writes not answered 201,
any write stored twice, every poll started after a write's 201 that still saw an older version
(violations), the polls' own figures, and the load average (``os.getloadavg``) before and after.

Only loopback addresses are used; every loop is bounded in time and the script stops by itself.

    python bench/crowd_bench.py                       # this checkout's code, both runs, 60 s each
    python bench/crowd_bench.py --source /tmp/before  # another checkout's code (the same venv)
    python bench/crowd_bench.py --runs polling --seconds 30 --clients 200
    python bench/crowd_bench.py --runs quiet,junk,creators --seconds 30
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import random
import resource
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import HOST, fmt, percentile  # noqa: E402

#: How long one request may take before the bench counts it as failed (seconds).
REQUEST_TIMEOUT = 10.0
#: Warm-up before the scorekeeper starts: the crowd's connections are opened by then.
WARM_UP = 4.0


def raise_open_files(wanted: int) -> int:
    """Raise this process's soft limit of open files towards ``wanted`` (at most the hard
    limit); returns the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


# --------------------------------------------------------------------------- the scorekeeper


@dataclass
class Answer:
    """One timed request: when it started and ended (``time.monotonic``), its status (0: no
    answer), and for a write the version its 201 named."""

    started: float
    ended: float
    status: int
    version: int | None = None
    text: str = ""

    @property
    def ms(self) -> float:
        return (self.ended - self.started) * 1000


def _exchange(port: int, method: str, path: str, body: bytes | None = None,
              headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    """One request over a new connection (as a tablet whose keep-alive connection was closed)."""
    conn = http.client.HTTPConnection(HOST, port, timeout=REQUEST_TIMEOUT)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def scorekeeper(port: int, game_id: str, token: str, seconds: float, tag: str) -> dict[str, Any]:
    """Record a note every 0.5–2 s and ask ``/health`` every 0.25 s for ``seconds``; every
    answer timed. Returns ``{"writes": [...], "health": [...]}`` of :class:`Answer` dicts."""
    writes: list[Answer] = []
    health: list[Answer] = []
    stop = time.monotonic() + seconds

    def ask_health() -> None:
        while time.monotonic() < stop:
            started = time.monotonic()
            try:
                status, _ = _exchange(port, "GET", "/health")
            except OSError:
                status = 0
            health.append(Answer(started, time.monotonic(), status))
            time.sleep(max(0.0, 0.25 - (time.monotonic() - started)))

    checker = threading.Thread(target=ask_health, daemon=True)
    checker.start()
    rng = random.Random(7)
    n = 0
    while time.monotonic() < stop:
        n += 1
        text = f"{tag} move {n}"
        body = json.dumps({"type": "note", "text": text}).encode()
        started = time.monotonic()
        version = None
        try:
            status, raw = _exchange(port, "POST", f"/games/{game_id}/events", body,
                                    {"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
            if status == 201:
                version = json.loads(raw)["version"]
        except OSError:
            status = 0
        writes.append(Answer(started, time.monotonic(), status, version, text))
        time.sleep(rng.uniform(0.5, 2.0))
    checker.join(timeout=REQUEST_TIMEOUT + 1)
    return {"writes": [vars(each) for each in writes], "health": [vars(each) for each in health]}


# --------------------------------------------------------------------------- the crowd


async def watchers(port: int, game_id: str, clients: int, seconds: float, version: int) -> dict[str, Any]:
    """``clients`` game pages, each on its own keep-alive connection, polling the board once a
    second for ``seconds`` (``service/web/static/watch.js``). Returns every poll as
    ``[started, ended, status, version seen]`` (status 0: no answer)."""
    import aiohttp

    polls: list[list[float]] = []
    stop = time.monotonic() + seconds
    url = f"http://{HOST}:{port}/watch/{game_id}/board"

    async def page(n: int) -> None:
        shown = version
        connector = aiohttp.TCPConnector(limit=1, force_close=False)
        timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT)
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
            await asyncio.sleep(n / clients)  # the pages were opened at different moments
            while time.monotonic() < stop:
                started = time.monotonic()
                status, seen = 0, -1
                try:
                    async with session.get(url, headers={"If-None-Match": f'"{shown}"'}) as response:
                        status = response.status
                        if status == 304:
                            seen = shown
                        elif status == 200:
                            await response.read()
                            seen = int(response.headers.get("ETag", "-1").strip('"'))
                            shown = seen
                except (TimeoutError, aiohttp.ClientError, ValueError):
                    status = 0
                polls.append([started, time.monotonic(), status, seen])
                await asyncio.sleep(max(0.0, 1.0 - (time.monotonic() - started)))

    await asyncio.gather(*(page(n) for n in range(clients)))
    return {"polls": polls}


async def holders(port: int, game_id: str, count: int, seconds: float) -> dict[str, Any]:
    """``count`` connections held open for ``seconds``: the even ones idle (connected, never
    sending), the odd ones slow (a request's headers, one line every 2 s, never finished). A
    connection the server closes is opened again. Returns how often that happened."""
    stop = time.monotonic() + seconds
    reopened = [0]
    refused = [0]

    async def hold(n: int) -> None:
        first = True
        while time.monotonic() < stop:
            try:
                reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, port), REQUEST_TIMEOUT)
            except (TimeoutError, OSError):
                refused[0] += 1
                await asyncio.sleep(0.5)
                continue
            if not first:
                reopened[0] += 1
            first = False
            try:
                if n % 2:
                    writer.write(f"GET /watch/{game_id}/board HTTP/1.1\r\nHost: {HOST}\r\n".encode())
                line = 0
                while time.monotonic() < stop:
                    try:
                        data = await asyncio.wait_for(reader.read(65536), 2.0)
                    except TimeoutError:
                        data = None
                    if data == b"":
                        break  # closed by the server
                    if n % 2 and data is None:
                        line += 1
                        writer.write(f"X-Slow-{line}: {'a' * 20}\r\n".encode())
                        await writer.drain()
            except OSError:
                pass
            finally:
                writer.close()

    await asyncio.gather(*(hold(n) for n in range(count)))
    return {"reopened": reopened[0], "refused": refused[0]}


def _flood_loop(port: int, seconds: float, clients: int, once: Any, rate: float) -> dict[str, Any]:
    """``clients`` threads each calling ``once(n)`` (-> a status, 0: no answer) ``rate`` times a
    second (0: as fast as answered) until ``seconds`` have passed; returns the count of each
    status and the requests per second. A fixed rate offers every server the same flood."""
    stop = time.monotonic() + seconds
    counts: dict[str, int] = {}
    lock = threading.Lock()

    def client(n: int) -> None:
        due = time.monotonic() + (n / clients / rate if rate else 0.0)
        while time.monotonic() < stop:
            if rate:
                time.sleep(max(0.0, due - time.monotonic()))
                due = max(due + 1 / rate, time.monotonic() - 1.0)  # a client behind by over 1 s does not catch up
            try:
                status = once(n)
            except OSError:
                status = 0
            with lock:
                counts[str(status)] = counts.get(str(status), 0) + 1

    threads = [threading.Thread(target=client, args=(n,), daemon=True) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds + REQUEST_TIMEOUT + 5)
    return {"statuses": counts, "per_second": sum(counts.values()) / seconds}


def junk_writers(port: int, game_id: str, clients: int, seconds: float, rate: float) -> dict[str, Any]:
    """``clients`` clients each sending, again and again, a 0.87 MiB write (a valid note) to the
    game with a junk token, the whole body before reading the answer (as the outside tester's)."""
    text = "x" * (912_000 - 40)
    body = json.dumps({"type": "note", "text": text}).encode()
    head = (f"POST /games/{game_id}/events HTTP/1.1\r\nHost: {HOST}:{port}\r\nContent-Type: application/json\r\n"
            f"Authorization: Bearer junk-token-of-a-flood\r\nContent-Length: {len(body)}\r\n\r\n").encode()

    def once(_n: int) -> int:
        with socket.create_connection((HOST, port), timeout=REQUEST_TIMEOUT) as sock:
            sock.sendall(head + body)
            received = sock.recv(65536)
            return int(received.split(b" ", 2)[1]) if received.startswith(b"HTTP/1.1 ") else 0

    return _flood_loop(port, seconds, clients, once, rate)


def creators(port: int, clients: int, seconds: float, addresses: int, rate: float) -> dict[str, Any]:
    """``clients`` anonymous clients creating games as fast as they are answered, each on a
    keep-alive connection, from ``addresses`` loopback addresses (127.0.0.2, 127.0.0.3, …;
    1: all from one machine, as the outside tester's were)."""
    body = json.dumps({"game": "toepen", "players": ["Ann", "Bob", "Cas", "Dee"]}).encode()
    connections: dict[int, http.client.HTTPConnection] = {}

    def once(n: int) -> int:
        conn = connections.get(n)
        if conn is None:
            conn = connections[n] = http.client.HTTPConnection(HOST, port, timeout=REQUEST_TIMEOUT,
                                                               source_address=(f"127.0.0.{2 + n % addresses}", 0))
        try:
            conn.request("POST", "/games", body=body, headers={"Content-Type": "application/json"})
            response = conn.getresponse()
            response.read()
            if response.getheader("Connection", "").lower() == "close":
                conn.close()
                del connections[n]
            return response.status
        except (OSError, http.client.HTTPException):
            conn.close()
            del connections[n]
            return 0

    return _flood_loop(port, seconds, clients, once, rate)


# --------------------------------------------------------------------------- orchestration


def _role(args: argparse.Namespace) -> None:
    """Run one part of the load in this process and write its result to ``args.out``."""
    raise_open_files(args.clients + args.idle + 256)
    if args.role == "scorekeeper":
        result = scorekeeper(args.port, args.game, args.token, args.seconds, args.tag)
    elif args.role == "watchers":
        result = asyncio.run(watchers(args.port, args.game, args.clients, args.seconds, args.version))
    elif args.role == "junk":
        result = junk_writers(args.port, args.game, args.flooders, args.seconds, args.flood_rate)
    elif args.role == "creators":
        result = creators(args.port, args.flooders, args.seconds, args.addresses, args.flood_rate)
    else:
        result = asyncio.run(holders(args.port, args.game, args.idle, args.seconds))
    Path(args.out).write_text(json.dumps(result))


def _spawn(role: str, out: Path, **options: Any) -> subprocess.Popen[bytes]:
    command = [sys.executable, __file__, "--role", role, "--out", str(out)]
    for name, value in options.items():
        command += [f"--{name}", str(value)]
    return subprocess.Popen(command)


@dataclass
class Server:
    """A ``kibitz serve`` subprocess on a free loopback port."""

    port: int
    proc: subprocess.Popen[bytes]
    log: Path
    extra: list[str] = field(default_factory=list)


def start_server(folder: Path, source: Path | None, extra: list[str]) -> Server:
    """Start ``kibitz serve`` (this checkout's, or ``source``'s with ``PYTHONPATH``) on a free
    port with a fresh database in ``folder``; return once ``/health`` answers."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port = probe.getsockname()[1]
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = str(source)
    log = folder / "server.log"
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--port", str(port),
                             "--db", str(folder / "kibitz.db"), *extra],
                            stdout=log.open("w"), stderr=subprocess.STDOUT, env=env,
                            cwd=str(source) if source is not None else None)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if _exchange(port, "GET", "/health")[0] == 200:
                return Server(port, proc, log, extra)
        except OSError:
            pass
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    proc.kill()
    raise SystemExit(f"kibitz serve did not start: {log.read_text()}")


def new_game(port: int) -> tuple[str, str, int]:
    """Create a Toepen game; returns its id, token and version."""
    status, raw = _exchange(port, "POST", "/games",
                            json.dumps({"game": "toepen", "players": ["Ann", "Bob", "Cas", "Dee"]}).encode(),
                            {"Content-Type": "application/json"})
    assert status == 201, raw
    created = json.loads(raw)
    return created["id"], created["token"], created["version"]


def violations(writes: list[dict[str, Any]], polls: list[list[float]]) -> int:
    """Polls started after a write's 201 arrived that saw an older version than that write's."""
    confirmed = sorted((w["ended"], w["version"]) for w in writes if w["status"] == 201)
    count, best, i = 0, -1, 0
    for started, _ended, status, seen in sorted(polls):
        while i < len(confirmed) and confirmed[i][0] < started:
            best = max(best, confirmed[i][1])
            i += 1
        if status in (200, 304) and seen < best:
            count += 1
    return count


def stored_twice(port: int, game_id: str) -> int:
    """Notes stored more than once in the game's log (a write retried or replayed by the server)."""
    _status, raw = _exchange(port, "GET", f"/games/{game_id}/events?limit=1000")
    texts = [e["data"].get("text") for e in json.loads(raw)["events"] if e["type"] == "note"]
    return len(texts) - len(set(texts))


def _usage(server: Server) -> tuple[float, float]:
    """The server's CPU seconds so far (user + system) and its resident memory (MB)."""
    import psutil

    try:
        proc = psutil.Process(server.proc.pid)
        times = proc.cpu_times()
        return times.user + times.system, proc.memory_info().rss / 2**20
    except psutil.Error:
        return 0.0, 0.0


def run_once(server: Server, kind: str, args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """One run (``polling`` or ``idle``) against ``server``; returns its figures."""
    game_id, token, version = new_game(server.port)
    load_out, keeper_out = folder / f"{kind}-load.json", folder / f"{kind}-keeper.json"
    common = {"port": server.port, "game": game_id, "clients": args.clients, "idle": args.idle,
              "flooders": args.flooders, "addresses": args.addresses, "flood-rate": args.flood_rate}
    load_seconds = args.seconds + WARM_UP + 2
    if kind == "polling":
        load = _spawn("watchers", load_out, seconds=load_seconds, version=version, **common)
    elif kind == "idle":
        load = _spawn("holders", load_out, seconds=load_seconds, **common)
    elif kind in ("junk", "creators"):
        load = _spawn(kind, load_out, seconds=load_seconds, **common)
    else:  # quiet: the scorekeeper alone
        load = _spawn("holders", load_out, seconds=1, **{**common, "idle": 0})
    before = os.getloadavg()
    time.sleep(WARM_UP)
    served = _usage(server)
    keeper = _spawn("scorekeeper", keeper_out, seconds=args.seconds, token=token, tag=kind, **common)
    loads = [os.getloadavg()]
    deadline = time.monotonic() + args.seconds + 4 * REQUEST_TIMEOUT
    while keeper.poll() is None and time.monotonic() < deadline:
        time.sleep(5)
        loads.append(os.getloadavg())
    for proc in (keeper, load):
        try:
            proc.wait(timeout=max(1.0, deadline - time.monotonic()) + REQUEST_TIMEOUT + 5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    used = _usage(server)
    kept = json.loads(keeper_out.read_text()) if keeper_out.exists() else {"writes": [], "health": []}
    crowd = json.loads(load_out.read_text()) if load_out.exists() else {}
    writes, health = kept["writes"], kept["health"]
    polls = crowd.get("polls", [])

    def ms(rows: list[dict[str, Any]], ok: int) -> list[float]:
        return [(r["ended"] - r["started"]) * 1000 for r in rows if r["status"] == ok]

    write_ms, health_ms = ms(writes, 201), ms(health, 200)
    poll_ms = [(p[1] - p[0]) * 1000 for p in polls if p[2] in (200, 304)]
    result: dict[str, Any] = {
        "run": kind,
        "writes": len(writes),
        "writes_not_201": sum(1 for w in writes if w["status"] != 201),
        "write_p50_ms": percentile(write_ms, 0.5), "write_p99_ms": percentile(write_ms, 0.99),
        "write_max_ms": max(write_ms, default=None),
        "health": len(health),
        "health_not_200": sum(1 for h in health if h["status"] != 200),
        "health_p50_ms": percentile(health_ms, 0.5), "health_p99_ms": percentile(health_ms, 0.99),
        "stored_twice": stored_twice(server.port, game_id),
        "load_average_before": before, "load_average_during_max": max(load[0] for load in loads),
        "load_average_after": os.getloadavg(),
        "server_cpu_s": used[0] - served[0], "server_rss_mb": used[1],
        "load_seconds": load_seconds,
    }
    if kind == "polling":
        result.update({
            "polls": len(polls), "polls_failed": sum(1 for p in polls if p[2] not in (200, 304)),
            "polls_304": sum(1 for p in polls if p[2] == 304), "polls_200": sum(1 for p in polls if p[2] == 200),
            "poll_p50_ms": percentile(poll_ms, 0.5), "poll_p99_ms": percentile(poll_ms, 0.99),
            "violations": violations(writes, polls),
        })
    elif kind == "idle":
        result.update({"reopened": crowd.get("reopened"), "refused": crowd.get("refused")})
    elif kind in ("junk", "creators"):
        answered = sum((crowd.get("statuses") or {}).values())
        result.update({"flood_statuses": crowd.get("statuses"), "flood_per_second": crowd.get("per_second"),
                       "server_cpu_ms_per_flood_request": (used[0] - served[0]) * 1000 / answered if answered else None})
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0, help="length of each run (default 60)")
    parser.add_argument("--clients", type=int, default=500, help="game pages polling (default 500)")
    parser.add_argument("--idle", type=int, default=500, help="idle or slow connections held open (default 500)")
    parser.add_argument("--runs", default="polling,idle",
                        help="which runs, comma-separated (polling, idle, quiet, junk, creators)")
    parser.add_argument("--flooders", type=int, default=20,
                        help="clients of the junk and creators runs (default 20)")
    parser.add_argument("--flood-rate", type=float, default=5.0,
                        help="requests a second of each flooding client (default 5; 0: as fast as answered)")
    parser.add_argument("--addresses", type=int, default=1, choices=range(1, 251), metavar="1..250",
                        help="loopback addresses the creators come from (default 1: one machine)")
    parser.add_argument("--source", type=Path, default=None,
                        help="serve another checkout's code (its folder goes first on PYTHONPATH)")
    parser.add_argument("--serve-arg", action="append", default=[], help="an extra kibitz serve argument")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures to this file")
    # the load's own processes
    parser.add_argument("--role", choices=["scorekeeper", "watchers", "holders", "junk", "creators"],
                        help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--game", help=argparse.SUPPRESS)
    parser.add_argument("--token", help=argparse.SUPPRESS)
    parser.add_argument("--version", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--tag", default="", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.role:
        _role(args)
        return
    raise_open_files(args.clients + args.idle + 256)
    results = []
    with tempfile.TemporaryDirectory(prefix="crowd-bench-") as tmp:
        folder = Path(tmp)
        server = start_server(folder, args.source, args.serve_arg)
        try:
            for kind in args.runs.split(","):
                results.append(run_once(server, kind.strip(), args, folder))
        finally:
            server.proc.terminate()
            try:
                server.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.proc.kill()
                server.proc.wait()
    print(f"machine: {os.cpu_count()} cores; source: {args.source or 'this checkout'}; "
          f"{args.clients} pages polling, {args.idle} idle/slow connections, {args.seconds:.0f} s per run")
    for result in results:
        print(f"\n== {result['run']}")
        for name, value in result.items():
            if name != "run":
                print(f"  {name}: {fmt(value)}")
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
