"""Nothing a reader without the token gets from an open game depends on the cards still hidden
in its hands (api.md, "Views and secrets": hidden cards stay hidden in every read).

Two open games whose deals differ only in hidden cards, with the same public history, must
answer every public read identically (ids and times aside). Before, ``GET …/actions`` of an
open Toepen game was computed from the hidden hands: with a laundry hand (all J/Q/K/A) and
``laundry_mandatory`` on, the public answer left out that player's ``play`` entry.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from engine import fool, stop_the_bus, toepen
from tests.conftest import create

FUJI_DECK = {"2": 6, "3": 6, "5": 6, "7": 6, "9": 6}
GAMES: dict[str, dict[str, Any]] = {
    "toepen": {"players": ["Ann", "Bob", "Cas"], "deck": list(toepen.DECK), "size": 4, "options": {}},
    "fool": {"players": ["Ann", "Bob", "Cas", "Dee"], "deck": list(fool.DECK), "size": 3,
             "options": {"hand_size": 3}},
    "fuji_flush": {"players": ["Ann", "Bob", "Cas"], "deck": [int(n) for n, k in FUJI_DECK.items() for _ in range(k)],
                   "size": 3, "options": {"hand_size": 3, "deck": FUJI_DECK}},
    "stop_the_bus": {"players": ["Ann", "Bob", "Cas"], "deck": list(stop_the_bus.DECK), "size": 3, "options": {}},
}
READS = ("", "/actions", "/timeline", "/timeline?hand=1", "/hands/1", "/hands/1/tricks/1", "/states/1",
         "/states/2", "/states/3", "/events", "/export?format=json", "/export?format=jsonl", "/export?format=text",
         "/export?format=csv")
TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?Z?")
#: A hash, a salt or a fingerprint (64, 32 or 12 hex digits): random per game (the salts), so
#: twin games differ in them whatever their cards; a salt is shown only where nothing is hidden.
HEX = re.compile(r"\b[0-9a-f]{12}(?:[0-9a-f]{20}(?:[0-9a-f]{32})?)?\b")


#: Stop the Bus's centre is dealt face up (public): the same in every deal compared.
CENTRE = ["QD", "8D", "9D"]


def _deal(game: str, rng: random.Random, fixed: tuple[str, Any] | None = None) -> dict[str, Any]:
    """A random open deal; ``fixed`` (player, card) puts that card first in that player's hand."""
    spec = GAMES[game]
    deck = [card for card in spec["deck"] if game != "stop_the_bus" or card not in CENTRE]
    if fixed is not None:
        deck.remove(fixed[1])
    cards = rng.sample(deck, spec["size"] * len(spec["players"]))
    if fixed is not None:
        seat = spec["players"].index(fixed[0])
        cards.insert(seat * spec["size"], fixed[1])
        cards.pop()
    hands = {name: cards[i * spec["size"]:(i + 1) * spec["size"]] for i, name in enumerate(spec["players"])}
    deal: dict[str, Any] = {"type": "deal", "hands": hands}
    if game == "stop_the_bus":
        deal["centre"] = CENTRE
    return deal


def _move(game: str, player: str, card: Any) -> dict[str, Any]:
    if game == "stop_the_bus":
        return {"type": "swap", "player": player, "take": CENTRE[0], "give": card}
    return {"type": "play", "player": player, "card": card}


def _public(client, game, deal, moves=()) -> tuple[dict[str, tuple[int, str]], Any] | None:
    """Every public read of a new open game after ``deal`` and ``moves`` (None if one is
    refused or the hand ends: then the public history differs)."""
    spec = GAMES[game]
    created = create(client, game=game, players=spec["players"], visibility="open", options=spec["options"])
    if any(created.post(action).status_code != 201 for action in (deal, *moves)):
        return None
    scorekeeper = created.get().get_json()["state"]
    if created.get("/hands/1").get_json().get("result") is not None or scorekeeper["status"] != "in_progress":
        return None
    out = {}
    for path in READS:
        response = created.get(path, token=False)
        text = HEX.sub("<hex>", TIME.sub("<time>", response.get_data(as_text=True).replace(created.id, "<id>")))
        out[path] = (response.status_code, text)
    return out, scorekeeper["phase"]


@pytest.mark.parametrize("moved", [False, True], ids=["dealt", "one move"])
@pytest.mark.parametrize("game", sorted(GAMES))
def test_random_open_deals_read_the_same_to_the_public(client, game, moved):
    """Random deals, then (``moved``) the first player to act plays (or, in Stop the Bus,
    gives) the same card in every game: the public history is the same, the hidden cards not."""
    rng = random.Random(f"hidden-{game}-{moved}")
    fixed, moves = None, ()
    if moved:
        probe = create(client, game=game, players=GAMES[game]["players"], visibility="open",
                       options=GAMES[game]["options"])
        assert probe.post(_deal(game, rng)).status_code == 201
        fixed = (probe.get(token=False).get_json()["state"]["to_act"][0], GAMES[game]["deck"][-1])
        moves = (_move(game, *fixed),)
    compared = 0
    reference = None
    for _ in range(12):
        answer = _public(client, game, _deal(game, rng, fixed), moves)
        if answer is None:
            continue
        if reference is None:
            reference = answer
            continue
        compared += 1
        for path in READS:
            assert answer[0][path] == reference[0][path], (game, path)
    assert compared >= 5


def test_a_laundry_hand_does_not_show_in_the_public_actions(client):
    """The tester's repro: Bob holds only J/Q/K/A (a laundry hand, mandatory by default)."""
    laundry = {"type": "deal", "hands": {"Ann": ["7C", "8C", "9D", "QS"], "Bob": ["JH", "QC", "KD", "AS"],
                                         "Cas": ["7H", "8H", "TC", "9S"]}}
    plain = {"type": "deal", "hands": {**laundry["hands"], "Bob": ["TH", "QC", "KD", "AS"]}}
    answers = [_public(client, "toepen", deal) for deal in (laundry, plain)]
    assert answers[0] is not None and answers[1] is not None
    for path in READS:
        assert answers[0][0][path] == answers[1][0][path], path
    public = [e for e in create_and_actions(client, laundry) if e["type"] == "play"]
    assert [e["player"] for e in public] == ["Bob"]


def create_and_actions(client, deal) -> list[dict[str, Any]]:
    created = create(client, players=["Ann", "Bob", "Cas"], visibility="open")
    assert created.post(deal).status_code == 201
    scorekeeper = created.get("/actions").get_json()["actions"]
    assert not any(e["type"] == "play" for e in scorekeeper)  # the scorekeeper knows Bob must launder
    return list(created.get("/actions", token=False).get_json()["actions"])
