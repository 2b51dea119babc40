"""A correction as the target of an undo or redo reads in card players' words, naming what
now stands and what it replaced, with no event numbers (api.md, ``POST …/correct``); publicly
the card first recorded is named only once it is public (its hand over, and not a folded
player's dead card). ``GET …/actions`` and the 201 of ``POST …/undo`` over real HTTP against a
real ``kibitz serve`` (issue 27)."""

from __future__ import annotations

import re

import pytest
import requests

from tests.serving import recorded, serving


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    with serving(tmp_path_factory.mktemp("fix-words")) as url:
        yield url


def _target(url: str, kind: str, headers: dict[str, str] | None = None) -> str:
    listed = requests.get(f"{url}/actions", headers=headers or {}, timeout=30).json()["actions"]
    summary = next(entry["target"]["summary"] for entry in listed if entry["type"] == kind)
    assert not re.search(r"\bevent\b|\d+(?![♣♦♥♠])\b", summary), summary  # no event numbers
    return summary


def _play(player: str, card: str) -> tuple[str, dict]:
    return "events", {"type": "play", "player": player, "card": card}


def _one(kind: str, player: str) -> tuple[str, dict]:
    return "events", {"type": kind, "player": player}


def test_while_the_hand_is_played_the_public_reads_what_stands_and_that_another_card_was_first(base):
    url, auth = recorded(base, [_play("Bob", "8C"), ("correct", {
        "target": 3, "action": {"type": "play", "player": "Bob", "card": "7H"}})])
    assert _target(url, "undo", auth) == "Fix: Bob played 7♥, not 8♣"
    assert _target(url, "undo") == "Fix: Bob played 7♥; another card was first recorded"
    undone = requests.post(f"{url}/undo", headers=auth, timeout=30)
    assert undone.json()["target"]["summary"] == "Fix: Bob played 7♥, not 8♣"
    assert _target(url, "redo", auth) == "Fix: Bob played 7♥, not 8♣"
    assert _target(url, "redo") == "Fix: Bob played a card"  # 7♥ is back in Bob's hand now


def test_once_the_hand_is_over_the_public_reads_the_card_firstrecorded(base):
    url, auth = recorded(base, [_play("Bob", "7H"), _play("Cas", "JH"), _one("knock", "Cas"), _one("fold", "Dee"),
                                 _one("fold", "Ann"), _one("fold", "Bob"),
                                 ("correct", {"target": 4, "action": {"type": "play", "player": "Cas", "card": "8H"}})])
    assert requests.get(url, timeout=30).json()["state"]["phase"] == "deal"  # the hand is over: Cas won it
    assert _target(url, "undo", auth) == "Fix: Cas played 8♥, not J♥"
    assert _target(url, "undo") == "Fix: Cas played 8♥, not J♥"


def test_a_folded_players_card_first_recorded_is_never_named(base):
    url, auth = recorded(base, [_play("Bob", "8C"), _one("knock", "Cas"), _one("fold", "Dee"), _one("fold", "Ann"),
                                 _one("fold", "Bob"),
                                 ("correct", {"target": 3, "action": {"type": "play", "player": "Bob", "card": "7H"}})])
    assert requests.get(url, timeout=30).json()["state"]["phase"] == "deal"
    assert _target(url, "undo", auth) == "Fix: Bob played 7♥, not 8♣"
    assert _target(url, "undo") == "Fix: Bob played 7♥; another card was first recorded"  # 8♣ is dead
