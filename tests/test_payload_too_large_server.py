"""A body over 1 MiB is answered with the 413 problem body before it is read (issue 10 §4;
api.md: "413 … a problem body like every other error, answered before the body is read
when Content-Length says so"), by a real ``kibitz serve`` over a raw socket.

``service.web.server`` reads the headers before the body and answers a ``Content-Length`` over
the app's limit with the app's problem body. The client here sends only the headers and never the body.
"""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.request

import pytest
import requests

from tests.serving import raw_exchange, serving

MIB = 1024 * 1024


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with serving(tmp_path_factory.mktemp("served")) as base:
        yield int(base.rsplit(":", 1)[1])


def _headers_only(port: int, path: str, length: int, extra: str = "") -> tuple[str, dict[str, str], bytes]:
    """Send a request's headers claiming ``length`` bytes of body, none of the body, and
    read the whole answer (the server closes the connection after it)."""
    request = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
               f"Content-Length: {length}\r\n{extra}\r\n")
    return raw_exchange(port, request.encode("ascii"))


@pytest.mark.parametrize("path", ["/games", "/games/import", "/games/NoSuchGame/events"])
def test_a_content_length_over_1_mib_gets_the_problem_body_before_the_body_is_sent(served, path):
    status, headers, body = _headers_only(served, path, 2 * MIB)
    assert status.startswith("HTTP/1.1 413 "), status
    assert headers["content-type"] == "application/problem+json"
    assert int(headers["content-length"]) == len(body)
    problem = json.loads(body)
    assert problem["status"] == 413
    assert problem["code"] == "payload_too_large"
    assert problem["type"] == "urn:kibitz:problem:payload_too_large"
    assert problem["detail"] == "The request body is larger than 1 MiB."


def test_one_byte_over_the_limit_is_refused_and_the_limit_itself_is_read(served):
    status, headers, _ = _headers_only(served, "/games", MIB + 1)
    assert status.startswith("HTTP/1.1 413 ") and headers["content-type"] == "application/problem+json"
    # exactly 1 MiB is read and judged by the app: JSON padded with spaces to the limit
    body = json.dumps({"game": "toepen", "players": ["Ann", "Bob", "Cas"]}).encode()
    body += b" " * (MIB - len(body))
    response = requests.post(f"http://127.0.0.1:{served}/games", data=body,
                             headers={"Content-Type": "application/json"}, timeout=30)
    assert response.status_code == 201, response.text


def test_a_chunked_body_growing_past_the_limit_gets_the_problem_body(served):
    def chunks():
        piece = b" " * 65536
        for _ in range(20):  # 1.25 MiB in all
            yield piece

    response = requests.post(f"http://127.0.0.1:{served}/games", data=chunks(),
                             headers={"Content-Type": "application/json"}, timeout=30)
    assert response.status_code == 413
    assert response.headers["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "payload_too_large"


# --- a client that sends the whole body before it reads (issue 24: RFC 9112 §9.6) -------------

BIG = 3 * 1000 * 1000
TRIES = 20


def _send_all_then_read(port: int) -> tuple[int, bytes]:
    """Send a 3 MB ``POST /games`` (headers and the whole body, as one ``sendall``), and only
    then read the answer, as ``urllib.request`` does: ``(status, body)``. A reset or a broken
    pipe propagates (the answer was not readable)."""
    body = b"[" + b" " * (BIG - 2) + b"]"
    head = (f"POST /games HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode("ascii")
    status, _headers, answer = raw_exchange(port, head + body)
    return int(status.split()[1]), answer


def test_a_3_mb_body_sent_whole_before_reading_gets_a_readable_413_every_time(served):
    """20 of 20 readable 413s: the server answers early, then lingers (reads and discards
    what the client still sends, for a bounded time and amount) before it closes, so the
    kernel never resets the connection over unread bytes (on the old server: resets)."""
    outcomes: list[str] = []
    for _ in range(TRIES):
        try:
            status, body = _send_all_then_read(served)
        except OSError as err:  # a reset or broken pipe: the client never read the answer
            outcomes.append(type(err).__name__)
            continue
        assert json.loads(body)["code"] == "payload_too_large"
        outcomes.append(str(status))
    assert outcomes == ["413"] * TRIES, outcomes


def test_urllib_posting_3_mb_reads_the_413_every_time(served):
    """The issue's own client: ``urllib.request`` sends everything before reading."""
    outcomes: list[str] = []
    for _ in range(TRIES):
        request = urllib.request.Request(f"http://127.0.0.1:{served}/games", data=b"{" + b" " * (BIG - 2) + b"}",
                                         headers={"Content-Type": "application/json"}, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                outcomes.append(str(answer.status))
        except urllib.error.HTTPError as err:
            assert json.loads(err.read())["code"] == "payload_too_large"
            outcomes.append(str(err.code))
        except (urllib.error.URLError, OSError) as err:
            outcomes.append(repr(getattr(err, "reason", err)))
    assert outcomes == ["413"] * TRIES, outcomes


def test_a_client_that_never_stops_sending_is_cut_off_within_the_lingering_bound(served):
    """The lingering close is bounded (service.web.server.LINGER_SECONDS, LINGER_BYTES): a client
    claiming 1 GB and sending without pause still reads its 413 and is then closed by the
    server within the bound, not kept for as long as it sends."""
    from service.web.server import LINGER_SECONDS

    head = (f"POST /games HTTP/1.1\r\nHost: 127.0.0.1:{served}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {1000 * 1000 * 1000}\r\n\r\n").encode("ascii")
    with socket.create_connection(("127.0.0.1", served), timeout=30) as sock:
        sock.sendall(head)
        received = b""
        while b"\r\n\r\n" not in received:
            received += sock.recv(65536)
        assert received.startswith(b"HTTP/1.1 413 ")
        started = time.monotonic()
        piece = b" " * 65536
        with pytest.raises(OSError):  # reset or broken pipe once the server has closed
            while time.monotonic() - started < LINGER_SECONDS + 20:
                sock.sendall(piece)
                time.sleep(0.001)
        assert time.monotonic() - started < LINGER_SECONDS + 20
