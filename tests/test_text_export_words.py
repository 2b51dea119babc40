"""The text export (``GET /games/<id>/export?format=text``, docs/export.md) names every position
as card players do (issue 25): "Undone: Bob played 8♥ (hand 1, trick 1)", "Corrected in hand 1,
trick 1: Cas played 9♥, not 8♥ (misread)", "Note by Dee: … (hand 1, trick 1)", "Deal: …",
"Knock: Dee (stake 2)", "[Abandoned "…"]"; an event's number appears only after its line, as
small print ("· step 7 of the replay"), never as "#7 undo" or "#17 correct #16". Over real HTTP,
in the full and the public view (whose lines are the public timeline's: no card still in a hand named)."""

from __future__ import annotations

import re

import requests

from tests.test_disputes_over_real_http import Table
from tests.test_server import server  # noqa: F401 - the module-scoped real server fixture


def text(game: Table, token: bool = True) -> str:
    headers = {"Authorization": f"Bearer {game.token}"} if token else {}
    reply = requests.get(f"{game.base}/games/{game.id}/export?format=text", headers=headers, timeout=30)
    assert reply.status_code == 200, reply.text
    return reply.text


def test_the_text_export_names_positions_as_card_players_do(server):  # noqa: F811
    game = Table(server, {"game": "toepen", "players": ["Ann", "Bob", "Cas", "Dee"], "title": "Friday"})
    game.post({"type": "note", "text": "Ann is late"})  # 2
    game.post({"type": "deal"})  # 3
    game.play("Bob:7H", "Cas:8H")  # 4, 5
    game.post({"reason": "wrong card"}, "undo")  # 6: Cas's 8♥ undone
    game.play("Cas:9H")  # 7
    game.post({"type": "knock", "player": "Dee"})  # 8
    game.post({"type": "note", "text": "Dee smiled", "player": "Dee"})  # 9
    game.post({"target": 4, "action": {"type": "play", "player": "Bob", "card": "AH"}, "reason": "misread"},
              "correct")  # 10
    game.post({"type": "abandon", "reason": "the club closes"})  # 11

    full = text(game)
    lines = full.splitlines()
    assert '[Abandoned "the club closes"]' in lines
    hand = lines[lines.index("Hand 1 · dealer Ann") + 1:]
    assert hand[:3] == ["  Deal: cards not recorded", "  1. Bob A♥, Cas 9♥", "  Knock: Dee (stake 2)"], full
    notes = lines[lines.index("Notes and corrections") + 1:]
    assert notes == [
        "  Note: Ann is late · step 2 of the replay",
        "  Undone (wrong card): Cas played 8♥ (hand 1, trick 1) · step 6 of the replay",
        "  Note by Dee: Dee smiled (hand 1, trick 1) · step 9 of the replay",
        "  Corrected in hand 1, trick 1: Bob played A♥, not 7♥ (misread) · step 10 of the replay",
        "  The game was abandoned: the club closes · step 11 of the replay",
    ], full
    public = text(game, token=False)
    assert ("  Corrected in hand 1, trick 1: Bob played A♥; another card was first recorded (misread) · step 10 "
            "of the replay") in public.splitlines(), public
    for said in (full, public):
        # no event number leads a line or names a target: "#6 undo", "#10 correct #4", "[Abandoned "#11 …"]"
        assert not re.search(r"#\d", said) and not re.search(r"\b[Ee]vents? \d", said), said
        assert not re.search(r"^\s*\d+ (undo|redo|note|correct|abandon)\b", said, re.M), said
