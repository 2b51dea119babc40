"""Games recorded through the real HTTP API for the browser tests, the screenshots and the
pages benchmark: a club evening of all four games, with a correction, a proven revoke and
finished games for the player charts. Nothing here needs ``../shared``.

Every function takes a running :class:`tests.browser.conftest.KibitzServer` and records
through ``POST /games`` and ``POST /games/<id>/events`` / ``undo`` (the API's write path).
"""

from __future__ import annotations

import random
from typing import Any

import requests

TOEPEN_DECK = [rank + suit for suit in "HSDC" for rank in "789TJQKA"]

#: A table-visibility Fool! round: a revoke in trick 1 (Ilja's R7 on green) proven by his G6.
FOOL_PLAYS = [("Anja", "G20"), ("Bettina", "G4"), ("Uwe", "G11"), ("Ilja", "R7"),
              ("Anja", "B9"), ("Bettina", "B5"), ("Uwe", "B10"),
              ("Uwe", "Y11"), ("Ilja", "G6"), ("Anja", "Y2")]
#: Stop the Bus, table visibility: one round to the showdown, a second one started.
BUS_STEPS: list[dict[str, Any]] = [
    {"type": "deal", "centre": ["QS", "4H", "9D"]},
    {"type": "swap", "player": "Ann", "take": "QS", "give": "2C"},
    {"type": "swap", "player": "Bob", "take": "9D", "give": "5S"},
    {"type": "swap", "player": "Cas", "take": "4H", "give": "KD"},
    {"type": "swap", "player": "Ann", "take": "KD", "give": "3H"},
    {"type": "stop", "player": "Ann"},
    {"type": "swap", "player": "Bob", "take": "5S", "give": "7C"},
    {"type": "swap", "player": "Cas", "take": "2C", "give": "8H"},
    {"type": "show", "player": "Cas", "cards": ["4H", "2C", "3S"]},
    {"type": "show", "player": "Ann", "cards": ["QS", "JS", "KD"]},
    {"type": "show", "player": "Bob", "cards": ["9D", "9C", "5S"]},
    {"type": "deal", "centre": ["AH", "2H", "3H"]},
    {"type": "swap", "player": "Bob", "take": "AH", "give": "7S"},
]
FUJI_PLAYS = [("Yeonsu", 6), ("Jisu", 8), ("Nami", 7), ("Gahee", 7), ("Yeonsu", 9), ("Jisu", 14), ("Nami", 6),
              ("Gahee", 3), ("Yeonsu", 3), ("Jisu", 20), ("Nami", 2)]


class Recorder:
    """Writes to one game through the API with its token; ``post`` asserts a 201."""

    def __init__(self, base: str, created: dict[str, Any]) -> None:
        self.base = base
        self.game = created
        self.id = created["id"]
        self.token = created["token"]
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Bearer {self.token}"

    def post(self, action: dict[str, Any]) -> dict[str, Any]:
        response = self.session.post(f"{self.base}/games/{self.id}/events", json=action, timeout=30)
        assert response.status_code == 201, response.text
        return dict(response.json())

    def undo(self, reason: str | None = None) -> dict[str, Any]:
        response = self.session.post(f"{self.base}/games/{self.id}/undo",
                                     json={"reason": reason} if reason else {}, timeout=30)
        assert response.status_code == 201, response.text
        return dict(response.json())

    def read(self, path: str = "") -> dict[str, Any]:
        response = self.session.get(f"{self.base}/games/{self.id}{path}", timeout=30)
        assert response.status_code == 200, response.text
        return dict(response.json())


def create(base: str, **body: Any) -> Recorder:
    """``POST /games`` with ``body``; a :class:`Recorder` for the new game."""
    response = requests.post(f"{base}/games", json=body, timeout=30)
    assert response.status_code == 201, response.text
    return Recorder(base, response.json())


def toepen_open_game(base: str, players: list[str], seed: int, limit: int = 3, title: str | None = None,
                     max_events: int = 600) -> Recorder:
    """An open Toepen game played to its end: seeded deals, the first legal card from
    ``GET actions`` (with the token), and now and then a knock answered by a fold."""
    rng = random.Random(seed)
    game = create(base, game="toepen", players=players, visibility="open",
                  options={"limit": limit, "laundry_mandatory": False},
                  **({"title": title} if title else {}))
    for _ in range(max_events):
        state = game.read()["state"]
        if state["status"] != "in_progress":
            break
        if state["phase"] == "deal":
            deck = TOEPEN_DECK[:]
            rng.shuffle(deck)
            hands = {name: deck[4 * i:4 * i + 4] for i, name in enumerate(players)}
            game.post({"type": "deal", "hands": hands})
            continue
        actions = game.read("/actions")["actions"]
        plays = [a for a in actions if a["type"] == "play" and a.get("cards")]
        folds = [a for a in actions if a["type"] == "fold"]
        knocks = [a for a in actions if a["type"] == "knock" and a["player"] in state["to_act"]]
        if folds and rng.random() < 0.5:
            game.post({"type": "fold", "player": folds[0]["player"]})
        elif knocks and rng.random() < 0.15:
            game.post({"type": "knock", "player": knocks[0]["player"]})
        elif plays:
            play = plays[0]
            game.post({"type": "play", "player": play["player"], "card": rng.choice(play["cards"])})
        else:  # knock answers due (explicit knocks): the first answer offered
            first = next(a for a in actions if a["type"] in ("stay", "fold"))
            game.post({"type": first["type"], "player": first["player"]})
    return game


def toepen_table_game(base: str) -> Recorder:
    """A table-visibility Toepen game in hand 1: a mistaken card undone, a knock and a fold."""
    game = create(base, game="toepen", players=["Ann", "Bob", "Cas", "Dee"], dealer="Ann", title="Friday club")
    game.post({"type": "deal"})
    for player, card in (("Bob", "7H"), ("Cas", "8H"), ("Dee", "AH"), ("Ann", "9S")):
        game.post({"type": "play", "player": player, "card": card})
    game.post({"type": "play", "player": "Cas", "card": "TC"})
    game.undo("it was the ten of diamonds")
    game.post({"type": "play", "player": "Cas", "card": "TD"})
    game.post({"type": "knock", "player": "Dee"})
    game.post({"type": "fold", "player": "Bob"})
    return game


def fool_game(base: str) -> Recorder:
    """Table-visibility Fool!: three tricks and a bit, with a revoke proven at Ilja's G6."""
    game = create(base, game="fool", players=["Anja", "Bettina", "Uwe", "Ilja"], dealer="Ilja", title="Sunday Fool")
    game.post({"type": "deal"})
    for player, card in FOOL_PLAYS:
        game.post({"type": "play", "player": player, "card": card})
    game.post({"type": "note", "player": "Anja", "text": "Ilja played R7 on green in trick 1 and now a green card!"})
    return game


def bus_game(base: str) -> Recorder:
    """Table-visibility Stop the Bus: a round to the showdown and the next one begun."""
    game = create(base, game="stop_the_bus", players=["Ann", "Bob", "Cas"], dealer="Cas")
    for action in BUS_STEPS:
        game.post(action)
    return game


def fuji_game(base: str) -> Recorder:
    """Table-visibility Fuji Flush: eleven turns with flushes and draws."""
    game = create(base, game="fuji_flush", players=["Yeonsu", "Jisu", "Nami", "Gahee"], first_player="Yeonsu")
    game.post({"type": "deal"})
    for player, card in FUJI_PLAYS:
        game.post({"type": "play", "player": player, "card": card})
    return game


def club_evening(base: str) -> dict[str, Recorder]:
    """Every game above: three finished open Toepen games (Ann in each, for her charts),
    the table Toepen game, Fool!, Stop the Bus and Fuji Flush, all in progress."""
    out = {f"toepen_open_{n}": toepen_open_game(base, players, seed=n, title=f"Club night {n}")
           for n, players in enumerate((["Ann", "Bob", "Cas", "Dee"], ["Ann", "Eve", "Bob"],
                                        ["Cas", "Ann", "Dee"]), start=1)}
    out.update(toepen=toepen_table_game(base), fool=fool_game(base), bus=bus_game(base), fuji=fuji_game(base))
    return out
