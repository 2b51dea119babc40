"""``kibitz serve``'s direct route of writes answers exactly what the Flask app answers.

``service.web.server.Direct`` takes ``POST /games/<id>/events`` (``/correct``, ``/undo``,
``/redo``) as scorekeepers send it without building a WSGI request, through the same write
function as the Flask view (``service.record.moves.write``). Two real servers (uvicorn, real HTTP
on loopback) on two databases run the same script of writes, right and wrong, one with the
direct route and one without (``Limits.direct_writes``): every answer must be the same,
status, headers and bytes of the body (the random parts, ids, tokens, salts, hashes and
times, put aside), and the direct route must have answered the first server's writes.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from service.web.app import create_app
from service.web.server import Limits, Server, create_server

PLAYERS = ["Ann", "Bob", "Cas", "Dee"]
HANDS = {"Ann": ["7H", "8H", "9H", "TH"], "Bob": ["JH", "QH", "KH", "AH"],
         "Cas": ["7S", "8S", "9S", "TS"], "Dee": ["JS", "QS", "KS", "AS"]}
#: What differs between two servers by chance: ids, tokens, salts, hashes, times.
RANDOM = [(re.compile(rb'"(salt|hash)": ?"[0-9a-f]+"'), rb'"\1":"x"'),
          (re.compile(rb'"recorded_at": ?"[^"]+"'), rb'"recorded_at":"x"'),
          (re.compile(rb"game '[A-Za-z0-9]+'"), rb"game 'x'")]


@contextmanager
def running(tmp: Path, name: str, direct: bool, idle_timeout: float = 20.0) -> Iterator[Server]:
    app = create_app({"DATABASE": str(tmp / f"{name}.db"), "TRUSTED_HOSTS": ["127.0.0.1"]})
    server = create_server(app, port=0, limits=Limits(direct_writes=direct, idle_timeout=idle_timeout))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while True:
        try:
            status, _, _ = exchange(server, raw_request("GET", "/health", None))
            if status == 200:
                break
        except OSError:
            pass
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield server
    finally:
        server.stop()
        thread.join(30)


def raw_request(method: str, path: str, body: bytes | None, headers: dict[str, str] | None = None,
                content_type: str | None = "application/json") -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
    if content_type is not None and body is not None:
        lines.append(f"Content-Type: {content_type}")
    if body is not None:
        lines.append(f"Content-Length: {len(body)}")
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b"")


def read_answer(sock: socket.socket, buffer: bytearray) -> tuple[int, list[tuple[str, str]], bytes]:
    """One answer from ``sock`` (``buffer``: what was read past the previous answer)."""
    while b"\r\n\r\n" not in buffer:
        chunk = sock.recv(65536)
        assert chunk, f"closed before an answer: {bytes(buffer)!r}"
        buffer += chunk
    head, _, rest = bytes(buffer).partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = [(name.lower(), value) for name, _, value in (line.partition(": ") for line in lines)]
    length = int(dict(headers)["content-length"])
    while len(rest) < length:
        chunk = sock.recv(65536)
        assert chunk
        rest += chunk
    buffer[:] = rest[length:]
    return int(status_line.split()[1]), headers, rest[:length]


def exchange(server: Server, *requests: bytes, pause: float = 0.0) -> Any:
    """Send ``requests`` on one connection (all at once, or each in two pieces ``pause``
    apart: head, then body) and read their answers."""
    with socket.create_connection(("127.0.0.1", server.effective_port), timeout=30) as sock:
        if pause:
            for request in requests:
                head, _, body = request.partition(b"\r\n\r\n")
                sock.sendall(head + b"\r\n\r\n")
                time.sleep(pause)
                sock.sendall(body)
        else:
            sock.sendall(b"".join(requests))
        buffer = bytearray()
        answers = [read_answer(sock, buffer) for _ in requests]
    return answers[0] if len(answers) == 1 else answers


def same(answer: tuple[int, list[tuple[str, str]], bytes]) -> tuple[int, list[tuple[str, str]], bytes]:
    """An answer without what differs by chance (the date, ids, salts, hashes, times)."""
    status, headers, body = answer
    for pattern, put in RANDOM:
        body = pattern.sub(put, body)
    return status, [(name, value) for name, value in headers if name not in ("date", "content-length")], body


def new_game(server: Server) -> tuple[str, str]:
    status, _, body = exchange(server, raw_request("POST", "/games", json.dumps(
        {"game": "toepen", "players": PLAYERS, "visibility": "open"}).encode()))
    assert status == 201, body
    created = json.loads(body)
    return created["id"], created["token"]


def script(game_id: str, token: str) -> list[tuple[str, str, bytes | None, dict[str, str], str | None]]:
    """The writes both servers get: (method, path, body, headers, content type)."""
    auth = {"Authorization": f"Bearer {token}"}
    events, undo, redo, correct = (f"/games/{game_id}/{name}" for name in ("events", "undo", "redo", "correct"))

    def move(body: Any, headers: dict[str, str] | None = None, path: str = events,
             content_type: str | None = "application/json") -> tuple[str, str, bytes | None, dict[str, str], str | None]:
        raw = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
        return "POST", path, raw, {**auth, **(headers or {})}, content_type

    return [
        move({"type": "deal", "dealer": "Ann", "hands": HANDS}),
        move({"type": "play", "player": "Bob", "card": "JH"}),
        move({"type": "play", "player": "Cas", "card": "7S"}),  # a revoke is the rules' concern later
        move({"type": "play", "player": "Cas", "card": "8S"}),  # 409 not_your_turn
        move({"type": "play", "player": "Dee", "card": "JS"}, {"If-Match": '"2"'}),  # 412
        move({"type": "play", "player": "Dee", "card": "js"}, {"If-Match": '"4"'}),
        move({"type": "play", "player": "  ann ", "card": "10h"}),  # the schema's spellings
        move({"type": "play", "player": "Bob", "card": "ZZ"}),  # 422 from the schema
        move({"type": "play", "player": "Bob", "card": "QH", "colour": "red"}),  # 422 unknown field
        move({"type": "note", "text": "Ünïcödé ♠ \u2603 and a number 123456789012345678901234567890"}),
        move({"type": "note", "text": "kept", "at": "2026-11-29T20:15:00+01:00"}),
        move({"type": "note", "text": "once"}, {"Idempotency-Key": "k-1"}),
        move({"type": "note", "text": "once"}, {"Idempotency-Key": "k-1"}),  # the stored answer
        move({"type": "note", "text": "twice"}, {"Idempotency-Key": "k-1"}),  # 422 reused
        move({"type": "note", "text": "x"}, {"Idempotency-Key": ""}),  # 422 unusable key
        move(None, path=undo, content_type=None),
        move(b"", path=redo),
        move({"reason": "misheard"}, path=undo),
        move({"target": 2, "action": {"type": "play", "player": "Bob", "card": "QH"}}, path=correct),
        move(b'{"type": "note", "text": ', {}),  # 400 malformed
        move(b"\xef\xbb\xbf{}"),  # 400 byte order mark
        move({"type": "note", "text": "typed"}, content_type="text/plain"),  # 415, the app's
        move({"type": "note", "text": "spelt"}, content_type="application/JSON; charset=UTF-8"),
        move([1, 2]),  # 422 not an object
        move({"type": "play", "player": "Cas", "card": "9S"}, {"Authorization": ""}),  # 401
        move({"type": "play", "player": "Cas", "card": "9S"}, {"Authorization": "Bearer nope"}),  # 403
        move({"type": "play", "player": "Cas", "card": "9S"}, {"Authorization": "Basic nope"}),  # 401
        ("POST", "/games/NoSuchGame/events", b'{"type": "note", "text": "x"}', auth, "application/json"),  # 404
        move({"type": "play", "player": "Cas", "card": "9S"}),
        move({}, {"Idempotency-Key": "u-1"}, path=undo),
        move({}, {"Idempotency-Key": "u-1"}, path=redo),  # 422 reused on another endpoint (docs/decisions.md)
        move(b"{}", {"Idempotency-Key": "u-1"}, path=undo),  # the stored answer
        move(b'{"type": "note", "text": 1e999}'),  # 422 out of range, naming text (docs/decisions.md)
        move(b'{"type": "note", "text": "x", "n": [' + b"9" * 5000 + b"]}"),  # 422 out of range, naming n
    ]


def test_the_direct_route_answers_every_write_as_the_app_does(tmp_path):
    with running(tmp_path, "direct", True) as direct, running(tmp_path, "app", False) as app:
        games = [new_game(direct), new_game(app)]
        scripts = [script(*games[0]), script(*games[1])]
        for step, (mine, theirs) in enumerate(zip(*scripts, strict=True)):
            answers = []
            for server, (method, path, body, headers, content_type) in zip((direct, app), (mine, theirs), strict=True):
                answers.append(same(exchange(server, raw_request(method, path, body, headers, content_type))))
            assert answers[0] == answers[1], (step, mine[:3])
        assert direct.front.direct is not None and direct.front.direct.answered >= 20
        assert app.front.direct is None


def test_a_body_after_its_headers_pipelined_writes_and_a_body_that_never_comes(tmp_path):
    # idle_timeout 3 s: the late body's 0.2 s pause stays well inside it on a loaded machine
    with running(tmp_path, "direct", True, idle_timeout=3.0) as direct, \
            running(tmp_path, "app", False, idle_timeout=3.0) as app:
        for server in (direct, app):
            game_id, token = new_game(server)
            auth = {"Authorization": f"Bearer {token}"}
            note = raw_request("POST", f"/games/{game_id}/events", b'{"type": "note", "text": "late"}', auth)
            status, _, body = exchange(server, note, pause=0.2)  # the body comes 0.2 s after the head
            assert status == 201, body
            answers = exchange(server, note, note, note)  # three on one connection, sent at once
            assert [json.loads(body)["seq"] for _, _, body in answers] == [3, 4, 5]
        answers = []
        for server in (direct, app):  # a body promised and never sent: 408 once idle_timeout has passed
            game_id, token = new_game(server)
            with socket.create_connection(("127.0.0.1", server.effective_port), timeout=30) as sock:
                request = raw_request("POST", f"/games/{game_id}/events", b'{"type": "note", "text": "never"}',
                                      {"Authorization": f"Bearer {token}"})
                sock.sendall(request[:-5])
                started = time.monotonic()
                answers.append(same(read_answer(sock, bytearray())))
                assert 2.9 < time.monotonic() - started < 20  # the idle timeout, not the client's 30 s
                sock.settimeout(15)
                assert sock.recv(100) == b""  # then closed
        assert answers[0] == answers[1] and answers[0][0] == 408
        # the late body and the first of the pipelined writes; the two behind it waited in
        # uvicorn's queue of pipelined requests and went to the app (answered the same)
        assert direct.front.direct is not None and direct.front.direct.answered == 2
