"""A PostgreSQL that stops answering without failing (docs/league.md,
"A database that stops answering"): every process of the server, the postmaster too, stopped with SIGSTOP under two
running ``kibitz serve`` processes while tablets record. Its kernel still accepts connections
and acknowledges what is sent, so nothing fails by itself: only the bounds Kibitz puts on
its waits can end them.

While it is paused, a write to the game being recorded, a write to another game and reads of
other games (the game, the list, the game page) through either process each answer 503
``storage_unavailable`` within 15 s, never a hang or a 500, and ``/health`` answers 503 saying
the database is not answering. Once it is resumed both processes record again by themselves
(no restart), their listeners hear each other's moves again, ``/health`` is 200 again, the
tablets' moves sent again with the same ``Idempotency-Key`` are stored once, and the record
holds every acknowledged move exactly once, nothing twice, seqs 1..n and its hash chain whole
(``kibitz check``).

The test pauses a cluster of its own (``tests/clusters.py``), never the shared server.
"""

from __future__ import annotations

import subprocess
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.clusters import Cluster, cluster  # noqa: F401  (the fixture)
from tests.conftest import PLAYERS
from tests.serving import kibitz_command, serving_process

#: The promise: any request answers within this many seconds while the database is paused.
BOUND = 15.0
#: How long the test's own client waits for an answer before calling it a hang.
HANG = 40.0


@dataclass
class Answer:
    """What one request got: its status (None when the client gave up or the connection
    failed), its body, and how long it took."""

    what: str
    status: int | None
    body: Any
    seconds: float
    started: float = 0.0


def _ask(what: str, call: Callable[[], requests.Response]) -> Answer:
    started = time.monotonic()
    try:
        answer = call()
    except requests.RequestException as err:
        return Answer(what, None, repr(err), time.monotonic() - started, started)
    try:
        body = answer.json()
    except ValueError:
        body = answer.text[:300]
    if answer.status_code == 503:
        assert answer.headers["Content-Type"].startswith("application/problem+json"), (what, answer.headers)
        assert int(answer.headers["Retry-After"]) > 0, (what, answer.headers)
    return Answer(what, answer.status_code, body, time.monotonic() - started, started)


def _unavailable_within_bound(answers: list[Answer]) -> None:
    for answer in answers:
        assert answer.status == 503, f"{answer.what}: {answer.status} after {answer.seconds:.1f} s: {answer.body}"
        assert answer.body["code"] == "storage_unavailable", (answer.what, answer.body)
        assert answer.seconds < BOUND, f"{answer.what}: answered after {answer.seconds:.1f} s"


@dataclass
class Tablet:
    """A scorekeeper recording notes into one game through one server, each move with its own
    ``Idempotency-Key``, sending a move again with the same key until it is acknowledged, as
    the table page does."""

    name: str
    base: str
    game: dict[str, Any]
    stop: threading.Event
    give_up: float = float("inf")  # when to stop sending a move again (set once the test is over)
    acknowledged: dict[str, int] = field(default_factory=dict)  # text -> seq of its 201
    sent: list[str] = field(default_factory=list)
    answers: list[tuple[float, float, int | None]] = field(default_factory=list)  # (start, seconds, status)
    others: list[str] = field(default_factory=list)  # answers that are neither 201 nor 503 storage_unavailable

    def move(self, session: requests.Session, text: str, key: str) -> bool:
        """Send one move once; True when it is acknowledged."""
        started = time.monotonic()
        try:
            answer = session.post(f"{self.base}/games/{self.game['id']}/events", json={"type": "note", "text": text},
                                  headers={"Authorization": f"Bearer {self.game['token']}", "Idempotency-Key": key},
                                  timeout=HANG)
        except requests.RequestException:
            self.answers.append((started, time.monotonic() - started, None))
            return False
        self.answers.append((started, time.monotonic() - started, answer.status_code))
        if answer.status_code == 201:
            self.acknowledged[text] = answer.json()["seq"]
            return True
        if answer.status_code != 503 or answer.json().get("code") != "storage_unavailable":
            self.others.append(f"{answer.status_code} {answer.text[:200]}")
        return False

    def run(self) -> None:
        n = 0
        with requests.Session() as session:
            while not self.stop.is_set():
                n += 1
                text, key = f"{self.name} move {n}", uuid.uuid4().hex
                self.sent.append(text)
                while not self.move(session, text, key):  # the same key until it is acknowledged
                    if self.others or time.monotonic() > self.give_up:
                        return
                    time.sleep(0.2)
                time.sleep(0.02)


def _health(base: str) -> Answer:
    return _ask(f"{base}/health", lambda: requests.get(f"{base}/health", timeout=HANG))


def _health_until_unavailable(base: str, since: float) -> list[Answer]:
    """Ask ``/health`` every 0.1 s until it is no 200, or :data:`BOUND` seconds after ``since``."""
    answers = [_health(base)]
    while answers[-1].status == 200 and time.monotonic() - since < BOUND:
        time.sleep(0.1)
        answers.append(_health(base))
    return answers


def _probes(bases: list[str], games: dict[str, dict[str, Any]]) -> list[Answer]:
    """Reads and writes of the games not being recorded through each server, all at once."""
    calls: list[tuple[str, Callable[[], requests.Response]]] = []
    other, read = games["other"], games["read"]
    for base in bases:
        calls += [
            (f"{base} write another game", lambda base=base: requests.post(
                f"{base}/games/{other['id']}/events", json={"type": "note", "text": "while paused"},
                headers={"Authorization": f"Bearer {other['token']}", "Idempotency-Key": uuid.uuid4().hex},
                timeout=HANG)),
            (f"{base} read another game", lambda base=base: requests.get(f"{base}/games/{read['id']}", timeout=HANG)),
            (f"{base} its events", lambda base=base: requests.get(f"{base}/games/{read['id']}/events", timeout=HANG)),
            (f"{base} the list", lambda base=base: requests.get(f"{base}/games", timeout=HANG)),
            (f"{base} the game page", lambda base=base: requests.get(f"{base}/watch/{read['id']}", timeout=HANG)),
            (f"{base} a new game", lambda base=base: requests.post(
                f"{base}/games", json={"game": "toepen", "players": PLAYERS, "visibility": "open"}, timeout=HANG)),
        ]
    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(lambda call: _ask(*call), calls))


def _until(what: str, seconds: float, check: Callable[[], bool]) -> float:
    """Wait until ``check()`` holds (trying every 0.2 s); how long it took. Fails after ``seconds``."""
    started = time.monotonic()
    while not check():
        assert time.monotonic() - started < seconds, f"{what}: not within {seconds} s"
        time.sleep(0.2)
    return time.monotonic() - started


@pytest.mark.timeout(300)  # a real pause, or real machines, under a loaded CI machine
def test_a_paused_postgresql_is_a_503_within_15_s_and_recording_resumes_by_itself(
        tmp_path: Path, cluster: Cluster) -> None:  # noqa: F811
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with serving_process(tmp_path / "a", database=cluster.url) as (first, _), \
            serving_process(tmp_path / "b", database=cluster.url) as (second, _):
        bases = [first, second]
        games: dict[str, dict[str, Any]] = {}
        for name in ("recorded", "other", "read"):
            made = requests.post(f"{first}/games", json={"game": "toepen", "players": PLAYERS, "visibility": "open"},
                                 timeout=HANG)
            assert made.status_code == 201, made.text
            games[name] = made.json()
        stop = threading.Event()
        tablets = [Tablet(f"t{n}", bases[n % 2], games["recorded"], stop) for n in range(4)]
        threads = [threading.Thread(target=tablet.run) for tablet in tablets]
        for thread in threads:
            thread.start()
        try:
            _until("every tablet recorded", 30, lambda: all(len(tablet.acknowledged) >= 3 for tablet in tablets))
            for base in bases:  # every worker thread of both servers holds a live connection
                assert {answer.status for answer in _probes([base], games)} <= {200, 201}
                assert _health(base).status == 200

            paused_at = time.monotonic()
            assert len(cluster.pause()) >= 5  # the postmaster, its own processes and the backends
            # every process stopped from here (the bounds count from paused_at, before the first
            # SIGSTOP; a move that started between the two, on a loaded machine, could still be a 201)
            stopped_at = time.monotonic()
            with ThreadPoolExecutor(2) as watching:  # a load balancer's checks, from the moment of the pause
                checks = [watching.submit(_health_until_unavailable, base, paused_at) for base in bases]
                probes = _probes(bases, games)
                healths = [check.result() for check in checks]
            _unavailable_within_bound(probes)
            for answers in healths:  # /health says so, within the same bound, answering at once each time
                last = answers[-1]
                assert last.status == 503, (last.status, last.body)
                assert last.body["code"] == "storage_unavailable" and last.body["database"] == "not answering", last
                # "at once": milliseconds, never waiting on the database (a wait on the paused server
                # lasts until the watchdog gives it up, 5 s at least); the room is for a loaded machine
                assert all(answer.status in (200, 503) and answer.seconds < 4 for answer in answers), answers
            noticed = [answers[-1].seconds + answers[-1].started - paused_at for answers in healths]
            assert max(noticed) < BOUND, noticed
            time.sleep(max(0.0, 20 - (time.monotonic() - paused_at)))  # a long stall: still bounded
            again = _probes(bases, games)
            _unavailable_within_bound(again)
            resumed_at = time.monotonic()
            cluster.resume()

            # recording resumes by itself: through both servers, the tablets' moves are acknowledged again
            recording_again = _until("both servers record again", 30, lambda: all(
                _ask(base, lambda base=base: requests.post(
                    f"{base}/games/{games['other']['id']}/events", json={"type": "note", "text": "resumed"},
                    headers={"Authorization": f"Bearer {games['other']['token']}"}, timeout=HANG)).status == 201
                for base in bases))
            healthy_again = _until("/health is 200 again", 30, lambda: all(_health(base).status == 200 for base in bases))
            counts = [len(tablet.acknowledged) for tablet in tablets]
            _until("the tablets record again", 30, lambda: all(
                len(tablet.acknowledged) > count for tablet, count in zip(tablets, counts, strict=True)))
        finally:
            cluster.resume()
            stop.set()
            for tablet in tablets:
                tablet.give_up = time.monotonic() + 30
            for thread in threads:
                thread.join(HANG + 5)

        slowest = max(answer.seconds for answer in [*probes, *again])
        print(f"paused {resumed_at - paused_at:.1f} s; slowest probe {slowest:.2f} s; /health 503 after "
              f"{[round(seconds, 2) for seconds in noticed]} s; slowest tablet move while paused "
              f"{max(seconds for tablet in tablets for started, seconds, _ in tablet.answers if started >= paused_at):.2f} s;"
              f" recording again {recording_again:.1f} s and /health 200 {healthy_again:.1f} s after the resume")
        # every tablet's answers while paused came within the bound, and were 503s
        for tablet in tablets:
            assert tablet.others == [], tablet.others
            during = [(seconds, status) for started, seconds, status in tablet.answers
                      if stopped_at <= started and started + seconds <= resumed_at]
            assert during, f"{tablet.name} sent nothing while the database was paused"
            assert all(status == 503 and seconds < BOUND for seconds, status in during), during
            late = [(seconds, status) for started, seconds, status in tablet.answers
                    if started < resumed_at and started + seconds > resumed_at]
            assert all(seconds < BOUND for seconds, _status in late), late  # caught by the resume, still bounded

        # the listener of each server hears the other's moves again (the game page's poll)
        read = games["read"]
        shown = requests.get(f"{first}/games/{read['id']}", timeout=HANG).json()["version"]
        noted = requests.post(f"{second}/games/{read['id']}/events", json={"type": "note", "text": "after"},
                              headers={"Authorization": f"Bearer {read['token']}"}, timeout=HANG)
        assert noted.status_code == 201, noted.text
        _until("a move through one server reaches the other's board poll", 10, lambda: requests.get(
            f"{first}/watch/{read['id']}/board", headers={"If-None-Match": f'"{shown}"'}, timeout=HANG).status_code
            == 200)

        # the record: every acknowledged move once, at the seq its 201 named; nothing twice
        events = requests.get(f"{first}/games/{games['recorded']['id']}/events", timeout=HANG).json()["events"]
        assert [event["seq"] for event in events] == list(range(1, len(events) + 1))
        texts = [event["data"]["text"] for event in events if event["type"] == "note"]
        assert len(texts) == len(set(texts)), "a move was stored twice"
        at = {event["data"]["text"]: event["seq"] for event in events if event["type"] == "note"}
        for tablet in tablets:
            for text, seq in tablet.acknowledged.items():
                assert at.get(text) == seq, (text, seq, at.get(text))
            assert set(tablet.sent) - set(tablet.acknowledged) <= {tablet.sent[-1]}  # only its last may be unanswered
        checked = subprocess.run([*kibitz_command(), "check", "--db", cluster.url], capture_output=True, text=True,
                                 timeout=120)
        assert checked.returncode == 0, checked.stdout + checked.stderr
    for folder in ("a", "b"):
        log = (tmp_path / folder / "server.log").read_text()
        assert "Exception in thread" not in log and "Internal Server Error" not in log, log[-3000:]
        assert "unhandled error" not in log, log[-3000:]
