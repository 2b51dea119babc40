"""The record: what happens to a club's games between a request and the storage.

- ``writes``: every write (create, record, correct, undo, redo, fork, import), one path for
  the API and the pages; ``moves``: the write routes the server answers directly;
  ``writer``: the one writer per process that commits them;
- ``cache``: the fold cache and the checked read of stored events (every read goes through
  ``checked_events``); ``games``: loading a game and its events for a route;
- ``secrecy``: who may see which cards (players, spectators, forks up a chain);
- ``projections``: lists and tables rebuilt from the logs and checked against them;
- ``transfer``: exports and imports of whole games (JSON, CSV, text);
- ``listener``: hearing moves recorded by other processes on the same PostgreSQL database;
- ``club_key``: the club's shared secret for creating and importing games;
- ``checking`` and ``copying``: whole-database work (``kibitz check``, ``kibitz copy``).

May import ``engine``, ``schemas``, ``replays``, ``service.storage`` and the modules at the
top of ``service`` (problems, http, parsing, clubtime, catalogue); never ``service.web`` or
``service.cli`` (``tests/test_import_layers.py``).
"""
