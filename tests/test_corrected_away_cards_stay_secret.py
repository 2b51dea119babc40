"""A card corrected away while its hand is still in play is back in the player's hand: the
public never reads it, like an undone card's (api.md, "Views and secrets"; recording.md,
"Correcting an earlier entry"). One gate for both: ``replays.secrecy.withdrawn``."""

from __future__ import annotations

import json

from tests.conftest import OPEN_DEAL, create

#: Bob leads 7♥; Cas's 8♥ was recorded as J♥ and corrected: J♥ is back in Cas's hand.
FIRST, FIXED = "JH", "8H"


def _corrected(client):
    game = create(client, visibility="open")
    assert game.post(OPEN_DEAL).status_code == 201
    assert game.post({"type": "play", "player": "Bob", "card": "7H"}).status_code == 201
    played = game.post({"type": "play", "player": "Cas", "card": FIRST}).get_json()["seq"]
    fixed = game.post({"target": played, "action": {"type": "play", "player": "Cas", "card": FIXED}}, "correct")
    assert fixed.status_code == 201, fixed.get_json()
    return game, played


def _public_text(game, played):
    reads = [game.get("/events", token=False), game.get("/timeline", token=False),
             game.get("/hands/1", token=False), game.get("/hands/1/tricks/1", token=False),
             game.get("/actions", token=False)]
    for response in reads:
        assert response.status_code == 200, response.get_json()
    text = " ".join(json.dumps(r.get_json(), ensure_ascii=False) for r in reads)
    for path in ("", "/replay", f"/replay?step={played}", "/hands/1", "/hands/1/tricks/1"):
        text += game.client.get(f"/watch/{game.id}{path}").get_data(as_text=True)
    return text


def test_a_corrected_away_card_is_hidden_from_every_public_read_while_its_hand_is_played(client):
    game, played = _corrected(client)
    assert game.post({"type": "play", "player": "Dee", "card": "AH"}).status_code == 201
    text = _public_text(game, played)
    assert FIRST not in text and "J♥" not in text
    # the state of the moment that showed it is refused publicly, and read whole with the token
    assert game.get(f"/states/{played}", token=False).status_code == 401
    assert game.get(f"/states/{played}").status_code == 200
    # the scorekeeper still reads what was first recorded
    log = game.get("/events").get_json()["events"]
    assert log[played - 1]["data"]["card"] == FIRST and log[played - 1]["corrected_by"] == played + 1


def test_an_undone_correction_puts_the_first_card_back_and_hides_the_replacement(client):
    game, played = _corrected(client)
    assert game.post({}, "undo").status_code == 201  # the first record stands again: J♥ was played
    text = _public_text(game, played)
    assert "J♥" in text  # played, in the record again
    events = game.get("/events", token=False).get_json()["events"]
    assert FIXED not in json.dumps(events[-2]["data"])  # the undone correction's 8♥ is back in Cas's hand
