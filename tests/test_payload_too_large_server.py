"""A body over 1 MiB is answered with the 413 problem body before it is read (issue 10 §4;
api.md: "413 … a problem body like every other error, answered before the body is read
when Content-Length says so"), by a real ``kibitz serve`` over a raw socket.

``service.server`` reads the headers before the body and answers a ``Content-Length`` over
the app's limit with the app's problem body. The client here sends only the headers and never the body.
"""

from __future__ import annotations

import json

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
