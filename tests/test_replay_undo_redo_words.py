"""The replay tells an event's whole undo/redo story: a card undone at 4, redone at 5 and undone
again at 6 reads "undone (events 4 and 6; redone at event 5)", not "undone by event 6"; one
undone once reads "undone by event N"; one back in force reads "redone at … (undone at …)"."""

from __future__ import annotations

import re

from service.pages.review import correction_words
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
    assert "undone (events 4 and 6; redone at event 5)" in steps
    assert "undone by event 6" not in steps
    assert "undone by event 9" in steps
    assert "redone at event 12 (undone at event 11)" in steps  # Cas's T♥
    board = _text(client.get(f"/watch/{game.id}/replay/board?step=3").get_data(as_text=True))
    assert "was undone later (events 4 and 6; redone at event 5): it does not count" in board
    page = _text(client.get(f"/watch/{game.id}/replay?step=8").get_data(as_text=True))
    assert "was undone later (event 9): it does not count" in page
    assert "undone (events 4 and 6; redone at event 5)" in page


def test_correction_words_by_seq():
    steps = [{"seq": 7, "type": "play", "target": None}, {"seq": 8, "type": "undo", "target": 7},
             {"seq": 9, "type": "redo", "target": 7}, {"seq": 10, "type": "undo", "target": 7}]
    assert correction_words(steps) == {7: {"tag": "undone (events 8 and 10; redone at event 9)",
                                           "detail": "events 8 and 10; redone at event 9"}}
    assert correction_words(steps[:3])[7]["tag"] == "redone at event 9 (undone at event 8)"
    assert correction_words(steps[:2])[7] == {"tag": "undone by event 8", "detail": "event 8"}
