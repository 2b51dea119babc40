"""``kibitz serve``'s HTTP server: uvicorn (asyncio, the httptools parser) in front of the Flask
app, built so that a crowd of watchers cannot lock the scorekeeper out (api.md, "What a crowd
must not break"; ``docs/crowds.md`` has the design and the sizes).

* **Connections cost a socket, not a thread.** Every connection lives in one event loop; a
  thread is taken only by a request whose headers and body have fully arrived, so idle and
  slow connections hold no worker. At most ``connection_limit`` are kept: the next one past
  it closes the connections that have waited longest without a request in progress (idle
  watchers reconnect by themselves), so a new connection, the scorekeeper's, always gets in.
  A connection must deliver a request's headers (and its body) within ``idle_timeout``
  seconds of opening or of its previous answer, however slowly it trickles them, or it is
  closed.
* **Writes never queue behind polls.** Requests run on two pools of threads: the scorekeeper's
  (every method but ``GET``/``HEAD``, every request carrying ``Authorization``) and the
  crowd's (every other read). A full crowd pool delays only reads. ``/health``, which never
  waits on the database, has a thread of its own, so a load balancer's check is answered at
  once even while every other thread waits on a database that stopped answering.
* **The game page's poll is answered from memory.** ``GET /watch/<id>/board`` is answered in
  the event loop, without a thread, a query or a template, whenever ``service.web.boards`` knows
  the game's current version (a 304 when ``If-None-Match`` names it; the public board kept
  for that version to a reader without ``Authorization``); the headers are the ones the app
  itself sent for its own board answers. Anything else goes to the app.
* **The app's refusals, before the app.** A ``Content-Length`` over the app's
  ``MAX_CONTENT_LENGTH`` gets the app's 413 problem body before any of the body is read, a
  chunked body that grows past it the same as soon as it does; a request the parser refuses
  gets a problem body too: 400 ``malformed_request`` naming the parser's reason (``Content-Length``
  not a single whole number, a bad start line or header), 431 ``request_headers_too_large``
  (over 256 KiB of headers), 501 ``not_implemented`` (a transfer coding other than chunked);
  the connection is closed after the answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import heapq
import hmac
import io
import logging
import queue
import re
import resource
import socket
import sys
import threading
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any, cast

import httptools
import uvicorn
from a2wsgi.wsgi import build_environ
from flask import Flask
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol
from werkzeug.sansio.utils import host_is_trusted

from engine.stream import REDO, UNDO
from service import problems
from service.http import (
    CLUB_KEY_INVALID,
    CLUB_KEY_REQUIRED,
    TOKENS_KEY,
    decode_json,
    token_hash,
    tokens_seen,
    varies_with_token,
)
from service.problems import ApiError
from service.record import moves
from service.record.writes import Recorded
from service.web.boards import BoardAnswers
from service.web.gate import CREATE_PATHS, WRITE_PATH, CreateLimit, Headers, TokenGate, too_many_detail

logger = logging.getLogger("uvicorn.error")
Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

#: Request headers (request line included) beyond which a request is refused with a 431.
MAX_HEADER_BYTES = 256 * 1024
#: The game page's poll (``service/web/static/watch.js``), answered from memory when possible.
BOARD_PATH = re.compile(r"/watch/([^/]+)/board")
#: A lingering close (RFC 9112 §9.6) after an answer given before the request was all read:
#: what the client still sends is read and thrown away for at most this long, ...
LINGER_SECONDS = 10.0
#: ... or until it sends nothing for this long, ...
LINGER_QUIET_SECONDS = 2.0
#: ... or until this much was thrown away; then the connection is closed.
LINGER_BYTES = 64 * 1024 * 1024
#: The scope key under which a request's connection can be asked to linger when it closes.
LINGER_KEY = "kibitz.linger"
#: The scope key of the connection's :meth:`LingeringTransport.hold`.
HOLD_KEY = "kibitz.hold"
#: ``Host`` values whose trust is remembered at most (:meth:`Front.host_trusted`).
MAX_HOSTS_KEPT = 256
#: Response headers the server writes itself, never copied from one answer to another.
OWN_HEADERS = {b"content-length", b"etag", b"date", b"server", b"connection", b"transfer-encoding"}


@dataclass(frozen=True)
class Limits:
    """How many connections are kept (``connection_limit``), how long one may take to send a
    request (``idle_timeout``, seconds), the two pools' threads (``threads`` for the
    crowd's reads, ``scorekeeper_threads`` for writes and token holders; ``/health`` has one
    thread of its own), and how many games one client address may create per minute where
    the server has no club key (``create_limit``; 0: no limit), and whether the common write
    request takes the direct route (``direct_writes``, :class:`Direct`)."""

    connection_limit: int = 4096
    idle_timeout: float = 20.0
    threads: int = 8
    scorekeeper_threads: int = 4
    #: games one client address may create per minute where there is no club key (0: no limit)
    create_limit: int = 60
    #: answer the common write request through the direct route (:class:`Direct`); False: as
    #: a WSGI request to the app, like every other request
    direct_writes: bool = True


class Refused(Exception):
    """A request refused before the app sees it: ``status``, problem ``code`` and ``detail``."""

    def __init__(self, status: int, code: str, detail: str) -> None:
        super().__init__(detail)
        self.status, self.code, self.detail = status, code, detail


#: The parser's refusals -> (status, code, the sentence's start).
REFUSALS = {
    400: ("malformed_request", "The request is not valid HTTP"),
    431: ("request_headers_too_large", "The request's headers are too large"),
    501: ("not_implemented", "The request uses what this server does not implement"),
}


def refusal(status: int, reason: str) -> Refused:
    """The :class:`Refused` for a parser refusal of ``status`` (a key of :data:`REFUSALS`)
    with the parser's ``reason`` (may be empty)."""
    code, start = REFUSALS[status]
    reason = reason.strip().rstrip(".")
    return Refused(status, code, f"{start}: {reason}." if reason else f"{start}.")


def parser_refusal(err: Exception) -> Refused:
    """What a parser error of httptools (llhttp) is answered with."""
    if isinstance(err.__context__, Refused):
        return err.__context__
    reason = str(err)
    if "Content-Length" in reason:
        return refusal(400, "Content-Length is invalid")
    if "Transfer-Encoding" in reason:
        return refusal(501, f"{reason} (only chunked is)")
    return refusal(400, reason)


class Problems:
    """The app's problem bodies, rendered once through the app (``service.problems``)."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.too_large = self.body(413, "payload_too_large", problems.TOO_LARGE)
        self.host_not_allowed = self.body(400, "host_not_allowed", problems.HOST_NOT_ALLOWED)

    def body(self, status: int, code: str, detail: str) -> tuple[bytes, bytes]:
        """``(content type, body)`` of the app's problem answer."""
        with self.app.app_context():
            answer = problems.problem(status, code, detail)
        return answer.content_type.encode("latin-1"), answer.get_data()

    def raw(self, status: int, code: str, detail: str) -> bytes:
        """A whole HTTP/1.1 answer with the problem body, closing the connection."""
        content_type, body = self.body(status, code, detail)
        return b"".join([f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n".encode("ascii"),
                         b"server: kibitz\r\nx-content-type-options: nosniff\r\ncontent-type: ", content_type, b"\r\n",
                         f"content-length: {len(body)}\r\nconnection: close\r\n\r\n".encode("ascii"), body])


async def _answer(scope: Scope, send: Send, status: int, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
    """Send a whole answer, its head and body written to the socket as one."""
    hold = scope.get(HOLD_KEY)
    if hold is not None:
        hold(True)
    try:
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
    finally:
        if hold is not None:
            hold(False)


def _linger(scope: Scope) -> None:
    """Ask the connection of ``scope`` to close with a lingering close (the answer goes out
    before the request's body was read: :class:`KibitzProtocol`)."""
    linger = scope.get(LINGER_KEY)
    if linger is not None:
        linger()


def body_too_slow(seconds: float) -> str:
    """The ``detail`` of the 408 ``request_timeout`` of a body that took longer than ``seconds``."""
    return f"The request's body did not arrive within {seconds:g} seconds."


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope["headers"]:
        if key == name:
            return cast(bytes, value)
    return None


def _headers(scope: Scope, name: bytes) -> list[bytes]:
    return [cast(bytes, value) for key, value in scope["headers"] if key == name]


#: What a pool's thread hands back: the environ the app saw, the status, headers and body.
Answered = tuple[dict[str, Any], int, list[tuple[bytes, bytes]], bytes]


class Lane:
    """One pool of threads running the WSGI app: the request (its body already read) goes to
    a thread once, and its whole answer comes back once (the app's answers are built in
    memory, never streamed), so a request crosses between the event loop and its thread
    twice, however many pieces the app writes. The hand-off is a plain queue one way and one
    ``call_soon_threadsafe`` back (no ``concurrent.futures`` future, whose condition variable
    cost more than the queue). :meth:`submit` hands any other job to the same threads (the
    direct route of writes, :class:`Direct`)."""

    def __init__(self, app: Flask, threads: int, name: str) -> None:
        self.app = app
        self.jobs: queue.SimpleQueue[tuple[Callable[..., Any], tuple[Any, ...], asyncio.AbstractEventLoop | None,
                                           Callable[[Any, BaseException | None], None] | None] | None] = \
            queue.SimpleQueue()
        self.threads = [threading.Thread(target=self._work, name=f"{name}_{n}", daemon=True) for n in range(threads)]
        for thread in self.threads:
            thread.start()

    def shutdown(self) -> None:
        """Stop the threads once the requests handed to them are answered."""
        for _ in self.threads:
            self.jobs.put(None)
        for thread in self.threads:
            thread.join()

    def submit(self, loop: asyncio.AbstractEventLoop, job: Callable[..., Any], args: tuple[Any, ...],
               done: Callable[[Any, BaseException | None], None]) -> None:
        """Run ``job(*args)`` in a thread of this pool, then ``done(result, None)`` (or
        ``done(None, error)``) in the event loop ``loop``."""
        self.jobs.put((job, args, loop, done))

    def spawn(self, job: Callable[[], None]) -> None:
        """Run ``job()`` in a thread of this pool, telling no one (it tells its own requests:
        the drain of queued writes, ``Writer.drain``)."""
        self.jobs.put((job, (), None, None))

    def _work(self) -> None:
        while True:
            item = self.jobs.get()
            if item is None:
                return
            job, args, loop, done = item
            if loop is None or done is None:
                try:
                    job(*args)
                except Exception:  # noqa: BLE001 - the job tells its own requests; the thread goes on
                    logger.exception("Exception in a job of the %s pool", threading.current_thread().name)
                continue
            try:
                result = job(*args)
            except BaseException as err:  # noqa: BLE001 - handed to the awaiting request
                _call_back(loop, done, None, err)
            else:
                _call_back(loop, done, result, None)

    def _call(self, environ: dict[str, Any]) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        return contextvars.Context().run(self._run_app, environ)

    def _run_app(self, environ: dict[str, Any]) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        started: list[Any] = []
        written: list[bytes] = []

        def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Callable[[bytes], None]:
            started[:] = [status, headers]
            return written.append

        result = self.app(environ, start_response)
        try:
            for chunk in result:
                written.append(chunk)
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()
        status, headers = started
        return (int(status.split(" ", 1)[0]),
                [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers],
                b"".join(written))

    async def __call__(self, scope: Scope, body: bytes, send: Send) -> Answered:
        """Run the app on the request in a thread of this pool and send its answer; returns
        the environ it ran with and the answer."""
        environ = cast(dict[str, Any], build_environ(cast(Any, scope), cast(Any, io.BytesIO(body))))
        loop = asyncio.get_running_loop()
        future: asyncio.Future[tuple[int, list[tuple[bytes, bytes]], bytes]] = loop.create_future()
        self.submit(loop, self._call, (environ,), functools.partial(_settle, future))
        status, headers, payload = await future
        await _answer(scope, send, status, headers, payload)
        return environ, status, headers, payload


def _call_back(loop: asyncio.AbstractEventLoop, done: Callable[[Any, BaseException | None], None], result: Any,
               error: BaseException | None) -> None:
    with contextlib.suppress(RuntimeError):  # the loop is closed: the server stopped without waiting for it
        loop.call_soon_threadsafe(done, result, error)


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():  # the request was given up (the server stops)
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


class _TokenPassed(Exception):
    """A token check without a body (``Front._check_token``) found the token live: stop there."""


def _token_passed() -> bool:
    raise _TokenPassed


class Front:
    """The ASGI application uvicorn serves: answers from memory, the two pools, the body
    limit (see the module)."""

    def __init__(self, app: Flask, limits: Limits) -> None:
        self.app = app
        self.limits = limits
        self.boards: BoardAnswers = app.extensions["kibitz_boards"]
        self.max_body = int(app.config["MAX_CONTENT_LENGTH"])
        self.problems = Problems(app)
        self.gate = TokenGate(self.boards, app.config.get("CLUB_KEY"))
        self.club_key_hash = token_hash(app.config["CLUB_KEY"]) if app.config.get("CLUB_KEY") else None
        self.writer = app.extensions["kibitz_writer"]
        self.cache = app.extensions["kibitz_cache"]
        self.create_limit = (CreateLimit(limits.create_limit)
                             if limits.create_limit > 0 and not app.config.get("CLUB_KEY") else None)
        self.crowd = Lane(app, limits.threads, "kibitz-crowd")
        self.scorekeeper = Lane(app, limits.scorekeeper_threads, "kibitz-scorekeeper")
        #: ``/health`` never waits on the database, so one thread of its own answers it at once
        #: even while every other waits on a database that stopped answering
        self.health = Lane(app, 1, "kibitz-health")
        #: the headers the app sent with its own board answers, by status (200, 304)
        self.board_headers: dict[int, list[tuple[bytes, bytes]]] = {}
        #: games whose public board the app is reading now (the other polls wait for it)
        self.pending: dict[str, asyncio.Future[None]] = {}
        #: ``Host`` values and whether they are trusted (:meth:`host_trusted`)
        self._hosts: dict[tuple[bytes, tuple[str, ...]], bool] = {}
        #: the direct route of writes (None: every write goes to the app as a WSGI request)
        self.direct = Direct(self) if limits.direct_writes else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        if not self._host_known(scope):  # before anything is answered, from memory or by the app
            _linger(scope)
            await self._problem(send, 400, *self.problems.host_not_allowed, close=True)
            return
        length = _header(scope, b"content-length")
        if length is not None and int(length) > self.max_body:
            _linger(scope)
            await self._problem(send, 413, *self.problems.too_large, close=True)
            return
        write = WRITE_PATH.fullmatch(scope["path"]) if scope["method"] == "POST" else None
        if write is not None:
            authorization = _headers(scope, b"authorization")
            refused = self.gate.refusal(write.group(1), authorization)
            if refused is None and self.gate.suspect(write.group(1), authorization):
                refused = await self._token_first(write.group(1), authorization)
            if refused is not None:  # the app's own answer, from the headers alone: the body is never read
                await self._refuse_early(scope, send, *refused)
                return
        elif self.club_key_hash is not None and scope["method"] == "POST" and scope["path"] in CREATE_PATHS:
            refused = self._club_key_refusal(_headers(scope, b"authorization"))
            if refused is not None:  # the app's own answer, from the headers alone: the body is never read
                await self._refuse_early(scope, send, *refused)
                return
        elif self.create_limit is not None and scope["method"] == "POST" and scope["path"] in CREATE_PATHS:
            client = scope.get("client")
            retry = self.create_limit.retry_after(client[0] if client else "")
            if retry is not None:
                _linger(scope)
                content_type, payload = self.problems.body(
                    429, "too_many_requests", too_many_detail(self.create_limit.per_minute, retry))
                await self._problem(send, 429, content_type, payload, close=True,
                                    extra=[(b"retry-after", str(retry).encode("ascii"))])
                return
        board = BOARD_PATH.fullmatch(scope["path"]) if scope["method"] == "GET" else None
        public = _header(scope, b"authorization") is None
        refreshing: asyncio.Future[None] | None = None
        if board is not None:
            if await self._from_memory(board.group(1), scope, send):
                return
            if public:  # one public board read per game at a time; the others wait for it
                pending = self.pending.get(board.group(1))
                if pending is not None:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(asyncio.shield(pending), self.limits.idle_timeout)
                    if await self._from_memory(board.group(1), scope, send):
                        return
                else:
                    refreshing = self.pending[board.group(1)] = asyncio.get_running_loop().create_future()
        try:
            answered = await self._to_app(scope, receive, send, board is not None and public)
            if write is not None and answered is not None:
                environ, status, headers, payload = answered
                self.gate.learn(write.group(1), None, environ.get(TOKENS_KEY), status, headers, payload)
            elif answered is not None and answered[1] == 201 and scope["path"] in CREATE_PATHS:
                self.gate.created(answered[3])  # its one token: the scorekeeper's first write goes straight on
        finally:
            if refreshing is not None and board is not None:
                del self.pending[board.group(1)]
                refreshing.set_result(None)

    async def _token_first(self, game_id: str, authorization: list[bytes]) -> tuple[int, Headers, bytes] | None:
        """The refusal of a write to ``game_id`` with these ``Authorization`` headers for its
        token, found before its body is read (:meth:`_check_token`, in a scorekeeper thread),
        or None: read the body and let the app answer."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[tuple[int, Headers, bytes] | None] = loop.create_future()
        self.scorekeeper.submit(loop, self._check_token, (game_id, authorization), functools.partial(_settle, future))
        return await future

    def _check_token(self, game_id: str, authorization: list[bytes]) -> tuple[int, Headers, bytes] | None:
        """A write's own checks (``service.record.moves.write``) up to its token, without a body:
        404, 503 ``record_damaged``, then the token. Its refusal (401 ``token_required``, 403
        ``token_invalid``) as the app answers it (``moves.refusal``), learnt by the gate with
        the epoch taken before the game was read; None for anything else (a live token, no
        such game, a damaged record, a storage fault: the app answers the whole request)."""
        epoch = self.gate.epoch(game_id)  # before the game is read
        seen: list[tuple[str, int, tuple[str, ...]]] = []
        try:
            moves.write(self.writer, self.cache, game_id, "events", None,
                        authorization=authorization[0].decode("latin-1") if authorization else None, key=None,
                        if_match=None, club_key=self.app.config.get("CLUB_KEY"),
                        token_read=lambda row: seen.append(tokens_seen(row)), dry_run=_token_passed)
        except _TokenPassed:
            self.gate.learn(game_id, epoch, seen[0] if seen else None, 201, [], b"")
            return None
        except ApiError as err:
            if not seen or err.status not in (401, 403):
                return None
            status, named, payload = moves.refusal(err, True)
            headers = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in named
                       if name.lower() != "content-length"]
            if self.gate.learn(game_id, epoch, seen[0], status, headers, payload):
                return status, headers, payload
            return None
        except Exception:  # noqa: BLE001 - the app answers the whole request (a 404, a 503, a fault) as ever
            return None
        return None

    def _club_key_refusal(self, authorization: list[bytes]) -> tuple[int, Headers, bytes] | None:
        """The app's refusal of a create or import without this server's club key
        (``service.http.require_club_key``: 401 ``club_key_required``, 403 ``club_key_invalid``),
        from the headers alone; None with the club key (or several ``Authorization`` headers:
        the app decides)."""
        if len(authorization) > 1:
            return None
        token = None
        if authorization:
            scheme, _, rest = authorization[0].decode("latin-1").strip().partition(" ")
            if scheme.lower() == "bearer" and rest.strip():
                token = rest.strip()
        if token is None:
            err = ApiError(401, "club_key_required", CLUB_KEY_REQUIRED,
                           headers={"WWW-Authenticate": 'Bearer realm="kibitz club"'})
        elif self.club_key_hash is not None and hmac.compare_digest(token_hash(token), self.club_key_hash):
            return None
        else:
            err = ApiError(403, "club_key_invalid", CLUB_KEY_INVALID)
        status, named, payload = moves.refusal(err, True)  # the answer varies with Authorization, as the app says
        return status, [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in named
                        if name.lower() != "content-length"], payload

    async def _refuse_early(self, scope: Scope, send: Send, status: int, headers: Headers, payload: bytes) -> None:
        """Answer a refusal known from the headers, the body unread, and close (lingering)."""
        _linger(scope)
        await _answer(scope, send, status, [*headers, (b"content-length", str(len(payload)).encode("ascii")),
                                            (b"connection", b"close")], payload)

    async def _to_app(self, scope: Scope, receive: Receive, send: Send, learn: bool) -> Answered | None:
        """Read the body, then hand the request to its pool's thread; the app's answer (None
        when the app did not answer: the client went away, the body was too slow or large)."""
        try:
            async with asyncio.timeout(self.limits.idle_timeout):
                body = await self._body(receive)
        except TimeoutError:
            _linger(scope)
            await self._problem(send, 408, *self.problems.body(408, "request_timeout",
                                                              body_too_slow(self.limits.idle_timeout)), close=True)
            return None
        if body is None:
            return None  # the client went away
        if len(body) > self.max_body:
            await self._problem(send, 413, *self.problems.too_large, close=False)
            return None
        headers = [(k, v) for k, v in scope["headers"] if k not in (b"content-length", b"transfer-encoding")]
        headers.append((b"content-length", str(len(body)).encode("ascii")))
        inner = {**scope, "headers": headers}
        scorekeeper = scope["method"] not in ("GET", "HEAD") or _header(scope, b"authorization") is not None
        lane = self.health if scope["path"] == "/health" else self.scorekeeper if scorekeeper else self.crowd
        if learn:
            send = self._learning(send)
        return await lane(inner, body, send)

    async def _body(self, receive: Receive) -> bytes | None:
        """The whole request body (stops reading one byte past the limit); None on disconnect."""
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            chunks.append(chunk)
            size += len(chunk)
            if size > self.max_body or not message.get("more_body", False):
                return b"".join(chunks)

    async def _from_memory(self, game_id: str, scope: Scope, send: Send) -> bool:
        """Answer a board poll from ``service.web.boards`` if it knows the game's current version."""
        known = self.boards.current(game_id)
        if known is None:
            return False
        etag = b'"%d"' % known.version
        asked = _header(scope, b"if-none-match")
        if asked is not None and asked.strip() == etag:
            if 304 not in self.board_headers:
                return False  # the app answers this one, and so shows which headers a 304 has
            await _answer(scope, send, 304, [*self.board_headers[304], (b"etag", etag)], b"")
            return True
        if known.board is not None and _header(scope, b"authorization") is None and 200 in self.board_headers:
            await _answer(scope, send, 200, [*self.board_headers[200], (b"etag", etag),
                                             (b"content-length", str(len(known.board)).encode("ascii"))], known.board)
            return True
        return False

    def _learning(self, send: Send) -> Send:
        """``send``, remembering the headers of the app's public board answers (200 and 304)."""
        async def learn(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] in (200, 304):
                self.board_headers[message["status"]] = [
                    (bytes(k).lower(), bytes(v)) for k, v in message["headers"] if bytes(k).lower() not in OWN_HEADERS]
            await send(message)
        return learn

    def _host_known(self, scope: Scope) -> bool:
        """False when the request's ``Host`` names none of the app's ``TRUSTED_HOSTS`` (the
        app's own check, ``service.problems``, made here too because a board poll may be
        answered from memory without the app)."""
        return self.host_trusted(_header(scope, b"host"))

    def host_trusted(self, host: bytes | None) -> bool:
        """:meth:`_host_known` of a ``Host`` header's value (None: no ``Host``); each value's
        answer is remembered while the app's ``TRUSTED_HOSTS`` stay the same (werkzeug's check
        encodes the name with IDNA, which costs more than the rest of a poll)."""
        trusted = self.app.config.get("TRUSTED_HOSTS")
        if not trusted or host is None:
            return True
        key = (host, tuple(trusted))
        known = self._hosts.get(key)
        if known is None:
            if len(self._hosts) >= MAX_HOSTS_KEPT:
                self._hosts.clear()
            known = self._hosts[key] = host_is_trusted(host.decode("latin-1"), trusted)
        return known

    async def _problem(self, send: Send, status: int, content_type: bytes, body: bytes, *, close: bool,
                       extra: list[tuple[bytes, bytes]] | None = None) -> None:
        headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode("ascii")),
                   (b"x-content-type-options", b"nosniff"), *(extra or [])]  # as service.http.security_headers
        if close:
            headers.append((b"connection", b"close"))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


#: The writes the direct route takes: ``POST /games/<id>/<endpoint>`` with an id of letters,
#: digits, ``_`` and ``-`` (every id Kibitz hands out), no query and no %-escape.
DIRECT_PATH = re.compile(rb"/games/([A-Za-z0-9_-]{1,100})/(events|correct|undo|redo)")
#: The ``Content-Type`` values (lower case) the direct route reads as JSON; any other goes to the app.
DIRECT_TYPES = frozenset({b"application/json", b"application/json; charset=utf-8", b"application/json;charset=utf-8"})
#: Request headers the direct route reads; a request naming one of them twice goes to the app.
DIRECT_HEADERS = frozenset({b"content-length", b"content-type", b"authorization", b"idempotency-key", b"if-match",
                            b"host", b"transfer-encoding", b"expect"})


@dataclass
class DirectWrite:
    """A write request the direct route takes (:meth:`Direct.take`): the game, the route's
    last segment (``service.record.moves.ENDPOINTS``), the headers it reads (lower-case names, at
    most once each), whether the connection stays open, and the body as it arrives."""

    game_id: str
    endpoint: str
    headers: dict[bytes, bytes]
    keep_alive: bool
    length: int
    body: bytearray = field(default_factory=bytearray)


class _Event:
    """What uvicorn's connection sets on its request cycle when the client goes away."""

    def set(self) -> None:
        pass


class DirectCycle:
    """What stands for uvicorn's request cycle on a connection while a direct write is in
    progress: uvicorn queues a pipelined request behind it, marks it ``disconnected`` when
    the client goes, and clears ``keep_alive`` when the server stops."""

    def __init__(self, keep_alive: bool) -> None:
        self.keep_alive = keep_alive
        self.response_complete = False
        self.disconnected = False
        self.message_event = _Event()


#: What a direct write's thread hands back: status, headers, body, and the tokens its check saw.
DirectAnswer = tuple[int, list[tuple[bytes, bytes]], bytes, tuple[str, int, tuple[str, ...]] | None]


class Direct:
    """The direct route of writes: ``POST /games/<id>/events`` (``/correct``, ``/undo``,
    ``/redo``) as nearly every scorekeeper sends it (a JSON body of ``Content-Length`` bytes
    that has arrived with its headers, no query, each header the write reads given once, a
    trusted ``Host``, a token the gate does not refuse) is answered without the ASGI request
    cycle, the WSGI environ and Flask's request objects: the connection hands the request
    to a scorekeeper thread, which runs ``service.record.moves.write`` (the function the Flask view
    runs: ``service.record.writes.record``, one read and one append) and builds the answer the
    app gives (``service.record.moves.answer``, ``refusal``; any other error answered by the app's
    own error handlers), and the connection writes it in one piece. Anything else, and every
    request of a server started with ``Limits.direct_writes`` off, goes to the app as before
    (``tests/test_direct_writes.py`` compares the two answer for answer)."""

    def __init__(self, front: Front) -> None:
        self.front = front
        self.app = front.app
        self.writer = front.app.extensions["kibitz_writer"]
        self.cache = front.app.extensions["kibitz_cache"]
        self.club_key = front.app.config.get("CLUB_KEY")
        #: the requests answered through this route so far
        self.answered = 0

    def take(self, method: bytes, url: bytes, headers: list[tuple[bytes, bytes]], keep_alive: bool) -> DirectWrite | None:
        """The request whose headers just arrived as a direct write, or None for the app."""
        if method != b"POST":
            return None
        path = DIRECT_PATH.fullmatch(url)
        if path is None:
            return None
        read: dict[bytes, bytes] = {}
        for name, value in headers:
            if name in DIRECT_HEADERS:
                if name in read:
                    return None
                read[name] = value
        length = read.get(b"content-length")
        content_type = read.get(b"content-type")
        if (length is None or not length.isdigit() or int(length) > self.front.max_body or b"transfer-encoding" in read
                or b"expect" in read or content_type is None or content_type.lower() not in DIRECT_TYPES
                or not self.front.host_trusted(read.get(b"host"))):
            return None
        game_id = path.group(1).decode("ascii")
        authorization = read.get(b"authorization")
        # a write the gate could refuse from the headers alone is one it suspects: its token is
        # checked before its body is read (Front); one judgement of the token (one hash) says both
        if self.front.gate.suspect(game_id, [authorization] if authorization is not None else []):
            return None
        return DirectWrite(game_id, path.group(2).decode("ascii"), read, keep_alive, int(length))

    def submit(self, loop: asyncio.AbstractEventLoop, write: DirectWrite,
               answered: Callable[[int, list[tuple[bytes, bytes]], bytes], None]) -> None:
        """Hand ``write`` (its body all read) to a scorekeeper thread; ``answered(status,
        headers, body)`` runs in the event loop with the answer."""
        def done(result: DirectAnswer | None, error: BaseException | None) -> None:
            if result is None:  # the job never fails on its own: as uvicorn answers an app that raised
                logger.error("Exception in the direct route of writes", exc_info=error)
                answered(500, [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", b"21"),
                               (b"connection", b"close")], b"Internal Server Error")
                return
            status, headers, body, tokens = result
            self.answered += 1
            self.front.gate.learn(write.game_id, None, tokens, status, headers, body)
            answered(status, headers, body)

        if self.writer.combines:  # SQLite: queued, and run by the thread that drains the queue
            if self.writer.later(functools.partial(self.queued, write, loop, done)):
                self.front.scorekeeper.spawn(self.writer.drain)
            return
        self.front.scorekeeper.submit(loop, self.run, (write,), done)

    def run(self, write: DirectWrite) -> DirectAnswer:
        """The answer to ``write`` (in a scorekeeper thread), as the app gives it."""
        seen: list[tuple[str, int, tuple[str, ...]]] = []
        try:
            recorded = moves.write(self.writer, self.cache, write.game_id, write.endpoint, self._body(write),
                                   **self._headers(write, seen))
        except Exception as err:  # noqa: BLE001 - answered as the app answers it
            return self._answer(write, seen, None, err)
        return self._answer(write, seen, recorded, None)

    def queued(self, write: DirectWrite, loop: asyncio.AbstractEventLoop,
               done: Callable[[DirectAnswer | None, BaseException | None], None]) -> None:
        """Run ``write`` as a move queued with ``Writer.later`` (in the thread draining the
        queue, in the transaction it holds open); its answer, built by the thread that ends
        that transaction once it ended, goes to ``done`` in the event loop ``loop``."""
        seen: list[tuple[str, int, tuple[str, ...]]] = []

        def told(recorded: Recorded | None, error: BaseException | None) -> None:
            try:
                answer = self._answer(write, seen, recorded, error)
            except BaseException as err:  # noqa: BLE001 - handed to the awaiting request
                _call_back(loop, done, None, err)
            else:
                _call_back(loop, done, answer, None)

        try:
            moves.write(self.writer, self.cache, write.game_id, write.endpoint, self._body(write),
                        **self._headers(write, seen), then=told)
        except Exception as err:  # noqa: BLE001 - refused before it was queued in a transaction: told now
            told(None, err)

    @staticmethod
    def _body(write: DirectWrite) -> Any:
        raw = bytes(write.body)
        return {} if not raw and write.endpoint in (UNDO, REDO) else decode_json(raw)

    def _headers(self, write: DirectWrite, seen: list[tuple[str, int, tuple[str, ...]]]) -> dict[str, Any]:
        """``moves.write``'s keyword arguments from ``write``'s headers; the tokens its check
        reads go to ``seen``."""
        headers = write.headers
        return {"authorization": _text(headers.get(b"authorization")), "key": _text(headers.get(b"idempotency-key")),
                "if_match": _text(headers.get(b"if-match")), "club_key": self.club_key,
                "token_read": lambda row: seen.append(tokens_seen(row))}

    def _answer(self, write: DirectWrite, seen: list[tuple[str, int, tuple[str, ...]]], recorded: Recorded | None,
                error: BaseException | None) -> DirectAnswer:
        """The app's answer to ``write``: ``recorded``, or ``error`` (a refusal, or any other
        error answered by the app's own handlers)."""
        try:
            if error is not None:
                raise error
            assert recorded is not None
            status, named, payload = moves.answer(recorded)
        except ApiError as err:
            status, named, payload = moves.refusal(err, bool(seen))
        except Exception as err:  # noqa: BLE001 - answered by the app's own error handlers
            status, named, payload = contextvars.Context().run(self._by_the_app, write, err, bool(seen))
        names, lines = _HEADER_NAMES, _HEADER_LINES
        headers = []
        for pair in named:
            line = lines.get(pair)  # a line every answer gives alike (its security headers …), encoded once
            if line is None:
                name, value = pair
                encoded = names.get(name)
                if encoded is None:
                    encoded = name.lower().encode("latin-1")
                    if len(names) < 64:  # the app's few names; never one per request
                        names[name] = encoded
                line = (encoded, value.encode("latin-1"))
                if name not in _VARYING and len(lines) < 64:
                    lines[pair] = line
            headers.append(line)
        return status, headers, payload, seen[0] if seen else None

    def _by_the_app(self, write: DirectWrite, err: Exception, token_read: bool) -> tuple[int, list[tuple[str, str]], bytes]:
        """The app's answer to ``err`` raised by ``write`` (a storage fault, a damaged record,
        a fault of the code): its error handlers and ``after_request`` run on the request."""
        environ = {"REQUEST_METHOD": "POST", "SCRIPT_NAME": "", "PATH_INFO": f"/games/{write.game_id}/{write.endpoint}",
                   "QUERY_STRING": "", "SERVER_NAME": "localhost", "SERVER_PORT": "80", "SERVER_PROTOCOL": "HTTP/1.1",
                   "wsgi.version": (1, 0), "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(bytes(write.body)),
                   "wsgi.errors": sys.stderr, "wsgi.multithread": True, "wsgi.multiprocess": False,
                   "wsgi.run_once": False, "CONTENT_LENGTH": str(write.length)}
        for name, value in write.headers.items():
            key = name.decode("latin-1").upper().replace("-", "_")
            environ[key if key in ("CONTENT_TYPE", "CONTENT_LENGTH") else f"HTTP_{key}"] = value.decode("latin-1")
        with self.app.request_context(environ):
            if token_read:
                varies_with_token()
            response = self.app.finalize_request(self.app.handle_user_exception(err))
            body = response.get_data()
            return response.status_code, list(response.headers.items()), body


def _text(value: bytes | None) -> str | None:
    return None if value is None else value.decode("latin-1")


class Crowd:
    """The connections of one server and their limit (see the module): who to close when a
    new one comes past ``limits.connection_limit``."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.connections: set[KibitzProtocol] = set()
        self.evicted = 0

    def admit(self, new: KibitzProtocol) -> None:
        """Keep ``new``; past the limit, close the connections idle longest (a few more than
        needed, so that a flood of new connections does not scan them all every time)."""
        self.connections.add(new)
        over = len(self.connections) - self.limits.connection_limit
        if over <= 0:
            return
        idle = [each for each in self.connections if each is not new and each.idle()]
        for each in heapq.nsmallest(over + self.limits.connection_limit // 64, idle, key=lambda c: c.idle_since):
            self.evicted += 1
            each.close()

    def leave(self, gone: KibitzProtocol) -> None:
        self.connections.discard(gone)


class LingeringTransport:
    """The transport uvicorn's connection writes to: the real one, except that ``close()``
    after :meth:`KibitzProtocol.linger_on_close` was asked is a lingering close, and that
    writes made while :meth:`hold` is on go to the socket as one (an answer's head and body:
    one ``send`` instead of two)."""

    def __init__(self, transport: asyncio.Transport, connection: KibitzProtocol) -> None:
        self.real = transport
        self.connection = connection
        self.held: list[bytes] | None = None

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if self.held is not None:
            self.held.append(bytes(data))
        else:
            self.real.write(data)

    def hold(self, on: bool) -> None:
        """Hold the writes from now (``on``), or write what was held, as one."""
        if on:
            if self.held is None:
                self.held = []
        else:
            self.flush()

    def flush(self) -> None:
        held, self.held = self.held, None
        if held and not self.real.is_closing():
            self.real.write(b"".join(held))

    def close(self) -> None:
        self.flush()
        self.connection.closing()

    def is_closing(self) -> bool:
        return self.connection.lingering or self.real.is_closing()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


#: The lines of uvicorn's default headers (``server``, ``date``) of a direct write's answer, with
#: the list they were written from: built again when uvicorn's list is a new one (each second).
_DEFAULT_LINES: list[tuple[object, bytes]] = [(None, b"")]
#: Header names as a direct write's answer sends them (lower-case bytes), by the app's spelling.
_HEADER_NAMES: dict[str, bytes] = {}
#: Whole header lines of a direct write's answer, encoded, by the app's ``(name, value)``: the
#: few that every answer gives alike (``Vary``, ``Cache-Control``, the security headers …).
_HEADER_LINES: dict[tuple[str, str], tuple[bytes, bytes]] = {}
#: Headers whose value changes from answer to answer: never kept in :data:`_HEADER_LINES`.
_VARYING = frozenset({"Content-Length", "ETag", "Retry-After", "Location", "WWW-Authenticate"})


class KibitzProtocol(HttpToolsProtocol):
    """uvicorn's httptools connection with the refusals, the header deadline and the
    connection limit of the module, and a lingering close after an early answer.

    **Lingering close** (RFC 9112 §9.6): when the server answers before it has read the whole
    request (a 413 from ``Content-Length``, a 408, a parser refusal) and closes, a client that
    sends its whole body before reading (``urllib.request``) would otherwise have the kernel
    reset the connection over the unread bytes, and lose the answer. So the server writes the
    answer, closes its sending side (FIN), then reads and throws away what still arrives until
    the client closes, for at most :data:`LINGER_SECONDS` (:data:`LINGER_QUIET_SECONDS` with
    nothing arriving) and :data:`LINGER_BYTES`, and only then closes. A lingering connection
    holds no thread and counts as idle for the connection limit."""

    def __init__(self, *args: Any, crowd: Crowd, refusals: Problems, direct: Direct | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.crowd = crowd
        self.refusals = refusals
        self.direct = direct
        self.direct_write: DirectWrite | None = None  # a direct write whose body is still arriving
        self.body_deadline: asyncio.TimerHandle | None = None  # when the rest of that body must have come
        self.idle_since = 0.0
        self.head_bytes = 0
        self.waiting = True  # for a request's headers
        self.deadline: asyncio.TimerHandle | None = None
        self.linger_asked = False
        self.lingering = False
        self.discarded = 0
        self.linger_until = 0.0
        self.quiet: asyncio.TimerHandle | None = None
        self.real_transport: asyncio.Transport | None = None

    def idle(self) -> bool:
        """No request in progress: waiting for one (or for the rest of its headers), or lingering."""
        return self.waiting or self.lingering

    def close(self) -> None:
        """Close now, lingering or not (the connection limit, the header deadline)."""
        if self.real_transport is not None and not self.real_transport.is_closing():
            self.wrapper.flush()
            self.real_transport.close()

    def linger_on_close(self) -> None:
        """Make the next close of this connection a lingering close (see the class)."""
        self.linger_asked = True

    def closing(self) -> None:
        """uvicorn's (or this module's) ``transport.close()``: a lingering close when asked."""
        self.wrapper.flush()
        real = self.real_transport
        if real is None or real.is_closing() or self.lingering:
            return
        if not self.linger_asked:
            real.close()
            return
        self.lingering, self.waiting = True, False
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None
        self.linger_until = self.loop.time() + LINGER_SECONDS
        try:
            if real.can_write_eof():
                real.write_eof()  # sent once the answer written before it is
            real.resume_reading()
        except (OSError, RuntimeError):
            real.close()
            return
        self._quiet_from_now()

    def _quiet_from_now(self) -> None:
        if self.quiet is not None:
            self.quiet.cancel()
        wait = min(LINGER_QUIET_SECONDS, self.linger_until - self.loop.time())
        self.quiet = self.loop.call_later(max(0.0, wait), self.close)

    def shutdown(self) -> None:
        if self.lingering:  # the server stops: the lingering ones go at once
            self.close()
            return
        if self.direct_write is not None:  # its body is arriving: answered, then closed
            self.direct_write.keep_alive = False
            return
        super().shutdown()

    def eof_received(self) -> None:
        if self.lingering:
            self.close()
        return None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.real_transport = cast(asyncio.Transport, transport)
        self.wrapper = LingeringTransport(self.real_transport, self)
        super().connection_made(cast(Any, self.wrapper))
        self._wait_for_request()
        self.crowd.admit(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self._body_arrived()  # a direct write's body that never came: nothing to answer
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None
        if self.quiet is not None:
            self.quiet.cancel()
            self.quiet = None
        self.crowd.leave(self)
        super().connection_lost(exc)

    def _wait_for_request(self) -> None:
        """From now, a request's headers have ``idle_timeout`` seconds to arrive. The timer is
        not moved for every request: it stays armed, and when it fires early (the connection
        answered meanwhile) it is armed again for what is left of the wait."""
        self.waiting, self.head_bytes, self.idle_since = True, 0, self.loop.time()
        if self.deadline is None:
            self.deadline = self.loop.call_later(self.crowd.limits.idle_timeout, self._too_slow)

    def _too_slow(self) -> None:
        self.deadline = None
        if not self.waiting:  # a request in progress: armed again once it is answered
            return
        left = self.idle_since + self.crowd.limits.idle_timeout - self.loop.time()
        if left > 0:
            self.deadline = self.loop.call_later(left, self._too_slow)
        else:
            self.close()

    def data_received(self, data: bytes) -> None:
        if self.lingering:  # thrown away; the close comes at the bounds
            self.discarded += len(data)
            if self.discarded > LINGER_BYTES or self.loop.time() >= self.linger_until:
                self.close()
            else:
                self._quiet_from_now()
            return
        self._unset_keepalive_if_required()
        if self.waiting:
            self.head_bytes += len(data)
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._refuse(refusal(400, "Upgrade is not supported"))
            return
        except httptools.HttpParserError as err:
            self._refuse(parser_refusal(err))
            return
        if self.direct_write is not None and self.body_deadline is None:  # the rest of its body comes later
            self.body_deadline = self.loop.call_later(self.crowd.limits.idle_timeout, self._body_too_slow)
        if self.waiting and self.head_bytes > MAX_HEADER_BYTES:
            self._refuse(refusal(431, f"over {MAX_HEADER_BYTES // 1024} KiB"))

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.scope[LINGER_KEY] = self.linger_on_close  # type: ignore[literal-required]
        self.scope[HOLD_KEY] = self.wrapper.hold  # type: ignore[literal-required]
        self.header_bytes = 0

    def on_url(self, url: bytes) -> None:
        self.url += url  # uvicorn's on_url, inline: called for every request
        self.header_bytes += len(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        name = name.lower()  # uvicorn's on_header, inline: called for every header of every request
        if name == b"expect" and value.lower() == b"100-continue":
            self.expect_100_continue = True
        self.headers.append((name, value))
        self.header_bytes += len(name) + len(value) + 4
        if self.header_bytes > MAX_HEADER_BYTES:
            raise refusal(431, f"over {MAX_HEADER_BYTES // 1024} KiB")

    def on_headers_complete(self) -> None:
        self.waiting = False  # the deadline's timer, when it fires, sees it and lets it be
        if self.direct is not None and (self.cycle is None or self.cycle.response_complete):
            self.direct_write = self.direct.take(self.parser.get_method(), self.url, self.headers,
                                                 self.parser.get_http_version() == "1.1"
                                                 and self.parser.should_keep_alive() and not self.parser.should_upgrade())
            if self.direct_write is not None:
                return
        super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        if self.direct_write is not None:
            self.direct_write.body += body
        else:
            super().on_body(body)

    def on_message_complete(self) -> None:
        write = self.direct_write
        if write is None:
            super().on_message_complete()
            return
        self._body_arrived()
        cycle = self.cycle = DirectCycle(write.keep_alive)  # type: ignore[assignment]
        assert self.direct is not None
        self.direct.submit(self.loop, write, functools.partial(self._direct_answered, cycle))

    def _body_arrived(self) -> None:
        self.direct_write = None
        if self.body_deadline is not None:
            self.body_deadline.cancel()
            self.body_deadline = None

    def _body_too_slow(self) -> None:
        """A direct write's body did not arrive within ``idle_timeout`` of its headers: the
        408 the app's front gives (``Front._to_app``), then a lingering close."""
        self.body_deadline = None
        self._body_arrived()
        self.linger_on_close()
        content_type, body = self.refusals.body(408, "request_timeout", body_too_slow(self.crowd.limits.idle_timeout))
        cycle = self.cycle = DirectCycle(False)  # type: ignore[assignment]
        self._direct_answered(cycle, 408, [(b"content-type", content_type),
                                           (b"content-length", str(len(body)).encode("ascii")),
                                           (b"x-content-type-options", b"nosniff"), (b"connection", b"close")], body)

    def _direct_answered(self, cycle: DirectCycle, status: int, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
        """Write a direct write's answer, head and body in one piece, as uvicorn writes an
        app's (its default headers first, ``connection: close`` when the connection ends)."""
        cycle.response_complete = True
        if cycle.disconnected or self.transport.is_closing():
            return
        defaults = self.server_state.default_headers  # a new list each second (its date)
        seen = _DEFAULT_LINES[0]
        if seen[0] is not defaults:
            seen = _DEFAULT_LINES[0] = (defaults, b"".join(name + b": " + value + b"\r\n" for name, value in defaults))
        content = [STATUS_LINE[status], seen[1]]
        said_close = False
        for name, value in headers:
            if name == b"connection" and value == b"close":
                said_close = True
            content.append(name + b": " + value + b"\r\n")
        close = not cycle.keep_alive or said_close
        if close and not said_close:
            content.append(b"connection: close\r\n")
        content += (b"\r\n", body)
        self.transport.write(b"".join(content))
        if close:
            self.transport.close()
            return
        # uvicorn's on_response_complete without its keep-alive timer (the idle deadline
        # above, shorter, closes an idle connection first)
        self.server_state.total_requests += 1
        self.flow.resume_reading()
        if self.pipeline:
            waiting_cycle, app = self.pipeline.pop()
            self._start_asgi_task(waiting_cycle, app)
        else:
            self._wait_for_request()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and (self.cycle is None or self.cycle.response_complete):
            self._wait_for_request()

    def _refuse(self, refused: Refused) -> None:
        if self.transport.is_closing():
            return
        self.transport.write(self.refusals.raw(refused.status, refused.code, refused.detail))
        self.linger_on_close()
        self.transport.close()


class Server:
    """``kibitz serve``'s server: uvicorn on one listening socket (see the module)."""

    def __init__(self, app: Flask, host: str, port: int, limits: Limits) -> None:
        family, kind, proto, _name, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        self.socket = socket.socket(family, kind, proto)
        try:
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.socket.bind(address)
            self.socket.listen(2048)
        except OSError:
            self.socket.close()
            raise
        self.effective_port: int = self.socket.getsockname()[1]
        self.limits = limits
        self.crowd = Crowd(limits)
        self.front = Front(app, limits)
        protocol = functools.partial(KibitzProtocol, crowd=self.crowd, refusals=self.front.problems,
                                     direct=self.front.direct)
        self.config = uvicorn.Config(
            self.front, http=protocol, ws="none", lifespan="off", access_log=False, log_level="warning",  # type: ignore[arg-type]
            proxy_headers=False,  # the client is the TCP peer (the create limit counts it), never a header
            timeout_keep_alive=int(limits.idle_timeout) + 1, timeout_graceful_shutdown=10,
            server_header=False, headers=[("server", "kibitz")], backlog=2048)
        self.uvicorn = uvicorn.Server(self.config)

    def stop(self) -> None:
        """Ask the server to stop (as its own SIGTERM handler does): it finishes the requests
        in progress and :meth:`run` returns; asked before it serves, it stops at once."""
        self.uvicorn.should_exit = True

    def run(self) -> None:
        """Serve until SIGTERM or SIGINT, then finish the requests in progress (at most 10 s)
        and return. On PostgreSQL the listener of ``service.web.boards`` runs meanwhile (one
        thread and one connection: ``service.record.listener``) and stops before it returns."""
        try:
            self.front.boards.start()  # on PostgreSQL: hear of the other processes' moves
            self.uvicorn.run(sockets=[self.socket])
        finally:
            self.front.crowd.shutdown()
            self.front.scorekeeper.shutdown()
            self.front.health.shutdown()
            self.front.boards.close()
            self.socket.close()


#: Open files kept for what is not a connection: the database and its WAL, each thread's
#: connection, the interpreter's own.
SPARE_FILES = 256


def open_files_for(connection_limit: int) -> int:
    """Raise this process's soft limit of open files so that ``connection_limit`` connections
    fit (up to the hard limit); returns how many connections fit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = connection_limit + SPARE_FILES
    if soft != resource.RLIM_INFINITY and soft < wanted:
        soft = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    if soft == resource.RLIM_INFINITY:
        return connection_limit
    return max(16, min(connection_limit, soft - SPARE_FILES))


def create_server(app: Flask, host: str = "127.0.0.1", port: int = 8000, limits: Limits | None = None) -> Server:
    """The server for ``app`` on ``host``:``port`` (0: any free port, see ``effective_port``),
    with ``limits`` (:class:`Limits`' defaults if None). Raises ``OSError`` when it cannot listen."""
    return Server(app, host, port, limits or Limits())
