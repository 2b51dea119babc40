"""One function builds every error body: each error path answers with the same shape."""

from __future__ import annotations

import pytest
from flask import Blueprint

from tests.conftest import assert_problem


def test_internal_errors_hide_internals(database):
    from service.web.app import create_app

    app = create_app({"DATABASE": database})
    boom = Blueprint("boom", __name__)

    @boom.get("/boom")
    def explode():
        raise RuntimeError("secret internals /etc/passwd")

    app.register_blueprint(boom)
    response = app.test_client().get("/boom")
    body = assert_problem(response, 500, "internal_error")
    assert "secret" not in response.get_data(as_text=True)
    assert set(body) == {"type", "title", "status", "detail", "code"}


@pytest.mark.parametrize(
    ("method", "path", "status", "code"),
    [
        ("get", "/nope", 404, "not_found"),
        ("put", "/games", 405, "method_not_allowed"),
        ("patch", "/health", 405, "method_not_allowed"),
        ("get", "/games/missing", 404, "game_not_found"),
        ("get", "/games/missing/events", 404, "game_not_found"),
        ("post", "/games/missing/redo", 404, "game_not_found"),
    ],
)
def test_http_errors_are_problems(client, method, path, status, code):
    assert_problem(getattr(client, method)(path), status, code)


def test_405_keeps_allow(client):
    response = client.put("/games")
    assert set(response.headers["Allow"].split(", ")) >= {"GET", "POST"}


def test_game_errors_carry_the_version(open_game):
    body = assert_problem(open_game.post({"type": "play", "player": "Ann", "card": "TH"}), 409, "not_your_turn")
    assert body["version"] == 2


def test_a_locked_database_is_503_not_500(open_game, client, db_path, monkeypatch):
    from service.storage import sqlite as store

    monkeypatch.setattr(store, "BUSY_TIMEOUT_MS", 50)
    blocker = store.connect(db_path)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        response = open_game.post({"type": "note", "text": "x"})
    finally:
        blocker.rollback()
        blocker.close()
    body = assert_problem(response, 503, "storage_unavailable")
    assert response.headers["Retry-After"] == "1" and "version" not in body
