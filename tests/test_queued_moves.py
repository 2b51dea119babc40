"""On SQLite, ``kibitz serve``'s direct route queues its writes (``Writer.later``) and one
scorekeeper thread drains the queue (``Writer.drain``): the moves queued while another write
holds the turn run one after another in that thread, in one transaction (each in a
``SAVEPOINT``: a refusal rolls back alone), with one ``COMMIT`` for them all, each answered
only after it, and a fault in that transaction fails every one of them (503, nothing stored).
No thread per queued move waits for the turn or for the commit: one thread waits for them
all (docs/architecture.md, "A write, end to end"; docs/performance.md has what it saves).

A real server (uvicorn, real HTTP on loopback) in this process, so that the test can hold the
turn with a write of its own (``Writer.run``) while the moves come, and see them queue."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from replays import chain
from service.web.server import Server
from tests.conftest import OPEN_DEAL as DEAL
from tests.test_direct_writes import exchange, new_game, raw_request, running


def stored(path: Path, game_id: str) -> list[tuple[int, str]]:
    db = sqlite3.connect(path)
    try:
        return [(int(seq), str(kind)) for seq, kind in
                db.execute("SELECT seq, type FROM events WHERE game_id = ? ORDER BY seq", [game_id])]
    finally:
        db.close()


def events(path: Path, game_id: str) -> list[dict[str, Any]]:
    db = sqlite3.connect(path)
    db.row_factory = sqlite3.Row
    try:
        return [{**dict(row), "data": json.loads(row["data"])} for row in db.execute(
            "SELECT seq, type, data, recorded_at, at, salt, hash FROM events WHERE game_id = ? ORDER BY seq",
            [game_id])]
    finally:
        db.close()


def keys(path: Path) -> set[str]:
    db = sqlite3.connect(path)
    try:
        return {str(key) for (key,) in db.execute("SELECT key FROM idempotency")}
    finally:
        db.close()


class Held:
    """A write of the test's own holding the server's write turn (``Writer.run``) until
    :meth:`release`; ``prepare(db)`` runs first on the writer's connection."""

    def __init__(self, server: Server, prepare: Any = None) -> None:
        self.writer = server.front.app.extensions["kibitz_writer"]
        self.hold, self.held = threading.Event(), threading.Event()
        self.outcome: object = None
        self.prepare = prepare

        def blocker(db: Database) -> None:
            if self.prepare is not None:
                self.prepare(db)
            self.held.set()
            self.hold.wait(60)

        def run() -> None:
            try:
                self.outcome = self.writer.run(blocker)
            except Exception as err:  # noqa: BLE001 - the test looks at it
                self.outcome = err

        self.thread = threading.Thread(target=run)
        self.thread.start()
        assert self.held.wait(30)

    def wait_for_queue(self, moves: int) -> None:
        """Until ``moves`` moves are queued behind the turn (a deadline, not a sleep)."""
        deadline = time.monotonic() + 60
        while len(self.writer._queue) < moves:
            assert time.monotonic() < deadline, f"{len(self.writer._queue)} of {moves} moves came to the queue"
            time.sleep(0.01)

    def release(self) -> None:
        self.hold.set()
        self.thread.join(30)
        assert not self.thread.is_alive()


def send_all(server: Server, path: Path, held: Held,
             writes: list[tuple[str, str, dict[str, Any], dict[str, str]]]) -> dict[str, Any]:
    """Send ``writes`` ((name, game id, body, headers)), each on a connection of its own, in
    this order, each once the one before is queued; release the turn; every answer, with the
    events stored of its game when it arrived."""
    answers: dict[str, Any] = {}

    def send(name: str, game_id: str, body: dict[str, Any], headers: dict[str, str]) -> None:
        status, _, raw = exchange(server, raw_request("POST", f"/games/{game_id}/events", json.dumps(body).encode(),
                                                      headers))
        answers[name] = (status, json.loads(raw), stored(path, game_id))

    threads = []
    for n, write in enumerate(writes, start=1):
        threads.append(threading.Thread(target=send, args=write))
        threads[-1].start()
        held.wait_for_queue(n)
    deadline = time.monotonic() + 60
    while len(held.writer._turns._queues["*"]) < 2:  # the thread draining the queue comes to wait for the turn
        assert time.monotonic() < deadline, "no thread came to drain the queue"
        time.sleep(0.01)
    assert len(held.writer._turns._queues["*"]) == 2  # the turn's holder and that one thread, not one per move
    held.release()
    for thread in threads:
        thread.join(30)
        assert not thread.is_alive()
    return answers


def test_moves_queued_behind_the_turn_share_one_commit_and_are_answered_after_it(tmp_path):
    with running(tmp_path, "queued", True) as server:
        path = tmp_path / "queued.db"
        (one, one_token), (two, two_token) = new_game(server), new_game(server)
        auth = {one: {"Authorization": f"Bearer {one_token}"}, two: {"Authorization": f"Bearer {two_token}"}}
        for game_id in (one, two):
            status, _, body = exchange(server, raw_request("POST", f"/games/{game_id}/events",
                                                           json.dumps(DEAL).encode(), auth[game_id]))
            assert status == 201, body
        traced: list[str] = []
        held = Held(server, lambda db: db.conn.set_trace_callback(traced.append))  # the transaction's statements
        first = {"type": "note", "text": "first"}
        answers = send_all(server, path, held, [
            ("first", one, first, {**auth[one], "If-Match": '"2"', "Idempotency-Key": "k-first"}),
            ("other", two, {"type": "play", "player": "Bob", "card": "7H"}, auth[two]),
            ("second", one, {"type": "note", "text": "second"}, {**auth[one], "If-Match": '"3"'}),  # the first's version
            ("stale", one, {"type": "note", "text": "stale"}, {**auth[one], "If-Match": '"2"'}),  # 412
            ("turn", two, {"type": "play", "player": "Ann", "card": "TH"}, auth[two]),  # 409 not_your_turn
            ("play", one, {"type": "play", "player": "Bob", "card": "7H"}, {**auth[one], "Idempotency-Key": "k-play"}),
            ("retry", one, first, {**auth[one], "Idempotency-Key": "k-first"}),  # the first's answer, not yet committed
        ])
        assert held.outcome is None
        statuses = {name: status for name, (status, _, _) in answers.items()}
        assert statuses == {"first": 201, "other": 201, "second": 201, "stale": 412, "turn": 409, "play": 201,
                            "retry": 201}, answers
        assert answers["stale"][1]["code"] == "version_mismatch"
        assert answers["turn"][1]["code"] == "not_your_turn"
        assert [answers[name][1]["seq"] for name in ("first", "second", "play")] == [3, 4, 5]
        assert answers["retry"][1] == answers["first"][1]  # read inside the transaction
        assert stored(path, one) == [(1, "game_created"), (2, "deal"), (3, "note"), (4, "note"), (5, "play")]
        assert stored(path, two) == [(1, "game_created"), (2, "deal"), (3, "play")]
        for game_id in (one, two):
            assert chain.first_break(events(path, game_id)) is None
        # each answered after the one commit of them all: what its game had stored then is all of it
        for name, (_status, _body, seen) in answers.items():
            assert seen == stored(path, one if name not in ("other", "turn") else two), name
        kinds = [statement.split()[0].upper() for statement in traced if not statement.startswith("-- ")]
        assert kinds.count("COMMIT") == 1 and "BEGIN" not in kinds  # the held write's transaction, joined
        assert traced.count("SAVEPOINT job") == traced.count("RELEASE job") == 4  # one per move that wrote
        assert "ROLLBACK" not in kinds  # the refusals wrote nothing to undo
        assert {"k-first", "k-play"} <= keys(path)


def test_a_fault_in_the_shared_transaction_fails_every_move_in_it_and_stores_none(tmp_path):
    with running(tmp_path, "full", True) as server:
        path = tmp_path / "full.db"
        games = [new_game(server) for _ in range(3)]
        auth = {game_id: {"Authorization": f"Bearer {token}"} for game_id, token in games}
        (zero, _), (one, _), (two, _) = games

        def full(db: Database) -> None:  # no new page from now in this transaction: the disk is full
            db.execute("PRAGMA max_page_count = 1")  # (never below the pages there are)

        held = Held(server, full)
        text = "x" * 2000  # with its key's stored answer: the pages there are fill up within a few of these
        writes = [("small-0", zero, {"type": "note", "text": "small"}, auth[zero]),  # fits in the pages there are
                  ("refused", zero, {"type": "play", "player": "Bob", "card": "7H"}, auth[zero]),  # not dealt: 409
                  ("small-1", one, {"type": "note", "text": "small"}, auth[one]),
                  *[(f"big-{n}", game_id, {"type": "note", "text": text}, {**auth[game_id], "Idempotency-Key": f"k-{n}"})
                    for n, game_id in enumerate((two, one, zero, two, one, zero))]]
        answers = send_all(server, path, held, writes)
        assert isinstance(held.outcome, Exception) and "full" in str(held.outcome)  # the held write failed with them
        assert (answers["refused"][0], answers["refused"][1]["code"]) == (409, "wrong_phase")  # its own refusal
        order = [name for name, *_ in writes if name != "refused"]
        statuses = [answers[name][0] for name in order]
        # the first move that needed a page failed its transaction: it and every move before it in
        # that transaction (the small notes too, which fitted), then the rest in a new one
        failed = statuses.index(201) if 201 in statuses else len(statuses)
        assert failed >= 3, statuses  # the small notes and at least the first big one shared the fault
        assert statuses == [503] * failed + [201] * (len(statuses) - failed), statuses
        for name in order[:failed]:
            assert answers[name][1]["code"] == "storage_unavailable"
        for game_id, _token in games:  # nothing of the failed transaction, every move acknowledged after it
            acknowledged = [answers[name][1]["seq"] for name, game, *_ in writes
                            if game == game_id and name in order[failed:]]
            assert [seq for seq, _kind in stored(path, game_id)] == [1, *acknowledged]
        assert keys(path) == {f"k-{name[4:]}" for name in order[failed:]}
        # the writer goes on, on a new connection: the failed moves' retries are stored
        for name, game_id, body, headers in writes:
            if name in order[:failed]:
                status, _, raw = exchange(server, raw_request("POST", f"/games/{game_id}/events",
                                                              json.dumps(body).encode(), headers))
                assert status == 201, raw
