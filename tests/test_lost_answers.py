"""tests/lost_answers.py, the helper of the tests that kill a server under load: every way a
client sees a server go is a lost answer (not acknowledged), and ``check_log`` finds each
wrong record.

The ways are made for real over loopback sockets, by a listener that answers as a killed
server does: it closes before answering, cuts the body after the headers (what a CI run met:
``ChunkedEncodingError: IncompleteRead(0 bytes read, 1083 more expected)``, which the kill test's
tablets, catching ``requests.ConnectionError`` alone, let escape as an error of their thread),
cuts a chunked body, sends a 201 whose body is not whole, or never answers (a timeout); and a
port nobody listens on.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
import requests

from tests.lost_answers import ACKNOWLEDGED, LOST_ANSWER, REFUSED, Attempt, check_log, send


@contextmanager
def answering(how: Callable[[socket.socket], None]) -> Iterator[str]:
    """A loopback listener that reads one request on each connection and then does ``how``
    with the connection; yields its base URL."""
    listener = socket.create_server(("127.0.0.1", 0))
    done = threading.Event()

    def serve() -> None:
        listener.settimeout(0.2)
        while not done.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(5)
                conn.recv(65536)
                how(conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        done.set()
        thread.join(5)
        listener.close()


def close_at_once(conn: socket.socket) -> None:
    pass


def cut_after_the_headers(conn: socket.socket) -> None:
    conn.sendall(b"HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 1083\r\n\r\n")


def cut_a_chunked_body(conn: socket.socket) -> None:
    conn.sendall(b"HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                 b"400\r\n{\"seq\": 7")


def cut_a_body_without_length(conn: socket.socket) -> None:
    conn.sendall(b"HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{\"seq\": 7, \"ev")


def never_answer(conn: socket.socket) -> None:
    with contextlib.suppress(OSError):
        conn.recv(1)  # until the client gives up


def reset(conn: socket.socket) -> None:
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # RST on close


@pytest.mark.parametrize("how", [close_at_once, cut_after_the_headers, cut_a_chunked_body, cut_a_body_without_length,
                                 never_answer, reset])
def test_every_way_a_server_goes_is_a_lost_answer(how):
    # the timeout ends the listener that never answers; the others have 30 s (a loaded machine), so
    # that each is lost in its own way, not by a timeout that came first
    timeout = 1 if how is never_answer else 30
    with answering(how) as base, requests.Session() as session:
        attempt = send(session, "POST", f"{base}/games/g/events", "a note", json={"type": "note"}, timeout=timeout)
    assert attempt.outcome == LOST_ANSWER, attempt
    assert how is never_answer or "Timeout" not in attempt.detail, attempt
    assert attempt.seq is None


def test_a_refused_connection_is_a_lost_answer():
    unused = socket.create_server(("127.0.0.1", 0))
    port = unused.getsockname()[1]
    unused.close()
    with requests.Session() as session:
        attempt = send(session, "POST", f"http://127.0.0.1:{port}/games", "x", json={}, timeout=1)
    assert attempt.outcome == LOST_ANSWER and "ConnectionError" in attempt.detail


def test_a_body_cut_after_the_headers_escapes_a_client_that_catches_connection_errors_alone():
    """What the kill test's tablets caught before: not a ConnectionError, so it ended their thread."""
    with answering(cut_after_the_headers) as base, pytest.raises(requests.exceptions.ChunkedEncodingError):
        try:
            requests.post(f"{base}/games", json={}, timeout=30)
        except requests.ConnectionError:
            pytest.fail("caught as a ConnectionError")


def test_whole_answers_are_acknowledged_or_refused():
    def created(conn: socket.socket) -> None:
        body = b'{"seq": 7, "event": {"seq": 7}}'
        conn.sendall(b"HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: "
                     + str(len(body)).encode() + b"\r\n\r\n" + body)

    def unavailable(conn: socket.socket) -> None:
        body = b'{"code": "storage_unavailable"}'
        conn.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/problem+json\r\n"
                     b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)

    with answering(created) as base, requests.Session() as session:
        acknowledged = send(session, "POST", base, "n", json={}, timeout=30)
    assert (acknowledged.key, acknowledged.outcome, acknowledged.seq) == ("n", ACKNOWLEDGED, 7)
    with answering(unavailable) as base, requests.Session() as session:
        refused = send(session, "POST", base, "n", json={}, timeout=30)
    assert refused.outcome == REFUSED and refused.detail.startswith("503")


def _attempts() -> list[Attempt]:
    return [Attempt("a", ACKNOWLEDGED, seq=2), Attempt("b", LOST_ANSWER), Attempt("c", ACKNOWLEDGED, seq=3),
            Attempt("d", REFUSED, detail="503"), Attempt("e", LOST_ANSWER)]


def test_check_log_takes_lost_writes_stored_once_or_not_at_all():
    check_log([(2, "a"), (3, "c")], _attempts(), first_seq=2)
    check_log([(2, "a"), (3, "c"), (4, "b")], _attempts(), first_seq=2)
    check_log([(2, "a"), (3, "c"), (4, "e"), (5, "b")], _attempts(), first_seq=2)


@pytest.mark.parametrize("logged, wrong", [
    ([(2, "a")], "acknowledged 'c' at 3 is not in the log"),
    ([(2, "a"), (3, "b")], "acknowledged 'c' at 3 is not in the log"),
    ([(2, "a"), (3, "c"), (4, "b"), (5, "b")], "stored twice: ['b']"),
    ([(2, "a"), (3, "c"), (4, "z")], "no client sent them: ['z']"),
    ([(2, "a"), (3, "c"), (4, "d")], "though their answer was a refusal: ['d']"),
    ([(2, "a"), (3, "c"), (5, "b")], "the seqs have a gap"),
])
def test_check_log_finds_each_wrong_record(logged, wrong):
    with pytest.raises(AssertionError, match=wrong.replace("[", r"\[").replace("]", r"\]")):
        check_log(logged, _attempts(), first_seq=2)
