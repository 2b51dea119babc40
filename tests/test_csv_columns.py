"""Issue 10 §3: the CSV export's per-player columns say what they hold (a column headed
``Yeonsu cards`` holding ``-1`` was read as a card count). Exact headers per game, values
that add up row by row, the header before the first deal, through HTTP and ``kibitz export``."""

from __future__ import annotations

import csv
import io
import random
import re
from typing import Any

import pytest
from click.testing import CliRunner

from bench.playouts import play
from engine import GAMES
from service.cli.main import main
from tests.conftest import Game

PLAYERS = ["Ann", "Bob", "Cas", "Dee"]
SIDE_RATE = (0.12, 0.12)  # Toepen: knock, fold or launder now and then
UNDO: dict[str, Any] = {"undo_rate": 0.05, "undo_depth": 1, "note_rate": 0}  # one action in twenty undone and redone

HEADERS = {
    "toepen": ["hand", "dealer", *[c for n in PLAYERS for c in (f"{n} lives lost this hand", f"{n} lives lost in all")]],
    "fool": ["round", "dealer", *[c for n in PLAYERS for c in (f"{n} points this round", f"{n} points in all")]],
    "stop_the_bus": ["round", "dealer",
                     *[c for n in PLAYERS for c in (f"{n} chips won or lost this round", f"{n} chips left")]],
    "fuji_flush": ["turn", "player", "card played",
                   *[c for n in PLAYERS for c in (f"{n} change in cards held", f"{n} cards held after the turn")]],
}


def _game(client: Any, game: str, **body: Any) -> Game:
    response = client.post("/games", json={"game": game, "players": PLAYERS, **body})
    assert response.status_code == 201, response.get_json()
    return Game(client, response.get_json())


def _play(game: Game, actions: list[dict[str, Any]]) -> None:
    for action in actions:
        kind = action["type"]
        body = {k: v for k, v in action.items() if k != "type"} if kind in ("undo", "redo") else action
        answer = game.post(body, kind if kind in ("undo", "redo") else "events")
        assert answer.status_code == 201, (action, answer.get_json())


def _csv(game: Game) -> tuple[list[str], list[dict[str, str]]]:
    response = game.get("/export?format=csv")
    assert response.status_code == 200 and response.headers["Content-Type"].startswith("text/csv")
    text = response.get_data(as_text=True)
    header = next(csv.reader(io.StringIO(text)))
    return header, list(csv.DictReader(io.StringIO(text)))


@pytest.mark.parametrize("game", sorted(HEADERS))
def test_header_before_the_first_deal(client, game):
    header, rows = _csv(_game(client, game))
    assert header == HEADERS[game] and rows == []


def _whole_game(game: str, rng: random.Random) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    if game == "toepen":
        toepen_game = play("toepen", rng, PLAYERS, {"limit": 3}, side_rate=SIDE_RATE)
        return {"visibility": "open", "options": {"limit": 3}}, toepen_game.actions
    if game == "stop_the_bus":
        return {"options": {"chips": 2}}, play("stop_the_bus", rng, PLAYERS, {"chips": 2}, "table",
                                                   adjust_chance=0.05).actions
    if game == "fool":
        fool_game = play("fool", rng, PLAYERS, {"hand_size": 3}, "open", adjust_rate=0.05, max_events=300, **UNDO)
        return {"visibility": "open", "options": {"hand_size": 3}}, fool_game.actions
    log = play("fuji_flush", rng, PLAYERS, {"hand_size": 3}, "open", **UNDO).actions
    return {"visibility": "open", "options": {"hand_size": 3}}, log


@pytest.mark.parametrize("game", sorted(HEADERS))
def test_whole_game_columns_add_up(client, db_path, game):
    body, actions = _whole_game(game, random.Random(5))
    recorded = _game(client, game, **body)
    _play(recorded, actions)
    header, rows = _csv(recorded)
    assert header == HEADERS[game] and rows
    sheet = GAMES[game].SHEET
    start = {"toepen": 0, "fool": 0, "stop_the_bus": 2, "fuji_flush": 3}[game]
    standing = dict.fromkeys(PLAYERS, start)
    for row in rows:
        for name in PLAYERS:
            change, after = sheet.of(name)
            standing[name] += int(row[change])
            assert int(row[after]) == standing[name], (row, name)
    results = recorded.get().get_json()
    if game == "fuji_flush":
        turns = recorded.get("/hands/1").get_json()["turns"]
        assert [row["card played"] for row in rows] == [str(turn["card"]) for turn in turns]
        assert [row["player"] for row in rows] == [turn["player"] for turn in turns]
        assert all(int(row[sheet.of(n)[0]]) in (-2, -1, 0, 1) for row in rows for n in PLAYERS)
    else:
        assert len(rows) == results["state"]["hand_number"]
    # the CLI writes the same CSV
    out = CliRunner().invoke(main, ["export", recorded.id, "--format", "csv", "--db", str(db_path)])
    assert out.exit_code == 0, out.output
    assert out.output == recorded.get("/export?format=csv").get_data(as_text=True)


def test_no_bare_unit_or_total_header(client):
    """The old ambiguous headers ("Ann cards", "Ann chips", "Ann total", "card") are gone."""
    for game, headers in HEADERS.items():
        for header in headers:
            assert not re.fullmatch(r"\w+ (cards|chips|points|lives lost|total)|card", header), (game, header)


def test_text_result_line_reads_the_same_row(client):
    recorded = _game(client, "stop_the_bus", options={"chips": 2})
    _play(recorded, play("stop_the_bus", random.Random(3), PLAYERS, {"chips": 2}, "table").actions)
    _header, rows = _csv(recorded)
    text = recorded.get("/export?format=text").get_data(as_text=True)
    results = [line for line in text.splitlines() if line.startswith("  Result: ")]
    assert len(results) == len(rows)
    for line, row in zip(results, rows, strict=True):
        expected = ", ".join(f"{n} {int(row[f'{n} chips won or lost this round']):+d} = {row[f'{n} chips left']}"
                             for n in PLAYERS)
        assert line == f"  Result: (chips) {expected}"
