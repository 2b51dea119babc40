"""Issue 10 §3: human text says "1 chip", "1 card", "1 life", and "round" in the games that
have rounds (Fool!, Stop the Bus, Fuji Flush) but "hand" in Toepen: in the timeline
(``GET …/timeline``), ``kibitz replay``, the text export (HTTP and ``kibitz export``) and the
rules' reasons. Whole random games of all four games are recorded through HTTP and every
line they produce is scanned for a wrong form."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from click.testing import CliRunner

from bench.playouts import play
from engine import GAMES
from engine.core import plural
from service.cli.main import main
from tests.conftest import Game, assert_problem

PLAYERS = ["Ann", "Bob", "Cas", "Dee"]
SIDE_RATE = (0.12, 0.12)  # Toepen: knock, fold or launder now and then
UNDO: dict[str, Any] = {"undo_rate": 0.05, "undo_depth": 1, "note_rate": 0}  # one action in twenty undone and redone

#: A count of one with a plural noun, or another count with a singular one ("2 card", but
#: not "2 cards numbered 7" nor "+1 chip").
WRONG_NUMBER = re.compile(
    r"(?<![\d.])[+-]?1 (chips|cards|lives|points|tricks|turns|copies|rounds|hands|players|Fools)\b"
    r"|(?<![\d.])[+-]?(0|[2-9]|\d\d+) (chip|card|life|point|trick|copy|player|Fool)\b"
)
#: "hand" as the unit of play (hand 2, the hand is over …) in a game of rounds: a
#: player's hand of cards ("the weakest hand", "the whole hand") is right there.
HAND_AS_UNIT = re.compile(r"\b[Hh]ands? #?\d|\b[Hh]and is over|── hand\b")
ROUND_AS_UNIT = re.compile(r"\b[Rr]ounds? #?\d|── round\b")


def test_plural_helper():
    assert [plural(n, "chip") for n in (0, 1, 2)] == ["0 chips", "1 chip", "2 chips"]
    assert [plural(n, "life") for n in (1, 3)] == ["1 life", "3 lives"]
    assert plural(1, "copy") == "1 copy" and plural(2, "copy") == "2 copies"
    assert plural(-1, "point") == "-1 point" and plural(-2, "point") == "-2 points"
    assert plural(1, "chip", signed=True) == "+1 chip" and plural(0, "life", signed=True) == "+0 lives"
    assert plural(-3, "chip", signed=True) == "-3 chips"


def test_every_game_names_its_unit_of_play():
    assert {game: module.HAND_WORD for game, module in GAMES.items()} == {
        "toepen": "hand", "fool": "round", "stop_the_bus": "round", "fuji_flush": "round"}


def _logs(seed: int) -> list[tuple[str, dict[str, Any], list[dict[str, Any]]]]:
    """Whole random games ``(game, POST /games body, actions)``, with options that make
    counts of one (1 life, 1 chip, 1 card each)."""
    rng = random.Random(seed)
    out: list[tuple[str, dict[str, Any], list[dict[str, Any]]]] = []
    for options in ({"limit": 1}, {"limit": 3}):
        actions = play("toepen", rng, PLAYERS[:3], options, max_events=401, side_rate=SIDE_RATE).actions
        out.append(("toepen", {"players": PLAYERS[:3], "visibility": "open", "options": options}, actions))
    for options, visibility in (({"chips": 1}, "table"), ({"chips": 2}, "open")):
        actions = play("stop_the_bus", rng, PLAYERS, options, visibility, adjust_chance=0.05).actions
        out.append(("stop_the_bus", {"players": PLAYERS, "visibility": visibility, "options": options}, actions))
    for options in ({"hand_size": 1}, {"hand_size": 3}):
        fool_game = play("fool", rng, PLAYERS, options, "open", adjust_rate=0.05, max_events=300, **UNDO)
        out.append(("fool", {"players": PLAYERS, "visibility": "open", "options": options},
                    fool_game.actions))
    for options in ({"hand_size": 1}, {"hand_size": 3}):
        log = play("fuji_flush", rng, PLAYERS, options, "open", **UNDO).actions
        out.append(("fuji_flush", {"players": PLAYERS, "visibility": "open", "options": options}, log))
    return out


def _record(client: Any, game: str, body: dict[str, Any], actions: list[dict[str, Any]]) -> Game:
    response = client.post("/games", json={"game": game, **body})
    assert response.status_code == 201, response.get_json()
    recorded = Game(client, response.get_json())
    for action in actions:
        kind = action["type"]
        if kind in ("undo", "redo"):
            answer = recorded.post({k: v for k, v in action.items() if k != "type"}, kind)
        else:
            answer = recorded.post(action)
        assert answer.status_code == 201, (action, answer.get_json())
    return recorded


def _wrong(game: str, lines: list[str]) -> list[str]:
    unit = HAND_AS_UNIT if GAMES[game].HAND_WORD == "round" else ROUND_AS_UNIT
    return [line for line in lines if WRONG_NUMBER.search(line) or unit.search(line)]


@pytest.mark.parametrize("seed", [1, 2])
def test_whole_games_say_it_right_everywhere(client, db_path, seed):
    for game, body, actions in _logs(seed):
        recorded = _record(client, game, body, actions)
        lines: list[str] = []
        for token in (True, False):
            steps = recorded.get("/timeline", token=token).get_json()["steps"]
            lines += [step["summary"] for step in steps]
            lines += recorded.get("/export?format=text", token=token).get_data(as_text=True).splitlines()
        for args in ([], ["--public"]):
            result = CliRunner().invoke(main, ["replay", recorded.id, "--db", str(db_path), *args])
            assert result.exit_code == 0, result.output
            lines += result.output.splitlines()
        exported = CliRunner().invoke(main, ["export", recorded.id, "--format", "text", "--db", str(db_path)])
        assert exported.exit_code == 0, exported.output
        lines += exported.output.splitlines()
        word = GAMES[game].HAND_WORD
        assert any(line.startswith(f"{word.capitalize()} 1 · ") for line in lines), game
        assert any(line.startswith(f"── {word} 1 ") for line in lines), game
        assert _wrong(game, lines) == [], game


def test_counts_of_one_in_the_texts(client, db_path):
    """The game_created and deal lines with a count of one, in each game."""
    cases = [
        ("toepen", {"players": PLAYERS, "options": {"limit": 1}}, "Toepen for Ann, Bob, Cas and Dee (table visibility, 1 life)"),
        ("stop_the_bus", {"players": PLAYERS, "options": {"chips": 1}}, "(table visibility, 1 chip each)"),
        ("fool", {"players": PLAYERS, "options": {"hand_size": 1}}, "(table visibility, 1 card each, 1 Fool per trick)"),
        ("fuji_flush", {"players": PLAYERS, "options": {"hand_size": 1}}, "(table visibility, 1 card each,"),
    ]
    for game, body, expected in cases:
        recorded = _record(client, game, body, [])
        summary = recorded.get("/timeline").get_json()["steps"][0]["summary"]
        assert expected in summary, summary
    fool = _record(client, "fool", {"players": PLAYERS, "options": {"hand_size": 1}}, [{"type": "deal"}])
    assert "Ann dealt round 1: 1 card each, Bob leads." in [s["summary"] for s in fool.get("/timeline").get_json()["steps"]]


def test_rulings_in_the_games_unit(client):
    toepen = _record(client, "toepen", {"players": PLAYERS, "options": {"limit": 3}},
                     [{"type": "adjust", "player": "Ann", "amount": 1, "reason": "late"}])
    stb = _record(client, "stop_the_bus", {"players": PLAYERS},
                  [{"type": "adjust", "player": "Ann", "amount": -1, "reason": "late"}])
    fool = _record(client, "fool", {"players": PLAYERS}, [{"type": "adjust", "player": "Ann", "amount": 1, "reason": "x"}])
    assert toepen.get("/timeline").get_json()["steps"][-1]["summary"].startswith("Ruling: Ann +1 life lost (late)")
    assert stb.get("/timeline").get_json()["steps"][-1]["summary"].startswith("Ruling: Ann -1 chip (late)")
    assert fool.get("/timeline").get_json()["steps"][-1]["summary"].startswith("Ruling: Ann +1 point (x)")


def test_reasons_count_right(client):
    """Rules errors (the 409's detail) with counts of one."""
    fool = _record(client, "fool", {"players": PLAYERS, "visibility": "open", "options": {"hand_size": 1}}, [])
    body = assert_problem(fool.post({"type": "deal", "hands": {"Ann": ["G2", "G3"], "Bob": ["G4"], "Cas": ["G5"],
                                                               "Dee": ["G6"]}}), 409, "wrong_card_count")
    assert "Ann must be dealt 1 card, not 2." in body["detail"]


@pytest.mark.parametrize(("game", "word"), [("toepen", "hand"), ("fool", "round"), ("stop_the_bus", "round"),
                                            ("fuji_flush", "round")])
def test_missing_hand_is_named_in_the_games_word(client, db_path, game, word):
    recorded = _record(client, game, {"players": PLAYERS}, [])
    assert assert_problem(recorded.get("/hands/9"), 404, "not_found")["detail"] == f"This game has no {word} 9."
    assert assert_problem(recorded.get("/hands/9/tricks/1"), 404, "not_found")["detail"] == \
        f"This game has no trick 1 in {word} 9."
    assert assert_problem(recorded.get("/timeline?hand=9"), 404, "not_found")["detail"] == f"This game has no {word} 9."
    result = CliRunner().invoke(main, ["replay", recorded.id, "--db", str(db_path), "--hand", "9"])
    assert result.exit_code != 0 and f"has no {word} 9." in result.output
