"""Database connections: one per worker thread, kept open for the app's lifetime.

A connection is opened the first time a thread of the server needs one and then reused by
every request that thread serves. Opening and closing a connection per request would be
far slower: in WAL mode the last connection to close checkpoints the log into the database
file (several extra ``fsync`` calls), which made every recorded move pay for it. The
number of connections is bounded by the server's worker threads.

A connection that fails with a storage fault is dropped (:func:`drop_connection`), and so is
one found lost after a request (its server stopped or ended it): the thread's next request
opens a new one. When a lost connection is found (by a request, or by the PostgreSQL
listener of ``service.record.listener``, which finds it within a fraction of a second), every
thread's connection opened before then is dropped at its thread's next request (the server
that ended one has most likely ended them all), so a PostgreSQL server that restarted while
the process was idle most often costs no failed request (one that meets a connection not
yet replaced is a 503, never a 500).
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

from flask import Flask, current_app
from sqlite_utils import Database

from service.storage import backend as store
from service.storage import migrations, postgres

_EXTENSION = "kibitz.connections"


class _Thread(threading.local):
    db: Database | None = None
    #: the app's :attr:`Connections.lost` when ``db`` was opened
    opened_at = 0


class Connections:
    """The app's connections: each thread's own (``here``), and how many times any thread
    found its connection ``lost`` (every connection opened before then is dropped)."""

    def __init__(self) -> None:
        self.here = _Thread()
        self.lost = 0
        self._lock = threading.Lock()

    def found_lost(self) -> None:
        """A connection was found lost: every connection opened before is to be dropped."""
        with self._lock:
            self.lost += 1


def _connections() -> Connections:
    found: Connections = current_app.extensions[_EXTENSION]
    return found


def get_db() -> Database:
    """The current thread's connection to ``DATABASE``, opened on first use (and again after
    it was dropped, or after another thread found its own lost since it was opened)."""
    connections = _connections()
    here = connections.here
    if here.db is not None and here.opened_at != connections.lost:
        _close(connections)
    if here.db is None:
        opened_at = connections.lost
        here.db = store.connect(current_app.config["DATABASE"], current_app.config["SYNCHRONOUS"],
                                **connect_options(current_app))
        here.opened_at = opened_at
    return here.db


def connect_options(app: Flask) -> dict[str, Any]:
    """``store.connect``'s keyword options from the app's config (busy timeout, page cap)."""
    return {"busy_timeout_ms": app.config.get("BUSY_TIMEOUT_MS"), "max_page_count": app.config.get("MAX_PAGE_COUNT")}


def _close(connections: Connections) -> None:
    """Roll back and close the thread's connection (never raises) and forget it."""
    here = connections.here
    db, here.db = here.db, None
    if db is None:
        return
    if store.is_lost(db):
        connections.found_lost()
    try:
        store.rollback(db)
    except Exception:  # noqa: BLE001 - the connection is closed below whatever went wrong
        current_app.logger.warning("rolling back a connection before closing it", exc_info=True)
    finally:
        with contextlib.suppress(Exception):
            db.close()


def drop_connection() -> None:
    """Close the current thread's connection after a storage fault (never raises); the next
    request of the thread opens a new one (a connection SQLite opened read-only stays
    read-only; a PostgreSQL connection the server ended stays closed)."""
    _close(_connections())


def rollback_leftovers(_error: BaseException | None = None) -> None:
    """After each request: roll back a transaction a failed request may have left open; a
    connection that is lost, or whose rollback fails, is dropped. Never raises."""
    connections = _connections()
    db = connections.here.db
    if db is None:
        return
    try:
        if not store.is_lost(db):
            store.rollback(db)
            return
    except Exception:  # noqa: BLE001 - a connection that cannot roll back is not reused
        current_app.logger.warning("rolling back after a request", exc_info=True)
    _close(connections)


def init_app(app: Flask, connections: Connections | None = None) -> None:
    """Create or upgrade the tables of ``DATABASE`` and set up per-thread connections
    (``connections``, or new ones)."""
    db = store.connect(app.config["DATABASE"], app.config["SYNCHRONOUS"], **connect_options(app))
    try:
        if store.is_postgres(db):
            postgres.migrate(db)
        else:
            migrations.migrate(db)
    finally:
        db.close()
    app.extensions[_EXTENSION] = connections or Connections()
    app.teardown_appcontext(rollback_leftovers)
