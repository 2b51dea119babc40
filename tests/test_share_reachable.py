"""Sharing that works (ui.md): when ``kibitz serve`` listens on loopback only, the share link's
answer (``POST /table/<id>/share``, what **Share scorekeeping** shows) says that other devices
cannot reach this address and how to start the server for the club (``--lan``); a server
listening on every address, asked under a name other devices can open, gives a link with no
warning. Real ``kibitz serve`` processes over HTTP."""

from __future__ import annotations

from pathlib import Path

import requests

from tests.browser.conftest import KibitzServer


def _share(server: KibitzServer, host: str | None = None) -> dict[str, object]:
    game = requests.post(f"{server.base}/games", json={"game": "toepen", "players": ["Ann", "Bob", "Cas"]},
                         timeout=30).json()
    headers = {"Authorization": f"Bearer {game['token']}", **({"Host": host} if host else {})}
    answer = requests.post(f"{server.base}/table/{game['id']}/share", headers=headers, timeout=30)
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def test_a_loopback_only_server_says_other_devices_cannot_reach_it_and_names_lan(tmp_path: Path) -> None:
    server = KibitzServer(tmp_path)
    server.start()
    try:
        shared = _share(server)
    finally:
        server.stop()
    assert shared["reachable"] is False
    warning = str(shared["warning"])
    assert "other devices cannot reach this address" in warning
    assert "kibitz serve --lan" in warning and "127.0.0.1" in warning
    assert warning.endswith(".") and ".." not in warning


def test_a_server_on_every_address_gives_a_link_other_devices_can_open(tmp_path: Path) -> None:
    server = KibitzServer(tmp_path, ("--host", "0.0.0.0"))
    server.start()
    try:
        named = _share(server, f"kibitz.test:{server.port}")  # the page opened under a LAN name
        local = _share(server)  # opened as 127.0.0.1 on the server's own machine
    finally:
        server.stop()
    assert named["reachable"] is True and named["warning"] is None
    assert str(named["link"]).startswith(f"http://kibitz.test:{server.port}/table/")
    assert local["reachable"] is False
    assert "other devices cannot open" in str(local["warning"]) and "--lan" in str(local["warning"])
