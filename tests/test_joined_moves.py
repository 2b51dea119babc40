"""Moves that come while another write holds SQLite's write lock join its open transaction
(service/record/writer.py; docs/architecture.md, "A write, end to end"): each, in its own thread,
reads what the writes before it in that transaction wrote (``store.read_move``: the games
row's version for ``If-Match``, the head its event is chained to, an ``Idempotency-Key``
stored by an earlier move), keeps its append in a ``SAVEPOINT`` (a refusal stores nothing
and leaves the others' moves), and the last of them commits once for all; each is answered
only after that commit."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from sqlite_utils import Database

from replays import chain
from service.storage import backend as store
from tests.conftest import stored_events


@pytest.mark.parametrize("database", ["sqlite"], indirect=True)  # SQLite's one write lock
def test_moves_waiting_for_the_write_lock_join_one_transaction_each_reading_the_moves_before_it(
        app, open_game, database) -> None:
    writer = app.extensions["kibitz_writer"]
    traced: list[str] = []
    hold, held = threading.Event(), threading.Event()

    def blocker(db: Database) -> None:  # holds the write lock while the moves queue up behind it
        db.conn.set_trace_callback(traced.append)  # every statement of the transaction from here on
        held.set()
        hold.wait(30)

    holding = threading.Thread(target=writer.run, args=(blocker,))
    holding.start()
    assert held.wait(30)
    first = {"type": "note", "text": "first"}
    sends: list[tuple[str, dict[str, Any], dict[str, str]]] = [
        ("first", first, {"If-Match": '"2"', "Idempotency-Key": "k-first"}),
        ("second", {"type": "note", "text": "second"}, {"If-Match": '"3"'}),  # the version the first left
        ("stale", {"type": "note", "text": "stale"}, {"If-Match": '"2"'}),  # refused: 412
        ("play", {"type": "play", "player": "Bob", "card": "7H"}, {"If-Match": '"4"', "Idempotency-Key": "k-play"}),
        ("retry", first, {"Idempotency-Key": "k-first"}),  # the first's stored answer, not yet committed
    ]
    answers: dict[str, Any] = {}
    committed_when_answered: dict[str, list[int]] = {}

    def send(name: str, action: dict[str, Any], headers: dict[str, str]) -> None:
        answers[name] = app.test_client().post(f"{open_game.url}/events", json=action,
                                               headers={**open_game.auth, **headers})
        committed_when_answered[name] = [event["seq"] for event in stored_events(database, open_game.id)]

    threads = []
    for n, (name, action, headers) in enumerate(sends, start=2):  # in this order, each waiting for the lock
        threads.append(threading.Thread(target=send, args=(name, action, headers)))
        threads[-1].start()
        deadline = time.monotonic() + 60
        while len(writer._turns._queues.get("*", ())) < n:
            assert time.monotonic() < deadline, f"{name} never came to wait for the write lock"
            time.sleep(0.01)
    assert [event["seq"] for event in stored_events(database, open_game.id)] == [1, 2]  # nothing committed yet
    hold.set()
    holding.join(30)
    for thread in threads:
        thread.join(30)
        assert not thread.is_alive()

    assert {name: answer.status_code for name, answer in answers.items()} == {
        "first": 201, "second": 201, "stale": 412, "play": 201, "retry": 201}
    assert answers["stale"].get_json()["code"] == "version_mismatch"
    assert [answers[name].get_json()["seq"] for name in ("first", "second", "play")] == [3, 4, 5]
    assert answers["retry"].get_json() == answers["first"].get_json()  # read inside the transaction
    events = stored_events(database, open_game.id)
    assert [(event["seq"], event["type"]) for event in events] == [
        (1, "game_created"), (2, "deal"), (3, "note"), (4, "note"), (5, "play")]
    assert chain.first_break(events) is None  # each chained to the head its move read
    assert set(map(tuple, committed_when_answered.values())) == {(1, 2, 3, 4, 5)}  # each answered after the commit

    kinds = [statement.split()[0].upper() for statement in traced if not statement.startswith("-- ")]
    assert kinds.count("COMMIT") == 1, traced  # one transaction for the five moves
    assert "BEGIN" not in kinds, traced  # none began its own
    assert traced.count("SAVEPOINT job") == traced.count("RELEASE job") == 3, traced  # the three that appended
    assert "ROLLBACK" not in kinds, traced  # the refusal wrote nothing to roll back
    db = store.connect(database)
    try:
        assert store.get_game(db, open_game.id)["version"] == 5
    finally:
        db.close()
