"""A recorded move is one read and one append (docs/architecture.md, "The write path"),
counted on a real ``kibitz serve`` through real HTTP:

- **PostgreSQL**: the server reaches its database through a counting TCP proxy
  (tests/round_trips.py) that counts round trips, every connection of the process together
  but its listening one (``service.record.listener``: it waits for other processes' notifications
  and looks at the database's guard after each wait, on no move's path and under no game's
  lock); a move of a game already in the fold cache takes **at most 3** (the read with the
  write lock, then the append with its commit: 2 today).
- **SQLite**: the server runs with every statement traced (tests/traced_serve.py,
  ``set_trace_callback`` on every connection); a move takes **at most 6** statements
  (``BEGIN IMMEDIATE``, the one read, the event's ``INSERT``, the games row's ``UPDATE``,
  the ``Idempotency-Key``'s ``INSERT`` and ``COMMIT``; 5 without a key), besides at most one
  ``PRAGMA data_version`` of ``kibitz serve``'s token gate (``service.web.gate``: the epoch it
  takes before the app reads the game, on a connection of its own, outside the write).

The first move after the game's creation is recorded before the counting starts: it opens
the connections a server opens once (the gate's, on SQLite).

Every move carries ``If-Match`` and an ``Idempotency-Key`` (the most a move reads and
writes), and a retry of one (its stored first answer, checked against the log up to its event: the move's
read and one read of the log, no write; docs/tamper-evidence.md) and a move without
a key (one statement fewer on SQLite) are counted too.
"""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import requests

from tests.conftest import OPEN_DEAL, PLAYERS, free_port
from tests.postgres import fresh_schema
from tests.round_trips import CountingProxy
from tests.serving import start, stop, wait_until_up

#: The most a steady-state move may cost.
MOST_ROUND_TRIPS = 3
MOST_STATEMENTS = 6

#: The plays after OPEN_DEAL (Ann deals, Bob leads; Ann's 10 wins the first trick, Cas's 10 the second).
PLAYS = [("Bob", "7H"), ("Cas", "JH"), ("Dee", "AH"), ("Ann", "TH"),
         ("Ann", "9C"), ("Bob", "8C"), ("Cas", "TC"), ("Dee", "7C")]
ROOT = Path(__file__).resolve().parent.parent


@contextmanager
def traced_server(folder: Path) -> Iterator[tuple[str, Path]]:
    """A real ``kibitz serve`` on a SQLite file, every statement it runs traced into a file."""
    trace = folder / "trace.txt"
    port = free_port()
    log = (folder / "server.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.traced_serve", str(trace), "serve", "--port", str(port),
         "--db", str(folder / "kibitz.db")], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base, proc, folder / "server.log")
        yield base, trace
    finally:
        stop(proc)
        log.close()


def statements(trace: Path) -> list[str]:
    """The statements traced so far (each line: thread, tab, statement). SQLite reports each
    trigger a statement fires (``games.stored_events``' counter) as that statement again, at
    once: a line repeating the one before it is that, not another statement. A table-valued
    pragma read inside a statement (the head's guard, ``pragma_schema_version()``) is
    reported as a comment (``-- PRAGMA schema_version``): part of that statement too."""
    lines = trace.read_text(encoding="utf-8").splitlines() if trace.exists() else []
    return [line for n, line in enumerate(lines) if (n == 0 or line != lines[n - 1])
            and not line.partition("\t")[2].startswith("-- ")]


def moves(base: str) -> Iterator[Callable[[], requests.Response]]:
    """Create an open Toepen game; yield one callable per move (the deal, eight plays, then
    notes), each recording its move with ``If-Match`` and a fresh ``Idempotency-Key``."""
    session = requests.Session()
    created = session.post(f"{base}/games", json={"game": "toepen", "players": PLAYERS, "visibility": "open"},
                           timeout=30)
    assert created.status_code == 201, created.text
    game, token = created.json()["id"], created.json()["token"]
    version = [1]
    actions = [OPEN_DEAL, *({"type": "play", "player": p, "card": c} for p, c in PLAYS),
               *({"type": "note", "text": f"note {n}"} for n in range(3))]

    def send(action: dict) -> Callable[[], requests.Response]:
        def move() -> requests.Response:
            answer = session.post(f"{base}/games/{game}/events", json=action, timeout=30, headers={
                "Authorization": f"Bearer {token}", "If-Match": f'"{version[0]}"',
                "Idempotency-Key": uuid.uuid4().hex})
            assert answer.status_code == 201, answer.text
            version[0] = answer.json()["version"]
            return answer
        return move

    for action in actions:
        yield send(action)


def without_key(answer: requests.Response) -> None:
    """Record one more note in the game of ``answer``, with ``If-Match`` and no key."""
    sent = answer.request
    version = answer.json()["version"]
    headers = {"Authorization": sent.headers["Authorization"], "If-Match": f'"{version}"'}
    again = requests.post(sent.url, json={"type": "note", "text": "no key"}, headers=headers, timeout=30)
    assert again.status_code == 201, again.text


def retry(base: str, answer: requests.Response) -> None:
    """Send the move of ``answer`` again with its key: its stored first answer comes back."""
    sent = answer.request
    again = requests.post(sent.url, data=sent.body, headers=dict(sent.headers), timeout=30)
    assert again.status_code == 201 and again.json() == answer.json(), again.text


def test_a_move_on_postgresql_is_at_most_three_round_trips(tmp_path: Path) -> None:
    with fresh_schema() as url:
        proxy = CountingProxy(url)
        try:
            proc, base = start(tmp_path, database=proxy.url)
            try:
                counts = []
                walk = moves(base)
                last = next(walk)()  # the connections a server opens once
                for move in walk:
                    before = proxy.count()
                    last = move()
                    counts.append(proxy.count() - before)
                before = proxy.count()
                assert last is not None
                retry(base, last)
                replayed = proxy.count() - before
                before = proxy.count()
                without_key(last)
                keyless = proxy.count() - before
            finally:
                stop(proc)
        finally:
            proxy.close()
    assert max(counts) <= MOST_ROUND_TRIPS, f"round trips per move: {counts}"
    assert replayed <= MOST_ROUND_TRIPS, f"round trips of a retried move: {replayed}"
    assert keyless <= MOST_ROUND_TRIPS, f"round trips of a move without a key: {keyless}"


def test_a_move_on_sqlite_is_at_most_six_statements(tmp_path: Path) -> None:
    with traced_server(tmp_path) as (base, trace):
        counts, gate, shown = [], [], []
        walk = moves(base)
        last = next(walk)()  # the connections a server opens once
        for move in walk:
            before = len(statements(trace))
            last = move()
            done = statements(trace)[before:]
            epochs = [line for line in done if line.endswith("\tPRAGMA data_version")]
            gate.append(len(epochs))
            # a move that waited over DEADLINE_SLACK_MS for its turn (a loaded machine) bounds its
            # BEGIN by its deadline: the busy timeout shortened and put back, two statements that
            # only such a wait adds (sqlite._begin_by); they come as that pair or not at all
            bounded = [line for line in done if "\tPRAGMA busy_timeout = " in line]
            assert len(bounded) in (0, 2), done
            counts.append(len(done) - len(epochs) - len(bounded))
            shown.append(done)
        assert last is not None
        before = len(statements(trace))
        retry(base, last)
        replayed = [line for line in statements(trace)[before:] if not line.endswith("\tPRAGMA data_version")
                 and "\tPRAGMA busy_timeout = " not in line]  # as above: only a wait for its turn adds them
        before = len(statements(trace))
        without_key(last)
        keyless = [line for line in statements(trace)[before:] if not line.endswith("\tPRAGMA data_version")
                 and "\tPRAGMA busy_timeout = " not in line]  # as above: only a wait for its turn adds them
    worst = max(range(len(counts)), key=counts.__getitem__)
    assert max(counts) <= MOST_STATEMENTS, f"statements per move: {counts}; the worst: {shown[worst]}"
    assert max(gate) <= 1, f"the gate's data_version per move: {gate}"
    # BEGIN IMMEDIATE, the read, the log up to the key's event (the stored answer checked against it), COMMIT
    assert len(replayed) <= 4, f"statements of a retried move: {replayed}"
    assert len(keyless) <= MOST_STATEMENTS - 1, f"statements of a move without a key: {keyless}"
