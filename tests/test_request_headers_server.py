"""Request headers an outside tester forged, over real HTTP against a real ``kibitz serve``
(issue 27).

- **Host.** The share link's address came from any ``Host`` header (``-H 'Host:
  evil.example'`` on ``POST /table/G/share`` gave ``http://evil.example/table/G#token=…``),
  and every route answered a name an attacker's DNS could point at the server (DNS
  rebinding). A request is answered only when addressed to one of the server's own names and
  addresses or to an ``--allowed-host`` name; any other ``Host`` is a 400
  ``host_not_allowed`` problem, on every route, a board poll answered from memory included
  (docs/text-and-headers.md).
- **If-Match.** A weak tag ``W/"2"`` never matches (api.md; RFC 9110 §13.1.1).
"""

from __future__ import annotations

import socket

import pytest
import requests

from service.cli import lan
from tests.postgres import empty_database
from tests.serving import serving

EVIL = "evil.example"


def _game(base: str, **headers: str) -> tuple[str, dict[str, str], str]:
    made = requests.post(f"{base}/games", json={"game": "toepen", "players": ["Ann", "Bob", "Cas"]}, headers=headers,
                         timeout=30).json()
    return made["id"], {"Authorization": f"Bearer {made['token']}"}, made["token"]


def _port(base: str) -> int:
    return int(base.rsplit(":", 1)[1])


def _refused(answer: requests.Response) -> None:
    assert answer.status_code == 400, answer.text
    assert answer.headers["Content-Type"].startswith("application/problem+json")
    assert answer.json()["code"] == "host_not_allowed"
    assert EVIL not in answer.text


#: Each server of this module runs on either backend (issue 27's findings hold on both).
@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def backend(request):
    return request.param


@pytest.fixture(scope="module")
def base(tmp_path_factory, backend):
    folder = tmp_path_factory.mktemp("headers")
    with empty_database(backend, folder) as database, serving(folder, database=database) as url:
        yield url


def test_a_share_link_never_names_a_forged_host(base):
    game_id, auth, token = _game(base)
    forged = requests.post(f"{base}/table/{game_id}/share", headers={**auth, "Host": EVIL}, timeout=30)
    _refused(forged)
    assert token not in forged.text
    for host in (f"127.0.0.1:{_port(base)}", f"localhost:{_port(base)}"):
        shared = requests.post(f"{base}/table/{game_id}/share", headers={**auth, "Host": host}, timeout=30)
        assert shared.status_code == 200, shared.text
        assert shared.json()["link"] == f"http://{host}/table/{game_id}#token={token}"


def test_every_route_refuses_a_host_it_does_not_know(base):
    """DNS rebinding: a page of another site that a browser sends here under that site's name
    reads nothing and writes nothing; a board poll the server answers from memory too."""
    game_id, auth, _token = _game(base)
    board = f"{base}/watch/{game_id}/board"
    assert requests.get(board, timeout=30).status_code == 200
    assert requests.get(board, timeout=30).status_code == 200  # now known in memory
    for host in (EVIL, f"{EVIL}:{_port(base)}", f"127.0.0.1.{EVIL}", "localhost.evil"):
        headers = {"Host": host}
        _refused(requests.get(board, headers=headers, timeout=30))
        _refused(requests.get(f"{base}/health", headers=headers, timeout=30))
        _refused(requests.get(f"{base}/games/{game_id}", headers=headers, timeout=30))
        _refused(requests.get(f"{base}/", headers=headers, timeout=30))
        _refused(requests.post(f"{base}/games/{game_id}/events", json={"type": "deal"}, headers={**auth, **headers},
                               timeout=30))
        _refused(requests.post(f"{base}/games", json={"game": "toepen", "players": ["A", "B"]}, headers=headers,
                               timeout=30))
    assert requests.get(f"{base}/games/{game_id}", timeout=30).json()["version"] == 1


def test_the_machines_own_name_is_known(base):
    name = socket.gethostname()
    answer = requests.get(f"{base}/health", headers={"Host": f"{name}:{_port(base)}"}, timeout=30)
    assert answer.status_code == 200


def test_an_allowed_host_is_answered_and_shared(tmp_path):
    with serving(tmp_path, ("--allowed-host", "club.example", "--allowed-host", ".league.example")) as url:
        game_id, auth, token = _game(url, Host="club.example")
        shared = requests.post(f"{url}/table/{game_id}/share", headers={**auth, "Host": "club.example"}, timeout=30)
        assert shared.status_code == 200
        assert shared.json()["link"] == f"http://club.example/table/{game_id}#token={token}"
        assert requests.get(f"{url}/health", headers={"Host": "north.league.example:8000"}, timeout=30).status_code == 200
        _refused(requests.get(f"{url}/health", headers={"Host": EVIL}, timeout=30))
        assert requests.get(f"{url}/health", timeout=30).status_code == 200  # 127.0.0.1 still


def test_lan_serves_its_addresses_and_shares_the_first(tmp_path):
    addresses = lan.lan_addresses()
    with serving(tmp_path, ("--lan",)) as url:
        game_id, auth, token = _game(url)
        _refused(requests.post(f"{url}/table/{game_id}/share", headers={**auth, "Host": EVIL}, timeout=30))
        shared = requests.post(f"{url}/table/{game_id}/share", headers=auth, timeout=30).json()
        for address in addresses:
            on_lan = url.replace("127.0.0.1", address)
            assert requests.get(f"{on_lan}/health", timeout=30).status_code == 200
        if addresses:
            assert shared["link"] == f"http://{addresses[0]}:{_port(url)}/table/{game_id}#token={token}"


@pytest.mark.parametrize("header", ['W/"2"', 'w/"2"', "W/2", 'W/"2", "1"'])
def test_a_weak_if_match_never_matches(base, header):
    game_id, auth, _token = _game(base)
    url = f"{base}/games/{game_id}/events"
    assert requests.post(url, json={"type": "note", "text": "one"}, headers=auth, timeout=30).status_code == 201
    refused = requests.post(url, json={"type": "note", "text": "two"}, headers={**auth, "If-Match": header}, timeout=30)
    assert refused.status_code == 412, refused.text
    assert refused.json()["code"] == "version_mismatch" and refused.json()["version"] == 2
    assert refused.headers["ETag"] == '"2"'
    assert requests.post(url, json={"type": "note", "text": "two"}, headers={**auth, "If-Match": '"2"'},
                         timeout=30).status_code == 201
