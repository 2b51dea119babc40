"""A counting TCP proxy between a client (a ``kibitz serve`` process) and PostgreSQL, for the
tests and benchmarks that count round trips (tests/test_round_trips.py, bench/append_bench.py).

A *round trip* is one turn of a connection's conversation: the client sends (one message or
a whole pipeline, in as many TCP segments as it takes) and then waits for the server's
answer. The proxy sees it as a run of client bytes that starts after the server last spoke
(or when the connection opened): bytes the client sends while the server is still silent
belong to the same run, and bytes the server sends without being asked (a notification to
a listening connection) are no round trip. :attr:`CountingProxy.turns` counts those runs
over every connection but a process's listening one (:data:`LISTENER`), so a client that
sends ``BEGIN``, a lock, a read and waits once
counts 1, and one that sends them one at a time, waiting for each, counts 3.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
from urllib.parse import urlsplit, urlunsplit

#: What the startup message of a ``kibitz serve`` process's listening connection holds (its
#: ``application_name``, ``service.record.listener``): that connection's turns (``LISTEN``, and its
#: look at the database's guard after each wait) are no move's, and are not counted.
LISTENER = b"kibitz listener"


class CountingProxy:
    """Forward ``<listen>:<port>`` (``127.0.0.1`` unless told) to ``host:port`` of ``url`` (a
    ``postgresql://`` URL), counting each connection's round trips (:attr:`turns`) and the
    client's bytes. Its sockets are opened on the network of the thread that makes it (another
    machine's, inside ``tests.netns.inside``: tests/test_league_machines.py)."""

    def __init__(self, url: str, *, listen: str = "127.0.0.1") -> None:
        parts = urlsplit(url)
        self._target = (parts.hostname or "127.0.0.1", parts.port or 5432)
        self._listener = socket.create_server((listen, 0))
        self.port = self._listener.getsockname()[1]
        netloc = parts.netloc.rsplit("@", 1)
        user = netloc[0] + "@" if len(netloc) == 2 else ""
        self.url = urlunsplit((parts.scheme, f"{user}{listen}:{self.port}", parts.path, parts.query, ""))
        self._lock = threading.Lock()
        self.turns = 0
        self.sent = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="counting-proxy", daemon=True)
        self._thread.start()

    def count(self) -> int:
        """The round trips counted so far, over every connection but a listener's."""
        with self._lock:
            return self.turns

    def close(self) -> None:
        """Stop forwarding and close every connection."""
        self._stop.set()
        self._listener.close()
        self._thread.join(5)

    def _serve(self) -> None:
        selector = selectors.DefaultSelector()
        self._listener.setblocking(False)
        selector.register(self._listener, selectors.EVENT_READ, None)
        # per client socket: [server socket, client has the floor (sent since the server last spoke),
        # the connection is a listener's]
        pairs: dict[socket.socket, list] = {}
        try:
            while not self._stop.is_set():
                for key, _events in selector.select(timeout=0.2):
                    if key.data is None:
                        try:
                            client, _address = self._listener.accept()
                        except OSError:
                            continue
                        server = socket.create_connection(self._target)
                        for each in (client, server):
                            each.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                        state = [server, False, False]
                        pairs[client] = state
                        selector.register(client, selectors.EVENT_READ, ("client", client, state))
                        selector.register(server, selectors.EVENT_READ, ("server", client, state))
                        continue
                    side, client, state = key.data
                    source = client if side == "client" else state[0]
                    target = state[0] if side == "client" else client
                    try:
                        data = source.recv(65536)
                    except OSError:
                        data = b""
                    if not data:
                        for each in (client, state[0]):
                            with contextlib.suppress(KeyError, ValueError):
                                selector.unregister(each)
                            each.close()
                        pairs.pop(client, None)
                        continue
                    if side == "client":
                        if LISTENER in data:  # the startup message names it: none of its turns count
                            state[2] = True
                        with self._lock:
                            if not state[1] and not state[2]:
                                self.turns += 1
                            state[1] = True
                            self.sent += len(data)
                    else:
                        state[1] = False
                    with contextlib.suppress(OSError):
                        target.sendall(data)
        finally:
            for client, state in pairs.items():
                client.close()
                state[0].close()
            selector.close()
