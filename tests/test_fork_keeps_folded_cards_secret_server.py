"""A what-if fork never publishes what a game up its chain keeps secret for good (issue 27),
over real HTTP against a real ``kibitz serve``.

An outside tester, in open Toepen: a fork made before Ann's fold, in which she stays in,
published her four cards once both hands had ended, though in the original game she folded
and a folded player's cards are never revealed (rules/toepen.md, "Answering a knock"). The
cause was general: a fork inherits the dealt cards of every game up its chain, but inherited
only their secrecy "until the hand is over" (``service.storage.forks.sealed_by``), not the cards
such a game keeps secret after it. Now the fork's public reads are refused (401
``token_required``) while its public view names a card a game up its chain never shows
(``service.record.secrecy.names_kept_secret``); a fork that names none of them reads as before.
"""

from __future__ import annotations

import pytest
import requests

from tests.conftest import OPEN_DEAL, PLAYERS
from tests.serving import serving

ANN = OPEN_DEAL["hands"]["Ann"]  # TH 9C JD QS


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    with serving(tmp_path_factory.mktemp("fork-folded")) as url:
        yield url


def _post(url: str, auth: dict[str, str], path: str, body: dict) -> dict:
    done = requests.post(f"{url}/{path}", json=body, headers=auth, timeout=30)
    assert done.status_code == 201, done.text
    return dict(done.json())


def _one(kind: str, player: str) -> dict:
    return {"type": kind, "player": player}


def _play(player: str, card: str) -> dict:
    return {"type": "play", "player": player, "card": card}


def _original(base: str) -> tuple[str, str, dict[str, str]]:
    """Ann folds to Bob's knock (event 4), then Cas and Dee do: Bob wins hand 1."""
    made = requests.post(f"{base}/games", json={"game": "toepen", "players": PLAYERS, "visibility": "open"},
                         timeout=30).json()
    url, auth = f"{base}/games/{made['id']}", {"Authorization": f"Bearer {made['token']}"}
    for body in (OPEN_DEAL, _one("knock", "Bob"), _one("fold", "Ann"), _one("fold", "Cas"), _one("fold", "Dee")):
        _post(url, auth, "events", body)
    assert requests.get(url, timeout=30).json()["state"]["phase"] == "deal"  # hand 1 is over
    assert not set(ANN) & set(requests.get(f"{url}/events", timeout=30).text.split('"'))  # Ann's cards are dead
    return made["id"], url, auth


def _fork(base: str, url: str, auth: dict[str, str], seq: int, moves: list[dict]) -> tuple[str, dict[str, str]]:
    fork = _post(url, auth, "fork", {"seq": seq})
    fork_url, fork_auth = f"{base}/games/{fork['id']}", {"Authorization": f"Bearer {fork['token']}"}
    for body in moves:
        _post(fork_url, fork_auth, "events", body)
    return fork_url, fork_auth


READS = ("", "/events", "/timeline", "/hands/1", "/hands/1/tricks/1", "/states/7", "/export?format=text")


def test_a_fork_where_the_folded_player_stays_in_never_shows_her_cards(base):
    game_id, url, auth = _original(base)
    fork_url, fork_auth = _fork(base, url, auth, 3, [  # before Ann's fold: she stays in and plays
        _one("fold", "Cas"), _one("fold", "Dee"), _play("Bob", "7H"), _play("Ann", "TH"), _play("Ann", "9C"),
        _play("Bob", "8C"), _play("Ann", "JD"), _play("Bob", "AD"), _play("Bob", "KS"), _play("Ann", "QS")])
    assert requests.get(fork_url, headers=fork_auth, timeout=30).json()["state"]["phase"] == "deal"  # both over
    for path in READS:
        refused = requests.get(f"{fork_url}{path}", timeout=30)
        assert refused.status_code == 401, (path, refused.text[:300])
        assert refused.json()["code"] == "token_required"
        assert refused.json()["sealed_by"] == game_id and "never shows" in refused.json()["detail"]
        assert game_id not in refused.json()["detail"]  # a game is named in words, never by its id
        assert not set(ANN) & set(refused.text.split('"'))
        assert requests.get(f"{fork_url}{path}", headers=fork_auth, timeout=30).status_code == 200
    fork_id = fork_url.rsplit("/", 1)[1]
    for page in (f"/watch/{fork_id}", f"/watch/{fork_id}/replay", f"/watch/{fork_id}/hands/1"):
        answer = requests.get(f"{base}{page}", timeout=30)
        assert answer.status_code == 401, page
        assert not any(card in answer.text for card in ("10♥", "9♣", "J♦", "Q♠"))
    assert requests.get(url, timeout=30).status_code == 200  # the original reads as before


def test_a_fork_that_names_no_folded_card_reads_as_before(base):
    _game_id, url, auth = _original(base)
    fork_url, _fork_auth = _fork(base, url, auth, 4, [_one("fold", "Dee"), _one("fold", "Cas")])  # after Ann's fold
    for path in READS[:4]:
        answer = requests.get(f"{fork_url}{path}", timeout=30)
        assert answer.status_code == 200, (path, answer.text[:300])
        assert not set(ANN) & set(answer.text.split('"'))


def test_a_fork_of_a_fork_is_judged_by_the_game_that_dealt_the_hand(base):
    """The original dealt hand 1: what it keeps secret stays secret two forks down; a card a
    fork in between left unplayed but the original showed is no secret."""
    game_id, url, auth = _original(base)
    between_url, between_auth = _fork(base, url, auth, 3, [_one("fold", "Ann"), _one("fold", "Cas"),
                                                          _one("fold", "Dee")])  # as in the original
    assert requests.get(f"{between_url}/events", timeout=30).status_code == 200
    below_url, _below_auth = _fork(base, between_url, between_auth, 3, [
        _one("fold", "Cas"), _one("fold", "Dee"), _play("Bob", "7H"), _play("Ann", "TH")])  # Ann stays in
    refused = requests.get(f"{below_url}/events", timeout=30)
    assert refused.status_code == 401 and refused.json()["sealed_by"] == game_id
    assert not set(ANN) & set(refused.text.split('"'))
