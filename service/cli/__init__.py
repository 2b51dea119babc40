"""The ``kibitz`` command (``setup.cfg``'s console script ``service.cli.main:main``).

- ``main``: the command group, ``serve``, ``init-db``, ``replay``, ``backup``, ``check``,
  ``verify``; ``transfer``: ``export`` and ``import``; ``copy``: ``copy``;
  ``tokens``: ``token``; ``lan``: the addresses and the QR code of ``serve --lan``.
- ``python -m service.cli`` runs it too (``__main__``).

The top layer: may import every package of the service, ``service.web`` included (``serve``
runs the app); nothing imports it but ``wsgi.py`` (``lan.known_hosts``).
"""
