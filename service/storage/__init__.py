"""The storage: every line of SQL the service runs, behind one interface.

- ``service.storage.interface``: the :class:`~service.storage.interface.Store` protocol a
  backend implements, and the storage errors every backend raises;
- ``service.storage.sqlite``: the SQLite backend (games, events, idempotency, tokens,
  projections, transactions);
- ``service.storage.admin``: whole-database work on SQLite (backups, checks, start-up);
- ``service.storage.migrations``: the numbered migrations of the schema.

``SQLITE`` is the SQLite backend typed as the interface it implements: mypy checks here that
it does.
"""

from __future__ import annotations

from service.storage import interface, sqlite

SQLITE: interface.Store = sqlite
