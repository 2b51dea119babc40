"""The club key through a real ``kibitz serve``: ``--club-key-file`` and ``KIBITZ_CLUB_KEY``,
the start-up line, the creating routes, reads, and ``kibitz import`` on the server machine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import requests

from tests.club_server import PLAYERS, kibitz, serve
from tests.conftest import free_port

KEY = "Friday-night-club-2026"
GAME = {"game": "toepen", "players": PLAYERS, "visibility": "open"}
DEAL = {"type": "deal", "hands": {"Ann": ["TH", "9C", "JD", "QS"], "Bob": ["7H", "8C", "AD", "KS"],
                                  "Cas": ["JH", "8H", "TC", "9S"], "Dee": ["AH", "7C", "8D", "TS"]}}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def first_lines(log: Path) -> list[str]:
    return log.read_text().splitlines()[:2]


def check_keyed_server(base: str, tmp_path: Path) -> None:
    """Creating and importing need the key; records need the game's token; reads stay public."""
    missing = requests.post(f"{base}/games", json=GAME, timeout=30)
    assert missing.status_code == 401 and missing.json()["code"] == "club_key_required"
    wrong = requests.post(f"{base}/games", json=GAME, headers=bearer("Friday-night-club-2025"), timeout=30)
    assert wrong.status_code == 403 and wrong.json()["code"] == "club_key_invalid"
    assert requests.get(f"{base}/games", timeout=30).json()["games"] == []  # nothing created
    created = requests.post(f"{base}/games", json=GAME, headers=bearer(KEY), timeout=30)
    assert created.status_code == 201
    game = created.json()
    url = f"{base}/games/{game['id']}"
    assert requests.post(f"{url}/events", json=DEAL, headers=bearer(KEY), timeout=30).status_code == 403
    assert requests.post(f"{url}/events", json=DEAL, headers=bearer(game["token"]), timeout=30).status_code == 201
    public = requests.get(f"{url}/events", timeout=30).json()
    with_key = requests.get(f"{url}/events", headers=bearer(KEY), timeout=30).json()
    assert public == with_key and "hands" not in with_key["events"][1]["data"]
    refused = requests.post(f"{url}/fork", json={"seq": 2}, headers=bearer(KEY), timeout=30)
    assert refused.status_code == 403 and refused.json()["code"] == "token_invalid"
    export = requests.get(f"{url}/export", headers=bearer(game["token"]), timeout=30).json()
    del export["game"]["id"]  # a hand-written document: imported even here, beside its original
    no_key = requests.post(f"{base}/games/import", json=export, timeout=30)
    assert no_key.status_code == 401 and no_key.json()["code"] == "club_key_required"
    imported = requests.post(f"{base}/games/import", json=export, headers=bearer(KEY), timeout=30)
    assert imported.status_code == 201, imported.text
    assert len(requests.get(f"{base}/games", timeout=30).json()["games"]) == 2
    assert 'data-club-key-required="true"' in requests.get(f"{base}/new", timeout=30).text


def test_club_key_file(tmp_path):
    key_file = tmp_path / "club.key"
    key_file.write_text(KEY + "\n")  # a file's final newline is not part of the key
    with serve(tmp_path / "club.db", args=["--club-key-file", str(key_file)]) as served:
        check_keyed_server(served.base, tmp_path)
        assert first_lines(served.log)[1] == (f"Club key from the file {key_file}: creating and importing games "
                                              "need it; reads stay public.")


def test_club_key_from_the_environment(tmp_path):
    with serve(tmp_path / "club.db", env={"KIBITZ_CLUB_KEY": KEY}) as served:
        check_keyed_server(served.base, tmp_path)
        assert first_lines(served.log)[1] == ("Club key from KIBITZ_CLUB_KEY: creating and importing games need it; "
                                              "reads stay public.")


def test_the_file_wins_over_the_environment(tmp_path):
    key_file = tmp_path / "club.key"
    key_file.write_text(KEY)
    with serve(tmp_path / "club.db", env={"KIBITZ_CLUB_KEY": "the-environment-key"},
               args=["--club-key-file", str(key_file)]) as served:
        assert requests.post(f"{served.base}/games", json=GAME, headers=bearer("the-environment-key"),
                             timeout=30).status_code == 403
        assert requests.post(f"{served.base}/games", json=GAME, headers=bearer(KEY), timeout=30).status_code == 201


def test_without_a_key_the_server_is_open_and_says_so(tmp_path):
    with serve(tmp_path / "club.db", env={"KIBITZ_CLUB_KEY": ""}) as served:
        assert first_lines(served.log)[1] == ("No club key: anyone who can reach this server can create and import "
                                              "games (set one with --club-key-file PATH or KIBITZ_CLUB_KEY).")
        assert requests.post(f"{served.base}/games", json=GAME, timeout=30).status_code == 201
        assert 'data-club-key-required="false"' in requests.get(f"{served.base}/new", timeout=30).text


@pytest.mark.parametrize("content, sentence", [
    ("", "Error: The club key in the file {path} is empty: write the key there (8 to 200 characters)."),
    ("short", "Error: The club key in the file {path} has 5 characters: give 8 to 200."),
    ("clé-du-club-2026", "Error: The club key in the file {path} may hold only printable ASCII characters "
                         "(letters, digits, punctuation and spaces), one line."),
    (None, "Error: Cannot read the club key file {path}: No such file or directory."),
])
def test_an_unusable_key_file_stops_serve_with_one_sentence(tmp_path, content, sentence):
    path = tmp_path / "club.key"
    if content is not None:
        path.write_text(content)
    done = kibitz("serve", "--port", str(free_port()), "--db", str(tmp_path / "club.db"),
                  "--club-key-file", str(path))
    assert done.returncode == 1
    assert done.stderr.strip() == sentence.format(path=path)
    assert "Traceback" not in done.stderr + done.stdout


def test_an_unusable_environment_key_stops_serve_with_one_sentence(tmp_path):
    done = kibitz("serve", "--port", str(free_port()), "--db", str(tmp_path / "club.db"),
                  env={"KIBITZ_CLUB_KEY": "abc"})
    assert done.returncode == 1
    assert done.stderr.strip() == "Error: The club key in KIBITZ_CLUB_KEY has 3 characters: give 8 to 200."


def test_kibitz_import_on_the_server_machine_needs_no_club_key(tmp_path):
    """The CLI works on the database file: whoever can run it there is the server's operator."""
    db = tmp_path / "club.db"
    with serve(db, env={"KIBITZ_CLUB_KEY": KEY}) as served:
        game = requests.post(f"{served.base}/games", json=GAME, headers=bearer(KEY), timeout=30).json()
        export = requests.get(f"{served.base}/games/{game['id']}/export", headers=bearer(game["token"]),
                              timeout=30).json()
        del export["game"]["id"]
        night = tmp_path / "night.json"
        night.write_text(json.dumps(export))
        done = kibitz("import", str(night), "--db", str(db), env={"KIBITZ_CLUB_KEY": ""})
        assert done.returncode == 0, done.stderr
        assert "1 imported" in done.stdout
        assert len(requests.get(f"{served.base}/games", timeout=30).json()["games"]) == 2
