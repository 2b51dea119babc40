"""The same fault gets the same refusal code in every game (recording.md, "Refusal codes
shared by every game"; api.md, "Order of checks"), over real HTTP against a real
``kibitz serve`` on a real SQLite file, as the outside tester's differential probes sent them
(issue 27).

recording.md's list, each row here a fault tried in every game that has it:

- ``not_your_turn``: an action by a player who may not act now (out of turn, folded,
  eliminated or out of chips, sitting out as a Fool, the stopper after a stop);
- ``hand_over``: a game action after a hand or round is over and before the next deal (where
  a rules file names a more specific code, its code stands: fool.md's ``wrong_phase`` for a
  play after the round's last trick);
- ``card_not_available``: a card that cannot be where the action says (not in the hand, not
  in the middle, already seen elsewhere), and a card listed more times than the deck holds it
  (the same card twice in a reveal, a show, a dealt hand, a laundry, a challenge, the middle);
- ``wrong_card_count``: a dealt hand, a reveal or a show with the wrong number of cards (a
  dealt hand short or long, a player's hand missing from an open deal).

And a field an action does not have (a ``card`` on a knock, ``take``/``give`` on a stop) is a
422 ``validation_failed`` in every game, whatever the state.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
import requests

from tests.serving import serving

Step = Mapping[str, Any]

TOEPEN_HANDS = {"Ann": ["TH", "9C", "JD", "QS"], "Bob": ["7H", "8C", "AD", "KS"],
                "Cas": ["JH", "8H", "TC", "9S"], "Dee": ["AH", "7C", "8D", "TS"]}
FOOL_HANDS = {"A": ["G10", "G9", "G8"], "B": ["G3", "G2", "R2"], "C": ["R4", "R5", "R6"], "D": ["G12", "G13", "G14"]}
FUJI_HANDS = {"Yeonsu": [20, 2], "Jisu": [19, 3], "Nami": [18, 4]}
STB_CENTRE = ["2C", "3C", "4C"]
STB_HANDS = {"Ann": ["AS", "KS", "QS"], "Bob": ["AH", "KH", "QH"], "Cas": ["AD", "KD", "QD"]}

GAMES: dict[str, dict[str, Any]] = {
    "toepen": {"game": "toepen", "players": list(TOEPEN_HANDS), "dealer": "Ann"},
    "fool": {"game": "fool", "players": list(FOOL_HANDS), "dealer": "D", "options": {"hand_size": 3}},
    "fuji_flush": {"game": "fuji_flush", "players": list(FUJI_HANDS), "options": {"hand_size": 2}},
    "stop_the_bus": {"game": "stop_the_bus", "players": list(STB_HANDS), "dealer": "Cas"},
}


def _deal(game: str, **hands: Any) -> dict[str, Any]:
    """An open deal of ``game`` with the usual hands, ``hands`` replacing some of them (None
    leaves a player's hand out)."""
    usual = {"toepen": TOEPEN_HANDS, "fool": FOOL_HANDS, "fuji_flush": FUJI_HANDS, "stop_the_bus": STB_HANDS}[game]
    dealt = {name: list(cards) for name, cards in usual.items()}
    for name, cards in hands.items():
        if cards is None:
            dealt.pop(name)
        else:
            dealt[name] = cards
    action: dict[str, Any] = {"type": "deal", "hands": dealt}
    if game == "stop_the_bus":
        action["centre"] = STB_CENTRE
    return action


def _table_deal(game: str) -> dict[str, Any]:
    return {"type": "deal", "centre": STB_CENTRE} if game == "stop_the_bus" else {"type": "deal"}


def _play(player: str, card: Any) -> dict[str, Any]:
    return {"type": "play", "player": player, "card": card}


#: (game, fault, visibility, options, steps that must be accepted, the faulty action, code).
CASES: list[tuple[str, str, str, dict[str, Any], list[Step], Step, str]] = [
    # not_your_turn
    ("toepen", "out of turn", "open", {}, [_deal("toepen")], _play("Cas", "JH"), "not_your_turn"),
    ("fool", "out of turn", "open", {}, [_deal("fool")], _play("B", "G3"), "not_your_turn"),
    ("fuji_flush", "out of turn", "open", {}, [_deal("fuji_flush")], _play("Jisu", 19), "not_your_turn"),
    ("stop_the_bus", "out of turn", "open", {}, [_deal("stop_the_bus")],
     {"type": "swap", "player": "Bob", "take": "2C", "give": "AH"}, "not_your_turn"),
    ("toepen", "folded", "open", {}, [_deal("toepen"), {"type": "knock", "player": "Bob"},
                                      {"type": "fold", "player": "Cas"}, _play("Bob", "7H")],
     _play("Cas", "JH"), "not_your_turn"),
    ("toepen", "eliminated", "table", {"limit": 2, "game_end": "elimination"},
     [{"type": "adjust", "player": "Cas", "amount": 2, "reason": "penalty"}, {"type": "deal"}],
     {"type": "knock", "player": "Cas"}, "not_your_turn"),
    ("stop_the_bus", "out of chips: a swap", "table", {"chips": 1},
     [{"type": "adjust", "player": "Bob", "amount": -1, "reason": "penalty"}, {"type": "deal", "centre": STB_CENTRE}],
     {"type": "swap", "player": "Bob", "take": "2C", "give": "AH"}, "not_your_turn"),
    ("stop_the_bus", "out of chips: a stop", "table", {"chips": 1},
     [{"type": "adjust", "player": "Bob", "amount": -1, "reason": "penalty"}, {"type": "deal", "centre": STB_CENTRE}],
     {"type": "stop", "player": "Bob"}, "not_your_turn"),
    ("stop_the_bus", "out of chips: a stop after the stop", "table", {"chips": 1},
     [{"type": "adjust", "player": "Bob", "amount": -1, "reason": "penalty"}, {"type": "deal", "centre": STB_CENTRE},
      {"type": "stop", "player": "Ann"}],
     {"type": "stop", "player": "Bob"}, "not_your_turn"),
    ("fool", "sitting out as a Fool", "open", {},
     [_deal("fool"), _play("A", "G10"), _play("B", "G3"), _play("C", "R4"), _play("D", "G12"), _play("D", "G13")],
     _play("C", "R5"), "not_your_turn"),
    ("stop_the_bus", "the stopper swaps after the stop", "open", {},
     [_deal("stop_the_bus"), {"type": "swap", "player": "Ann", "take": "2C", "give": "AS"},
      {"type": "stop", "player": "Ann"}, {"type": "swap", "player": "Bob", "take": "AS", "give": "AH"}],
     {"type": "swap", "player": "Ann", "take": "AH", "give": "2C"}, "not_your_turn"),
    ("stop_the_bus", "the stopper stops again", "open", {},
     [_deal("stop_the_bus"), {"type": "swap", "player": "Ann", "take": "2C", "give": "AS"},
      {"type": "stop", "player": "Ann"}],
     {"type": "stop", "player": "Ann"}, "not_your_turn"),
    # hand_over
    ("toepen", "a play after the hand", "open", {},
     [_deal("toepen"), {"type": "knock", "player": "Bob"}, {"type": "fold", "player": "Cas"},
      {"type": "fold", "player": "Dee"}, {"type": "fold", "player": "Ann"}],
     _play("Bob", "7H"), "hand_over"),
    ("fool", "a reveal after the round", "open", {"hand_size": 1},
     [_deal("fool", A=["G10"], B=["G3"], C=["R4"], D=["G12"]), _play("A", "G10"), _play("B", "G3"), _play("C", "R4"),
      _play("D", "G12")],
     {"type": "reveal", "player": "A", "cards": ["G9"]}, "hand_over"),
    ("stop_the_bus", "a swap after the round", "open", {},
     [_deal("stop_the_bus"), {"type": "stop", "player": "Ann"},
      {"type": "swap", "player": "Bob", "take": "2C", "give": "AH"},
      {"type": "swap", "player": "Cas", "take": "3C", "give": "AD"}],
     {"type": "swap", "player": "Ann", "take": "AH", "give": "AS"}, "hand_over"),
    # card_not_available: where the action says it is not
    ("toepen", "not in the hand", "open", {}, [_deal("toepen")], _play("Bob", "TH"), "card_not_available"),
    ("fool", "not in the hand", "open", {}, [_deal("fool")], _play("A", "G20"), "card_not_available"),
    ("fuji_flush", "not in the hand", "open", {}, [_deal("fuji_flush")], _play("Yeonsu", 19), "card_not_available"),
    ("stop_the_bus", "not in the hand", "open", {}, [_deal("stop_the_bus")],
     {"type": "swap", "player": "Ann", "take": "2C", "give": "AH"}, "card_not_available"),
    ("stop_the_bus", "not in the middle", "open", {}, [_deal("stop_the_bus")],
     {"type": "swap", "player": "Ann", "take": "5C", "give": "AS"}, "card_not_available"),
    ("toepen", "seen elsewhere", "table", {}, [{"type": "deal"}, _play("Bob", "7H")], _play("Cas", "7H"),
     "card_not_available"),
    ("fool", "seen elsewhere", "table", {}, [{"type": "deal"}, _play("A", "G10")], _play("B", "G10"),
     "card_not_available"),
    ("fuji_flush", "seen elsewhere", "table", {}, [{"type": "deal"}, _play("Yeonsu", 20)], _play("Jisu", 20),
     "card_not_available"),
    ("stop_the_bus", "seen elsewhere", "table", {}, [_table_deal("stop_the_bus")],
     {"type": "swap", "player": "Ann", "take": "2C", "give": "3C"}, "card_not_available"),
    # card_not_available: listed more times than the deck holds it
    ("toepen", "twice in a dealt hand", "open", {}, [], _deal("toepen", Ann=["TH", "TH", "JD", "QS"]),
     "card_not_available"),
    ("fool", "twice in a dealt hand", "open", {}, [], _deal("fool", A=["G10", "G10", "G8"]), "card_not_available"),
    ("fuji_flush", "twice in a dealt hand", "open", {}, [], _deal("fuji_flush", Yeonsu=[20, 20]), "card_not_available"),
    ("stop_the_bus", "twice in a dealt hand", "open", {}, [], _deal("stop_the_bus", Ann=["AS", "AS", "QS"]),
     "card_not_available"),
    ("toepen", "in two dealt hands", "open", {}, [], _deal("toepen", Bob=["TH", "8C", "AD", "KS"]),
     "card_not_available"),
    ("fool", "in two dealt hands", "open", {}, [], _deal("fool", B=["G10", "G2", "R2"]), "card_not_available"),
    ("fool", "seven wild 1s dealt", "open", {"hand_size": 4}, [],
     _deal("fool", A=["1", "1", "1", "1"], B=["1", "1", "1", "G2"], C=["R4", "R5", "R6", "R7"], D=["G12", "G13", "G14", "G15"]),
     "card_not_available"),
    ("fuji_flush", "in two dealt hands", "open", {}, [], _deal("fuji_flush", Jisu=[20, 3]), "card_not_available"),
    ("stop_the_bus", "in two dealt hands", "open", {}, [], _deal("stop_the_bus", Bob=["AS", "KH", "QH"]),
     "card_not_available"),
    ("stop_the_bus", "in the middle and a dealt hand", "open", {}, [], _deal("stop_the_bus", Bob=["2C", "KH", "QH"]),
     "card_not_available"),
    ("stop_the_bus", "twice in the middle", "table", {}, [], {"type": "deal", "centre": ["2C", "2C", "4C"]},
     "card_not_available"),
    ("toepen", "twice in a reveal", "table", {}, [{"type": "deal"}],
     {"type": "reveal", "player": "Bob", "cards": ["7H", "7H"]}, "card_not_available"),
    ("fool", "twice in a reveal", "table", {}, [{"type": "deal"}],
     {"type": "reveal", "player": "A", "cards": ["G5", "G5"]}, "card_not_available"),
    ("stop_the_bus", "twice in a show", "table", {},
     [_table_deal("stop_the_bus"), {"type": "stop", "player": "Ann"},
      {"type": "swap", "player": "Bob", "take": "2C", "give": "AH"},
      {"type": "swap", "player": "Cas", "take": "3C", "give": "AD"}],
     {"type": "show", "player": "Ann", "cards": ["AS", "AS", "KS"]}, "card_not_available"),
    ("toepen", "twice in a laundry", "open", {}, [_deal("toepen")],
     {"type": "laundry", "player": "Bob", "cards": ["7D", "7D", "9D", "9H"]}, "card_not_available"),
    ("toepen", "twice in a challenge", "table", {}, [{"type": "deal"}, {"type": "laundry", "player": "Bob"}],
     {"type": "challenge", "player": "Cas", "target": "Bob", "cards": ["7H", "7H", "8C", "AD"]}, "card_not_available"),
    ("stop_the_bus", "twice in a whole-hand swap", "open", {"swap_all": True}, [_deal("stop_the_bus")],
     {"type": "swap", "player": "Ann", "take_all": True, "give": ["AS", "AS", "KS"]}, "card_not_available"),
    # wrong_card_count
    ("toepen", "a short dealt hand", "open", {}, [], _deal("toepen", Ann=["TH", "9C", "JD"]), "wrong_card_count"),
    ("fool", "a short dealt hand", "open", {}, [], _deal("fool", A=["G10", "G9"]), "wrong_card_count"),
    ("fuji_flush", "a short dealt hand", "open", {}, [], _deal("fuji_flush", Yeonsu=[20]), "wrong_card_count"),
    ("stop_the_bus", "a short dealt hand", "open", {}, [], _deal("stop_the_bus", Ann=["AS", "KS"]), "wrong_card_count"),
    ("toepen", "a long dealt hand", "open", {}, [], _deal("toepen", Ann=["TH", "9C", "JD", "QS", "KH"]),
     "wrong_card_count"),
    ("fool", "a long dealt hand", "open", {}, [], _deal("fool", A=["G10", "G9", "G8", "G7"]), "wrong_card_count"),
    ("fuji_flush", "a long dealt hand", "open", {}, [], _deal("fuji_flush", Yeonsu=[20, 2, 2]), "wrong_card_count"),
    ("stop_the_bus", "a long dealt hand", "open", {}, [], _deal("stop_the_bus", Ann=["AS", "KS", "QS", "JS"]),
     "wrong_card_count"),
    ("toepen", "a hand missing from the deal", "open", {}, [], _deal("toepen", Dee=None), "wrong_card_count"),
    ("fool", "a hand missing from the deal", "open", {}, [], _deal("fool", D=None), "wrong_card_count"),
    ("fuji_flush", "a hand missing from the deal", "open", {}, [], _deal("fuji_flush", Nami=None), "wrong_card_count"),
    ("stop_the_bus", "a hand missing from the deal", "open", {}, [], _deal("stop_the_bus", Cas=None), "wrong_card_count"),
    ("stop_the_bus", "a short middle", "table", {}, [], {"type": "deal", "centre": ["2C", "3C"]}, "wrong_card_count"),
    ("toepen", "a reveal of more than the hand", "table", {}, [{"type": "deal"}],
     {"type": "reveal", "player": "Bob", "cards": ["7H", "8C", "AD", "KS", "KH"]}, "wrong_card_count"),
    ("fool", "a reveal of more than the hand", "table", {}, [{"type": "deal"}],
     {"type": "reveal", "player": "A", "cards": ["G10", "G9", "G8", "G7"]}, "wrong_card_count"),
    ("stop_the_bus", "a short show", "table", {},
     [_table_deal("stop_the_bus"), {"type": "stop", "player": "Ann"},
      {"type": "swap", "player": "Bob", "take": "2C", "give": "AH"},
      {"type": "swap", "player": "Cas", "take": "3C", "give": "AD"}],
     {"type": "show", "player": "Ann", "cards": ["AS", "KS"]}, "wrong_card_count"),
    ("stop_the_bus", "a long show", "table", {},
     [_table_deal("stop_the_bus"), {"type": "stop", "player": "Ann"},
      {"type": "swap", "player": "Bob", "take": "2C", "give": "AH"},
      {"type": "swap", "player": "Cas", "take": "3C", "give": "AD"}],
     {"type": "show", "player": "Ann", "cards": ["AS", "KS", "QS", "JS"]}, "wrong_card_count"),
    ("toepen", "a short laundry", "open", {}, [_deal("toepen")],
     {"type": "laundry", "player": "Bob", "cards": ["7D", "9D", "9H"]}, "wrong_card_count"),
    ("toepen", "a short challenge", "table", {}, [{"type": "deal"}, {"type": "laundry", "player": "Bob"}],
     {"type": "challenge", "player": "Cas", "target": "Bob", "cards": ["7H", "8C", "AD"]}, "wrong_card_count"),
    ("stop_the_bus", "a short whole-hand swap", "open", {"swap_all": True}, [_deal("stop_the_bus")],
     {"type": "swap", "player": "Ann", "take_all": True, "give": ["AS", "KS"]}, "wrong_card_count"),
]

#: A field the action does not have, in each game (api.md: a 422 whatever the game's state).
UNKNOWN_FIELDS: list[tuple[str, Step, str]] = [
    ("toepen", {"type": "knock", "player": "Bob", "card": "7H"}, "card"),
    ("toepen", {"type": "fold", "player": "Bob", "cards": ["7H"]}, "cards"),
    ("fool", {"type": "play", "player": "A", "card": "G10", "cards": ["G10"]}, "cards"),
    ("fool", {"type": "deal", "centre": STB_CENTRE}, "centre"),
    ("fuji_flush", {"type": "play", "player": "Yeonsu", "card": 20, "take": 20}, "take"),
    ("fuji_flush", {"type": "deal", "dealer": "Yeonsu"}, "dealer"),
    ("stop_the_bus", {"type": "stop", "player": "Ann", "take": "2C", "give": "AS"}, "give"),
    ("stop_the_bus", {"type": "stop", "player": "Ann", "card": "AS"}, "card"),
]


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    # about a hundred games from one address: past the anonymous create limit's default
    with serving(tmp_path_factory.mktemp("codes"), ("--create-limit", "100000")) as url:
        yield url


def _game(base: str, game: str, visibility: str, options: Mapping[str, Any]) -> tuple[str, dict[str, str]]:
    body = {**GAMES[game], "visibility": visibility}
    body["options"] = {**body.get("options", {}), **options}
    made = requests.post(f"{base}/games", json=body, timeout=30)
    assert made.status_code == 201, made.text
    return f"{base}/games/{made.json()['id']}", {"Authorization": f"Bearer {made.json()['token']}"}


@pytest.mark.parametrize("game, fault, visibility, options, steps, action, code", CASES,
                         ids=[f"{case[0]}: {case[1]}" for case in CASES])
def test_the_same_fault_gets_the_same_code_in_every_game(base, game, fault, visibility, options, steps, action, code):
    url, auth = _game(base, game, visibility, options)
    for step in steps:
        done = requests.post(f"{url}/events", json=step, headers=auth, timeout=30)
        assert done.status_code == 201, (step, done.text)
    version = requests.get(url, headers=auth, timeout=30).json()["version"]
    for query in ("?dry_run=true", ""):
        refused = requests.post(f"{url}/events{query}", json=action, headers=auth, timeout=30)
        assert refused.status_code == 409, (fault, refused.text)
        assert refused.headers["Content-Type"].startswith("application/problem+json")
        assert refused.json()["code"] == code, (fault, refused.json())
        assert refused.json()["version"] == version
    assert requests.get(url, headers=auth, timeout=30).json()["version"] == version


@pytest.mark.parametrize("game, action, field", UNKNOWN_FIELDS,
                         ids=[f"{game}: {field} on a {action['type']}" for game, action, field in UNKNOWN_FIELDS])
@pytest.mark.parametrize("dealt", [False, True], ids=["before the deal", "after the deal"])
def test_a_field_the_action_does_not_have_is_a_422(base, game, action, field, dealt):
    url, auth = _game(base, game, "table", {})
    if dealt:
        assert requests.post(f"{url}/events", json=_table_deal(game), headers=auth, timeout=30).status_code == 201
    for query in ("?dry_run=true", ""):
        refused = requests.post(f"{url}/events{query}", json=action, headers=auth, timeout=30)
        assert refused.status_code == 422, refused.text
        assert refused.json()["code"] == "validation_failed"
        assert field in refused.json()["errors"], refused.json()
    assert requests.get(url, headers=auth, timeout=30).json()["version"] == (2 if dealt else 1)
