"""A ``kill -9`` of a ``kibitz serve`` process under load loses no acknowledged event
(docs/league.md): two processes on one PostgreSQL, tablets recording into several games
through both (each game through both processes, without ``If-Match``), one process killed
mid-load; and one process on a SQLite file, killed and started again.

Afterwards every move that got a 201 is in the log at the seq its 201 named (read through
the surviving or restarted process and through the storage), each game's seqs run 1..n with
no gap or duplicate, every hash chains to the one before and ends in the game's
``record_hash``, the survivor went on recording, and a restarted process serves the same
games and records after them. A write whose answer the kill cut off in any way (a refused or
reset connection, a body cut short, a timeout: tests/lost_answers.py) is not acknowledged: it
may be stored or not, but never twice, and nothing is stored that no tablet sent. The load is
counted, not timed: the kill comes once enough moves are acknowledged (a few seconds on a
quiet machine), and the survivor records until enough more are."""

from __future__ import annotations

import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

from replays import chain
from service.storage import backend as store
from tests.conftest import PLAYERS
from tests.lost_answers import ACKNOWLEDGED, LOST_ANSWER, REFUSED, Attempt, check_log, send
from tests.postgres import postgres_url  # noqa: F401  (the fixture)
from tests.serving import kibitz_command, start, stop

#: Acknowledged moves before the kill (every tablet's), and through the survivor after it.
BEFORE_KILL, AFTER_KILL = 40, 10
#: Seconds the load may take to reach either count on a loaded machine (a few on a quiet one).
LOAD_WITHIN = 120.0


@dataclass
class Tablet:
    """One client recording notes into one game, through ``bases[0]`` until an answer is lost
    (the process is gone, or too slow to tell), then through the next, as behind a proxy."""

    name: str
    game: dict[str, Any]
    bases: list[str]
    attempts: list[Attempt] = field(default_factory=list)

    @property
    def acknowledged(self) -> list[Attempt]:
        return [attempt for attempt in self.attempts if attempt.outcome == ACKNOWLEDGED]

    @property
    def refused(self) -> list[str]:
        """The answers other than 201 (whole answers: a lost one is not refused)."""
        return [attempt.detail for attempt in self.attempts if attempt.outcome == REFUSED]

    def run(self, stop: threading.Event) -> None:
        n = 0
        with requests.Session() as session:
            while not stop.is_set() and self.bases:
                n += 1
                attempt = send(session, "POST", f"{self.bases[0]}/games/{self.game['id']}/events",
                               f"{self.name} move {n}", json={"type": "note", "text": f"{self.name} move {n}"},
                               timeout=30, headers={"Authorization": f"Bearer {self.game['token']}"})
                self.attempts.append(attempt)
                if attempt.outcome == LOST_ANSWER:
                    self.bases.pop(0)
                    session.close()


def _until(what: str, check: Any) -> None:
    """Wait until ``check()`` holds; fails after :data:`LOAD_WITHIN` seconds."""
    deadline = time.monotonic() + LOAD_WITHIN
    while not check():
        assert time.monotonic() < deadline, f"{what} not within {LOAD_WITHIN} s"
        time.sleep(0.02)


def _load(bases: list[list[str]], games: list[dict[str, Any]], kill: subprocess.Popen[str],
          survivor: bool) -> tuple[list[Tablet], float]:
    """Two tablets per game (``bases[i]`` the processes of tablet i, in order), recording until
    :data:`BEFORE_KILL` moves are acknowledged; then ``kill`` gets SIGKILL, and the tablets go
    on until :data:`AFTER_KILL` more are acknowledged after it (a ``survivor`` process left), or
    until every tablet has lost its last process. Returns the tablets and when the kill was sent."""
    stop = threading.Event()
    tablets = [Tablet(f"t{n}", games[n // 2], list(bases[n])) for n in range(len(bases))]
    threads = [threading.Thread(target=tablet.run, args=(stop,)) for tablet in tablets]
    for thread in threads:
        thread.start()
    try:
        _until(f"{BEFORE_KILL} acknowledged moves",
               lambda: sum(len(tablet.acknowledged) for tablet in tablets) >= BEFORE_KILL)
        kill.kill()  # SIGKILL: no finishing of requests, no shutdown of anything
        killed_at = time.monotonic()
        kill.wait(10)
        if survivor:  # a move sent before the kill may be answered after it: 0.1 s later, sent to the survivor
            _until(f"{AFTER_KILL} acknowledged moves after the kill", lambda: sum(
                1 for tablet in tablets for attempt in tablet.acknowledged if attempt.when > killed_at + 0.1)
                >= AFTER_KILL)
        else:
            _until("every tablet lost its server", lambda: not any(thread.is_alive() for thread in threads))
    finally:
        stop.set()
        for thread in threads:
            thread.join(30)
    assert not any(thread.is_alive() for thread in threads), "a tablet was still sending 30 s after the load"
    return tablets, killed_at


def _logged(base: str, game_id: str) -> list[tuple[int, str]]:
    """``(seq, text)`` of every event of the game, read page by page over HTTP."""
    out: list[tuple[int, str]] = []
    after: int | None = 0
    while after is not None:
        page = requests.get(f"{base}/games/{game_id}/events", params={"after": after, "limit": 1000}, timeout=30)
        assert page.status_code == 200, page.text
        body = page.json()
        out += [(event["seq"], event["data"].get("text", "")) for event in body["events"]]
        after = body["next_after"]
    return out


def _check_record(database: str, base: str, tablets: list[Tablet], games: list[dict[str, Any]]) -> None:
    """Every acknowledged move is in the log at its seq, through ``base`` and the storage;
    seqs 1..n; the hash chain intact up to ``record_hash``; no move stored twice, none that no
    tablet sent (:func:`tests.lost_answers.check_log`)."""
    db = store.connect(database)
    try:
        for game in games:
            logged = _logged(base, game["id"])
            assert logged[:1] == [(1, "")]  # the game's creation
            check_log(logged[1:], [attempt for tablet in tablets if tablet.game is game for attempt in tablet.attempts],
                      first_seq=2)
            stored = store.events(db, game["id"])
            assert [(event["seq"], event["data"].get("text", "")) for event in stored] == logged
            expected = chain.GENESIS
            for event in stored:
                expected = chain.event_hash(expected, event)
                assert event["hash"] == expected, f"game {game['id']}: the chain breaks at event {event['seq']}"
            row = store.get_game(db, game["id"])
            assert row is not None and row["version"] == len(stored) and row["record_hash"] == expected
    finally:
        db.close()


def _new_games(base: str, count: int) -> list[dict[str, Any]]:
    games = []
    for _ in range(count):
        created = requests.post(f"{base}/games", json={"game": "toepen", "players": PLAYERS, "visibility": "open"},
                                timeout=30)
        assert created.status_code == 201, created.text
        games.append(created.json())
    return games


def _record_once_more(base: str, games: list[dict[str, Any]], database: str) -> None:
    """The process at ``base`` serves each game at its stored version and records after it."""
    db = store.connect(database)
    try:
        versions = {game["id"]: store.version_of(db, game["id"]) for game in games}
    finally:
        db.close()
    for game in games:
        assert requests.get(f"{base}/games/{game['id']}", timeout=30).json()["version"] == versions[game["id"]]
        answer = requests.post(f"{base}/games/{game['id']}/events", json={"type": "note", "text": "after the kill"},
                               headers={"Authorization": f"Bearer {game['token']}"}, timeout=30)
        assert answer.status_code == 201, answer.text
        assert answer.json()["seq"] == versions[game["id"]] + 1  # type: ignore[operator]


def test_a_kill_9_of_one_of_two_postgresql_servers_loses_no_acknowledged_event(
        tmp_path: Path, postgres_url: str) -> None:  # noqa: F811
    folders = [tmp_path / name for name in ("a", "b", "a2")]
    for folder in folders:
        folder.mkdir()
    doomed, first = start(folders[0], database=postgres_url)
    survivor, second = start(folders[1], database=postgres_url)
    restarted = None
    try:
        games = _new_games(first, 4)
        # each game gets one tablet through each process; the first's move on to the survivor
        tablets, killed_at = _load([[first, second], [second]] * 4, games, doomed, survivor=True)
        assert doomed.returncode == -9
        acknowledged = [entry for tablet in tablets for entry in tablet.acknowledged]
        assert len(acknowledged) > 20, "too little load to test anything"
        # no 503: the writers of two processes, each locking several games at once, never deadlock
        assert [answer for tablet in tablets for answer in tablet.refused] == []
        assert any(attempt.when > killed_at + 0.1 for attempt in acknowledged), "the survivor stopped recording"
        _check_record(postgres_url, second, tablets, games)
        restarted, again = start(folders[2], database=postgres_url)
        _check_record(postgres_url, again, tablets, games)
        _record_once_more(again, games, postgres_url)
        _record_once_more(second, games, postgres_url)
    finally:
        for proc in (doomed, survivor, restarted):
            if proc is not None:
                stop(proc)


def test_a_kill_9_of_a_sqlite_server_loses_no_acknowledged_event(tmp_path: Path) -> None:
    database = str(tmp_path / "kibitz.db")
    doomed, base = start(tmp_path, database=database)
    restarted = None
    try:
        games = _new_games(base, 4)
        tablets, _killed_at = _load([[base]] * 8, games, doomed, survivor=False)
        assert doomed.returncode == -9
        assert sum(len(tablet.acknowledged) for tablet in tablets) > 20, "too little load to test anything"
        assert [answer for tablet in tablets for answer in tablet.refused] == []
        restarted, again = start(tmp_path, database=database)
        _check_record(database, again, tablets, games)
        _record_once_more(again, games, database)
    finally:
        for proc in (doomed, restarted):
            if proc is not None:
                stop(proc)
    checked = subprocess.run([*kibitz_command(), "check", "--db", database], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr
