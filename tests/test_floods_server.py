"""Anonymous floods cannot slow the scorekeeper (docs/crowds.md, "Anonymous floods"), through a
real ``kibitz serve`` over real HTTP:

* a write whose token the game does not have (or with no token) is refused from its headers
  alone once the server knows the game's tokens: the answer comes before the body is sent,
  and it is the app's own answer (the same bytes as the app's refusal of the same write);
  a token issued meanwhile by ``kibitz token`` in another process, the club key, and the
  game's own tokens still reach the app;
* where there is no club key, one address creates at most ``--create-limit`` games (and
  imports) per minute (60 by default); past it 429 ``too_many_requests`` with ``Retry-After``,
  also before the body is read; another address, or a server with a club key, is not limited.
"""

from __future__ import annotations

import json
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.serving import kibitz_command, serving

PLAYERS = ["Ann", "Bob", "Cas", "Dee"]
GAME = {"game": "toepen", "players": PLAYERS, "visibility": "open"}
NOTE = {"type": "note", "text": "tea break"}
#: a body as large as the flood's (0.87 MiB), never sent in the early-refusal tests
FLOOD_LENGTH = 912_000


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[tuple[str, Path]]:
    folder = tmp_path_factory.mktemp("floods")
    with serving(folder, ["--create-limit", "1000"]) as base:
        yield base, folder / "kibitz.db"


def _port(base: str) -> int:
    return int(base.rsplit(":", 1)[1])


def _exchange(port: int, head: str, body: bytes = b"", source: str = "127.0.0.1",
              timeout: float = 30.0) -> tuple[int, dict[str, str], bytes]:
    """Send ``head`` (and ``body``, possibly less than its ``Content-Length``) and read one
    answer, closing after it: ``(status, headers, body)``. Raises ``TimeoutError`` when no
    whole answer comes within ``timeout`` (a server still waiting for the body: a server that
    answers does so in milliseconds; the default's room is for a loaded machine, and a test that
    expects the wait passes a short timeout, as any answer would come before it)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(source, 0)) as sock:
        sock.sendall(head.encode("latin-1") + body)
        received = b""
        while True:
            head_end = received.find(b"\r\n\r\n")
            if head_end >= 0:
                lines = received[:head_end].decode("latin-1").split("\r\n")
                headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
                length = int(headers.get("content-length", "0"))
                if len(received) >= head_end + 4 + length:
                    return int(lines[0].split()[1]), headers, received[head_end + 4:head_end + 4 + length]
            chunk = sock.recv(65536)
            if not chunk:
                raise ConnectionError(f"closed after {received!r}")
            received += chunk


def _write_head(port: int, game_id: str, length: int, token: str | None) -> str:
    auth = f"Authorization: Bearer {token}\r\n" if token is not None else ""
    return (f"POST /games/{game_id}/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"{auth}Content-Length: {length}\r\n\r\n")


def _new_game(base: str) -> tuple[str, str]:
    created = requests.post(f"{base}/games", json=GAME, timeout=30)
    assert created.status_code == 201, created.text
    return created.json()["id"], created.json()["token"]


def _app_answer(port: int, game_id: str, token: str | None) -> tuple[int, dict[str, str], bytes]:
    """A whole write (a valid note) with ``token``: the app's own answer."""
    body = json.dumps(NOTE).encode()
    return _exchange(port, _write_head(port, game_id, len(body), token), body)


def _refused_twice(port: int, game_id: str, token: str | None) -> tuple[int, dict[str, str], bytes]:
    """Two whole writes the app refuses: after the first the server watches the game (it takes
    the epoch before the next one is read), after the second it knows the refusal holds."""
    _app_answer(port, game_id, token)
    return _app_answer(port, game_id, token)


SAME_HEADERS = ("content-type", "vary", "cache-control", "x-content-type-options", "www-authenticate", "etag")


@pytest.mark.parametrize("token", ["junk-token-0123456789", None], ids=["junk token", "no token"])
def test_a_refused_write_is_answered_before_its_body_arrives_with_the_apps_own_answer(served, token):
    base, _db = served
    port = _port(base)
    game_id, _good = _new_game(base)
    status, headers, body = _refused_twice(port, game_id, token)  # the app reads the game and refuses
    assert (status, json.loads(body)["code"]) == ((403, "token_invalid") if token else (401, "token_required"))
    for other in (token and token + "x", token):  # any token the game does not have, not only this one
        early_status, early_headers, early_body = _exchange(port, _write_head(port, game_id, FLOOD_LENGTH, other))
        assert (early_status, early_body) == (status, body)
        assert {k: early_headers.get(k) for k in SAME_HEADERS} == {k: headers.get(k) for k in SAME_HEADERS}
        assert early_headers["connection"] == "close"


def test_after_a_write_the_refusal_names_the_new_version(served):
    base, _db = served
    port = _port(base)
    game_id, good = _new_game(base)
    _refused_twice(port, game_id, "junk")
    assert requests.post(f"{base}/games/{game_id}/events", json=NOTE, headers={"Authorization": f"Bearer {good}"},
                         timeout=30).status_code == 201
    with pytest.raises(TimeoutError):  # something was committed: the server waits for the body again
        _exchange(port, _write_head(port, game_id, FLOOD_LENGTH, "junk"), timeout=2.0)
    status, _headers, body = _app_answer(port, game_id, "junk")  # the app again (the game is watched)
    assert (status, json.loads(body)["version"]) == (403, 2)
    status, _headers, body = _exchange(port, _write_head(port, game_id, FLOOD_LENGTH, "junk"))
    assert (status, json.loads(body)["version"]) == (403, 2)


def test_the_games_own_token_the_club_key_and_a_token_issued_meanwhile_reach_the_app(served, tmp_path):
    base, db = served
    port = _port(base)
    game_id, good = _new_game(base)
    _refused_twice(port, game_id, "junk")
    status, _headers, body = _app_answer(port, game_id, good)
    assert status == 201, body
    issued = subprocess.run([*kibitz_command(), "token", game_id, "--db", str(db), "--no-qr"], capture_output=True,
                            text=True, timeout=60, check=True).stdout.splitlines()[1].strip()
    status, _headers, body = _app_answer(port, game_id, issued)
    assert status == 201, body
    # without a full body the app waits for it: not refused from memory
    with pytest.raises(TimeoutError):
        _exchange(port, _write_head(port, game_id, FLOOD_LENGTH, issued), timeout=2.0)


def test_a_token_issued_by_another_process_on_postgresql_is_not_refused_from_memory(tmp_path, postgres_url):
    with serving(tmp_path, database=postgres_url) as base:
        port = _port(base)
        game_id, _good = _new_game(base)
        deadline = time.monotonic() + 60
        while True:  # once the listener listens, the server trusts what it read
            _refused_twice(port, game_id, "junk")
            try:
                assert _exchange(port, _write_head(port, game_id, FLOOD_LENGTH, "junk-2"), timeout=5.0)[0] == 403
                break  # refused from memory
            except TimeoutError:
                assert time.monotonic() < deadline, "the refusal never came from memory"
        issued = subprocess.run([*kibitz_command(), "token", game_id, "--db", postgres_url, "--no-qr"], capture_output=True,
                                text=True, timeout=60, check=True).stdout.splitlines()[1].strip()
        deadline = time.monotonic() + 30
        while True:  # the notification arrives within milliseconds; until then the app decides
            status, _headers, body = _app_answer(port, game_id, issued)
            if status == 201 or time.monotonic() > deadline:
                break
        assert status == 201, body


def test_the_club_key_on_a_write_gets_the_apps_own_words(tmp_path):
    key_file = tmp_path / "club.key"
    key_file.write_text("Friday-night-club-2026\n")
    with serving(tmp_path, ["--club-key-file", str(key_file)]) as base:
        port = _port(base)
        created = requests.post(f"{base}/games", json=GAME, headers={"Authorization": "Bearer Friday-night-club-2026"},
                                timeout=30)
        game_id = created.json()["id"]
        _refused_twice(port, game_id, "junk")
        status, _headers, body = _app_answer(port, game_id, "Friday-night-club-2026")
        assert status == 403 and "club key" in json.loads(body)["detail"]
        for _ in range(5):  # the club key is no create limit's business: not limited
            assert requests.post(f"{base}/games", json=GAME, timeout=30,
                                 headers={"Authorization": "Bearer Friday-night-club-2026"}).status_code == 201


def _create_head(port: int, length: int, path: str = "/games") -> str:
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\n\r\n")


def test_one_address_creates_at_most_the_limit_per_minute_then_429_with_retry_after(tmp_path):
    with serving(tmp_path, ["--create-limit", "3"]) as base:
        port = _port(base)
        body = json.dumps(GAME).encode()
        statuses = [_exchange(port, _create_head(port, len(body)), body)[0] for _ in range(3)]
        assert statuses == [201, 201, 201]
        for path in ("/games", "/games/import"):  # importing creates a game too; answered before the body
            status, headers, problem = _exchange(port, _create_head(port, FLOOD_LENGTH, path))
            assert status == 429
            assert headers["content-type"] == "application/problem+json"
            assert 1 <= int(headers["retry-after"]) <= 60
            assert json.loads(problem)["code"] == "too_many_requests"
            assert json.loads(problem)["status"] == 429
        # another address is counted on its own
        assert _exchange(port, _create_head(port, len(body)), body, source="127.0.0.2")[0] == 201
        # nothing was created by the refused ones
        assert len(requests.get(f"{base}/games", timeout=30).json()["games"]) == 4


def test_the_default_limit_is_60_games_a_minute(tmp_path):
    with serving(tmp_path) as base:
        port = _port(base)
        body = json.dumps(GAME).encode()
        statuses = [_exchange(port, _create_head(port, len(body)), body, timeout=30)[0] for _ in range(61)]
        assert statuses == [201] * 60 + [429]
