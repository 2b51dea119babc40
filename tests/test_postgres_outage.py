"""PostgreSQL goes away under a running ``kibitz serve`` and comes back
(docs/league.md, "What works now"): reads and writes during the outage are 503
``storage_unavailable`` problems with ``Retry-After`` (never a 500, never a hang), and once the server is back on the
same port they work again by themselves, with the next seq and no gap; SIGTERM then stops the
process within 10 s. An outage the server sleeps through costs no failed request at all.

The test starts a throwaway cluster of its own (``tests/postgres_cluster.sh``), since it stops
it; it never touches the shared ``KIBITZ_TEST_POSTGRES`` server.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

from tests.clusters import Cluster, cluster  # noqa: F401  (the fixture)
from tests.conftest import PLAYERS
from tests.serving import start, stop

TIMEOUT = 30  # seconds any one request may take: a hang fails the test (room for 36 at once on a loaded machine)


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
        tmp_path: Path, cluster: Cluster) -> None:  # noqa: F811
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
        health = requests.get(f"{base}/health", timeout=TIMEOUT)  # the process is up, and says what is wrong
        _unavailable(health)
        assert health.json()["database"] == "cannot be reached"

        cluster.start()
        deadline = time.monotonic() + 60  # at once on a quiet machine; what is guarded is "never again"
        while (answer := requests.get(f"{base}/games/{game['id']}", timeout=TIMEOUT)).status_code != 200:
            _unavailable(answer)
            assert time.monotonic() < deadline, "reads did not work again within 60 s of PostgreSQL's restart"
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
        deadline = time.monotonic() + 60  # a connection not replaced yet is one 503, never a 500
        while (answers := _all_at_once(reads)) and any(answer.status_code != 200 for answer in answers):
            for answer in answers:
                if answer.status_code != 200:
                    _unavailable(answer)
            assert time.monotonic() < deadline, "reads did not work again within 60 s of an idle outage"
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
