"""A league over several machines, for real (docs/league.md, "A league over several machines"):
PostgreSQL on one machine, two ``kibitz serve`` on two others and the tablets on a fourth, each
machine a Linux network namespace of its own with an address of its own (10.77.0.0/24), joined
by veth pairs to a bridge (``tests/netns.py``); nothing of this machine's own network is
touched, and the namespaces are removed even when the test fails.

PostgreSQL listens on its machine's address alone and takes the servers' connections with a
password (``pg_hba.conf``: ``host kibitz kibitz 10.77.0.0/24 scram-sha-256``); the servers
reach it through a counting proxy on the database's machine (``tests/round_trips.py``), which
counts the round trips each move costs as the network sees them. Through both servers: a game
recorded move by move alternately through each (``If-Match`` one after the other), a watcher's
game page on one server seeing the other's moves at its next poll, the round trips per
steady-state move through each, and a ``kill -9`` of one server under load (tablets recording
through both, moving on to the other when theirs is gone) losing no acknowledged move, with
``kibitz check`` finding the record whole.

Skipped, saying why, where network namespaces cannot be made (not root, no iproute2, a
container that refuses); ``.ci/run`` runs as root.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import psycopg
import pytest
import requests

from replays import chain
from service.storage import backend as store
from tests import netns
from tests.clusters import as_owner, no_server_found, pg_bin
from tests.conftest import PLAYERS
from tests.lost_answers import ACKNOWLEDGED, LOST, LOST_ANSWER, REFUSED, Attempt, check_log
from tests.round_trips import CountingProxy
from tests.serving import kibitz_command
from tests.test_round_trips import MOST_ROUND_TRIPS

MACHINES = {"db": 2, "a": 11, "b": 12, "tablets": 100}
PG_PORT, HTTP_PORT = 5432, 8080
#: The role's password: with an ``@`` in it, percent-encoded in the servers' URL.
PASSWORD = "league@" + uuid.uuid4().hex[:12]
#: How long a move through one server may take to reach a poll on the other (measured: milliseconds).
#: What it guards is a move never heard of (the poll's 304 for ever); the room is for a loaded machine.
SEEN_WITHIN = 10.0
#: How long a ``kibitz serve`` may take to answer ``/health`` (as tests/serving.py: a loaded 2-core
#: CI machine met more than 30 s).
START_WITHIN = 90.0
#: How long a tablet waits for one answer: a slow answer from a server that runs is not a server gone.
ANSWER_WITHIN = 60.0



@dataclass
class Database:
    """The database machine's PostgreSQL: its folder and the URLs that reach it."""

    folder: Path
    bin: Path

    def local_url(self) -> str:
        """A URL through its Unix socket (from this machine's own namespace: the test's checks)."""
        return f"postgresql://kibitz@/kibitz?host={self.folder}&port={PG_PORT}"


@pytest.fixture
def network() -> Iterator[netns.Network]:
    why = netns.unavailable()
    if why is not None:
        pytest.skip(f"several machines need network namespaces: {why}")
    with netns.Network(MACHINES) as made:
        yield made


@pytest.fixture
def league_db(network: netns.Network) -> Iterator[Database]:
    """PostgreSQL on the database machine, listening on its address alone, password required
    from the league's network."""
    bin_dir = pg_bin()
    if bin_dir is None or not (bin_dir / "pg_ctl").exists():
        no_server_found()
        raise AssertionError("unreachable")
    top = Path(tempfile.mkdtemp(prefix="kibitz-league-db-"))
    top.chmod(0o755)
    folder = top / "pg"
    folder.mkdir()
    if os.getuid() == 0:
        shutil.chown(folder, "postgres")
    made = Database(folder, bin_dir)
    data = folder / "data"
    try:
        subprocess.run(as_owner(str(bin_dir / "initdb"), "-D", str(data), "-U", "kibitz", "--auth-local=trust",
                                "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C.UTF-8"),
                       check=True, capture_output=True, timeout=120)
        with (data / "pg_hba.conf").open("a") as hba:
            hba.write("host kibitz kibitz 10.77.0.0/24 scram-sha-256\n")
        options = (f"-c listen_addresses={network.address('db')} -p {PG_PORT} -k {folder} -c fsync=off "
                   "-c max_connections=200")
        subprocess.run(network.command("db", as_owner(str(bin_dir / "pg_ctl"), "-D", str(data), "-l",
                                                      str(folder / "server.log"), "-w", "-t", "60", "-o", options,
                                                      "start")), check=True, capture_output=True, timeout=90)
        with psycopg.connect(host=str(folder), port=PG_PORT, user="kibitz", dbname="postgres",
                             autocommit=True) as admin:
            admin.execute(f"ALTER ROLE kibitz PASSWORD '{PASSWORD}'")
            admin.execute("CREATE DATABASE kibitz")
        yield made
    finally:
        if (data / "postmaster.pid").exists():
            subprocess.run(as_owner(str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"),
                           capture_output=True, timeout=60)
        shutil.rmtree(top, ignore_errors=True)


class Server:
    """``kibitz serve`` on machine ``machine``, listening on its address."""

    def __init__(self, network: netns.Network, machine: str, url: str, folder: Path, *, environment: bool) -> None:
        """``environment``: the URL (with its password) through ``KIBITZ_DB``, else ``--db``."""
        self.machine = machine
        self.base = f"http://{network.address(machine)}:{HTTP_PORT}"
        self.log = folder / f"server-{machine}.log"
        command = [*kibitz_command(), "serve", "--host", network.address(machine), "--port", str(HTTP_PORT)]
        env = {**os.environ, "KIBITZ_DB": url} if environment else {**os.environ}
        if not environment:
            command += ["--db", url]
            env.pop("KIBITZ_DB", None)
        with self.log.open("w") as log:
            self.process = subprocess.Popen(network.command(machine, command), stdout=log, stderr=subprocess.STDOUT,
                                            text=True, env=env)

    def wait_until_up(self) -> None:
        """From the tablets' machine: until ``/health`` answers 200 (:data:`START_WITHIN` at most)."""
        deadline = time.monotonic() + START_WITHIN
        while True:
            try:
                if requests.get(f"{self.base}/health", timeout=2).status_code == 200:
                    return
            except requests.RequestException:
                pass
            assert self.process.poll() is None, self.log.read_text()
            assert time.monotonic() < deadline, f"kibitz serve on {self.machine} did not start: {self.log.read_text()}"
            time.sleep(0.1)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _post(base: str, game: dict[str, Any], text: str, version: int | None = None, *, timeout: float = 30,
          session: requests.Session | None = None) -> requests.Response:
    headers = {"Authorization": f"Bearer {game['token']}", "Idempotency-Key": uuid.uuid4().hex}
    if version is not None:
        headers["If-Match"] = f'"{version}"'
    return (session or requests).post(f"{base}/games/{game['id']}/events", json={"type": "note", "text": text},
                                      headers=headers, timeout=timeout)


@dataclass
class Tablet:
    """A scorekeeper recording notes into one game through the first of ``bases``; when that
    server is gone (the connection refused or cut, not a slow answer) it moves on to the next,
    as behind a load balancer. Only a 201 read whole counts as acknowledged: any other answer is
    refused, and every way a client sees a server go (tests/lost_answers.py: refused, reset, a
    body cut short, a timeout) is a move not acknowledged."""

    name: str
    game: dict[str, Any]
    bases: list[str]
    attempts: list[Attempt] = field(default_factory=list)

    @property
    def acknowledged(self) -> list[tuple[int, str]]:
        """``(seq, text)`` of each acknowledged move."""
        return [(attempt.seq, attempt.key) for attempt in self.attempts  # type: ignore[misc]
                if attempt.outcome == ACKNOWLEDGED]

    def run(self, stop: threading.Event) -> None:
        n = 0
        with requests.Session() as session:
            while not stop.is_set() and self.bases:
                n += 1
                text = f"{self.name} move {n}"
                try:
                    answer = _post(self.bases[0], self.game, text, session=session, timeout=ANSWER_WITHIN)
                    seq = int(answer.json()["seq"]) if answer.status_code == 201 else None
                except (*LOST, requests.exceptions.JSONDecodeError) as err:  # a cut 201 body too
                    self.attempts.append(Attempt(text, LOST_ANSWER, detail=f"{type(err).__name__}: {err}",
                                                 when=time.monotonic()))
                    if isinstance(err, requests.ConnectionError) and not isinstance(err, requests.Timeout):
                        self.bases.pop(0)  # refused or cut: the server is gone
                    session.close()
                    continue
                if seq is not None:
                    self.attempts.append(Attempt(text, ACKNOWLEDGED, seq=seq, when=time.monotonic()))
                else:
                    self.attempts.append(Attempt(text, REFUSED, detail=f"{answer.status_code} {answer.text[:200]}",
                                                 when=time.monotonic()))

    def acknowledged_since(self, moment: float) -> int:
        """How many of its moves were acknowledged after ``moment``."""
        return sum(1 for attempt in self.attempts if attempt.outcome == ACKNOWLEDGED and attempt.when > moment)


def _until(what: str, seconds: float, check: Callable[[], bool]) -> None:
    """Wait until ``check()`` holds (every 0.1 s); fails after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"{what}: not within {seconds} s"
        time.sleep(0.1)


@pytest.mark.timeout(300)  # a real pause, or real machines, under a loaded CI machine
def test_a_league_over_several_machines(tmp_path: Path, network: netns.Network, league_db: Database) -> None:
    with netns.inside(network.namespace("db")):  # the proxy runs on the database's machine
        proxy = CountingProxy(f"postgresql://kibitz:{quote(PASSWORD, safe='')}@{network.address('db')}:{PG_PORT}"
                              "/kibitz", listen=network.address("db"))
    url = proxy.url
    servers = [Server(network, "a", url, tmp_path, environment=False), Server(network, "b", url, tmp_path,
                                                                              environment=True)]
    try:
        with netns.inside(network.namespace("tablets")):  # from here on, the tablets' machine
            for server in servers:
                server.wait_until_up()
            first, second = (server.base for server in servers)
            # the servers are other machines: not this one's loopback, and PostgreSQL is not theirs
            assert first.startswith("http://10.77.0.11:") and second.startswith("http://10.77.0.12:")
            for server in servers:  # each server runs on its machine's network (ip netns exec execs it)
                assert os.stat(f"/proc/{server.process.pid}/ns/net").st_ino == os.stat(
                    f"/run/netns/{network.namespace(server.machine)}").st_ino

            # a game recorded through both, move by move, each expecting the version the other made
            made = requests.post(f"{first}/games", json={"game": "toepen", "players": PLAYERS, "visibility": "open"},
                                 timeout=30)
            assert made.status_code == 201, made.text
            game = made.json()
            version = 1
            for n in range(10):
                answer = _post((first, second)[n % 2], game, f"move {n}", version)
                assert answer.status_code == 201, answer.text
                assert answer.json()["version"] == version + 1
                version += 1
            stale = _post(first, game, "with an old version", version - 1)
            assert stale.status_code == 412, stale.text  # B's move is seen by A at once: no lost update
            for base in (first, second):
                assert requests.get(f"{base}/games/{game['id']}", timeout=30).json()["version"] == version

            # a watcher's game page on one server sees the other's moves at its next poll
            board = requests.get(f"{first}/watch/{game['id']}/board", timeout=30)
            assert board.status_code == 200 and board.headers["ETag"] == f'"{version}"'
            for n in range(3):
                assert _post(second, game, f"watched {n}").status_code == 201
                version += 1
                started = time.monotonic()
                while (polled := requests.get(f"{first}/watch/{game['id']}/board", timeout=30,
                                              headers={"If-None-Match": f'"{version - 1}"'})).status_code == 304:
                    assert time.monotonic() - started < SEEN_WITHIN, "the watcher on A never saw B's move"
                    time.sleep(0.05)
                assert polled.status_code == 200 and polled.headers["ETag"] == f'"{version}"'

            # round trips to PostgreSQL per steady-state move (the game already folded in memory), every
            # connection of both servers counted (a listener's query of the guard too, should one fall in)
            per_move = {}
            for base in (first, second):
                for n in range(3):
                    assert _post(base, game, f"warm {n}", version).status_code == 201
                    version += 1
                counts = []
                for n in range(10):
                    before = proxy.count()
                    assert _post(base, game, f"counted {n}", version).status_code == 201
                    version += 1
                    counts.append(proxy.count() - before)
                per_move[base] = counts
            print(f"round trips to PostgreSQL per move, across the network: {per_move}")
            assert all(1 <= count <= MOST_ROUND_TRIPS for counts in per_move.values() for count in counts), per_move

            # the network path to the database cut (its port of the switch down: packets dropped, nothing
            # refused): a write through one server and a read through the other are 503s within 15 s, /health
            # says so, and once the path is back both record again by themselves
            network.cut("db")
            cut_at = time.monotonic()
            try:
                with ThreadPoolExecutor(2) as asking:
                    answers = list(asking.map(lambda call: call(), [
                        lambda: _post(first, game, "while cut off", timeout=60),
                        lambda: requests.get(f"{second}/games/{game['id']}", timeout=60)]))
                answered = time.monotonic() - cut_at
                for answer in answers:
                    assert answer.status_code == 503 and answer.json()["code"] == "storage_unavailable", answer.text
                assert answered < 15
                for base in (first, second):
                    while (health := requests.get(f"{base}/health", timeout=15)).status_code == 200:
                        assert time.monotonic() - cut_at < 15, "/health did not say the database is cut off"
                        time.sleep(0.2)
                    assert health.status_code == 503 and health.json()["database"] == "not answering", health.text
                told = time.monotonic() - cut_at
            finally:
                network.mend("db")
            mended_at = time.monotonic()
            for base in (first, second):
                while (answer := _post(base, game, "after the cut", timeout=60)).status_code != 201:
                    assert answer.status_code == 503, answer.text
                    assert time.monotonic() - mended_at < 30, "recording did not resume within 30 s"
                    time.sleep(0.2)
            print(f"cut off: the 503s {answered:.1f} s and /health 503 on both {told:.1f} s after the cut; "
                  f"recording again through both {time.monotonic() - mended_at:.1f} s after the path was back")

            # kill -9 of one server under load loses no acknowledged move
            games = [requests.post(f"{first}/games", json={"game": "toepen", "players": PLAYERS,
                                                           "visibility": "open"}, timeout=30).json() for _ in range(2)]
            tablets = [Tablet(f"t{n}", games[n % 2], [first, second] if n < 2 else [second, first]) for n in range(4)]
            stop = threading.Event()
            threads = [threading.Thread(target=tablet.run, args=(stop,)) for tablet in tablets]
            for thread in threads:
                thread.start()
            try:
                _until("every tablet recorded twice", 60, lambda: all(len(tablet.acknowledged) >= 2
                                                                      for tablet in tablets))
                servers[0].process.kill()  # SIGKILL: the machine's server is simply gone
                servers[0].process.wait(10)
                killed_at = time.monotonic()
                _until("every tablet recorded twice more after the kill", 90, lambda: all(
                    tablet.acknowledged_since(killed_at) >= 2 for tablet in tablets))
            finally:
                stop.set()
                for thread in threads:
                    thread.join(ANSWER_WITHIN + 10)
            assert all(tablet.acknowledged for tablet in tablets)
            assert all(tablet.bases == [second] for tablet in tablets[:2])  # A's tablets moved on to B
            assert requests.get(f"{second}/health", timeout=30).status_code == 200
            logged = {each["id"]: [(event["seq"], event["data"].get("text", "")) for event in requests.get(
                f"{second}/games/{each['id']}/events", params={"limit": 1000}, timeout=30).json()["events"]]
                for each in games}
            for each in games:  # every acknowledged move at its seq, none twice, none refused or never sent
                assert logged[each["id"]][:1] == [(1, "")]  # the game's creation
                check_log(logged[each["id"]][1:], [attempt for tablet in tablets if tablet.game is each
                                                   for attempt in tablet.attempts], first_seq=2)
            after = _post(second, games[0], "after the kill")
            assert after.status_code == 201, after.text
    finally:
        for server in servers:
            server.stop()
        proxy.close()

    # the record, read on the database's own machine: every hash chains; kibitz check finds it whole
    db = store.connect(league_db.local_url())
    try:
        for each in [game, *games]:
            stored = store.events(db, each["id"])
            expected = chain.GENESIS
            for event in stored:
                expected = chain.event_hash(expected, event)
                assert event["hash"] == expected
            row = store.get_game(db, each["id"])
            assert row is not None and row["record_hash"] == expected and row["version"] == len(stored)
    finally:
        db.close()
    checked = subprocess.run([*kibitz_command(), "check", "--db", league_db.local_url()], capture_output=True, text=True,
                             timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    for server in servers:
        log = server.log.read_text()
        assert "Traceback" not in log and "Internal Server Error" not in log, log[-3000:]
        assert PASSWORD not in log and quote(PASSWORD, safe="") not in log  # the address it prints leaves it out
