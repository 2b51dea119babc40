"""PostgreSQL goes away under a running ``kibitz serve`` and comes back
(docs/league.md, "What works now"): reads and writes during the outage are 503
``storage_unavailable`` problems with ``Retry-After`` (never a 500, never a hang), and once the server is back on the
same port they work again by themselves, with the next seq and no gap; SIGTERM then stops the
process within 10 s. An outage the server sleeps through costs no failed request at all.

The test starts a throwaway cluster of its own (``tests/postgres_cluster.sh``), since it stops
it; it never touches the shared ``KIBITZ_TEST_POSTGRES`` server.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlparse

import pytest
import requests

from tests.conftest import PLAYERS
from tests.postgres import REQUIRE
from tests.serving import start, stop

SCRIPT = Path(__file__).with_name("postgres_cluster.sh")
TIMEOUT = 15  # seconds any one request may take: a hang fails the test


def _pg_bin() -> Path | None:
    """The bin folder of the PostgreSQL server, found as tests/postgres_cluster.sh finds it."""
    if os.environ.get("KIBITZ_PG_BIN"):
        return Path(os.environ["KIBITZ_PG_BIN"])
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), key=lambda p: [
        int(part) if part.isdigit() else 0 for part in p.parts[-3].split(".")])
    return found[-1].parent if found else None


def _as_owner(*command: str) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *command] if os.getuid() == 0 else list(command)


class Cluster:
    """A cluster of tests/postgres_cluster.sh in ``folder``, stopped and started in place."""

    def __init__(self, bin_dir: Path, folder: Path, url: str) -> None:
        self.bin, self.folder, self.url = bin_dir, folder, url
        self.port = urlparse(url).port

    def stop(self) -> None:
        subprocess.run(_as_owner(str(self.bin / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "fast", "-w",
                                 "stop"), check=True, capture_output=True, timeout=60)

    def start(self) -> None:
        # the options tests/postgres_cluster.sh starts it with, on the same port
        options = f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.folder} -c fsync=off -c max_connections=200"
        subprocess.run(_as_owner(str(self.bin / "pg_ctl"), "-D", str(self.folder / "data"), "-l",
                                 str(self.folder / "server.log"), "-w", "-t", "60", "-o", options, "start"),
                       check=True, capture_output=True, timeout=90)


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    bin_dir = _pg_bin()
    if bin_dir is None or not (bin_dir / "pg_ctl").exists() or shutil.which("bash") is None:
        why = "no PostgreSQL server found in /usr/lib/postgresql/*/bin (apt-get install -y postgresql)"
        if os.environ.get(REQUIRE) == "1":
            pytest.fail(f"{REQUIRE}=1 but {why}")
        pytest.skip(why)
    top = Path(tempfile.mkdtemp(prefix="kibitz-outage-"))
    top.chmod(0o755)  # the postgres user (as root) must reach the cluster inside
    folder = top / "cluster"
    try:
        made = subprocess.run([str(SCRIPT), "start", str(folder)], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "KIBITZ_PG_BIN": str(bin_dir)})
        assert made.returncode == 0, made.stderr
        yield Cluster(bin_dir, folder, made.stdout.strip())
    finally:
        subprocess.run([str(SCRIPT), "stop", str(folder)], capture_output=True, timeout=120,
                       env={**os.environ, "KIBITZ_PG_BIN": str(bin_dir)})
        shutil.rmtree(top, ignore_errors=True)


def _unavailable(answer: requests.Response) -> None:
    """``answer`` is a 503 ``storage_unavailable`` problem with a ``Retry-After``."""
    assert answer.status_code == 503, (answer.status_code, answer.headers.get("Content-Type"), answer.text[:300])
    assert answer.headers["Content-Type"].startswith("application/problem+json")
    assert answer.json()["code"] == "storage_unavailable"
    assert int(answer.headers["Retry-After"]) > 0


def _all_at_once(calls: list[Callable[[], requests.Response]]) -> list[requests.Response]:
    """Make every call at once (so the server's worker threads each take some)."""
    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(lambda call: call(), calls))


def test_reads_and_writes_are_503_while_postgresql_is_down_and_work_again_once_it_is_back(
        tmp_path: Path, cluster: Cluster) -> None:
    proc, base = start(tmp_path, database=cluster.url)
    try:
        created = requests.post(f"{base}/games", json={"game": "toepen", "players": PLAYERS, "visibility": "open"},
                                timeout=TIMEOUT)
        assert created.status_code == 201, created.text
        game = created.json()
        auth = {"Authorization": f"Bearer {game['token']}"}
        moves = f"{base}/games/{game['id']}/events"

        def read(path: str) -> Callable[[], requests.Response]:
            return lambda: requests.get(f"{base}{path}", timeout=TIMEOUT)

        def write(text: str) -> requests.Response:
            return requests.post(moves, json={"type": "note", "text": text}, headers=auth, timeout=TIMEOUT)

        reads = [read(path) for path in ("/games", f"/games/{game['id']}", f"/watch/{game['id']}")] * 6
        noted = write("before")  # the writer now holds a live connection
        assert noted.status_code == 201, noted.text
        assert noted.json()["event"]["seq"] == 2
        assert [answer.status_code for answer in _all_at_once(reads)] == [200] * len(reads)  # threads hold connections

        cluster.stop()
        for answer in _all_at_once([*reads, *reads]):
            _unavailable(answer)
        for n in range(5):  # more than the scorekeeper's threads: none may be left waiting
            _unavailable(requests.post(f"{base}/games", json={"game": "toepen", "players": PLAYERS,
                                                              "visibility": "open"}, timeout=TIMEOUT))
            _unavailable(write(f"down {n}"))
        assert requests.get(f"{base}/health", timeout=TIMEOUT).status_code == 200

        cluster.start()
        deadline = time.monotonic() + 20
        while (answer := requests.get(f"{base}/games/{game['id']}", timeout=TIMEOUT)).status_code != 200:
            _unavailable(answer)
            assert time.monotonic() < deadline, "reads did not work again within 20 s of PostgreSQL's restart"
            time.sleep(0.2)
        assert [answer.status_code for answer in _all_at_once(reads)] == [200] * len(reads)
        noted = write("after")
        assert noted.status_code == 201, noted.text
        assert noted.json()["event"]["seq"] == 3  # nothing of the outage's writes was stored: no gap
        another = requests.post(f"{base}/games", json={"game": "toepen", "players": PLAYERS, "visibility": "open"},
                                timeout=TIMEOUT)
        assert another.status_code == 201, another.text
        assert [row["id"] for row in requests.get(f"{base}/games", timeout=TIMEOUT).json()["games"]] == [
            another.json()["id"], game["id"]]  # none of the outage's games was stored
        events = requests.get(moves, timeout=TIMEOUT).json()
        assert [event["seq"] for event in events["events"]] == [1, 2, 3]
        assert requests.get(f"{base}/games/{game['id']}", timeout=TIMEOUT).json()["version"] == 3

        # an outage no request sees (the server idle through it): the first requests after it work
        cluster.stop()
        time.sleep(3)  # idle: the listener notices the lost connection (within a second, most often)
        cluster.start()
        deadline = time.monotonic() + 20  # a connection not replaced yet is one 503, never a 500
        while (answers := _all_at_once(reads)) and any(answer.status_code != 200 for answer in answers):
            for answer in answers:
                if answer.status_code != 200:
                    _unavailable(answer)
            assert time.monotonic() < deadline, "reads did not work again within 20 s of an idle outage"
            time.sleep(0.2)
        noted = write("after an idle outage")
        assert noted.status_code == 201, noted.text
        assert noted.json()["event"]["seq"] == 4

        stopping = time.monotonic()
        proc.terminate()
        proc.wait(timeout=10)  # raises TimeoutExpired if SIGTERM does not stop it within 10 s
        assert time.monotonic() - stopping < 10
        log = (tmp_path / "server.log").read_text()
        assert "Exception in thread" not in log and "Internal Server Error" not in log, log[-3000:]
    finally:
        stop(proc)
