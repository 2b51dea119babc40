"""CSV exports never hand a spreadsheet a formula (OWASP "CSV Injection"): a text cell that
starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a single quote in
front, in both CSV routes (``GET /games/<id>/export?format=csv`` and ``GET
/players/<name>/games?format=csv``); numbers stay numbers (docs/export.md)."""

from __future__ import annotations

import csv
import io

import pytest

from tests.conftest import create

NAMES = ["=1+2", "@SUM(A1)", "+1", "-1", '=HYPERLINK("http://x.invalid","y")']  # names lose edge whitespace
DANGER = ("=", "+", "-", "@", "\t", "\r")


def _rows(response):
    assert response.status_code == 200 and response.mimetype == "text/csv"
    return list(csv.reader(io.StringIO(response.get_data(as_text=True))))


def _played(client, players, title=None):
    """A Toepen game (table visibility) whose first hand is over: Bob knocks, the rest fold."""
    game = create(client, players=players, title=title)
    dealer = players[0]
    assert game.post({"type": "deal", "dealer": dealer}).status_code == 201
    knocker = players[1]
    assert game.post({"type": "knock", "player": knocker}).status_code == 201
    for name in players[2:] + players[:1]:
        assert game.post({"type": "fold", "player": name}).status_code == 201, name
    return game


@pytest.mark.parametrize("names", [NAMES[:4], NAMES[4:] + ["Ann", "Bob"]])
def test_game_export_csv_escapes_formula_cells(client, names):
    game = _played(client, names, title="=cmd|' /C calc'!A0")
    rows = _rows(game.get("/export?format=csv", token=False))
    assert len(rows) >= 2
    cells = [cell for row in rows for cell in row]
    assert not [cell for cell in cells if cell.startswith(DANGER)], cells
    header = rows[0]
    for name in names:
        if name.startswith(DANGER):
            assert any(cell.startswith("'" + name) for cell in header), (name, header)
    dealer_column = next(i for i, cell in enumerate(header) if cell.lower() == "dealer")
    assert rows[1][dealer_column] == "'" + names[0] if names[0].startswith(DANGER) else names[0]
    # numbers stay numbers: every column after the dealer's is a plain integer or empty
    numbers = [cell for row in rows[1:] for cell in row[dealer_column + 1:] if cell.lstrip("-").isdigit()]
    assert numbers


def test_player_games_csv_escapes_formula_cells(client):
    game = _played(client, ["=1+2", "Bob", "Cas"], title="@SUM(A1)")
    rows = _rows(client.get("/players/Bob/games?format=csv"))
    assert len(rows) == 2
    cells = [cell for row in rows for cell in row]
    assert not [cell for cell in cells if cell.startswith(DANGER)], cells
    assert "'@SUM(A1)" in rows[1]
    assert game.id in rows[1]


@pytest.mark.parametrize("title", ["Friday\r=cmd|' /C calc'!A0", "Friday\r\n=cmd|' /C calc'!A0",
                                   "Friday\n=cmd|' /C calc'!A0", "\n=cmd|' /C calc'!A0"])
def test_a_line_break_never_starts_a_formula_cell(client, title):
    """A carriage return (alone or before a line feed) or a line feed inside a cell never lets
    a reader start a new row or cell there: the cell is quoted, its CRs written as LFs, and a
    cell starting with a line break gets the single quote too."""
    game = _played(client, ["Ann", "Bob", "Cas"], title=title)
    rows = _rows(client.get("/players/Bob/games?format=csv"))
    assert len(rows) == 2, rows
    cells = [cell for row in rows for cell in row]
    assert not [cell for cell in cells if cell.startswith(DANGER + ("\n",))], cells
    assert not [cell for cell in cells if "\r" in cell], cells
    assert game.id in rows[1]
    assert any(cell.endswith("\n=cmd|' /C calc'!A0") for cell in rows[1]), rows[1]


def test_stored_carriage_returns_are_written_as_line_feeds():
    """Text stored before CRs became LFs (or given by an import) goes through the same writer."""
    from replays.export import csv_table

    text = csv_table(["title", "n"], [{"title": "a\r=cmd|x", "n": -1}, {"title": "\r=1+2", "n": 2}])
    rows = list(csv.reader(io.StringIO(text)))
    assert rows == [["title", "n"], ["a\n=cmd|x", "-1"], ["'\n=1+2", "2"]]
