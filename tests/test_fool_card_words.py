"""Fool! undo/redo targets name cards as a person says them (ui.md, "Names"): "Red 7", "Wild 1"."""

from __future__ import annotations

from engine import fool
from tests.conftest import create

PLAYERS = ["Ann", "Bob", "Cas", "Dee"]


def test_card_text_says_colour_word_and_number():
    assert [fool.card_text(card) for card in ("G20", "R7", "Y9", "B14", "1")] == [
        "Green 20", "Red 7", "Yellow 9", "Blue 14", "Wild 1"]


def test_undo_names_the_fool_card_in_words(client):
    game = create(client, game="fool", players=PLAYERS, visibility="open", options={"hand_size": 2})
    hands = {"Ann": ["G2", "R3"], "Bob": ["1", "Y4"], "Cas": ["B5", "G6"], "Dee": ["R7", "Y8"]}
    assert game.post({"type": "deal", "hands": hands}).status_code == 201
    leader = game.get().get_json()["state"]["to_act"][0]
    card = hands[leader][0]
    assert game.post({"type": "play", "player": leader, "card": card}).status_code == 201
    undo = next(a for a in game.get("/actions").get_json()["actions"] if a["type"] == "undo")
    assert undo["target"]["summary"] == f"{leader} played {fool.card_text(card)}"
    assert game.post({}, "undo").get_json()["target"]["summary"] == f"{leader} played {fool.card_text(card)}"
