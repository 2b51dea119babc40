"""Anonymous floods cannot slow the scorekeeper (docs/crowds.md, "Anonymous floods"), through a
real ``kibitz serve`` over real HTTP:

* a write whose token the game does not have (or with no token) is refused before its body is
  read, from the first write on (a game never written to, on a server that has never seen it):
  the answer comes before the body is sent, and it is the app's own answer (the same bytes as
  the Flask app's refusal of the same write, asked through its test client on the same
  database), after a commit too; a token issued meanwhile by ``kibitz token`` in another
  process, the club key, and the game's own tokens still reach the app;
* where the server has a club key, a create or an import without it (or with another key) is
  refused the same way, with the app's own 401 ``club_key_required`` / 403
  ``club_key_invalid``; with the key the server waits for the body;
* where there is no club key, one address creates at most ``--create-limit`` games (and
  imports) per minute (60 by default); past it 429 ``too_many_requests`` with ``Retry-After``,
  also before the body is read; another address, or a server with a club key, is not limited.
"""

from __future__ import annotations

import json
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from service.web.app import create_app
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


SAME_HEADERS = ("content-type", "vary", "cache-control", "x-content-type-options", "www-authenticate", "etag")


def _flask_answer(config: dict[str, object], path: str, token: str | None,
                  body: object) -> tuple[int, dict[str, str], bytes]:
    """The Flask app's own answer to a whole request (its test client, on ``config``'s database)."""
    app = create_app(config)
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    answer = app.test_client().post(path, json=body, headers=headers)
    return answer.status_code, {k.lower(): v for k, v in answer.headers.items()}, answer.get_data()


def _same_answer(early: tuple[int, dict[str, str], bytes], app: tuple[int, dict[str, str], bytes]) -> None:
    assert (early[0], early[2]) == (app[0], app[2])
    assert {k: early[1].get(k) for k in SAME_HEADERS} == {k: app[1].get(k) for k in SAME_HEADERS}
    assert early[1]["connection"] == "close"


@pytest.mark.parametrize("token", ["junk-token-0123456789", None], ids=["junk token", "no token"])
def test_a_refused_write_is_answered_before_its_body_arrives_with_the_apps_own_answer(served, token):
    """The first write to a game nobody wrote to (just created): refused before a byte of its
    body is sent, with the app's own answer."""
    base, db = served
    port = _port(base)
    game_id, _good = _new_game(base)
    for other in (token, token and token + "x", token):  # any token the game does not have, again and again
        early = _exchange(port, _write_head(port, game_id, FLOOD_LENGTH, other))
        assert (early[0], json.loads(early[2])["code"]) == ((403, "token_invalid") if token else (401, "token_required"))
        _same_answer(early, _flask_answer({"DATABASE": str(db)}, f"/games/{game_id}/events", other, NOTE))


def test_after_a_write_the_refusal_names_the_new_version(served):
    base, db = served
    port = _port(base)
    game_id, good = _new_game(base)
    status, _headers, body = _exchange(port, _write_head(port, game_id, FLOOD_LENGTH, "junk"))
    assert (status, json.loads(body)["version"]) == (403, 1)
    assert requests.post(f"{base}/games/{game_id}/events", json=NOTE, headers={"Authorization": f"Bearer {good}"},
                         timeout=30).status_code == 201
    for _ in range(2):  # something was committed: checked again, still before the body is read
        early = _exchange(port, _write_head(port, game_id, FLOOD_LENGTH, "junk"))
        assert (early[0], json.loads(early[2])["version"]) == (403, 2)
        _same_answer(early, _flask_answer({"DATABASE": str(db)}, f"/games/{game_id}/events", "junk", NOTE))


def test_the_games_own_token_the_club_key_and_a_token_issued_meanwhile_reach_the_app(served, tmp_path):
    base, db = served
    port = _port(base)
    game_id, good = _new_game(base)
    assert _exchange(port, _write_head(port, game_id, FLOOD_LENGTH, "junk"))[0] == 403
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
        for junk in ("junk", "junk-2"):  # refused before the body is read from the first write on
            assert _exchange(port, _write_head(port, game_id, FLOOD_LENGTH, junk))[0] == 403
        issued = subprocess.run([*kibitz_command(), "token", game_id, "--db", postgres_url, "--no-qr"], capture_output=True,
                                text=True, timeout=60, check=True).stdout.splitlines()[1].strip()
        status, _headers, body = _app_answer(port, game_id, issued)  # a token none of the known: checked afresh
        assert status == 201, body


def test_the_club_key_on_a_write_gets_the_apps_own_words(tmp_path):
    key_file = tmp_path / "club.key"
    key_file.write_text("Friday-night-club-2026\n")
    with serving(tmp_path, ["--club-key-file", str(key_file)]) as base:
        port = _port(base)
        created = requests.post(f"{base}/games", json=GAME, headers={"Authorization": "Bearer Friday-night-club-2026"},
                                timeout=30)
        game_id = created.json()["id"]
        assert _exchange(port, _write_head(port, game_id, FLOOD_LENGTH, "junk"))[0] == 403
        status, _headers, body = _app_answer(port, game_id, "Friday-night-club-2026")
        assert status == 403 and "club key" in json.loads(body)["detail"]
        for _ in range(5):  # the club key is no create limit's business: not limited
            assert requests.post(f"{base}/games", json=GAME, timeout=30,
                                 headers={"Authorization": "Bearer Friday-night-club-2026"}).status_code == 201


@pytest.mark.parametrize("path", ["/games", "/games/import"])
def test_a_create_without_the_club_key_is_refused_before_its_body_arrives_with_the_apps_own_answer(tmp_path, path):
    key = "Friday-night-club-2026"
    key_file = tmp_path / "club.key"
    key_file.write_text(key + "\n")
    with serving(tmp_path, ["--club-key-file", str(key_file)]) as base:
        port = _port(base)
        config = {"DATABASE": str(tmp_path / "app.db"), "CLUB_KEY": key}
        for token, status, code in ((None, 401, "club_key_required"), ("not-the-key", 403, "club_key_invalid"),
                                    ("x" * 40, 403, "club_key_invalid")):
            auth = f"Authorization: Bearer {token}\r\n" if token is not None else ""
            head = _create_head(port, FLOOD_LENGTH, path).replace("Content-Length", auth + "Content-Length")
            early = _exchange(port, head)
            assert (early[0], json.loads(early[2])["code"]) == (status, code)
            _same_answer(early, _flask_answer(config, path, token, GAME))
        with pytest.raises(TimeoutError):  # with the key the server waits for the body
            _exchange(port, _create_head(port, FLOOD_LENGTH, path).replace(
                "Content-Length", f"Authorization: Bearer {key}\r\nContent-Length"), timeout=2.0)
        assert requests.get(f"{base}/games", timeout=30).json()["games"] == []  # nothing was created


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
