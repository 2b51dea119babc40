"""Requests that the server's parser refuses before the app sees them (a ``Content-Length``
that is negative, not a number or given twice; a bad start line; headers over the limit)
get an RFC 9457 problem body from a real ``kibitz serve`` over a raw socket, never
a server's ``text/plain`` page (api.md: every error is a problem body)."""

from __future__ import annotations

import json

import pytest
import requests

from tests.serving import raw_exchange, serving


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with serving(tmp_path_factory.mktemp("served")) as base:
        yield int(base.rsplit(":", 1)[1])


_raw = raw_exchange


def _post(port: int, lengths: list[str], path: str = "/games") -> bytes:
    header_lines = "".join(f"Content-Length: {each}\r\n" for each in lengths)
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"{header_lines}\r\n{{}}").encode("ascii")


def _assert_problem(status: str, headers: dict[str, str], body: bytes, code: int, name: str) -> dict[str, object]:
    assert status.split(" ", 2)[1] == str(code) and status.startswith("HTTP/1."), (status, body)
    assert headers["content-type"] == "application/problem+json"
    assert int(headers["content-length"]) == len(body)
    problem = json.loads(body)
    assert problem["status"] == code and problem["code"] == name
    assert problem["type"] == f"urn:kibitz:problem:{name}"
    assert isinstance(problem["title"], str) and problem["title"]
    return problem


@pytest.mark.parametrize("lengths", [["-1"], ["abc"], ["2", "2"], ["1", "2"], [""], ["+2"], ["0x2"]])
@pytest.mark.parametrize("path", ["/games", "/games/import", "/games/NoSuchGame/events"])
def test_an_invalid_content_length_is_a_400_problem_body(served, lengths, path):
    problem = _assert_problem(*_raw(served, _post(served, lengths, path)), 400, "malformed_request")
    assert problem["detail"] == "The request is not valid HTTP: Content-Length is invalid."


@pytest.mark.parametrize("request_bytes", [
    b"GET /games HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n",
    b"GET /games HTTP/1.1\r\nHost: x\r\nX: a\rb\r\n\r\n",
    b"GE(T /games HTTP/1.1\r\nHost: x\r\n\r\n",
])
def test_a_malformed_start_line_or_header_is_a_400_problem_body(served, request_bytes):
    problem = _assert_problem(*_raw(served, request_bytes), 400, "malformed_request")
    assert str(problem["detail"]).startswith("The request is not valid HTTP: ")


def test_headers_over_the_limit_are_a_431_problem_body(served):
    # just over the server's 256 KiB of headers, so that it has read all of them when it answers
    request = (b"GET /games HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-Pad-%d: %s\r\n" % (i, b"a" * 8000)
                                                                 for i in range(33)) + b"\r\n")
    problem = _assert_problem(*_raw(served, request), 431, "request_headers_too_large")
    assert str(problem["detail"]).startswith("The request's headers are too large")


def test_an_unknown_transfer_coding_is_a_501_problem_body(served):
    request = b"POST /games HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n"
    _assert_problem(*_raw(served, request), 501, "not_implemented")


def test_the_server_still_answers_well_formed_requests(served):
    _raw(served, _post(served, ["-1"]))
    assert requests.get(f"http://127.0.0.1:{served}/games", timeout=30).status_code == 200
