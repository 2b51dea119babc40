"""A correction over real HTTP (``kibitz serve`` in a subprocess): 201, the refusals, a dry
run and the undo of a correction, as a scorekeeper's script would send them."""

from __future__ import annotations

import requests

from tests.conftest import OPEN_DEAL, PLAYERS
from tests.serving import serving

TRICK = [("Bob", "7H"), ("Cas", "JH"), ("Dee", "AH"), ("Ann", "TH")]


def test_correct_over_real_http(tmp_path):
    with serving(tmp_path) as base:
        made = requests.post(f"{base}/games", json={"game": "toepen", "players": PLAYERS, "visibility": "open"},
                             timeout=30).json()
        url, auth = f"{base}/games/{made['id']}", {"Authorization": f"Bearer {made['token']}"}
        assert requests.post(f"{url}/events", json=OPEN_DEAL, headers=auth, timeout=30).status_code == 201
        for player, card in TRICK:
            requests.post(f"{url}/events", json={"type": "play", "player": player, "card": card}, headers=auth,
                          timeout=30)
        fix = {"target": 4, "action": {"type": "play", "player": "Cas", "card": "8H"}, "reason": "it was the 8"}
        dry = requests.post(f"{url}/correct?dry_run=true", json=fix, headers=auth, timeout=30)
        assert dry.status_code == 200 and dry.json()["dry_run"] is True
        assert requests.get(url, timeout=30).json()["version"] == 6
        done = requests.post(f"{url}/correct", json=fix, headers={**auth, "If-Match": '"6"'}, timeout=30)
        assert done.status_code == 201
        assert done.json()["target"]["summary"] == "Cas played J♥"
        assert done.json()["state"] == dry.json()["state"]
        conflict = requests.post(f"{url}/correct", json={"target": 3, "action": {
            "type": "play", "player": "Bob", "card": "8C"}}, headers=auth, timeout=30)
        assert conflict.status_code == 409
        assert conflict.headers["Content-Type"].startswith("application/problem+json")
        assert conflict.json()["code"] == "correction_conflict" and conflict.json()["conflicts_with"] == 4
        assert requests.post(f"{url}/correct", json=fix, timeout=30).status_code == 401
        assert requests.post(f"{url}/correct", json=fix, headers={**auth, "If-Match": '"6"'},
                             timeout=30).status_code == 412
        assert requests.post(f"{url}/correct", json={"target": 1, "action": fix["action"]}, headers=auth,
                             timeout=30).json()["code"] == "nothing_to_correct"
        undo = requests.post(f"{url}/undo", headers=auth, timeout=30).json()
        assert undo["target"]["summary"] == "Fix: Cas played 8♥, not J♥"
        log = requests.get(f"{url}/events", headers=auth, timeout=30).json()["events"]
        assert log[3]["corrected_by"] is None and log[6]["undone"] is True
