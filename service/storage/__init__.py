"""The storage: every line of SQL the service runs, behind one interface.

- ``service.storage.interface``: the :class:`~service.storage.interface.Store` protocol a
  backend implements, and the storage errors every backend raises;
- ``service.storage.sqlite``: the SQLite backend (games, events, idempotency, tokens,
  projections, transactions);
- ``service.storage.postgres``: the PostgreSQL backend (its own migrations, by the same names);
- ``service.storage.backend``: what the service calls, handing each call to the backend of
  its connection;
- ``service.storage.admin``: whole-database work on SQLite (backups, checks, start-up);
- ``service.storage.postgres_admin``: the same on PostgreSQL (backups through ``pg_dump``,
  the reads of checks), both implementing :class:`~service.storage.interface.WholeDatabase`;
- ``service.storage.migrations``: the numbered migrations of the schema;
- ``service.storage.connections``: the database connections, one per worker thread;
- ``service.storage.history`` and ``service.storage.forks``: the two projections every write
  keeps (match histories, fork lineage), plain functions over a connection; the migrations
  backfill them.

The lowest layer of the service: it may import ``engine``, ``schemas`` and ``replays`` and
nothing else of the service (``tests/test_import_layers.py``); the backends themselves import
only each other.

``SQLITE`` and ``POSTGRES`` are the backends typed as the interface they implement, and
``SQLITE_ADMIN`` and ``POSTGRES_ADMIN`` their whole-database work: mypy checks here that they do.
"""

from __future__ import annotations

from service.storage import admin, interface, postgres, postgres_admin, sqlite

SQLITE: interface.Store = sqlite
POSTGRES: interface.Store = postgres
SQLITE_ADMIN: interface.WholeDatabase = admin
POSTGRES_ADMIN: interface.WholeDatabase = postgres_admin
