"""One database connection per request (``flask.g``), closed at teardown."""

from __future__ import annotations

from flask import Flask, current_app, g
from sqlite_utils import Database

from service import store


def get_db() -> Database:
    """The request's connection to ``DATABASE``, opened on first use."""
    if "db" not in g:
        g.db = store.connect(current_app.config["DATABASE"], current_app.config["SYNCHRONOUS"])
    db: Database = g.db
    return db


def close_db(_error: BaseException | None = None) -> None:
    """Close the request's connection, if one was opened."""
    db = g.pop("db", None)
    if db is not None:
        db.close()


def init_app(app: Flask) -> None:
    """Create or upgrade the tables of ``DATABASE`` and register the teardown."""
    db = store.connect(app.config["DATABASE"], app.config["SYNCHRONOUS"])
    try:
        store.migrate(db)
    finally:
        db.close()
    app.teardown_appcontext(close_db)
