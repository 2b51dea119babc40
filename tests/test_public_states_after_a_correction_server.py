"""A past moment after a correction shows the replacement, not the card first recorded
(secrecy.md: a public read is refused only for "every moment that shows such a card"), over
real HTTP against a real ``kibitz serve`` (issue 27).

An outside tester, in open Toepen: deal, Bob plays 8♣ (event 3), event 3 corrected to 7♥
(event 4), Cas plays J♥ (event 5): ``GET /games/G/states/4`` and ``/states/5`` without the
token answered 401 ("shows the card of event 3"), though state 5 is the current state that
``GET /games/G`` shows publicly and neither names 8♣. Moments that do show a card back in a
hand stay refused: before the correction, a correction later undone or replaced.
"""

from __future__ import annotations

import pytest
import requests

from tests.serving import recorded, serving


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    with serving(tmp_path_factory.mktemp("corrected-states")) as url:
        yield url


def _play(player: str, card: str) -> tuple[str, dict]:
    return "events", {"type": "play", "player": player, "card": card}


def _correct(target: int, player: str, card: str) -> tuple[str, dict]:
    return "correct", {"target": target, "action": {"type": "play", "player": player, "card": card}}


def _public(url: str, seq: int) -> requests.Response:
    return requests.get(f"{url}/states/{seq}", timeout=30)


def _shown(url: str, seq: int) -> str:
    """The public state after step ``seq`` as text, without the game's id (a random word of
    letters and digits may hold a card's code, such as 8C)."""
    return _public(url, seq).text.replace(url.rsplit("/", 1)[1], "")


def test_the_moments_after_a_correction_are_public(base):
    url, auth = recorded(base, [_play("Bob", "8C"), _correct(3, "Bob", "7H"), _play("Cas", "JH")])
    now = requests.get(url, timeout=30).json()
    assert now["version"] == 5
    for seq in (4, 5):
        answer = _public(url, seq)
        assert answer.status_code == 200, answer.text
        assert "8C" not in answer.text.replace(url.rsplit("/", 1)[1], "")  # the card first recorded is back in Bob's hand
    assert _public(url, 5).json()["state"] == now["state"]
    assert _public(url, 4).json()["state"]["tricks"][0]["plays"] == [{"player": "Bob", "card": "7H", "seq": 3}]
    refused = _public(url, 3)  # shows 8♣, which is back in Bob's hand
    assert refused.status_code == 401 and refused.json()["code"] == "token_required"
    assert refused.json()["detail"].startswith("The state after step 3 shows Bob's card of hand 1, trick 1, which")
    assert refused.json()["shows_seq"] == 3
    assert requests.get(f"{url}/states/3", headers=auth, timeout=30).status_code == 200
    assert requests.get(f"{base}/watch/{url.rsplit('/', 1)[1]}/replay?step=5", timeout=30).status_code == 200


def test_a_moment_of_a_correction_replaced_later_stays_refused(base):
    url, _auth = recorded(base, [_play("Bob", "8C"), _correct(3, "Bob", "7H"), _correct(3, "Bob", "AD"),
                                  _play("Cas", "JH")])
    assert [_public(url, seq).status_code for seq in (2, 3, 4, 5, 6)] == [200, 401, 401, 200, 200]
    assert _public(url, 4).json()["shows_seq"] == 4  # 7♥, back in Bob's hand
    assert "Bob's card of hand 1, trick 1" in _public(url, 4).json()["detail"]
    assert "8C" not in _shown(url, 6) and "7H" not in _shown(url, 6)


def test_a_moment_of_a_correction_undone_later_stays_refused(base):
    url, _auth = recorded(base, [_play("Bob", "8C"), _correct(3, "Bob", "7H"), ("undo", {})])
    assert [_public(url, seq).status_code for seq in (2, 3, 4, 5)] == [200, 200, 401, 200]
    assert _public(url, 4).json()["shows_seq"] == 4  # 7♥ is back in Bob's hand
    assert "7H" not in _shown(url, 5)
