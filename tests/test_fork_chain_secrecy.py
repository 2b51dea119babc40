"""Secrecy along chains of what-if forks of any length (issue 10 §4; api.md "Views and
secrets": "it holds along a whole chain of forks, however long"), over HTTP.

The check used to walk at most 100 forks up the chain, so the 101st fork of an open game
showed the original's hidden hands to anyone. Each fork now stores what it inherits
(``games.fork_lineage``) and each game the first hand still in play
(``games.secret_from_hand``), so the check is one query at any depth.
"""

from __future__ import annotations

import sqlite3

from service.web.app import create_app
from tests.conftest import OPEN_DEAL, Game, assert_problem, create

CHAIN = 150
#: Dealt to Ann, still in players' hands at the original table while its hand 1 is in play.
SECRET = OPEN_DEAL["hands"]["Ann"]
#: Toepen: Bob knocks, everyone else folds: hand 1 is over, nobody out (limit 10).
KNOCK_AND_FOLDS = [{"type": "knock", "player": "Bob"},
                   *({"type": "fold", "player": name} for name in ("Cas", "Dee", "Ann"))]
#: Toepen: hand 1 of OPEN_DEAL played out, every card shown (Dee wins it with 8♦).
PLAYED_OUT = [{"type": "play", "player": player, "card": card} for player, card in (
    ("Bob", "7H"), ("Cas", "JH"), ("Dee", "AH"), ("Ann", "TH"), ("Ann", "9C"), ("Bob", "8C"), ("Cas", "TC"),
    ("Dee", "7C"), ("Cas", "9S"), ("Dee", "TS"), ("Ann", "QS"), ("Bob", "KS"), ("Dee", "8D"), ("Ann", "JD"),
    ("Bob", "AD"), ("Cas", "8H"))]
SECOND_DEAL = {"type": "deal", "dealer": "Bob", "hands": {
    "Ann": ["7S", "8S", "9S", "TS"], "Bob": ["JS", "QS", "KS", "AS"],
    "Cas": ["7D", "8D", "9D", "TD"], "Dee": ["JD", "QD", "KD", "AD"]}}


def _fork(game: Game, seq: int) -> Game:
    response = game.post({"seq": seq}, "fork")
    assert response.status_code == 201, response.get_json()
    return Game(game.client, response.get_json())


def _chain(game: Game, length: int, seq: int = 2) -> list[Game]:
    """``length`` forks, each of the one before, at ``seq`` (right after the deal)."""
    chain = [game]
    for _ in range(length):
        chain.append(_fork(chain[-1], seq))
    return chain[1:]


def _public_reads(game: Game) -> list[int]:
    return [game.get(path, token=False).status_code
            for path in ("", "/events", "/hands/1", "/timeline", "/export?format=json", "/export?format=text")]


def _shows_secret(game: Game) -> bool:
    text = game.get("/export?format=json", token=False).get_data(as_text=True)
    return any(f'"{card}"' in text for card in SECRET)


def test_the_150th_fork_of_an_open_game_keeps_the_originals_hand_in_play_secret(client):
    original = create(client, visibility="open")
    assert original.post(OPEN_DEAL).status_code == 201
    chain = _chain(original, CHAIN)
    last = chain[-1]
    assert last.get().get_json()["forked_from"]["game"] == chain[-2].id
    # the original still plays the hand every fork shares: sealed, 150 forks down
    assert set(_public_reads(last)) == {401}
    assert not _shows_secret(last)
    # the last fork plays its hand to the end: its cards would be public there
    assert last.post({"type": "adjust", "player": "Ann", "amount": 10, "reason": "what if"}).status_code == 201
    assert last.get().get_json()["status"] == "finished"
    for status in _public_reads(last):
        assert status == 401
    body = assert_problem(last.get("/export?format=json", token=False), 401, "token_required")
    assert "hand 1" in body["detail"]
    # its scorekeeper reads everything
    assert all(card in last.get("/events").get_data(as_text=True) for card in SECRET)
    # so does the 101st fork, and one forked from the 150th after it ended
    assert last.get().status_code == 200
    assert chain[100].post({"type": "adjust", "player": "Ann", "amount": 10, "reason": "x"}).status_code == 201
    assert_problem(chain[100].get("/events", token=False), 401, "token_required")
    beyond = _fork(last, 3)
    assert_problem(beyond.get("", token=False), 401, "token_required")
    # every fork in between ends its hand 1 too: only the original, 150 forks up, has it in play
    for fork in chain[:-1]:
        if fork is not chain[100]:
            for action in KNOCK_AND_FOLDS:
                assert fork.post(action).status_code == 201
    for status in _public_reads(last):
        assert status == 401
    body = assert_problem(last.get("", token=False), 401, "token_required")
    assert body["sealed_by"] == original.id and original.id not in body["detail"]
    # once the original's hand 1 is over, every card played out there, nothing the table has
    # not seen is shown (the forks in between left cards unplayed: the original showed them)
    for action in PLAYED_OUT:
        assert original.post(action).status_code == 201, action
    assert set(_public_reads(last)) == {200}
    assert set(_public_reads(beyond)) == {200}
    # an undo at the original table reopens its hand: sealed again, 150 forks down
    assert original.post({}, "undo").status_code == 201
    body = assert_problem(last.get("/hands/1", token=False), 401, "token_required")
    assert body["sealed_by"] == original.id and original.id not in body["detail"]


def test_a_hand_dealt_in_a_fork_stays_secret_in_its_forks_while_in_play_there(client):
    """The cards of a hand a fork dealt itself belong to that fork: a fork of it that plays
    that hand out is sealed by it (the original, which never dealt that hand, only seals hand 1)."""
    original = create(client, visibility="open")
    assert original.post(OPEN_DEAL).status_code == 201
    middle = _fork(original, 2)
    for action in [*KNOCK_AND_FOLDS, SECOND_DEAL]:
        assert middle.post(action).status_code == 201, action
    version = middle.get().get_json()["version"]
    last = _fork(middle, version)  # forked in hand 2, which is in play in the middle game
    assert last.post({"type": "adjust", "player": "Ann", "amount": 10, "reason": "what if"}).status_code == 201
    body = assert_problem(last.get("/events", token=False), 401, "token_required")
    assert body["sealed_by"] == middle.id and middle.id not in body["detail"] and "hand 2" in body["detail"]
    # the original ends its hand 1: hand 2 is still in play in the middle game
    for action in KNOCK_AND_FOLDS:
        assert original.post(action).status_code == 201, action
    assert_problem(last.get("/events", token=False), 401, "token_required")
    # the middle game ends hand 2 as well: nothing is secret any more
    assert middle.post({"type": "adjust", "player": "Bob", "amount": 10, "reason": "done"}).status_code == 201
    assert last.get("/events", token=False).status_code == 200


def test_forks_stored_before_the_lineage_was_kept_are_filled_in_by_the_migration(client, db_path):
    original = create(client, visibility="open")
    assert original.post(OPEN_DEAL).status_code == 201
    chain = _chain(original, 120)
    last = chain[-1]
    assert last.post({"type": "adjust", "player": "Ann", "amount": 10, "reason": "what if"}).status_code == 201
    # the database as it was before migration 0004: no lineage, no secret_from_hand
    with sqlite3.connect(db_path) as conn:
        conn.execute("ALTER TABLE games DROP COLUMN fork_lineage")
        conn.execute("ALTER TABLE games DROP COLUMN secret_from_hand")
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = '0004_fork_lineage'")
    upgraded = create_app({"TESTING": True, "DATABASE": str(db_path)}).test_client()
    response = upgraded.get(f"/games/{last.id}/events")
    assert_problem(response, 401, "token_required")
    assert_problem(upgraded.get(f"/games/{chain[0].id}/events"), 401, "token_required")  # shares hand 1 too
