"""Database connections: one per worker thread, kept open for the app's lifetime.

A connection is opened the first time a thread of the server needs one and then reused by
every request that thread serves. Opening and closing a connection per request would be
far slower: in WAL mode the last connection to close checkpoints the log into the database
file (several extra ``fsync`` calls), which made every recorded move pay for it. The
number of connections is bounded by the server's worker threads.
"""

from __future__ import annotations

import threading
from typing import Any

from flask import Flask, current_app
from sqlite_utils import Database

from service.storage import backend as store
from service.storage import migrations, postgres

_EXTENSION = "kibitz.connections"


def get_db() -> Database:
    """The current thread's connection to ``DATABASE``, opened on first use."""
    local: threading.local = current_app.extensions[_EXTENSION]
    db: Database | None = getattr(local, "db", None)
    if db is None:
        db = store.connect(current_app.config["DATABASE"], current_app.config["SYNCHRONOUS"],
                           **connect_options(current_app))
        local.db = db
    return db


def connect_options(app: Flask) -> dict[str, Any]:
    """``store.connect``'s keyword options from the app's config (busy timeout, page cap)."""
    return {"busy_timeout_ms": app.config.get("BUSY_TIMEOUT_MS"), "max_page_count": app.config.get("MAX_PAGE_COUNT")}


def drop_connection() -> None:
    """Close the current thread's connection after a storage fault; the next request of the
    thread opens a new one (a connection SQLite opened read-only stays read-only)."""
    local: threading.local = current_app.extensions[_EXTENSION]
    db: Database | None = getattr(local, "db", None)
    local.db = None
    if db is not None:
        try:
            store.rollback(db)
        finally:
            db.close()


def rollback_leftovers(_error: BaseException | None = None) -> None:
    """After each request: roll back a transaction a failed request may have left open."""
    local: threading.local = current_app.extensions[_EXTENSION]
    db: Database | None = getattr(local, "db", None)
    if db is not None:
        store.rollback(db)


def init_app(app: Flask) -> None:
    """Create or upgrade the tables of ``DATABASE`` and set up per-thread connections."""
    db = store.connect(app.config["DATABASE"], app.config["SYNCHRONOUS"], **connect_options(app))
    try:
        if store.is_postgres(db):
            postgres.migrate(db)
        else:
            migrations.migrate(db)
    finally:
        db.close()
    app.extensions[_EXTENSION] = threading.local()
    app.teardown_appcontext(rollback_leftovers)
