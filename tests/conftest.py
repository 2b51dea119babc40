"""Shared fixtures (flaskr style): a fresh temporary database per test."""

from __future__ import annotations

import inspect
import json
import os
import random
import secrets
import socket
import string
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, settings

from bench.playouts import NAMES, Playout, play
from engine.stream import replay
from service import http as service_http
from service.storage import backend, migrations, postgres
from service.web.app import create_app
from tests.installed import installed_kibitz  # noqa: F401  (built and installed once per run)
from tests.openapi_check import check_response
from tests.postgres import _migrated_schemas, migrated_postgres_url, other_postgres_url, postgres_url  # noqa: F401

# Hypothesis's timing checks fail a test on a loaded machine for nothing the test is about: no
# example has a deadline (200 ms by default) and slow generation of examples is no failure. Every
# property still runs all its examples and fails on any wrong one. (A test's own ``@settings``
# inherits this profile for what it does not name.)
settings.register_profile("kibitz", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("kibitz")

#: ``../shared`` beside the repository: the spec and the recorded example games.
SHARED = Path(__file__).resolve().parents[2] / "shared"
#: Tests that play the shared example games are skipped, saying why, when it is absent.
needs_examples = pytest.mark.skipif(
    not (SHARED / "examples").is_dir(), reason=f"{SHARED / 'examples'} is absent (../shared is not beside the repo)"
)
#: The folder of the shared example games, and the games in it (none when it is absent).
EXAMPLES_DIR = SHARED / "examples"
EXAMPLES = sorted(EXAMPLES_DIR.glob("*.json"))



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


#: The letters of the game ids made in the tests' own process (:func:`_ids_that_name_no_card`).
CARDLESS_ID_ALPHABET = string.ascii_lowercase + string.digits


@pytest.fixture(autouse=True)
def _ids_that_name_no_card(monkeypatch: pytest.MonkeyPatch) -> None:
    """Game ids made in the tests' own process (the Flask test client's writes) are drawn from
    lower-case letters and digits, still ids of the shape ``service.http.GAME_ID``: a secrecy
    test looks for a card's code ("8S", "JH") in a public answer, which holds the game's id, and
    an id of the whole alphabet holds one now and then (two CI runs failed so, on ids
    "…Mra8S" and "…J9JHq…"). A ``kibitz serve`` the tests start makes ids of its own: the
    tests that read its answers leave the id out of what they search."""
    def new_game_id() -> str:
        return "".join(secrets.choice(CARDLESS_ID_ALPHABET) for _ in range(service_http.ID_LENGTH))

    monkeypatch.setattr(service_http, "new_game_id", new_game_id)


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "kibitz.db"


#: Every test that takes ``database`` (itself or through ``app``, ``client``, ``game`` …) runs on
#: SQLite and on PostgreSQL (an empty, migrated schema of ``KIBITZ_TEST_POSTGRES``'s server:
#: tests/postgres.py), except one that chooses its own database
#: (``parametrize("database", …)``) and those named here, each with the reason it runs on
#: SQLite alone: a whole file by its module name, one test as ``module::test``. A test that
#: reaches into the SQLite file (it takes ``db_path`` or ``other_db_path``) must be named here.
SQLITE_ONLY: dict[str, str] = {
    "test_game_tokens": "drives kibitz token on the SQLite file (--db db_path), and makes that file read-only",
    "test_already_imported::test_kibitz_import_refuses_a_game_already_stored":
        "drives kibitz import on the SQLite files (--db db_path)",
    "test_csv_columns::test_whole_game_columns_add_up": "drives kibitz export on the SQLite file (--db db_path)",
    "test_fork_chain_secrecy::test_forks_stored_before_the_lineage_was_kept_are_filled_in_by_the_migration":
        "writes a fork as an older Kibitz stored it into the SQLite file, then runs SQLite's migration",
    "test_ids::test_created_forked_and_imported_games_get_such_ids":
        "drives kibitz export on the second server's SQLite file (--db other_db_path)",
    "test_problems::test_a_locked_database_is_503_not_500":
        "SQLite's own write lock, held by a second connection to the file (PostgreSQL's: test_storage_postgres)",
    "test_review::test_cli_replay_fits_80_columns": "drives kibitz replay on the SQLite file (--db db_path)",
    "test_review::test_cli_replay_of_long_summaries_wraps": "drives kibitz replay on the SQLite file (--db db_path)",
    "test_review::test_cli_replay_unknown_game": "drives kibitz replay on the SQLite file (--db db_path)",
    "test_text_not_unicode::test_any_name_or_title_is_201_or_422_and_then_readable":
        "drives kibitz replay/export on the SQLite file (--db db_path)",
    "test_text_not_unicode::test_any_note_or_reason_is_201_or_422_and_then_readable": "drives kibitz replay/export on the SQLite file (--db db_path)",
    "test_text_not_unicode::test_any_text_in_an_imported_export_is_201_or_422_and_then_readable": "drives kibitz replay/export on the SQLite file (--db db_path)",
    "test_text_not_unicode::test_kibitz_import_of_a_file_with_a_lone_surrogate_is_refused":
        "drives kibitz import on the SQLite file (--db db_path)",
    "test_text_not_unicode::test_a_game_stored_with_lone_surrogates_before_the_fix_reads_and_exports":
        "writes text as an older Kibitz stored it into the SQLite file; reads it back with kibitz replay/export",
    "test_text_people_type::test_names_stored_before_keep_reading_and_matching_as_stored":
        "writes names as an older Kibitz stored them into the SQLite file",
    "test_text_people_type::test_the_migration_recomputes_the_match_keys_of_stored_games":
        "writes match keys as an older Kibitz stored them into the SQLite file, then runs SQLite's migration",
    "test_typed_text_on_pages::test_an_override_stored_before_the_rules_stays_inside_its_isolate":
        "writes text as an older Kibitz stored it into the SQLite file",
    "test_words_plurals::test_whole_games_say_it_right_everywhere": "drives kibitz replay/export on the SQLite file (--db db_path)",
    "test_words_plurals::test_counts_of_one_in_the_texts": "drives kibitz replay/export on the SQLite file (--db db_path)",
    "test_words_plurals::test_missing_hand_is_named_in_the_games_word":
        "drives kibitz replay on the SQLite file (--db db_path)",
}
#: A test that chooses its database runs on both with this mark (``database`` parametrized by hand).
ON_BOTH_BACKENDS = pytest.mark.parametrize("database", ["sqlite", "postgresql"], indirect=True)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "database" not in metafunc.fixturenames:
        return
    module = metafunc.module.__name__.rpartition(".")[2]
    if module in SQLITE_ONLY or f"{module}::{metafunc.function.__name__}" in SQLITE_ONLY:
        return
    if any(mark.name == "parametrize" and "database" in str(mark.args[0]) for mark in metafunc.definition.iter_markers()):
        return  # the test chooses its database
    own = inspect.signature(metafunc.function).parameters
    if "db_path" in own or "other_db_path" in own:
        pytest.fail(f"{module}::{metafunc.function.__name__} reaches into the SQLite file: name it in "
                    "tests/conftest.py's SQLITE_ONLY with the reason, or take ``database`` instead", pytrace=False)
    metafunc.parametrize("database", ["sqlite", "postgresql"], indirect=True)


@pytest.fixture
def database(request, db_path):
    """What ``DATABASE`` names: the SQLite file ``db_path`` (not there yet), or (parametrized as
    ``postgresql``) the URL of a PostgreSQL schema with the migrations applied and no row in
    it (tests/postgres.py, ``migrated_schema``: what the service makes of a new database)."""
    if getattr(request, "param", "sqlite") == "postgresql":
        return request.getfixturevalue("migrated_postgres_url")
    return str(db_path)


@pytest.fixture
def db(database: str) -> Iterator[Any]:
    """A connection of the storage interface (``backend.connect``) to ``database``, either
    backend, with every migration applied; closed after the test."""
    conn = backend.connect(database)
    if backend.is_postgres(conn):
        postgres.migrate(conn)
    else:
        migrations.migrate(conn)
    yield conn
    conn.close()


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
def other_database(request, database, other_db_path):
    """The database of a second, separate server, on the backend of ``database``: the SQLite
    file ``other_db_path``, or the URL of a second fresh PostgreSQL schema."""
    if backend.is_postgres(database):
        return request.getfixturevalue("other_postgres_url")
    return str(other_db_path)


@pytest.fixture
def other_client(other_database):
    """A client of a second, separate server (its own database): where an export is imported
    when the game it was made from must not be stored there already (409 ``already_imported``)."""
    return create_app({"TESTING": True, "DATABASE": other_database}).test_client()


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


def play_scenario(client: Any, path: Path) -> Game:
    """Create the game of the shared example ``path`` through ``client`` and send each of its
    steps (a post, an undo or a redo; refusals included, its expectations not checked)."""
    scenario = json.loads(path.read_text())
    response = client.post("/games", json=scenario["create"])
    assert response.status_code == 201, response.get_json()
    game = Game(client, response.get_json())
    for step in scenario["steps"]:
        for kind in ("undo", "redo"):
            if kind in step:
                game.post(step[kind], kind)
        if "post" in step:
            game.post(step["post"])
    return game


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
