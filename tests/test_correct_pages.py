"""The read-only pages show a corrected entry as corrected, beside the correction (the replay's
steps and board, the trick's audit and the hand's corrections)."""

from __future__ import annotations

import re

from tests.conftest import OPEN_DEAL, create

TRICK = [("Bob", "7H"), ("Cas", "JH"), ("Dee", "AH"), ("Ann", "TH")]

def _page_text(response) -> str:  # noqa: ANN001 - a test client response
    """The page's HTML without the <bdi> isolates around names (api.md, "Text people type"),
    so a sentence reads as a person reads it."""
    return re.sub(r"</?bdi>", "", response.get_data(as_text=True))



def corrected_game(client):
    game = create(client, visibility="open")
    game.post(OPEN_DEAL)
    for player, card in TRICK:
        game.post({"type": "play", "player": player, "card": card})
    response = game.post({"target": 4, "action": {"type": "play", "player": "Cas", "card": "8H"}}, "correct")
    assert response.status_code == 201
    return game


def test_the_replay_shows_the_corrected_entry(client):
    game = corrected_game(client)
    page = _page_text(client.get(f"/watch/{game.id}/replay?step=4"))
    # the list says so; the board of that moment showed Cas's J♥, which the correction has put back
    # in Cas's hand: publicly it is not drawn until the hand is over (api.md, "Views and secrets")
    assert page.count("corrected: Cas played 8♥; another card was first recorded") == 1
    assert "J♥" not in page
    assert "Corrected in hand 1, trick 1: Cas played 8♥; another card was first recorded." in page
    assert "event 7" not in page and "Event 4" not in page


def test_the_trick_audit_shows_the_corrected_play_and_the_correction(client):
    game = corrected_game(client)
    page = _page_text(client.get(f"/watch/{game.id}/hands/1/tricks/1"))
    assert "corrected: Cas played 8♥" in page
    assert "Corrected in hand 1, trick 1: Cas played 8♥" in page
    hand = _page_text(client.get(f"/watch/{game.id}/hands/1"))
    assert "Corrected in hand 1, trick 1: Cas played 8♥" in hand
    assert "event 4" not in page + hand and "Event" not in page + hand


def test_the_hand_audit_calls_corrected_only_a_trick_with_a_correction(client):
    game = create(client, visibility="open")
    game.post(OPEN_DEAL)
    game.post({"type": "play", "player": "Bob", "card": "7H"})
    assert game.post({}, "undo").status_code == 201  # trick 1 only had an undo
    assert game.post({}, "redo").status_code == 201
    hand = _page_text(client.get(f"/watch/{game.id}/hands/1"))
    assert '<span class="tag">undo recorded</span>' in hand and '<span class="tag">corrected</span>' not in hand
    game.post({"type": "play", "player": "Cas", "card": "JH"})
    assert game.post({"target": 6, "action": {"type": "play", "player": "Cas", "card": "8H"}}, "correct").status_code == 201
    assert '<span class="tag">corrected</span>' in _page_text(client.get(f"/watch/{game.id}/hands/1"))
