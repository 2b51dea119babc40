"""Shared fixtures (flaskr style): a fresh temporary database per test."""

from __future__ import annotations

import inspect
import os
import random
import socket
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from bench.playouts import NAMES, Playout, play
from engine.stream import replay
from service.app import create_app
from service.storage import backend
from tests.openapi_check import check_response
from tests.postgres import postgres_url  # noqa: F401  (the fixture)

#: ``../shared`` beside the repository: the spec and the recorded example games.
SHARED = Path(__file__).resolve().parents[2] / "shared"
#: Tests that play the shared example games are skipped, saying why, when it is absent.
needs_examples = pytest.mark.skipif(
    not (SHARED / "examples").is_dir(), reason=f"{SHARED / 'examples'} is absent (../shared is not beside the repo)"
)



class DocumentedClient(FlaskClient):
    """The test client of every app in the suite: each response is checked against the
    OpenAPI document (its status, media type, required headers and JSON schema), so the
    document stays true to what the service sends (api.md, "Other")."""

    def open(self, *args: Any, **kwargs: Any) -> Any:
        response = super().open(*args, **kwargs)
        request = response.request
        check_response(request.method, request.path, response.status_code, response.mimetype, response.headers,
                       response.get_data())
        return response


Flask.test_client_class = DocumentedClient

PLAYERS = ["Ann", "Bob", "Cas", "Dee"]
OPEN_DEAL = {
    "type": "deal",
    "dealer": "Ann",
    "hands": {
        "Ann": ["TH", "9C", "JD", "QS"],
        "Bob": ["7H", "8C", "AD", "KS"],
        "Cas": ["JH", "8H", "TC", "9S"],
        "Dee": ["AH", "7C", "8D", "TS"],
    },
}


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "kibitz.db"


#: Every test that takes ``database`` (itself or through ``app``, ``client``, ``game`` …) runs on
#: SQLite and on PostgreSQL (a fresh, empty schema of ``KIBITZ_TEST_POSTGRES``'s server:
#: tests/postgres.py), except a test that reaches into the SQLite file itself (it takes
#: ``db_path``), one that chooses its own database (``parametrize("database", …)``), and the
#: files named here, each with the reason it runs on SQLite only.
SQLITE_ONLY: dict[str, str] = {
}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "database" not in metafunc.fixturenames or metafunc.module.__name__.rpartition(".")[2] in SQLITE_ONLY:
        return
    own = inspect.signature(metafunc.function).parameters
    if "db_path" in own or any(
            mark.name == "parametrize" and "database" in str(mark.args[0]) for mark in metafunc.definition.iter_markers()):
        return  # the test reaches into the SQLite file itself (or chooses its database)
    metafunc.parametrize("database", ["sqlite", "postgresql"], indirect=True)


@pytest.fixture
def database(request, db_path):
    """What ``DATABASE`` names: the SQLite file ``db_path``, or (parametrized as
    ``postgresql``) the URL of a fresh PostgreSQL schema."""
    if getattr(request, "param", "sqlite") == "postgresql":
        return request.getfixturevalue("postgres_url")
    return str(db_path)


def stored_events(database: str, game_id: str) -> list[dict[str, Any]]:
    """The events of ``game_id`` as stored in ``database`` (a ``database`` fixture's value, either
    backend), read through the storage interface on a connection of their own."""
    db = backend.connect(database)
    try:
        return backend.events(db, game_id)
    finally:
        db.close()


@pytest.fixture
def app(database):
    return create_app({"TESTING": True, "DATABASE": database})


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def other_db_path(tmp_path):
    return tmp_path / "other.db"


@pytest.fixture
def other_client(other_db_path):
    """A client of a second, separate server (its own database): where an export is imported
    when the game it was made from must not be stored there already (409 ``already_imported``)."""
    return create_app({"TESTING": True, "DATABASE": str(other_db_path)}).test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


class Game:
    """A created game and helpers to write to it through the test client."""

    def __init__(self, client: Any, body: dict[str, Any]) -> None:
        self.client = client
        self.body = body
        self.id = body["id"]
        self.token = body["token"]
        self.url = f"/games/{self.id}"

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def post(self, action: Any, path: str = "events", **headers: str) -> Any:
        return self.client.post(f"{self.url}/{path}", json=action, headers={**self.auth, **headers})

    def get(self, path: str = "", token: bool = True) -> Any:
        return self.client.get(self.url + path, headers=self.auth if token else {})


def create(client: Any, **overrides: Any) -> Game:
    body = {"game": "toepen", "players": PLAYERS, **overrides}
    response = client.post("/games", json=body)
    assert response.status_code == 201, response.get_json()
    return Game(client, response.get_json())


@pytest.fixture
def game(client):
    """A table-visibility Toepen game for four."""
    return create(client)


@pytest.fixture
def open_game(client):
    """An open Toepen game for four, dealt (Bob to lead)."""
    created = create(client, visibility="open")
    assert created.post(OPEN_DEAL).status_code == 201
    return created


def assert_problem(response: Any, status: int, code: str) -> dict[str, Any]:
    """Check an RFC 9457 problem response and return its body."""
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["status"] == status
    assert body["code"] == code, body
    assert body["type"].endswith(code)
    assert isinstance(body["title"], str) and body["title"]
    assert isinstance(body["detail"], str) and body["detail"]
    return body


def checked_playout(
    checks: ModuleType,
    game: str,
    seed: int,
    players: tuple[int, int],
    options: dict[str, Any],
    visibility: str,
    **play_options: Any,
) -> Playout:
    """Play one random game of ``game`` with ``bench.playouts.play`` and check it all the way.

    ``checks`` is the game's ``tests/test_playouts_<game>.py``: its ``check(playout, legal)``
    runs on every state, its ``PLAY`` arguments (``play_options`` override them) go to the
    driver, its ``check_end(playout, options)`` runs on the final state. Every game also gets:
    an undo and a redo folded off the log after every action give the states back; rebuilding
    the stored log twice gives the live state both times. ``seed`` draws the number of
    players (from ``players``, names from ``bench.playouts.NAMES``), the dealer (or first
    player) and every choice of the game.
    """
    rng = random.Random(seed)
    names = NAMES[: rng.randint(*players)]
    starter = rng.choice(names)
    out = play(game, rng, names, options, visibility, starter=starter, check=checks.check, probe_undo=True,
               **{**checks.PLAY, **play_options})
    first, second = rebuilt(out), rebuilt(out)
    assert first == second == out.state, "rebuilding the log does not give the live state"
    checks.check_end(out, options)
    return out


def rebuilt(game: Playout) -> Any:
    """The state at the end of ``game``'s log, folded from ``game_created`` by ``engine.stream.replay``."""
    last = None
    for step in replay(game.rules, game.events):
        last = step.stream
    assert last is not None
    return last.state


_ports_given: set[int] = set()


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now, for a real ``kibitz serve`` to listen on.

    The kernel chooses it (a bind to port 0), so runs of other developers on the same machine
    rarely meet. Under pytest-xdist each worker takes only ports whose half (Linux hands out
    ports of one parity to ``bind``) equals its number modulo the number of workers, so two
    workers of one run never get the same port; and no process is given the same port twice.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    index, count = int(worker.removeprefix("gw") or 0), int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    for _ in range(1000):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
        if port // 2 % count == index % count and port not in _ports_given:
            _ports_given.add(port)
            return port
    raise RuntimeError(f"no free port for xdist worker {worker} of {count} after 1000 tries")


def rechain(db: Any, game_id: str) -> None:
    """Recompute ``game_id``'s hash chain and ``record_hash`` from its stored events, as the
    chain's migration does for games stored before it: for tests that write data as an older
    Kibitz stored it (the immutability trigger already dropped by the test), so that the
    record reads as sound rather than as tampered with."""
    from replays import chain
    from service.storage import sqlite as store

    previous = chain.GENESIS
    for event in store.events(db, game_id):
        previous = chain.event_hash(previous, {key: event[key] for key in ("seq", "type", "data", "recorded_at", "at", "salt")})
        db.execute("UPDATE events SET hash = ? WHERE game_id = ? AND seq = ?", [previous, game_id, event["seq"]])
    db.execute("UPDATE games SET record_hash = ? WHERE id = ?", [previous, game_id])
