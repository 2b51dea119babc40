"""The state's ``status_sentence`` (docs/decisions.md, "The status sentence"), over real HTTP
with a real ``kibitz serve``: every answer carrying a ``state`` carries the sentence of that
state (``GET /games/<id>``, a write's 201, ``GET …/states/<seq>``), the game page's headline is
that same field, and in a secret game (open hands) it never names a card the reader may not
see, with the token or without it, at any step."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.conftest import OPEN_DEAL
from tests.serving import serving

PRETTY = {"T": "10", "C": "♣", "D": "♦", "H": "♥", "S": "♠"}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder: Path = tmp_path_factory.mktemp("status-sentence")
    with serving(folder) as url:
        yield url


def create(base: str, **body: Any) -> dict[str, Any]:
    body = {"players": ["Ann", "Bob", "Cas", "Dee"], "dealer": "Ann", **body}
    answer = requests.post(f"{base}/games", json={k: v for k, v in body.items() if v is not None}, timeout=30)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def post(base: str, game: dict[str, Any], action: dict[str, Any]) -> dict[str, Any]:
    answer = requests.post(f"{base}/games/{game['id']}/events", json=action, timeout=30,
                           headers={"Authorization": f"Bearer {game['token']}"})
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def read(base: str, game: dict[str, Any], path: str = "", token: bool = False) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {game['token']}"} if token else {}
    answer = requests.get(f"{base}/games/{game['id']}{path}", headers=headers, timeout=30)
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def headline(base: str, game: dict[str, Any]) -> str:
    page = requests.get(f"{base}/watch/{game['id']}", timeout=30)
    assert page.status_code == 200
    found = re.search(r'<p class="headline"[^>]*>(.*?)</p>', page.text, re.S)
    assert found is not None
    return html.unescape(re.sub(r"<[^>]+>", "", found.group(1))).strip()


def test_every_state_carries_its_sentence_and_the_game_page_shows_it(base: str) -> None:
    game = create(base, game="toepen")
    assert game["state"]["status_sentence"] == "Deal hand 1 — dealer Ann"
    steps = [({"type": "deal"}, "Bob to play"),
             ({"type": "play", "player": "Bob", "card": "7H"}, "Cas to play"),
             ({"type": "knock", "player": "Cas"}, "Cas to play — Cas knocked (stake 2): Ann, Bob and Dee may fold"),
             ({"type": "abandon", "reason": "the club closes"}, "The game was abandoned.")]
    for action, words in steps:
        written = post(base, game, action)
        assert written["state"]["status_sentence"] == words
        assert read(base, game)["state"]["status_sentence"] == words
        assert read(base, game, token=True)["state"]["status_sentence"] == words
        assert read(base, game, f"/states/{written['seq']}")["state"]["status_sentence"] == words
        assert headline(base, game) == words
    assert read(base, game, "/states/2")["state"]["status_sentence"] == "Bob to play"


def test_each_game_says_its_own_sentence(base: str) -> None:
    fool = create(base, game="fool")
    assert fool["state"]["status_sentence"] == "Deal round 1 — dealer Ann"
    fuji = create(base, game="fuji_flush", players=["Ann", "Bob", "Cas"], dealer=None, first_player="Cas")
    assert fuji["state"]["status_sentence"] == "Deal — Cas plays first"
    bus = create(base, game="stop_the_bus", players=["Ann", "Bob"])
    dealt = post(base, bus, {"type": "deal", "centre": ["2H", "3H", "4H"]})
    assert dealt["state"]["status_sentence"] == "Bob to swap or stop"
    assert headline(base, bus) == "Bob to swap or stop"


def _words(card: str) -> tuple[str, ...]:
    return (card, PRETTY.get(card[0], card[0]) + PRETTY[card[1]])


def _names_a_card(sentence: str, cards: set[str]) -> set[str]:
    return {card for card in cards for word in _words(card)
            if re.search(rf"(?<![A-Za-z0-9]){re.escape(word)}(?![A-Za-z0-9])", sentence)}


def test_a_secret_games_sentence_names_no_card_for_any_reader(base: str) -> None:
    """An open game (hands known to the token's holder, secret from everyone else while the
    hand is played): at every step, read with and without the token, the sentence names no
    card of any hand, and it is the same sentence for both readers."""
    game = create(base, game="toepen", visibility="open")
    hands = {card for cards in OPEN_DEAL["hands"].values() for card in cards}
    post(base, game, OPEN_DEAL)
    for action in ({"type": "play", "player": "Bob", "card": "7H"}, {"type": "knock", "player": "Cas"},
                   {"type": "play", "player": "Cas", "card": "8H"}, {"type": "play", "player": "Dee", "card": "AH"},
                   {"type": "play", "player": "Ann", "card": "TH"}):
        post(base, game, action)
    version = read(base, game)["version"]
    seen = set()
    for seq in range(1, version + 1):
        public = read(base, game, f"/states/{seq}")["state"]
        full = read(base, game, f"/states/{seq}", token=True)["state"]
        assert public["status_sentence"] == full["status_sentence"]
        assert not _names_a_card(public["status_sentence"], hands), (seq, public["status_sentence"])
        seen.add(public["status_sentence"])
    assert "Cas to play — Cas knocked (stake 2): Ann, Bob and Dee may fold" in seen and len(seen) >= 4
    # the check finds a card where one is named
    assert _names_a_card("Ann played 10♥", hands) == {"TH"}
