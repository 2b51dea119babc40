"""A TCP proxy in front of a PostgreSQL server that counts round trips, as the network sees them.

Each connection through it is counted on its own: a *round trip* is each time the server
starts answering after the client sent something (the direction of the bytes turns from
client-to-server to server-to-client), however many messages, statements or TCP segments each
side sent meanwhile: pipelined statements sent together are one round trip, as they are on a
network. The client's startup message is read for its ``application_name``, so the connections
of the ``kibitz serve`` listeners (``kibitz listener <pid>``, which ping the server every second)
can be left out of a count.
"""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext, suppress
from dataclasses import dataclass, field

_SSL_REQUEST, _GSS_REQUEST = 80877103, 80877104


@dataclass
class Link:
    """One client connection through the proxy: its ``application_name`` (once its startup
    message was read) and its round trips so far."""

    name: str | None = None
    round_trips: int = 0
    _client_spoke: bool = False
    _startup: bytes = b""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def client_sent(self, data: bytes) -> None:
        with self._lock:
            self._client_spoke = True
            if self.name is None:
                self._startup += data
                self.name = _application_name(self._startup)

    def server_sent(self) -> None:
        with self._lock:
            if self._client_spoke:
                self.round_trips += 1
                self._client_spoke = False


def _application_name(data: bytes) -> str | None:
    """The ``application_name`` of the startup message in ``data`` (after an SSL or GSS
    request), ``""`` when it names none, None while the message is not complete yet."""
    while len(data) >= 8:
        length, code = struct.unpack("!ii", data[:8])
        if len(data) < length:
            return None
        if code in (_SSL_REQUEST, _GSS_REQUEST):
            data = data[length:]
            continue
        fields = data[8:length].split(b"\0")
        pairs = dict(zip(fields[0::2], fields[1::2], strict=False))
        return pairs.get(b"application_name", b"").decode("utf-8", "replace")
    return None


class CountingProxy:
    """Listens on ``listen`` (host, port) and forwards each connection to ``target``; the
    sockets are opened inside ``where()`` (a context, such as ``tests.netns.inside``), so the
    proxy can run on another machine's network. :meth:`round_trips` sums the links' counts."""

    def __init__(self, listen: tuple[str, int], target: tuple[str, int],
                 where: Callable[[], AbstractContextManager[object]] = nullcontext) -> None:
        self.listen, self.target, self.where = listen, target, where
        self.links: list[Link] = []
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._ready = threading.Event()
        self._server: socket.socket | None = None
        self._thread = threading.Thread(target=self._accept, name="pg-proxy", daemon=True)

    def start(self) -> CountingProxy:
        self._thread.start()
        self._ready.wait(10)
        if self._server is None:
            raise RuntimeError("the proxy could not listen")
        return self

    def round_trips(self, keep: Callable[[Link], bool] = lambda link: True) -> int:
        """The round trips of every link ``keep`` keeps so far."""
        with self._lock:
            return sum(link.round_trips for link in self.links if keep(link))

    def close(self) -> None:
        with self._lock:
            sockets, self._sockets = self._sockets, []
        if self._server is not None:
            self._server.close()
        for each in sockets:
            with suppress(OSError):
                each.shutdown(socket.SHUT_RDWR)
            each.close()

    def _accept(self) -> None:
        with self.where():  # every thread started from here is on the same network
            try:
                server = socket.create_server(self.listen)
            except OSError:
                self._ready.set()
                return
            self._server = server
            self._ready.set()
            while True:
                try:
                    client, _ = server.accept()
                except OSError:
                    return
                try:
                    upstream = socket.create_connection(self.target, timeout=10)
                except OSError:
                    client.close()
                    continue
                upstream.settimeout(None)
                for each in (client, upstream):
                    each.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                link = Link()
                with self._lock:
                    self.links.append(link)
                    self._sockets += [client, upstream]
                threading.Thread(target=self._pump, args=(client, upstream, link.client_sent), daemon=True).start()
                threading.Thread(target=self._pump, args=(upstream, client, lambda _data, link=link: link.server_sent()),
                                 daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket, seen: Callable[[bytes], None]) -> None:
        try:
            while data := source.recv(65536):
                seen(data)  # before it is passed on: the answer cannot be counted before its question
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for each in (source, sink):
                with suppress(OSError):
                    each.shutdown(socket.SHUT_RDWR)
