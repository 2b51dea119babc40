"""The replay tells an event's whole undo/redo story in card players' words, never by event
numbers (issue 25): a card undone, redone and undone again reads "undone, redone, then undone
again"; one undone once reads "undone"; one back in force reads "undone, then redone"; the undo
and redo steps say what they took back or put back ("Undone: Bob played 7♥.")."""

from __future__ import annotations

import re

from service.web.pages.review import correction_words
from tests.conftest import create


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))


def test_undone_redone_undone_again_names_every_correction(client):
    game = create(client)
    game.post({"type": "deal"})                               # 2
    game.post({"type": "play", "player": "Bob", "card": "7H"})  # 3
    game.post({}, "undo")                                     # 4
    game.post({}, "redo")                                     # 5
    game.post({}, "undo")                                     # 6
    game.post({"type": "play", "player": "Bob", "card": "8H"})  # 7
    game.post({"type": "play", "player": "Cas", "card": "9H"})  # 8
    game.post({}, "undo")                                     # 9
    game.post({"type": "play", "player": "Cas", "card": "TH"})  # 10
    game.post({}, "undo")                                     # 11
    game.post({}, "redo")                                     # 12
    assert game.get().get_json()["version"] == 12
    steps = _text(client.get(f"/watch/{game.id}/replay/timeline").get_data(as_text=True))
    assert "undone, redone, then undone again" in steps
    assert "Undone: Bob played 7♥." in steps and "Redone: Bob played 7♥." in steps
    assert "Redone: Cas played 10♥." in steps
    assert "undone, then redone" in steps  # Cas's 10♥
    assert not re.search(r"(?i)\bevents?\b", steps)
    board = _text(client.get(f"/watch/{game.id}/replay/board?step=3").get_data(as_text=True))
    assert "This play was undone, redone, then undone again later: it does not count" in board
    assert "Step 3 · Hand 1, trick 1: Bob led 7♥ to trick 1." in board
    page = _text(client.get(f"/watch/{game.id}/replay?step=8").get_data(as_text=True))
    assert "This play was undone later: it does not count" in page
    assert not re.search(r"(?i)\bevents?\b", page)


def test_correction_words_by_seq():
    steps = [{"seq": 7, "type": "play", "target": None}, {"seq": 8, "type": "undo", "target": 7},
             {"seq": 9, "type": "redo", "target": 7}, {"seq": 10, "type": "undo", "target": 7}]
    assert correction_words(steps) == {7: {"tag": "undone, redone, then undone again",
                                           "detail": "undone, redone, then undone again"}}
    assert correction_words(steps[:3])[7]["tag"] == "undone, then redone"
    assert correction_words(steps[:2])[7] == {"tag": "undone", "detail": ""}


def test_kibitz_replay_tells_the_same_story_in_words(client, database):
    """The terminal's timeline (``kibitz replay``) names an undone step's story as the replay page
    does, never "[undone by 6]" (issue 25: no event numbers where people read)."""
    from click.testing import CliRunner

    from service.cli.main import main

    game = create(client)
    game.post({"type": "deal"})
    game.post({"type": "play", "player": "Bob", "card": "7H"})  # 3
    game.post({}, "undo")
    game.post({}, "redo")
    game.post({}, "undo")
    game.post({"type": "play", "player": "Bob", "card": "8H"})  # 7
    game.post({}, "undo")
    game.post({}, "redo")
    result = CliRunner().invoke(main, ["replay", game.id, "--db", database])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any(line.startswith("   3  [undone, redone, then undone again] Bob led 7♥") for line in lines), lines
    assert any(line.startswith("   7  [undone, then redone] Bob led 8♥") for line in lines), lines
    assert not re.search(r"by \d|[Ee]vents? \d", result.output), result.output
