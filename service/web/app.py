"""The Flask application factory."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from flask import Flask
from werkzeug.routing import BaseConverter, ValidationError

from schemas.common import whole_number
from service import clubtime, http, problems
from service.record import club_key, secrecy
from service.record.cache import FoldCache
from service.record.writer import Writer
from service.storage import backend as store
from service.storage import connections
from service.web import pages
from service.web.boards import BoardAnswers
from service.web.views import games, history, meta, recording, replays, review, transfer

MIB = 1024 * 1024


class GameIdConverter(BaseConverter):
    """A game id in a path: any segment but ``import``, which is ``POST /games/import``'s own,
    so ``GET /games/import`` is a 405 whose ``Allow`` says ``POST`` (not a game lookup)."""

    regex = r"(?!import$)[^/]+"


class WholeNumberConverter(BaseConverter):
    """The routes' ``<int:…>``: a path number of ASCII digits only (``schemas.common.whole_number``).

    Werkzeug's own ``int`` converter matches ``\\d``, which takes other scripts' digits
    (``/hands/٣`` would be hand 3); here any other segment is no route (404 ``not_found``)."""

    regex = r"[0-9]+"
    weight = 50

    def to_python(self, value: str) -> int:
        number = whole_number(value)
        if number is None:
            raise ValidationError()
        return number

    def to_url(self, value: int) -> str:
        return str(int(value))


class PlayerNameConverter(BaseConverter):
    """A player's name in a path (``/players/<player:name>``, ``/people/<player:name>``), so
    that every stored name has an address, a ``/`` or ``..`` included (api.md, "Text people
    type"): ``~`` is written ``~~`` and ``/`` is written ``~s``; a name of dots only (``.``,
    ``..``, which browsers and HTTP clients fold away as path steps) gets ``~d`` in front; the
    rest is percent-encoded as usual. ``Ann`` stays ``/people/Ann``, ``A/B`` is ``/people/A~sB``,
    ``..`` is ``/people/~d..``. Any other ``~`` escape is no route (404)."""

    ESCAPES = {"~": "~", "s": "/"}

    def to_python(self, value: str) -> str:
        out: list[str] = []
        text = value
        if text.startswith("~d"):
            text = text[2:]
            if not text or set(text) != {"."}:
                raise ValidationError()
        chars = iter(text)
        for char in chars:
            if char == "~":
                escaped = self.ESCAPES.get(next(chars, ""))
                if escaped is None:
                    raise ValidationError()
                out.append(escaped)
            else:
                out.append(char)
        return "".join(out)

    def to_url(self, value: str) -> str:
        text = str(value).replace("~", "~~").replace("/", "~s")
        if text and set(text) == {"."}:
            text = "~d" + text
        return super().to_url(text)


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app.

    Config: ``DATABASE`` (default ``$KIBITZ_DB`` or ``./kibitz.db``), ``SYNCHRONOUS``
    (SQLite ``synchronous``: ``FULL`` by default, or ``$KIBITZ_SYNCHRONOUS``),
    ``MAX_CONTENT_LENGTH`` (1 MiB), ``CACHE_SIZE`` (games kept folded in memory, 256),
    ``BUSY_TIMEOUT_MS`` (how long a write waits for another program's lock before its 503:
    ``$KIBITZ_BUSY_TIMEOUT_MS``, else ``store.BUSY_TIMEOUT_MS``), ``MAX_PAGE_COUNT`` (cap
    the database at that many pages, as if the disk were full there: ``$KIBITZ_MAX_PAGE_COUNT``,
    else none), ``CLUB_KEY`` (the key that creating and importing games need:
    ``$KIBITZ_CLUB_KEY``, else none and the service is open; ``service.record.club_key``).
    ``test_config`` overrides any of them. Creates or upgrades the tables. Raises
    ``service.record.club_key.ClubKeyError`` for an unusable ``$KIBITZ_CLUB_KEY``.
    """
    app = Flask(__name__, static_folder=None)
    app.config.from_mapping(
        DATABASE=os.environ.get("KIBITZ_DB", os.path.join(os.getcwd(), "kibitz.db")),
        SYNCHRONOUS=os.environ.get("KIBITZ_SYNCHRONOUS", "FULL"),
        MAX_CONTENT_LENGTH=MIB,
        CACHE_SIZE=256,
        BUSY_TIMEOUT_MS=_env_int("KIBITZ_BUSY_TIMEOUT_MS"),
        MAX_PAGE_COUNT=_env_int("KIBITZ_MAX_PAGE_COUNT"),
    )
    if test_config is not None:
        app.config.from_mapping(test_config)
    if "CLUB_KEY" not in app.config:
        app.config["CLUB_KEY"] = club_key.from_environment()
    zone = app.config.get("TIMEZONE")
    app.config["TIMEZONE"] = clubtime.from_environment() if zone is None else (
        zone if not isinstance(zone, str) else clubtime.zone(zone))
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.url_map.converters["game"] = GameIdConverter
    app.url_map.converters["int"] = WholeNumberConverter
    app.url_map.converters["player"] = PlayerNameConverter
    per_thread = connections.Connections()
    boards = app.extensions["kibitz_boards"] = BoardAnswers(app.config["DATABASE"], app.config["SYNCHRONOUS"],
                                                            on_lost=per_thread.found_lost)
    cache = app.extensions["kibitz_cache"] = FoldCache(app.config["CACHE_SIZE"], on_suspect=boards.suspect)
    app.extensions["kibitz_writer"] = Writer(app.config["DATABASE"], app.config["SYNCHRONOUS"],
                                             on_commit=boards.committed, on_abandon=cache.forget,
                                             **connections.connect_options(app))
    connections.init_app(app, per_thread)
    seen = store.connect(app.config["DATABASE"], app.config["SYNCHRONOUS"], **connections.connect_options(app))
    try:  # the guard as the server starts: a change after it sends every cached game through the check again
        cache.observe(store.guard(seen))
    finally:
        seen.close()
    problems.register(app)
    app.before_request(secrecy.guard)  # every read of a game, API and pages: a sealed fork is 401
    app.after_request(http.security_headers)
    for blueprint in (games.bp, recording.bp, replays.bp, review.bp, transfer.bp, history.bp, meta.bp):
        app.register_blueprint(blueprint)
    app.register_blueprint(pages.blueprint.bp)  # the HTML pages (ui.md), after the API's routes
    return app


def _env_int(name: str) -> int | None:
    """The whole number in environment variable ``name``, or None when unset or empty.
    Raises ``ValueError`` naming the variable for anything else."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"{name} must be a whole number, not {raw!r}") from None
