"""The live game page across ``kibitz serve`` processes on one PostgreSQL database
(docs/league.md, docs/crowds.md): each append notifies the database at commit; each process's
listener hears it, so a watcher's poll is answered from memory (no query) while nothing
changed, and a move recorded through process B is seen at the next poll on process A; the
listener connects again after its connection is killed and still delivers."""

from __future__ import annotations

import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import requests

from service.storage import postgres
from service.web.boards import BoardAnswers
from tests.conftest import OPEN_DEAL, PLAYERS
from tests.postgres import postgres_url  # noqa: F401  (the fixture)
from tests.serving import serving_process

CREATED = {"game": "toepen", "players": ["Ann", "Bob"], "visibility": "public", "options": {"target": 10}}
WHEN = "2026-12-03T08:00:00.000Z"
#: How long a move through one process may take to reach a poll on the other in these tests
#: (measured: a few milliseconds; bench/live_bench.py, docs/performance.md). What it guards is
#: that the move is heard at all: a notification missed leaves the page's memory trusted, and the
#: poll answers 304 for ever; the room above the measure is for a loaded 2-core machine.
BOUND = 10.0


def _heard(conn: Any, game_id: str, count: int, bound: float = 10.0, after: float = 0.3) -> list[str]:
    """The notifications of ``game_id`` heard on ``conn`` (other tests on the same server
    notify the same channel): listens until ``count`` have come (or ``bound`` seconds passed),
    then ``after`` seconds more, so that one too many is heard too."""
    deadline, found = time.monotonic() + bound, []
    while len(found) < count and time.monotonic() < deadline:
        found += [heard for heard in postgres.changes(conn, 0.05) if heard == game_id]
    deadline = time.monotonic() + after
    while time.monotonic() < deadline:
        found += [heard for heard in postgres.changes(conn, 0.05) if heard == game_id]
    return found


def test_an_append_notifies_the_channel_when_its_transaction_commits(postgres_url: str) -> None:  # noqa: F811
    db = postgres.connect(postgres_url)
    postgres.migrate(db)
    listener = postgres.listen(postgres_url)
    game_id = f"g{uuid.uuid4().hex[:12]}"
    try:
        postgres.begin_write(db)
        postgres.insert_game(db, game_id, CREATED, "ab" * 32, WHEN, "in_progress")
        postgres.append(db, game_id, 1, "game_created", CREATED, WHEN)
        assert _heard(listener, game_id, 0) == []  # nothing before the commit
        postgres.commit(db)
        assert _heard(listener, game_id, 1) == [game_id]

        postgres.begin_write(db)
        postgres.append(db, game_id, 2, "note", {"text": "rolled back"}, WHEN)
        postgres.rollback(db)
        assert _heard(listener, game_id, 0) == []  # a rolled-back append is never heard of

        postgres.begin_write(db)
        postgres.savepoint(db, "job")
        postgres.append(db, game_id, 2, "note", {"text": "kept"}, WHEN)
        postgres.release(db, "job")
        postgres.append(db, game_id, 3, "note", {"text": "kept too"}, WHEN)
        postgres.commit(db)
        assert _heard(listener, game_id, 2) == [game_id, game_id]  # one per event, delivered at commit

        with postgres.immediate(db):  # revoked tokens: the game's remembered answers go stale too
            postgres.revoke_tokens(db, game_id, WHEN)
        assert _heard(listener, game_id, 1) == [game_id]
    finally:
        listener.close()
        db.close()


def test_a_lost_listening_connection_is_a_storage_fault(postgres_url: str) -> None:  # noqa: F811
    listener = postgres.listen(postgres_url, application_name=f"kibitz test {uuid.uuid4().hex[:8]}")
    try:
        # a server that vanishes without a word is noticed too (docs/crowds.md)
        assert {key: value for key, value in listener.info.get_parameters().items() if "keepalives" in key
                or key == "tcp_user_timeout"} == {"keepalives": "1", "keepalives_idle": "5", "keepalives_interval": "2",
                                                  "keepalives_count": "3", "tcp_user_timeout": "20000"}
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", [listener.info.backend_pid])
        started = time.monotonic()
        try:
            postgres.changes(listener, 60.0)
        except postgres.StorageUnavailable as err:
            assert err.kind == "cannot_open"
        else:
            raise AssertionError("a terminated backend went unnoticed")
        # noticed when the connection ends, not when the wait runs out (room for a loaded machine)
        assert time.monotonic() - started < 20
    finally:
        listener.close()


# --- two real server processes ------------------------------------------------------------


@contextmanager
def two_servers(tmp_path: Path, url: str) -> Iterator[tuple[str, subprocess.Popen[str], str]]:
    """Two ``kibitz serve --db url``: (A's base URL, A's process, B's base URL)."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with serving_process(tmp_path / "a", database=url) as (first, process), \
            serving_process(tmp_path / "b", database=url) as (second, _):
        yield first, process, second


def _board(base: str, game_id: str, shown: int | None = None, timeout: float = 10) -> requests.Response:
    """The game page's poll (``watch.js``): ``If-None-Match`` with the version shown."""
    headers = {} if shown is None else {"If-None-Match": f'"{shown}"'}
    return requests.get(f"{base}/watch/{game_id}/board", headers=headers, timeout=timeout)


def _note(base: str, game: dict[str, Any], text: str) -> int:
    answer = requests.post(f"{base}/games/{game['id']}/events", json={"type": "note", "text": text},
                           headers={"Authorization": f"Bearer {game['token']}"}, timeout=30)
    assert answer.status_code == 201, answer.text
    return int(answer.json()["version"])


def _seen_within(base: str, game_id: str, shown: int, bound: float = BOUND) -> tuple[float, requests.Response]:
    """Poll ``base`` every 10 ms as a page showing version ``shown`` until the answer is a
    newer board; (seconds it took, that answer). Fails after ``bound`` seconds."""
    started = time.monotonic()
    while True:
        answer = _board(base, game_id, shown)
        if answer.status_code == 200:
            return time.monotonic() - started, answer
        assert answer.status_code == 304, answer.text
        assert time.monotonic() - started < bound, f"the move was not seen on the other process within {bound} s"
        time.sleep(0.01)


def _answered_from_memory(url: str, base: str, game_id: str, shown: int) -> None:
    """Polls of ``game_id`` showing ``shown`` are answered (304) while the ``games`` table is
    locked against every reader: from memory, with no query (a query would wait for the lock
    and the poll time out)."""
    assert _board(base, game_id, shown).status_code == 304  # the app answers one (memory learns its headers)
    with psycopg.connect(url, autocommit=False) as lock:
        lock.execute("LOCK TABLE games IN ACCESS EXCLUSIVE MODE")
        for _ in range(20):
            # a query waits for the lock until the rollback below: the timeout ends it, with
            # room for a poll's round trip on a loaded machine
            answer = _board(base, game_id, shown, timeout=30)
            assert answer.status_code == 304 and answer.headers["ETag"] == f'"{shown}"'
        lock.rollback()


def _listener_pid(url: str, server: subprocess.Popen[str]) -> int | None:
    with psycopg.connect(url, autocommit=True) as admin:
        row = admin.execute("SELECT pid FROM pg_stat_activity WHERE application_name = %s",
                            [f"kibitz listener {server.pid}"]).fetchone()
    return None if row is None else int(row[0])


def _listening_again(url: str, server: subprocess.Popen[str], killed: int, bound: float = 30.0) -> None:
    """Wait until ``server``'s listener, on a connection other than ``killed``, trusts its memory
    again: it asks for the guard once after its ``LISTEN``, says it listens, then asks again
    after each wait for notifications (service/record/listener.py), so a second guard query
    seen on the new connection comes after it listens. Fails after ``bound`` seconds."""
    deadline, first = time.monotonic() + bound, None
    with psycopg.connect(url, autocommit=True) as admin:
        while True:
            row = admin.execute("SELECT pid, query, query_start FROM pg_stat_activity WHERE application_name = %s",
                                [f"kibitz listener {server.pid}"]).fetchone()
            if row is not None and row[0] != killed and "AS guard" in row[1]:
                if first is None:
                    first = row[2]
                elif row[2] > first:
                    return
            assert time.monotonic() < deadline, f"the listener did not listen again within {bound} s"
            time.sleep(0.02)


def _game(base: str) -> dict[str, Any]:
    created = requests.post(f"{base}/games", json={"game": "toepen", "players": PLAYERS, "visibility": "open"},
                            timeout=30)
    assert created.status_code == 201, created.text
    return dict(created.json())


def test_a_move_through_another_process_reaches_the_watcher_at_its_next_poll(
        tmp_path: Path, postgres_url: str) -> None:  # noqa: F811
    with two_servers(tmp_path, postgres_url) as (first, _process, second):
        game = _game(first)
        watched = _board(first, game["id"])
        assert watched.status_code == 200 and watched.headers["ETag"] == '"1"'
        _answered_from_memory(postgres_url, first, game["id"], 1)

        dealt = requests.post(f"{second}/games/{game['id']}/events", json=OPEN_DEAL,
                              headers={"Authorization": f"Bearer {game['token']}"}, timeout=30)
        assert dealt.status_code == 201, dealt.text
        took, answer = _seen_within(first, game["id"], 1)
        assert answer.headers["ETag"] == '"2"' and "Ann" in answer.text
        version = 2
        for n in range(5):  # memory is trusted again after each move, and each move is heard
            _answered_from_memory(postgres_url, first, game["id"], version)
            version = _note(second, game, f"through B {n}")
            took, answer = _seen_within(first, game["id"], version - 1)
            assert answer.headers["ETag"] == f'"{version}"'
            assert took < BOUND

        # a move through A itself: a poll that starts after its 201 never sees the older version
        _answered_from_memory(postgres_url, first, game["id"], version)
        version = _note(first, game, "through A")
        answer = _board(first, game["id"], version - 1)
        assert answer.status_code == 200 and answer.headers["ETag"] == f'"{version}"'


def test_the_listener_connects_again_after_its_connection_is_killed_and_still_delivers(
        tmp_path: Path, postgres_url: str) -> None:  # noqa: F811
    with two_servers(tmp_path, postgres_url) as (first, process, second):
        game = _game(first)
        assert _board(first, game["id"]).status_code == 200
        _answered_from_memory(postgres_url, first, game["id"], 1)
        killed = _listener_pid(postgres_url, process)
        assert killed is not None
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", [killed])

        # a move made while A's listener may be down is still seen: nothing is trusted meanwhile,
        # and everything remembered is stale once it listens again
        version = _note(second, game, "while A's listener was killed")
        took, answer = _seen_within(first, game["id"], version - 1)
        assert answer.headers["ETag"] == f'"{version}"'

        _listening_again(postgres_url, process, killed)

        for n in range(3):  # trusted again, and the new connection hears the moves
            _answered_from_memory(postgres_url, first, game["id"], version)
            version = _note(second, game, f"after the reconnection {n}")
            took, answer = _seen_within(first, game["id"], version - 1)
            assert answer.headers["ETag"] == f'"{version}"'


def _until(condition: Any, what: str, bound: float = 10.0) -> None:
    deadline = time.monotonic() + bound
    while not condition():
        assert time.monotonic() < deadline, f"{what} did not happen within {bound} s"
        time.sleep(0.01)


def _one_game(url: str) -> tuple[postgres.Connection, str]:
    """A connection to the migrated schema at ``url`` and a new game stored there (its
    ``game_created`` alone, committed): ``(connection, game id)``; the caller closes it."""
    db = postgres.connect(url)
    postgres.migrate(db)
    game_id = f"g{uuid.uuid4().hex[:12]}"
    with postgres.immediate(db):
        postgres.insert_game(db, game_id, CREATED, "ab" * 32, WHEN, "in_progress")
        postgres.append(db, game_id, 1, "game_created", CREATED, WHEN)
    return db, game_id


def test_while_the_listener_is_away_nothing_is_trusted_and_what_was_remembered_is_stale_after(
        postgres_url: str) -> None:  # noqa: F811
    db, game_id = _one_game(postgres_url)
    answers = BoardAnswers(postgres_url)
    listener = answers.listener
    assert listener is not None
    try:
        assert answers.epoch(game_id) is None  # not started: nothing is trusted
        answers.start()
        _until(lambda: answers.epoch(game_id) is not None, "listening")
        answers.note(game_id, 1, answers.epoch(game_id), b"<p>v1</p>")
        assert answers.current(game_id) is not None

        with postgres.immediate(db):  # a move heard: that game's memory is stale, no other game's
            answers.note("other", 7, answers.epoch("other"))
            postgres.append(db, game_id, 2, "note", {"text": "heard"}, WHEN)
        _until(lambda: answers.current(game_id) is None, "hearing of the move")
        assert answers.current("other") is not None
        answers.note(game_id, 2, answers.epoch(game_id), b"<p>v2</p>")

        # the listener's backend killed, and (for a while) no server to connect to again
        url, listener.url = listener.url, "postgresql://kibitz@127.0.0.1:1/none"
        killed = listener.connections
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s",
                          [listener.name])
        _until(lambda: answers.epoch(game_id) is None, "noticing the lost connection")
        assert answers.current(game_id) is None and answers.current("other") is None
        with postgres.immediate(db):  # a move nobody hears of
            postgres.append(db, game_id, 3, "note", {"text": "missed"}, WHEN)
        answers.note(game_id, 3, answers.epoch(game_id))  # a read while away is not remembered
        time.sleep(0.3)
        assert answers.current(game_id) is None

        listener.url = url
        _until(lambda: listener.connections == killed + 1, "connecting again")
        _until(lambda: answers.epoch(game_id) is not None, "listening again")
        assert answers.current(game_id) is None  # version 2 was remembered before: stale now
        assert answers.current("other") is None
        answers.note(game_id, 3, answers.epoch(game_id))
        known = answers.current(game_id)
        assert known is not None and known.version == 3
        with postgres.immediate(db):
            postgres.append(db, game_id, 4, "note", {"text": "heard again"}, WHEN)
        _until(lambda: answers.current(game_id) is None, "hearing of the move after connecting again")
    finally:
        answers.close()
        db.close()
    assert not any(thread.name == "kibitz-listener" and thread.is_alive() for thread in threading.enumerate())


def test_a_forks_memory_is_stale_after_any_games_move_and_this_processs_commits_stale_everything(
        postgres_url: str) -> None:  # noqa: F811
    db, game_id = _one_game(postgres_url)
    answers = BoardAnswers(postgres_url)
    try:
        answers.start()
        _until(lambda: answers.epoch("fork") is not None, "listening")
        answers.note("fork", 5, answers.epoch("fork"), alone=False)
        answers.note("game", 5, answers.epoch("game"))
        with postgres.immediate(db):
            postgres.append(db, game_id, 2, "note", {"text": "its ancestor moved"}, WHEN)
        _until(lambda: answers.current("fork") is None, "hearing of another game's move")
        assert answers.current("game") is not None
        answers.committed()  # this process's own write: nothing is trusted until read again
        assert answers.current("game") is None
    finally:
        answers.close()
        db.close()
