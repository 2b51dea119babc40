"""Every wait on the PostgreSQL server is bounded (``service.storage.postgres_bounds``,
docs/league.md, "A database that stops answering"): the server's own timeouts on every
connection, TCP keepalives, ``connect_timeout``; a slow statement, or a lock waited for, on a
server that answers is left to the server's own timeouts; a statement its server does not
answer (every process of it paused with SIGSTOP) fails with ``NotAnswering`` (a
``not_answering`` storage fault) once the watchdog finds the server silent, and its connection
is closed; meanwhile every other connection to it fails at once; a transaction whose
``COMMIT`` went unanswered is not committed when the server resumes; the first connection
after it ends the silence; and the listener finds a silent server by itself.

The paused server is a cluster of the test's own (``tests/clusters.py``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest

from service.record import listener
from service.storage import postgres
from service.storage import postgres_bounds as bounds
from tests.clusters import Cluster, cluster  # noqa: F401  (the fixture)
from tests.postgres import postgres_url  # noqa: F401  (the fixture)

#: How soon a wait on a silent server is given up, at the latest: the watchdog's suspicion, its look,
#: its question to the server (a new connection) and the time the answer of the connection may
#: not be given up before (a COMMIT sent just then).
GIVEN_UP = max(bounds.SUSPECT_SECONDS + bounds.WATCH_EVERY + bounds.PROBE_SECONDS, bounds.IDLE_SECONDS) + 2
#: Seconds of room a loaded 2-core machine may add to a bound the code keeps (a thread or a
#: process waiting for a core). Each upper bound below stays under what a wrong wait would take:
#: the TCP user timeout (20 s) for a hang, the next longer bound of the server for the wrong one.
ROOM = 6.0
#: "At once": a wait that fails from what the process knows, sending nothing; under the 5 s of
#: ``connect_timeout`` or of the watchdog's look, which a wait that is not told would take.
AT_ONCE = 3.0


def _timed(call: Callable[[], Any], give_up: float = 30) -> tuple[float, BaseException | None]:
    """Run ``call`` in a thread of its own: (seconds it took, what it raised); fails the test
    when it has not returned within ``give_up`` seconds (a hang)."""
    raised: list[BaseException | None] = [None]

    def run() -> None:
        try:
            call()
        except BaseException as err:  # noqa: BLE001 - handed to the test
            raised[0] = err

    started = time.monotonic()
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(give_up)
    assert not thread.is_alive(), f"still waiting after {give_up} s"
    return time.monotonic() - started, raised[0]


def test_every_connection_is_bounded_by_the_server_by_tcp_and_while_connecting(postgres_url: str) -> None:  # noqa: F811
    with postgres.connect(postgres_url) as db:
        settings = {row["name"]: row["setting"] for row in db.execute(
            "SELECT name, setting FROM pg_settings WHERE name IN ('statement_timeout', 'lock_timeout', "
            "'idle_in_transaction_session_timeout')")}
        assert settings == {"statement_timeout": "15000", "lock_timeout": "10000",
                            "idle_in_transaction_session_timeout": "5000"}
        parameters = db.info.get_parameters()
        assert {key: parameters.get(key) for key in ("connect_timeout", *bounds.TCP)} == {
            "connect_timeout": "5", **bounds.TCP}
    with postgres.connect(postgres_url + "&connect_timeout=17&keepalives_idle=9") as db:  # the URL's own are kept
        assert db.info.get_parameters()["connect_timeout"] == "17"
        assert db.info.get_parameters()["keepalives_idle"] == "9"
    listener = postgres.listen(postgres_url)
    try:
        assert listener.info.get_parameters()["connect_timeout"] == "5"
    finally:
        listener.close()


def test_a_slow_statement_on_a_server_that_answers_is_left_to_its_statement_timeout(postgres_url: str) -> None:  # noqa: F811
    with postgres.connect(postgres_url) as db:
        db.execute("SET statement_timeout = 7000")  # longer than the watchdog takes to ask the server
        took, raised = _timed(lambda: db.execute("SELECT pg_sleep(30)"))
        assert isinstance(raised, psycopg.errors.QueryCanceled), raised  # the server's statement_timeout
        assert 6.5 < took < 7 + ROOM, took  # not given up by the watchdog (5 s), nor the 30 s sleep's end
        fault = postgres.fault(raised)
        assert fault is not None and fault.kind == "busy"
        assert not postgres.is_lost(db) and not bounds.not_answering(postgres_url)
        assert db.execute("SELECT 1 AS one").fetchone() == {"one": 1}


def test_a_paused_server_is_not_answering_within_the_bound_and_its_unanswered_commit_is_not_stored(
        cluster: Cluster) -> None:  # noqa: F811
    url = cluster.url
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute("CREATE TABLE moves (n integer)")
    db, other = postgres.connect(url), postgres.connect(url)
    try:
        db.execute("BEGIN")
        db.execute("INSERT INTO moves VALUES (1)")
        cluster.pause()

        took, raised = _timed(lambda: db.execute("COMMIT"))
        assert isinstance(raised, bounds.NotAnswering), raised
        assert bounds.IDLE_SECONDS - 0.5 < took < GIVEN_UP + ROOM, took  # never before the backend's idle timeout
        fault = postgres.fault(raised)
        assert fault is not None and fault.kind == "not_answering" and fault.retry_after > 0
        assert postgres.is_lost(db)  # its state is unknown: it is never used again
        assert bounds.not_answering(url)

        # every other wait on that server fails at once, an open connection's and a new one's
        took, raised = _timed(lambda: other.execute("SELECT 1"))
        assert isinstance(raised, bounds.NotAnswering) and took < AT_ONCE, (raised, took)
        assert postgres.is_lost(other)
        took, raised = _timed(lambda: postgres.connect(url))
        assert isinstance(raised, bounds.NotAnswering) and took < AT_ONCE, (raised, took)
        # … but for one attempt to connect every RETRY_SECONDS, which waits up to connect_timeout
        time.sleep(bounds.RETRY_SECONDS)
        took, raised = _timed(lambda: postgres.connect(url))
        assert isinstance(raised, bounds.NotAnswering), raised
        assert bounds.CONNECT_SECONDS - 0.5 < took < bounds.CONNECT_SECONDS + ROOM

        cluster.resume()
        started = time.monotonic()
        while True:  # the next attempt let through connects, and ends the silence
            try:
                again = postgres.connect(url)
                break
            except bounds.NotAnswering:
                assert time.monotonic() - started < bounds.RETRY_SECONDS + bounds.CONNECT_SECONDS + ROOM
                time.sleep(0.1)
        with again:
            assert not bounds.not_answering(url)
            # the transaction whose COMMIT went unanswered was not committed when the server resumed
            assert again.execute("SELECT count(*) AS n FROM moves").fetchone() == {"n": 0}
    finally:
        cluster.resume()
        db.close()
        other.close()


def test_a_lock_waited_for_on_purpose_may_take_its_lock_timeout(postgres_url: str) -> None:  # noqa: F811
    # the holder is not a Kibitz connection: idle in its transaction for longer than 5 s, one would be ended
    with postgres.connect(postgres_url) as db, psycopg.connect(postgres_url, autocommit=True) as holder:
        holder.execute(f"BEGIN; SELECT pg_advisory_xact_lock({postgres.write_lock_key(holder)})")  # the whole database's
        took, raised = _timed(lambda: postgres.begin_write(db))  # waits past statement_timeout, to lock_timeout
        assert isinstance(raised, psycopg.errors.LockNotAvailable), raised
        # (LockNotAvailable: the lock timeout, not the statement timeout 5 s later, ended it)
        assert postgres.LOCK_TIMEOUT_MS / 1000 - 0.5 < took < postgres.LOCK_TIMEOUT_MS / 1000 + ROOM
        assert not postgres.is_lost(db) and not bounds.not_answering(postgres_url)  # the watchdog asked, and left it
        holder.execute("ROLLBACK")


def test_a_kibitz_connection_idle_in_its_transaction_is_ended_and_its_locks_freed(postgres_url: str) -> None:  # noqa: F811
    """A process stopped in the middle of a write (paused, or cut off) holds its games' locks
    no longer than ``idle_in_transaction_session_timeout``: the other servers record again."""
    with postgres.connect(postgres_url) as stalled, postgres.connect(postgres_url) as db:
        postgres.begin_write(stalled, games=["g1"])
        postgres.begin_write(db, games=["g2"])  # another game: not held up
        postgres.rollback(db)
        took, raised = _timed(lambda: postgres.begin_write(db, games=["g1"]))
        # taken (raised is None) once the stalled session ended: before the 10 s lock timeout
        assert raised is None and bounds.ANSWER_SECONDS - 0.5 < took < bounds.ANSWER_SECONDS + ROOM, (raised, took)
        postgres.rollback(db)
        with pytest.raises(psycopg.Error, match="idle-in-transaction timeout") as ended:
            stalled.execute("SELECT 1")
        fault = postgres.fault(ended.value)  # a 503, never a 500
        assert fault is not None and fault.kind == "io_error"
        assert postgres.is_lost(stalled)


def test_a_callers_own_shorter_wait_is_its_own(postgres_url: str) -> None:  # noqa: F811
    seconds = 0.5
    with postgres.connect(postgres_url) as db:
        postgres.migrate(db)  # the listener's look at the guard reads the tables' triggers
    listener = postgres.listen(postgres_url)
    try:
        heard: list[list[str]] = []
        took, raised = _timed(lambda: heard.append(postgres.changes(listener, seconds)))
        # No notification: [] after its own wait, never the listener's longer one. Another test
        # writing to the same database at the same moment may end the wait early, with what it heard.
        assert raised is None and took < seconds + 2, took
        if took <= seconds - 0.1:
            assert heard[0], (took, heard)  # an early end only with a notification heard
        assert not postgres.is_lost(listener)
        postgres.guard(listener)
    finally:
        listener.close()


class _Hearer:
    def __init__(self) -> None:
        self.events: list[str] = []

    def listening(self) -> None:
        self.events.append("listening")

    def heard(self, game_ids: list[str]) -> None:
        self.events.append("heard")

    def lost(self) -> None:
        self.events.append("lost")

    def suspect(self) -> None:
        self.events.append("suspect")


def test_the_listener_finds_a_paused_server_by_itself_and_listens_again_once_it_answers(
        cluster: Cluster) -> None:  # noqa: F811
    with postgres.connect(cluster.url) as db:
        postgres.migrate(db)  # the listener's look at the guard reads the tables' triggers
    hearer = _Hearer()
    thread = listener.Listener(cluster.url, hearer)
    thread.start()
    try:
        started = time.monotonic()
        while not hearer.events or hearer.events[-1] != "listening":  # connected, asked the guard, listening
            assert time.monotonic() - started < 30
            time.sleep(0.05)
        assert thread.trouble is None and thread.connections == 1
        cluster.pause()  # no request at all: the listener's query of the guard finds it
        paused = time.monotonic()
        while thread.trouble is None:
            # found by its own query (3 s), not by TCP's user timeout (20 s)
            assert time.monotonic() - paused < listener.WAIT + bounds.PROBE_SECONDS + ROOM, "unnoticed"
            time.sleep(0.05)
        assert thread.trouble == "not answering" and hearer.events[-1] == "lost"
        assert bounds.not_answering(cluster.url)  # every other connection of the process is told
        time.sleep(bounds.CONNECT_SECONDS + 1)  # it goes on trying meanwhile
        assert thread.trouble == "not answering" and thread.connections == 1
        cluster.resume()
        resumed = time.monotonic()
        # connected again, asked the guard (its trouble cleared) and listening, in that order: the
        # wait is for the last (the connection counted, the trouble may still be 'not answering')
        while thread.connections < 2 or hearer.events[-1] != "listening":
            assert time.monotonic() - resumed < bounds.CONNECT_SECONDS + listener.RETRY_MOST + ROOM
            time.sleep(0.05)
        assert thread.trouble is None and thread.connections == 2
        assert not bounds.not_answering(cluster.url)
    finally:
        cluster.resume()
        thread.stop()


def test_docs_league_states_the_bounds_the_code_keeps() -> None:
    """docs/league.md's table of bounds (and its words on a silent server) say the figures of
    ``service.storage.postgres_bounds``, the listener's wait and the migration's bound."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "league.md").read_text()
    section = text[text.index("## A database that stops answering"):text.index("## A league over several machines")]
    rows = {line.split("|")[1].strip(): line.split("|")[2].strip() for line in section.splitlines()
            if line.startswith("| ") and not line.startswith("| bound") and not line.startswith("|---")}

    def seconds(value: float) -> str:
        return f"{value:g} s"

    assert rows["`statement_timeout`"].startswith(f"`lock_timeout` + {seconds(bounds.ANSWER_SECONDS)}")
    assert "(a migration: none)" in rows["`statement_timeout`"]
    assert rows["`idle_in_transaction_session_timeout`"] == seconds(bounds.IDLE_SECONDS)
    assert rows["the watchdog's question"] == (
        f"after {seconds(bounds.SUSPECT_SECONDS)} of waiting with no word from the server on any connection of the "
        f"process: a new connection and `SELECT 1`, within {seconds(bounds.PROBE_SECONDS)}")
    assert f"at least every {seconds(listener.WAIT)}" in rows["the listener's query"]
    assert rows["the listener's query"].endswith(f"answered within {seconds(bounds.PROBE_SECONDS)}")
    assert rows["the last bound on any wait"] == (
        f"`statement_timeout` + {seconds(bounds.MARGIN)} (a migration: {seconds(postgres.MIGRATION_SECONDS)})")
    assert rows["`connect_timeout`"] == seconds(bounds.CONNECT_SECONDS)
    tcp = bounds.TCP
    assert rows["TCP keepalives, `tcp_user_timeout`"] == (
        f"a probe after {tcp['keepalives_idle']} s idle, every {tcp['keepalives_interval']} s, "
        f"{tcp['keepalives_count']} lost ones end it; {int(tcp['tcp_user_timeout']) // 1000} s unacknowledged")
    prose = " ".join(section.split())
    assert f"but for one attempt to connect every {seconds(bounds.RETRY_SECONDS)}" in prose
    assert f"no sooner than {seconds(bounds.IDLE_SECONDS)} after its connection's last answer" in prose
    assert f"`Retry-After: {postgres.FAULT_DETAILS['not_answering'][1]}`" in prose
