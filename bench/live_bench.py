"""How soon a watcher on one ``kibitz serve`` process sees a move recorded through another, on
one PostgreSQL database, and what a watcher's poll costs while nothing changes
(docs/league.md, docs/crowds.md; figures in docs/performance.md).

Makes a fresh schema on the PostgreSQL server at ``--db`` (default ``$KIBITZ_TEST_POSTGRES``,
for example a throwaway cluster of ``tests/postgres_cluster.sh``), starts two real
``kibitz serve`` processes A and B on it (loopback ports), creates one game through A, then:

1. **delay**: ``--moves`` times, a watcher polls A's ``/watch/<id>/board`` back to back (one
   keep-alive connection, ``If-None-Match`` with the version shown, a 2 ms pause between
   polls) while a note is recorded through B; the delay is from B's 201 (the move is
   committed before it is sent) to the start of the first poll on A that got the new board
   (negative: seen before the 201 reached the client), and from the POST's start; and when a
   third connection of the bench's own, listening on the channel, heard the notification;
2. **pages**: ``--pages`` watchers poll A once a second as ``service/web/static/watch.js`` does
   (each on its own connection, at its own phase) while ``--page-moves`` notes are recorded
   through B, 2 s apart; the delay each page saw from B's 201 to its poll that showed the move;
3. **idle polls**: ``--polls`` polls back to back while nothing changes (304s), on a third
   process C started for them: their latency, C's CPU time per poll (``/proc/<pid>/stat``)
   and the queries they cost the database: ``pg_stat_database.xact_commit`` (every query, a
   ``SELECT`` included, is one transaction; a backend reports its count when it ends) over
   C's whole life, with the polls less without them.

Every loop is bounded (a move not seen within 10 s counts as missed). The schema is dropped
at the end. ``--source DIR`` runs another checkout's ``kibitz serve`` (the same venv).

    python bench/live_bench.py --db postgresql://kibitz@127.0.0.1:5432/kibitz
    python bench/live_bench.py --source /tmp/before --json before.json
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import HOST, free_port, percentile  # noqa: E402

#: A move not seen on A within this many seconds counts as missed.
MISSED = 10.0


def summary(values: list[float]) -> dict[str, Any]:
    """n, p50, p99 and max of ``values`` (seconds) in milliseconds."""
    def ms(value: float | None) -> float | None:
        return None if value is None else round(value * 1000, 2)
    return {"n": len(values), "p50_ms": ms(percentile(values, 0.5)), "p99_ms": ms(percentile(values, 0.99)),
            "max_ms": ms(max(values) if values else None)}


@contextmanager
def fresh_schema(url: str) -> Iterator[str]:
    """The URL of a new schema on ``url``'s server (every connection's ``search_path``), dropped after."""
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield f"{url}{'&' if '?' in url else '?'}options={quote(f'-csearch_path={schema}')}"
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


@contextmanager
def kibitz_serve(url: str, folder: Path, source: Path | None) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """``kibitz serve --db url`` on a free loopback port: (port, process) once ``/health`` answers."""
    port = free_port()
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = str(source)
    log = (folder / f"serve-{port}.log").open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--db", url],
                            stdout=log, stderr=subprocess.STDOUT, env=env,
                            cwd=str(source) if source is not None else None)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                status, _, _ = request(port, "GET", "/health")
                if status == 200:
                    break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"kibitz serve did not start: {(folder / f'serve-{port}.log').read_text()}")
            time.sleep(0.1)
        yield port, proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def request(port: int, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
            conn: http.client.HTTPConnection | None = None) -> tuple[int, dict[str, str], bytes]:
    """One request (on ``conn`` when given, else a new connection): (status, headers, body)."""
    own = conn is None
    conn = conn or http.client.HTTPConnection(HOST, port, timeout=MISSED)
    try:
        payload = None if body is None else json.dumps(body).encode()
        sent = {**(headers or {}), **({"Content-Type": "application/json"} if payload is not None else {})}
        conn.request(method, path, body=payload, headers=sent)
        answer = conn.getresponse()
        data = answer.read()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, data
    finally:
        if own:
            conn.close()


def note(port: int, game: dict[str, Any], text: str) -> int:
    """Record a note through the server on ``port``; the new version."""
    status, _, data = request(port, "POST", f"/games/{game['id']}/events", {"type": "note", "text": text},
                              {"Authorization": f"Bearer {game['token']}"})
    assert status == 201, data
    return int(json.loads(data)["version"])


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def transactions(url: str) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()").fetchone()
    assert row is not None
    return int(row[0])


def delay_run(url: str, a: int, b: int, game: dict[str, Any], version: int, moves: int) -> tuple[dict[str, Any], int]:
    """Phase 1 (see the module): the delays, and the game's version after."""
    after_ack: list[float] = []
    after_post: list[float] = []
    missed = 0
    watcher = http.client.HTTPConnection(HOST, a, timeout=MISSED)
    heard: dict[int, float] = {}
    done = threading.Event()

    def listen() -> None:  # the notification itself, as a third listener hears it
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("LISTEN kibitz_events")
            while not done.is_set():
                for notify in conn.notifies(timeout=0.1):
                    game_id, _, seq = notify.payload.rpartition(":")
                    if game_id == game["id"] and seq.isdigit():
                        heard.setdefault(int(seq), time.monotonic())

    listening = threading.Thread(target=listen)
    listening.start()
    time.sleep(0.5)
    acks: dict[int, float] = {}
    for n in range(moves):
        shown = version
        seen: list[float] = []
        stop = threading.Event()

        def watch(shown: int = shown, seen: list[float] = seen, stop: threading.Event = stop) -> None:
            deadline = time.monotonic() + MISSED
            while not stop.is_set() and time.monotonic() < deadline:
                started = time.monotonic()
                status, headers, _ = request(a, "GET", f"/watch/{game['id']}/board",
                                             headers={"If-None-Match": f'"{shown}"'}, conn=watcher)
                if status == 200 and headers.get("etag") == f'"{shown + 1}"':
                    seen.append(started)
                    return
                time.sleep(0.002)

        thread = threading.Thread(target=watch)
        thread.start()
        time.sleep(0.05 + random.random() * 0.05)
        posted = time.monotonic()
        version = note(b, game, f"move {n} through B")
        acked = acks[version] = time.monotonic()
        thread.join(MISSED + 1)
        stop.set()
        if seen:
            after_ack.append(seen[0] - acked)
            after_post.append(seen[0] - posted)
        else:
            missed += 1
    watcher.close()
    time.sleep(0.2)
    done.set()
    listening.join(MISSED)
    notified = [heard[v] - acks[v] for v in acks if v in heard]
    return {"from_201": summary(after_ack), "from_post": summary(after_post),
            "notification_from_201": summary(notified), "notifications_heard": len(notified),
            "min_from_201_ms": round(min(after_ack) * 1000, 2) if after_ack else None, "missed": missed}, version


def pages_run(a: int, b: int, game: dict[str, Any], version: int, pages: int, moves: int) -> tuple[dict[str, Any], int]:
    """Phase 2 (see the module): what ``pages`` watchers polling once a second saw."""
    shown = [version] * pages
    seen_at: dict[tuple[int, int], float] = {}
    lock = threading.Lock()
    stop = threading.Event()
    failures = [0]

    def page(i: int) -> None:
        conn = http.client.HTTPConnection(HOST, a, timeout=MISSED)
        time.sleep(random.random())  # its own phase
        while not stop.is_set():
            started = time.monotonic()
            try:
                status, headers, _ = request(a, "GET", f"/watch/{game['id']}/board",
                                             headers={"If-None-Match": f'"{shown[i]}"'}, conn=conn)
            except OSError:
                failures[0] += 1
                conn.close()
                conn = http.client.HTTPConnection(HOST, a, timeout=MISSED)
                continue
            if status == 200:
                shown[i] = int(headers["etag"].strip('"'))
                with lock:
                    seen_at[(i, shown[i])] = started
            stop.wait(max(0.0, 1.0 - (time.monotonic() - started)))
        conn.close()

    threads = [threading.Thread(target=page, args=(i,)) for i in range(pages)]
    for thread in threads:
        thread.start()
    time.sleep(2.0)
    acks: dict[int, float] = {}
    for n in range(moves):
        version = note(b, game, f"page move {n} through B")
        acks[version] = time.monotonic()
        time.sleep(2.0)
    time.sleep(1.5)
    stop.set()
    for thread in threads:
        thread.join(MISSED)
    delays, missed = [], 0
    for v, acked in acks.items():
        for i in range(pages):
            # a page that jumped straight past v (two moves between its polls) saw v with its later version
            later = [at for (who, shown_v), at in seen_at.items() if who == i and shown_v >= v]
            if later:
                delays.append(min(later) - acked)
            else:
                missed += 1
    return {"pages": pages, "moves": moves, "delay": summary(delays), "missed": missed,
            "poll_failures": failures[0]}, version


def idle_run(url: str, folder: Path, source: Path | None, game: dict[str, Any], version: int,
             polls: int) -> dict[str, Any]:
    """Phase 3 (see the module), on a third server process C of its own: the database counts
    a backend's transactions when it ends, so C's whole life is counted, once with ``polls``
    polls and once with none, and the difference is the polls'."""
    def life(count: int) -> tuple[int, float, list[float]]:
        time.sleep(1.0)
        before = transactions(url)
        latencies: list[float] = []
        with kibitz_serve(url, folder, source) as (port, proc):
            conn = http.client.HTTPConnection(HOST, port, timeout=MISSED)
            for _ in range(3):  # the app answers the first ones, memory the rest
                request(port, "GET", f"/watch/{game['id']}/board", headers={"If-None-Match": f'"{version}"'},
                        conn=conn)
            time.sleep(0.5)
            before_cpu = cpu_seconds(proc.pid)
            for _ in range(count):
                started = time.monotonic()
                status, _, _ = request(port, "GET", f"/watch/{game['id']}/board",
                                       headers={"If-None-Match": f'"{version}"'}, conn=conn)
                latencies.append(time.monotonic() - started)
                assert status == 304, status
            cpu = cpu_seconds(proc.pid) - before_cpu
            conn.close()
        time.sleep(1.0)  # its backends have ended and reported
        return transactions(url) - before - 1, cpu, latencies  # less the bench's own read

    idle_tx, _, _ = life(0)
    tx, cpu, latencies = life(polls)
    return {"polls": polls, "latency": summary(latencies), "server_cpu_per_poll_ms": round(cpu / polls * 1000, 3),
            "database_transactions": tx - idle_tx, "transactions_per_poll": round((tx - idle_tx) / polls, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default=os.environ.get("KIBITZ_TEST_POSTGRES", ""),
                        help="a PostgreSQL URL (default $KIBITZ_TEST_POSTGRES); a fresh schema is used")
    parser.add_argument("--moves", type=int, default=50)
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--page-moves", type=int, default=10)
    parser.add_argument("--polls", type=int, default=2000)
    parser.add_argument("--source", type=Path, default=None, help="another checkout's code (the same venv)")
    parser.add_argument("--json", type=Path, default=None, help="write the report here too")
    args = parser.parse_args()
    if not args.db.startswith(("postgresql://", "postgres://")):
        raise SystemExit("give --db postgresql://… (or set KIBITZ_TEST_POSTGRES)")
    load_before = os.getloadavg()
    report: dict[str, Any] = {"machine": f"{os.cpu_count()} cores", "source": str(args.source or "this checkout"),
                              "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}
    with tempfile.TemporaryDirectory() as tmp, fresh_schema(args.db) as url, \
            kibitz_serve(url, Path(tmp), args.source) as (a, _a_proc), \
            kibitz_serve(url, Path(tmp), args.source) as (b, _b_proc):
        status, _, data = request(a, "POST", "/games", {"game": "toepen", "players": ["Ann", "Bob", "Cas", "Dee"],
                                                        "visibility": "open"})
        assert status == 201, data
        game = json.loads(data)
        request(a, "GET", f"/watch/{game['id']}/board")
        time.sleep(0.5)  # A's listener is in place
        report["delay"], version = delay_run(url, a, b, game, 1, args.moves)
        report["pages"], version = pages_run(a, b, game, version, args.pages, args.page_moves)
        report["idle_polls"] = idle_run(url, Path(tmp), args.source, game, version, args.polls)
    report["load_average"] = {"before": [round(x, 2) for x in load_before],
                              "after": [round(x, 2) for x in os.getloadavg()]}
    text = json.dumps(report, indent=2)
    print(text)
    if args.json is not None:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
