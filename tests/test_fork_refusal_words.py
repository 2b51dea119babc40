"""A fork refused because an entry no longer passes the rules names that entry as card players
do (issue 25, "Event numbers where people read"): "In hand 1, trick 1, Cas played 8♥, which no
longer passes the rules: …", where it said "Event 4 (play) no longer passes the rules: …".

A stored log was accepted once and a fork refolds it with the same rules, so the refusal is
reached only when the rules change under a stored record (a newer Kibitz stricter than the one
that recorded it); that cannot be produced by recording here, so the sentence is checked on
games really recorded and folded: the entry's place from the game's own fold, who did what
from the entry, and the rules' own message. The event number stays out of the sentence (the
problem body's ``seq`` carries it).
"""

from __future__ import annotations

import re

import engine
from replays import replay
from service.record.writes import no_longer_passes


def _events(client, game):
    return client.get(f"/games/{game.id}/events", headers={"Authorization": f"Bearer {game.token}"}).get_json()["events"]


def test_a_fork_refusal_names_the_entry_by_its_place_and_move(client, open_game):
    assert open_game.post({"type": "play", "player": "Bob", "card": "7H"}).status_code == 201
    assert open_game.post({"type": "play", "player": "Cas", "card": "8H"}).status_code == 201
    rules = engine.GAMES["toepen"]
    events = _events(client, open_game)
    folded = replay.fold(rules, events)
    before = replay.fold(rules, events[:3])  # the fork folded up to Cas's play
    said = no_longer_passes(rules, folded, before, 4, events[3], "Cas must follow hearts.")
    assert said == "In hand 1, trick 1, Cas played 8♥, which no longer passes the rules: Cas must follow hearts."
    assert not re.search(r"\bevent\b", said, re.IGNORECASE)
    dealt = no_longer_passes(rules, folded, replay.fold(rules, events[:1]), 2, events[1], "The deal is not valid.")
    assert dealt == "In hand 1, Ann dealt, which no longer passes the rules: The deal is not valid."


def test_an_entry_before_the_first_deal_is_named_without_a_place(client, game):
    assert game.post({"type": "note", "text": "first"}).status_code == 201
    rules = engine.GAMES["toepen"]
    events = _events(client, game)
    said = no_longer_passes(rules, replay.fold(rules, events), replay.fold(rules, events[:1]), 2, events[1], "No.")
    assert said.startswith("Note") and said.endswith(", which no longer passes the rules: No."), said
