"""Several ``kibitz serve`` processes on one database: moves/s and append latency over HTTP.

For each backend (``--backends``: ``postgresql`` on the server ``--postgres`` names, ``sqlite``
on one file) and each count of server processes (``--processes``, 1, 2 and 4), the benchmark
starts that many ``kibitz serve`` processes on a fresh database (a new schema of the
PostgreSQL database, or a new SQLite file), then ``--clients`` client processes (8), each with
one keep-alive connection to one server (client i to server i mod n), recording random legal
Toepen games (``bench/playouts.py``: deals, plays, knocks, folds, laundries; a new game when
one ends) for ``--seconds`` (10), all starting at the same moment. Every append is timed in
the client. Each run reports moves/s (201s answered in the window), append latency p50/p99,
anything not answered 201, the CPU seconds spent by the servers, by PostgreSQL's processes
(found from its ``data_directory``; needs a superuser, else "not measured") and by the
clients, and the load average (``os.getloadavg``) before and after.

``--profile`` runs one more PostgreSQL run with one server under yappi (CPU clock, every
thread, from the start of the timed window; ``pip install yappi``) and prints where that
server's CPU went, by package and by function. yappi slows the server several times over:
its shares, not its moves/s, are the figures to read.

Only loopback addresses; every run is bounded in time and the script stops by itself.

    python bench/league_bench.py --postgres postgresql://kibitz@127.0.0.1:5432/kibitz
    python bench/league_bench.py --backends sqlite --processes 1,2 --seconds 5
    python bench/league_bench.py --postgres URL --backends postgresql --processes 1 --profile
    python bench/league_bench.py --postgres URL --backends postgresql --source /tmp/before  # other code
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import quote

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import HOST, PLAYERS, SIDE_RATE, fmt, free_port, percentile  # noqa: E402

#: Seconds each client may take to start and play its games out before it is ready.
WARM_UP = 120.0


def with_schema(url: str, schema: str) -> str:
    """``url`` with every connection's ``search_path`` set to ``schema``."""
    return f"{url}{'&' if '?' in url else '?'}options={quote(f'-csearch_path={schema}')}"


# --------------------------------------------------------------------------- a client


def client(port: int, seconds: float, out: Path, seed: int) -> dict[str, Any]:
    """Play 12 random Toepen games out, say so (the file ``out`` + ``.ready``), wait for the
    start time (a ``time.time`` in ``out`` + ``.go``), then record the games through the
    server on ``port`` for ``seconds``, one keep-alive connection; returns the latencies (ms)
    of the 201s, the statuses of anything else, and this process's CPU seconds in the window."""
    from bench.playouts import play

    rng = random.Random(seed)
    logs = [play("toepen", rng, PLAYERS, {"limit": 10}, side_rate=SIDE_RATE).actions for _ in range(12)]
    conn = http.client.HTTPConnection(HOST, port, timeout=30)

    def request(path: str, body: Any, token: str | None = None) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        conn.request("POST", path, json.dumps(body), headers)
        reply = conn.getresponse()
        return reply.status, json.loads(reply.read() or b"null")

    Path(f"{out}.ready").touch()
    go = Path(f"{out}.go")
    deadline = time.monotonic() + WARM_UP
    while not go.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    start_at = float(go.read_text())
    time.sleep(max(0.0, start_at - time.time()))
    began = time.time()
    cpu = time.process_time()
    stop = time.monotonic() + seconds
    latencies: list[float] = []
    other: list[int] = []
    games = 0
    while time.monotonic() < stop:
        status, created = request("/games", {"game": "toepen", "players": PLAYERS, "visibility": "open",
                                             "options": {"limit": 10}})
        if status != 201:
            other.append(status)
            continue
        games += 1
        for action in logs[games % len(logs)]:
            if time.monotonic() >= stop:
                break
            started = time.perf_counter()
            status, _body = request(f"/games/{created['id']}/events", action, created["token"])
            if status == 201:
                latencies.append((time.perf_counter() - started) * 1000)
            else:
                other.append(status)
                break  # the game's next moves would not fit
    return {"latencies": latencies, "other": other, "games": games, "cpu": time.process_time() - cpu,
            "late_s": began - start_at}


# --------------------------------------------------------------------------- servers


def start_servers(count: int, database: str, folder: Path, profile: Path | None = None,
                  source: Path | None = None) -> list[tuple[int, subprocess.Popen[bytes]]]:
    """Start ``count`` ``kibitz serve`` processes on ``database`` (one after the other: the
    first creates the tables), this checkout's code or ``source``'s (first on ``PYTHONPATH``);
    return (port, process) once each answers ``/health``."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = str(source)
    servers = []
    for n in range(count):
        port = free_port()
        serve = ["serve", "--port", str(port), "--db", database]
        if profile is not None:
            command = [sys.executable, __file__, "--role", "profiled", "--out", str(profile), "--", *serve]
        else:
            command = [sys.executable, "-m", "service.cli", *serve]
        proc = subprocess.Popen(command, stdout=(folder / f"server{n}.log").open("w"), stderr=subprocess.STDOUT,
                                env=env, cwd=None if source is None else str(source))
        deadline = time.monotonic() + 60
        while True:
            try:
                conn = http.client.HTTPConnection(HOST, port, timeout=2)
                conn.request("GET", "/health")
                if conn.getresponse().status == 200:
                    break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise SystemExit(f"kibitz serve did not start: {(folder / f'server{n}.log').read_text()}")
            time.sleep(0.2)
        servers.append((port, proc))
    return servers


def stop_servers(servers: list[tuple[int, subprocess.Popen[bytes]]]) -> None:
    for _port, proc in servers:
        proc.terminate()
    for _port, proc in servers:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def cpu_of(pids: list[int]) -> dict[int, float]:
    """CPU seconds (user + system) used so far by each of the processes ``pids`` still there."""
    found = {}
    for pid in pids:
        try:
            times = psutil.Process(pid).cpu_times()
            found[pid] = times.user + times.system
        except psutil.Error:
            pass
    return found


def cpu_since(before: dict[int, float], pids: list[int]) -> float:
    """CPU seconds the processes ``pids`` used since ``before`` (``cpu_of`` then; a process
    started since counts from 0, one gone since is left out)."""
    return sum(now - before.get(pid, 0.0) for pid, now in cpu_of(pids).items())


def postgres_pids(url: str) -> list[int] | None:
    """The processes of the PostgreSQL server at ``url`` (its postmaster and children, from
    ``postmaster.pid`` in its data directory), or None when that cannot be read."""
    import psycopg

    try:
        with psycopg.connect(url, autocommit=True) as conn:
            row = conn.execute("SHOW data_directory").fetchone()
        assert row is not None
        pid = int((Path(row[0]) / "postmaster.pid").read_text().split()[0])
        main = psutil.Process(pid)
        return [pid, *(child.pid for child in main.children(recursive=True))]
    except (psycopg.Error, OSError, psutil.Error, ValueError):
        return None


def postgres_settings(url: str) -> str:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        found = {name: conn.execute(f"SHOW {name}").fetchone()[0]  # type: ignore[index]
                 for name in ("server_version", "fsync", "synchronous_commit")}
    return ", ".join(f"{name} {value}" for name, value in found.items())


def run(backend: str, processes: int, args: argparse.Namespace, folder: Path,
        profile: Path | None = None) -> dict[str, Any]:
    """One run: ``processes`` servers on a fresh database, ``args.clients`` clients."""
    import psycopg

    schema = None
    if backend == "postgresql":
        schema = f"bench_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(args.postgres, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")
        database = with_schema(args.postgres, schema)
    else:
        database = str(folder / f"league-{processes}-{uuid.uuid4().hex[:6]}.db")
    servers = start_servers(processes, database, folder, profile, args.source)
    def pg() -> list[int] | None:
        return postgres_pids(args.postgres) if backend == "postgresql" else None

    try:
        here = folder / f"{backend}-{processes}-{uuid.uuid4().hex[:6]}"
        here.mkdir()
        outs = [here / f"client{n}.json" for n in range(args.clients)]
        clients = [subprocess.Popen([sys.executable, __file__, "--role", "client", "--out", str(out),
                                     "--port", str(servers[n % processes][0]), "--seconds", str(args.seconds),
                                     "--seed", str(1000 * processes + n)])
                   for n, out in enumerate(outs)]
        deadline = time.monotonic() + WARM_UP
        while not all(Path(f"{out}.ready").exists() for out in outs) and time.monotonic() < deadline:
            time.sleep(0.1)
        start_at = time.time() + 0.5
        for out in outs:
            Path(f"{out}.go.tmp").write_text(str(start_at))
            Path(f"{out}.go.tmp").rename(f"{out}.go")
        time.sleep(max(0.0, start_at - time.time()))
        if profile is not None:
            for _port, proc in servers:
                proc.send_signal(signal.SIGUSR1)
        before = os.getloadavg()
        pids = [proc.pid for _port, proc in servers]
        server_cpu, pg_cpu = cpu_of(pids), cpu_of(pg() or [])
        time.sleep(args.seconds)
        server_cpu_s = cpu_since(server_cpu, pids)
        pg_pids = pg()
        pg_cpu_s = None if pg_pids is None else cpu_since(pg_cpu, pg_pids)
        for proc in clients:
            proc.wait(timeout=120)
        after = os.getloadavg()
    finally:
        stop_servers(servers)
        if schema is not None:
            with psycopg.connect(args.postgres, autocommit=True) as conn:
                conn.execute(f"DROP SCHEMA {schema} CASCADE")
    results = [json.loads(out.read_text()) for out in outs]
    latencies = [ms for result in results for ms in result["latencies"]]
    return {
        "backend": backend, "processes": processes, "clients": args.clients, "seconds": args.seconds,
        "moves": len(latencies), "moves_per_s": len(latencies) / args.seconds,
        "p50_ms": percentile(latencies, 0.5), "p99_ms": percentile(latencies, 0.99),
        "not_201": sum(len(result["other"]) for result in results),
        "games": sum(result["games"] for result in results),
        "server_cpu_s": server_cpu_s, "postgres_cpu_s": pg_cpu_s,
        "client_cpu_s": sum(result["cpu"] for result in results),
        "load_before": before, "load_after": after,
        "clients_late_s": max(result["late_s"] for result in results),
    }


# --------------------------------------------------------------------------- the profile


def profiled(out: Path, serve_args: list[str]) -> None:
    """Run ``kibitz serve`` with yappi on every thread (CPU clock) until it stops; write the
    functions with the most CPU of their own, and the ones with the most in total, to ``out``."""
    import yappi

    from service.cli.main import main

    yappi.set_clock_type("cpu")
    yappi.start()
    signal.signal(signal.SIGUSR1, lambda _signum, _frame: yappi.clear_stats())  # the window starts: no start-up
    try:
        main.main(serve_args, standalone_mode=False)
    finally:
        yappi.stop()
        stats = yappi.get_func_stats()
        total = sum(stat.tsub for stat in stats)
        rows = [{"name": f"{stat.module.split('site-packages/')[-1]}:{stat.lineno} {stat.name}", "calls": stat.ncall,
                 "own_s": stat.tsub, "total_s": stat.ttot, "package": package_of(stat.module)} for stat in stats]
        out.write_text(json.dumps({"cpu_s": total, "functions": rows}))


def package_of(module: str) -> str:
    """What a profiled function belongs to: an installed package, a folder of this project
    (``service``, ``engine`` …), or the standard library's module (``stdlib json``)."""
    if "site-packages/" in module:
        return module.split("site-packages/")[-1].split("/")[0].removesuffix(".py")
    project = str(Path(__file__).resolve().parents[1]) + "/"
    if module.startswith(project):
        return module.removeprefix(project).split("/")[0]
    if "/python3." in module:
        return "stdlib " + module.split("/python3.")[-1].split("/", 1)[-1].split("/")[0].removesuffix(".py")
    return module or "(builtin)"


def show_profile(path: Path, top: int = 25) -> None:
    found = json.loads(path.read_text())
    rows, total = found["functions"], found["cpu_s"]
    print(f"\nprofile of one server (yappi, CPU clock, all threads): {total:.1f} CPU s in Python functions")
    by_package: dict[str, float] = {}
    for row in rows:
        by_package[row["package"]] = by_package.get(row["package"], 0.0) + row["own_s"]
    print("\nown CPU by package:")
    for name, own in sorted(by_package.items(), key=lambda item: -item[1])[:top]:
        print(f"  {own:7.2f} s {100 * own / total:5.1f} %  {name}")
    print("\nmost CPU of their own:")
    for row in sorted(rows, key=lambda row: -row["own_s"])[:top]:
        print(f"  {row['own_s']:7.2f} s {100 * row['own_s'] / total:5.1f} %  {row['calls']:>9}  {row['name']}")
    print("\nmost CPU in total (with what they call):")
    for row in sorted(rows, key=lambda row: -row["total_s"])[:top * 2]:
        print(f"  {row['total_s']:7.2f} s {100 * row['total_s'] / total:5.1f} %  {row['calls']:>9}  {row['name']}")


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--postgres", default=os.environ.get("KIBITZ_TEST_POSTGRES"),
                        help="the PostgreSQL database to bench on (default $KIBITZ_TEST_POSTGRES); each run "
                             "uses a new schema of it, dropped afterwards")
    parser.add_argument("--backends", default="postgresql,sqlite", help="postgresql, sqlite or both (default)")
    parser.add_argument("--processes", default="1,2,4", help="counts of kibitz serve processes (default 1,2,4)")
    parser.add_argument("--clients", type=int, default=8, help="client processes (default 8)")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each run (default 10)")
    parser.add_argument("--profile", action="store_true", help="one more PostgreSQL run, one server under yappi")
    parser.add_argument("--source", type=Path, default=None,
                        help="serve another checkout's code (its folder goes first on PYTHONPATH)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures to this file")
    parser.add_argument("--role", choices=["client", "profiled"], help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("serve", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.role == "client":
        args.out.write_text(json.dumps(client(args.port, args.seconds, args.out, args.seed)))
        return
    if args.role == "profiled":
        profiled(args.out, args.serve)
        return
    backends = [name.strip() for name in args.backends.split(",")]
    if "postgresql" in backends and not args.postgres:
        raise SystemExit("give --postgres URL (or set KIBITZ_TEST_POSTGRES): tests/postgres_cluster.sh starts one")
    results = []
    print(f"machine: {os.cpu_count()} cores, {psutil.virtual_memory().total / 2**30:.1f} GiB; "
          f"{args.clients} client processes, {args.seconds:.0f} s per run; source: {args.source or 'this checkout'}")
    if "postgresql" in backends:
        print(f"PostgreSQL: {postgres_settings(args.postgres)}")
    print("| backend | servers | moves/s | p50 ms | p99 ms | not 201 | server CPU s | PostgreSQL CPU s "
          "| client CPU s | load before → after | clients late |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="league-bench-") as tmp:
        folder = Path(tmp)
        for backend in backends:
            for processes in (int(n) for n in args.processes.split(",")):
                result = run(backend, processes, args, folder)
                results.append(result)
                print(f"| {backend} | {processes} | {result['moves_per_s']:.0f} | {fmt(result['p50_ms'])} "
                      f"| {fmt(result['p99_ms'])} | {result['not_201']} | {fmt(result['server_cpu_s'])} "
                      f"| {fmt(result['postgres_cpu_s'])} | {fmt(result['client_cpu_s'])} "
                      f"| {fmt(result['load_before'][0])} → {fmt(result['load_after'][0])} "
                      f"| {result['clients_late_s']:.2f} s |", flush=True)
        if args.profile:
            out = folder / "profile.json"
            result = run("postgresql", 1, args, folder, profile=out)
            print(f"\nprofiled run (postgresql, 1 server under yappi): {result['moves_per_s']:.0f} moves/s, "
                  f"p50 {fmt(result['p50_ms'])} ms, p99 {fmt(result['p99_ms'])} ms, server CPU "
                  f"{fmt(result['server_cpu_s'])} s, PostgreSQL CPU {fmt(result['postgres_cpu_s'])} s")
            show_profile(out)
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
