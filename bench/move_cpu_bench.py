"""The server's CPU per recorded move over HTTP, against the ``eventsourcing`` library's CPU per
durable save, in the same run (run by hand, not in CI).

Usage::

    python bench/move_cpu_bench.py [--servers kibitz,granian,gunicorn-gthread,waitress,cheroot,kibitz=DIR]
                                   [--moves 3000] [--clients 8] [--source DIR] [--profile DIR] [--json FILE]
                                   [--syncs]

For each server named (``kibitz``: the real ``kibitz serve``; the others: the same Flask app
under another WSGI server, ``bench/wsgi_servers.py``), on a fresh SQLite database with
``synchronous=FULL``:

1. random Toepen games (``bench/playouts.py``, the same seed for every server) are created
   over HTTP (untimed);
2. ``--clients`` threads, each on one keep-alive HTTP/1.1 connection, record their moves
   through ``POST /games/<id>/events`` until ``--moves`` moves are recorded; every answer must
   be a 201;
3. the server's CPU time (user + system, ``psutil``, the process and its children) over
   exactly that phase, divided by the moves: **server CPU per move**; also the wall-clock
   moves/s, the load average (1 min) at the start and end, the server's voluntary context
   switches per move (a thread that waited) and, with ``--syncs``, how many moves shared
   one ``fsync``/``fdatasync`` of the server (``perf stat`` on the system calls).

Before the first server and after each one, the reference: the ``eventsourcing`` library
(its SQLite persistence, a file in the same temporary folder, WAL with ``synchronous=FULL``,
each save one committed transaction) saves an aggregate once per move (the same Toepen
actions as event payloads), in this process: **its CPU per save** (``time.process_time``),
saves/s, and the CPU per event of reloading the aggregates (``repository.get``, replaying
every event). Each server's ratio is its CPU per move over the reference runs taken just
before and after it (their mean).

CPU time, unlike wall-clock time, hardly moves with the load of the shared machine, so the
targets are CPU figures (≤ 0.5 ms per move and ≤ 2.5× the reference's CPU per save).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import HOST, PLAYERS, free_port, toepen_games  # noqa: E402

#: more options for ``kibitz serve`` (``--serve-args``)
SERVE_ARGS: list[str] = []
#: py-spy samples per second (``--profile``)
SPY_RATE = int(os.environ.get("KIBITZ_BENCH_SPY_RATE", "200"))
CANDIDATES = ("kibitz", "granian", "gunicorn-gthread", "waitress", "cheroot")


def load_average() -> float:
    return os.getloadavg()[0]


# --------------------------------------------------------------------------- the servers


class Served:
    """One server under test in a subprocess (see the module), with its own database."""

    def __init__(self, name: str, folder: Path, threads: int, source: Path | None) -> None:
        self.name = name
        if "=" in name:  # kibitz=DIR: kibitz serve from another checkout
            name, other = name.split("=", 1)
            source = Path(other)
        self.port = free_port()
        db = str(folder / f"{len(list(folder.glob('*.db')))}-{name}.db")
        env = dict(os.environ)
        if source is not None:
            env["PYTHONPATH"] = str(source)
        if name == "kibitz":
            cmd = [sys.executable, *(os.environ["KIBITZ_BENCH_WRAP"].split() if os.environ.get("KIBITZ_BENCH_WRAP") else ["-m", "service.cli"]), "serve", "--port", str(self.port), "--db", db,
                   "--synchronous", "FULL"]
            if threads:
                cmd += ["--threads", str(threads)]
            cmd += SERVE_ARGS
        else:
            cmd = [sys.executable, str(Path(__file__).with_name("wsgi_servers.py")), name, "--port", str(self.port),
                   "--db", db, "--threads", str(threads or 8)]
        self.log = folder / f"{Path(db).stem}.log"
        self.proc = subprocess.Popen(cmd, stdout=self.log.open("w"), stderr=subprocess.STDOUT, env=env,
                                     cwd=str(source) if source is not None else None)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break
            try:
                conn = http.client.HTTPConnection(HOST, self.port, timeout=2)
                conn.request("GET", "/health")
                if conn.getresponse().status == 200:
                    conn.close()
                    return
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise SystemExit(f"{name} did not start: {self.log.read_text()[-2000:]}")

    def cpu(self) -> tuple[float, float]:
        """(user, system) CPU seconds of the server process and all its children so far."""
        user = system = 0.0
        root = psutil.Process(self.proc.pid)
        for proc in [root, *root.children(recursive=True)]:
            try:
                times = proc.cpu_times()
            except psutil.Error:
                continue
            user += times.user
            system += times.system
        return user, system

    def switches(self) -> int:
        """Voluntary context switches of every thread of the server process so far (a thread
        that waited: for a lock, a queue, the disk, the network; /proc's per-thread counts)."""
        total = 0
        for task in Path(f"/proc/{self.proc.pid}/task").iterdir():
            try:
                for line in (task / "status").read_text().splitlines():
                    if line.startswith("voluntary_ctxt_switches:"):
                        total += int(line.split()[1])
            except OSError:
                continue
        return total

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class Client:
    """A keep-alive HTTP/1.1 connection (the standard library's: light on the shared CPU)."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection(HOST, port, timeout=60)

    def request(self, method: str, path: str, body: Any, token: str | None = None) -> tuple[int, bytes]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.conn.request(method, path, json.dumps(body), headers)
        reply = self.conn.getresponse()
        return reply.status, reply.read()


@dataclass
class Run:
    server: str
    moves: int
    seconds: float
    cpu_user: float
    cpu_system: float
    load_start: float
    load_end: float
    switches: int = 0
    syncs: int | None = None  # fsync/fdatasync calls of the server (``--syncs``), None when not counted

    @property
    def cpu_ms_per_move(self) -> float:
        return (self.cpu_user + self.cpu_system) / self.moves * 1000


#: Where a profile's leaf frame's file puts a sample: the first fragment found in its path.
PLACES = (("uvicorn", "HTTP server"), ("a2wsgi", "HTTP server"), ("httptools", "HTTP server"),
          ("uvloop", "HTTP server"), ("asyncio", "HTTP server"), ("granian", "HTTP server"),
          ("gunicorn", "HTTP server"), ("waitress", "HTTP server"), ("cheroot", "HTTP server"),
          ("service/web/server.py", "HTTP server"), ("service/web/gate.py", "HTTP server"),
          ("selectors", "HTTP server"), ("socket", "HTTP server"),
          ("werkzeug", "Flask, werkzeug"), ("flask", "Flask, werkzeug"), ("jinja2", "Flask, werkzeug"),
          ("marshmallow", "marshmallow"), ("json", "json"),
          ("sqlite_utils", "sqlite3"), ("sqlite3", "sqlite3"), ("psycopg", "psycopg"),
          ("threading", "threads, queues"), ("queue", "threads, queues"), ("concurrent", "threads, queues"),
          ("service/", "Kibitz"), ("engine/", "Kibitz"), ("replays/", "Kibitz"), ("schemas/", "Kibitz"))


def summarize(raw: Path) -> dict[str, float]:
    """Shares of the samples of a py-spy ``raw`` profile (collapsed stacks) by the place of
    their innermost Python frame (:data:`PLACES`; native frames are not sampled)."""
    counts: dict[str, int] = {}
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack:
            continue
        leaf = stack.split(";")[-1]
        where = leaf[leaf.find("(") + 1:] if "(" in leaf else leaf
        place = next((name for fragment, name in PLACES if fragment in where), "other")
        counts[place] = counts.get(place, 0) + int(count)
    total = sum(counts.values()) or 1
    return {place: count / total for place, count in sorted(counts.items(), key=lambda item: -item[1])}


SYNC_EVENTS = "syscalls:sys_enter_fsync,syscalls:sys_enter_fdatasync"


def count_syncs(pid: int) -> subprocess.Popen[str]:
    """``perf stat`` counting the ``fsync``/``fdatasync`` calls of every thread of ``pid``
    until it is sent SIGINT (:func:`synced`): how many commits the moves shared."""
    return subprocess.Popen(["perf", "stat", "-x", ",", "-e", SYNC_EVENTS, "-p", str(pid)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def synced(counter: subprocess.Popen[str]) -> int:
    """The calls :func:`count_syncs` counted (it is stopped here)."""
    counter.send_signal(signal.SIGINT)
    _out, err = counter.communicate(30)
    total = 0
    for line in err.splitlines():
        fields = line.split(",")
        if len(fields) > 2 and fields[2].startswith("syscalls:") and fields[0].strip().isdigit():
            total += int(fields[0])
    return total


def record(served: Served, logs: list[list[dict[str, Any]]], moves: int, clients: int,
           profile: Path | None = None, perf_dir: Path | None = None, syncs: bool = False) -> Run:
    """Create the games (untimed), then record ``moves`` moves with ``clients`` keep-alive
    clients; the server's CPU over exactly the recording."""
    creator = Client(served.port)
    games: list[tuple[str, str, list[dict[str, Any]]]] = []
    for log in logs:
        status, raw = creator.request("POST", "/games", {"game": "toepen", "players": PLAYERS,
                                                         "visibility": "open", "options": {"limit": 10}})
        if status != 201:
            raise SystemExit(f"{served.name}: POST /games -> {status} {raw[:300]!r}")
        created = json.loads(raw)
        games.append((created["id"], created["token"], log))
    creator.conn.close()
    lock = threading.Lock()
    left = [moves]
    failures: list[str] = []
    queue = list(games)

    def worker() -> None:
        client = Client(served.port)
        try:
            while True:
                with lock:
                    if not queue or left[0] <= 0 or failures:
                        return
                    game_id, token, log = queue.pop()
                for action in log:
                    with lock:
                        if left[0] <= 0:
                            return
                        left[0] -= 1
                    status, raw = client.request("POST", f"/games/{game_id}/events", action, token)
                    if status != 201:
                        with lock:
                            failures.append(f"{action} -> {status} {raw[:300]!r}")
                        return
        finally:
            client.conn.close()

    threads = [threading.Thread(target=worker) for _ in range(clients)]
    spy = None
    perf = None
    if perf_dir is not None:  # every thread of the server, native frames and the kernel's, on the CPU clock
        perf = subprocess.Popen(["perf", "record", "-e", "cpu-clock", "-F", "1999", "-g", "-p", str(served.proc.pid),
                                 "-o", str(perf_dir / f"{served.name.replace('/', '_')}.data")],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)
    if profile is not None:
        spy = subprocess.Popen(["py-spy", "record", "--pid", str(served.proc.pid), "--subprocesses", "--format",
                                "raw", "--full-filenames", "--gil", "--native", "--rate", str(SPY_RATE), "--output",
                                str(profile / f"{served.name.replace('/', '_')}.txt")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)  # attached
    counter = None
    if syncs:
        counter = count_syncs(served.proc.pid)
        time.sleep(1.0)  # attached
    load_start = load_average()
    switches = served.switches()
    cpu_before = served.cpu()
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - started
    cpu_after = served.cpu()
    switches = served.switches() - switches
    synced_calls = synced(counter) if counter is not None else None
    if spy is not None:
        spy.send_signal(signal.SIGINT)
        spy.wait(30)
    if perf is not None:
        perf.send_signal(signal.SIGINT)
        perf.wait(60)
    if failures:
        raise SystemExit(f"{served.name}: {failures[0]}")
    done = moves - max(0, left[0])
    return Run(served.name, done, seconds, cpu_after[0] - cpu_before[0], cpu_after[1] - cpu_before[1],
               load_start, load_average(), switches, synced_calls)


# --------------------------------------------------------------------------- the reference


@dataclass
class Reference:
    saves: int
    cpu_ms_per_save: float
    saves_per_second: float
    reload_cpu_us_per_event: float
    synchronous: int
    journal_mode: str
    load: float


_GAME: list[Any] = []


def aggregate_class() -> Any:
    """The reference's aggregate: one per game, one event per move (defined once per process:
    the library registers each class by its topic)."""
    if not _GAME:
        from eventsourcing.domain import Aggregate, event

        class Game(Aggregate):
            @event("Created")
            def __init__(self, players: list[str]) -> None:
                self.players = players
                self.moves: list[dict[str, Any]] = []

            @event("Recorded")
            def record(self, action: dict[str, Any]) -> None:
                self.moves.append(action)

        _GAME.append(Game)
    return _GAME[0]


def reference(folder: Path, logs: list[list[dict[str, Any]]], saves: int, tag: str) -> Reference:
    """The ``eventsourcing`` library's durable saves (see the module), in this process."""
    from eventsourcing.application import Application

    Game = aggregate_class()
    path = folder / f"eventsourcing-{tag}.db"
    app: Application = Application(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path)})
    with app.recorder.datastore.transaction(commit=False) as cursor:  # type: ignore[attr-defined]
        cursor.execute("PRAGMA synchronous")
        synchronous = int(cursor.fetchone()[0])
        cursor.execute("PRAGMA journal_mode")
        journal_mode = str(cursor.fetchone()[0])
    aggregates = []
    for log in logs:
        game = Game(PLAYERS)
        app.save(game)
        aggregates.append((game, log))
    done = 0
    load = load_average()
    cpu = time.process_time()
    started = time.perf_counter()
    for game, log in aggregates:
        for action in log:
            if done >= saves:
                break
            game.record(action)
            app.save(game)
            done += 1
    seconds = time.perf_counter() - started
    cpu = time.process_time() - cpu
    events = 0
    reload_cpu = time.process_time()
    for game, _log in aggregates:
        loaded: Any = app.repository.get(game.id)
        events += loaded.version
    reload_cpu = time.process_time() - reload_cpu
    app.close()
    return Reference(done, cpu / done * 1000, done / seconds, reload_cpu / events * 1e6, synchronous, journal_mode,
                     load)


# --------------------------------------------------------------------------- the report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--servers", default="kibitz",
                        help=f"comma-separated, of: {', '.join(CANDIDATES)}; kibitz=DIR serves another checkout's code")
    parser.add_argument("--moves", type=int, default=3000, help="moves recorded per server (default 3000)")
    parser.add_argument("--clients", type=int, default=8, help="keep-alive clients (default 8)")
    parser.add_argument("--threads", type=int, default=0, help="server threads (default: each server's)")
    parser.add_argument("--source", type=Path, default=None,
                        help="serve another checkout's code for 'kibitz' (its folder first on PYTHONPATH)")
    parser.add_argument("--seed", type=int, default=23)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures to this file")
    parser.add_argument("--serve-args", default="", help="more options for kibitz serve (space-separated)")
    parser.add_argument("--perf", type=Path, default=None,
                        help="also record each server with Linux perf (cpu-clock, call graphs, in this folder)")
    parser.add_argument("--syncs", action="store_true",
                        help="also count the server's fsync/fdatasync calls per move (perf stat; commits shared)")
    parser.add_argument("--profile", type=Path, default=None,
                        help="also profile each server while it records (py-spy, raw stacks in this folder)")
    args = parser.parse_args()
    SERVE_ARGS.extend(args.serve_args.split())
    if args.profile is not None:
        args.profile.mkdir(parents=True, exist_ok=True)
    if args.perf is not None:
        args.perf.mkdir(parents=True, exist_ok=True)
    names = [name.strip() for name in args.servers.split(",") if name.strip()]
    for name in names:
        if name.split("=", 1)[0] not in CANDIDATES:
            parser.error(f"unknown server {name!r}")
    logs = toepen_games(args.moves, args.seed)
    runs: list[Run] = []
    refs: list[Reference] = []
    with tempfile.TemporaryDirectory(prefix="move-cpu-bench-") as tmp:
        folder = Path(tmp)
        refs.append(reference(folder, logs, args.moves, "0"))
        for n, name in enumerate(names, 1):
            served = Served(name, folder, args.threads, args.source)
            try:
                runs.append(record(served, logs, args.moves, args.clients, args.profile, args.perf, args.syncs))
            finally:
                served.stop()
            refs.append(reference(folder, logs, args.moves, str(n)))
    print(f"{os.cpu_count()} cores; SQLite synchronous=FULL; {args.clients} keep-alive clients; "
          f"source: {args.source or 'this checkout'}")
    print()
    print("| eventsourcing reference run | CPU per save | saves/s | reload CPU per event | load (1 min) |")
    print("|---|---|---|---|---|")
    for n, ref in enumerate(refs):
        print(f"| {n} ({ref.saves} saves; synchronous={ref.synchronous}, {ref.journal_mode}) | "
              f"{ref.cpu_ms_per_save:.3f} ms | {ref.saves_per_second:,.0f} | {ref.reload_cpu_us_per_event:.1f} µs | "
              f"{ref.load:.2f} |")
    print()
    print("| server | moves | server CPU per move (user + sys) | ratio to eventsourcing's CPU per save | "
          "moves/s (wall) | thread waits per move | moves per fsync | load (1 min) start–end |")
    print("|---|---|---|---|---|---|---|---|")
    for n, run in enumerate(runs):
        around = statistics.mean([refs[n].cpu_ms_per_save, refs[n + 1].cpu_ms_per_save])
        print(f"| {run.server} | {run.moves} | {run.cpu_ms_per_move:.3f} ms "
              f"({run.cpu_user / run.moves * 1000:.3f} + {run.cpu_system / run.moves * 1000:.3f}) | "
              f"{run.cpu_ms_per_move / around:.2f}× | {run.moves / run.seconds:,.0f} | "
              f"{run.switches / run.moves:.1f} | {run.moves / run.syncs if run.syncs else float('nan'):.1f} | "
              f"{run.load_start:.2f}–{run.load_end:.2f} |")
    if args.profile is not None:
        print()
        print("| server | where the sampled CPU went (py-spy, innermost Python frame) |")
        print("|---|---|")
        for run in runs:
            raw = args.profile / f"{run.server.replace('/', '_')}.txt"
            if raw.exists():
                shares = summarize(raw)
                print(f"| {run.server} | {', '.join(f'{place} {share:.0%}' for place, share in shares.items())} |")
    if args.json is not None:
        args.json.write_text(json.dumps({"runs": [{**vars(r), "cpu_ms_per_move": r.cpu_ms_per_move} for r in runs],
                                         "references": [vars(r) for r in refs]}, indent=2))


if __name__ == "__main__":
    main()
