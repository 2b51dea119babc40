"""The Kibitz service: the HTTP API, the pages and the ``kibitz`` command over the rules of ``engine``.

Its packages, lowest first; a module imports only from its own layer or one below it
(``tests/test_import_layers.py`` reads every import and fails on one that points up):

- ``service.storage``: every line of SQL, behind one interface (SQLite and PostgreSQL), the
  connections, the migrations and the two projections every write keeps (match histories,
  fork lineage); imports ``engine``, ``schemas``, ``replays`` and nothing else of the service.
- the modules here at the top, the words every layer above storage shares: ``problems`` (the
  API's errors with their status and code), ``http`` (reading a request's body, token,
  ``If-Match`` and keys), ``parsing`` (a write's payload into what the record's functions take),
  ``clubtime`` (the club's time zone) and ``catalogue`` (the four games as people name them);
  they import storage and below.
- ``service.record``: the record's own work: recording a move, the writer, the fold cache,
  secrecy, reading games, projections, export and import, the PostgreSQL listener, the club
  key, checking and copying a whole database; imports the top modules and below.
- ``service.web``: the HTTP face: the Flask app, the server, the gate, the boards answered
  from memory, the OpenAPI document, the API's views, the pages, their templates and static
  files; imports ``service.record`` and below.
- ``service.cli``: the ``kibitz`` command, one module per command group; imports anything
  below it, ``service.web`` included (``kibitz serve`` runs the app).

docs/architecture.md opens with this map and follows one recorded move through it.
"""
