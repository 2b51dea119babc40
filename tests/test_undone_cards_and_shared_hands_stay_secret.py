"""Secrecy follows the current record (api.md, "Views and secrets"): an outside tester's three leaks.

(a) A sealed what-if fork answered 401 everywhere but its what-if page, which named every
    unplayed card of the original's live hand.
(b) After an undo, the undone play's card (back in the player's hand) stayed readable in
    the event log, the timeline, ``states/<seq>``, the replay and audit pages and the redo
    target of ``actions``.
(c) A fork made inside a hand the original is still playing published, move by move, cards
    the original's players still hold.
"""

from __future__ import annotations

import re

from tests.conftest import OPEN_DEAL, Game, assert_problem, create

PRETTY = {"T": "10", "C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def _pretty(card: str) -> str:
    return PRETTY.get(card[0], card[0]) + PRETTY[card[1]]


def _names(text: str, card: str) -> bool:
    """``card`` (``8H`` or ``8♥``) stands in ``text`` as a word of its own."""
    return any(re.search(rf"(?<![A-Za-z0-9]){re.escape(word)}(?![A-Za-z0-9])", text) is not None
               for word in (card, _pretty(card)))


def _plays(game: Game, *moves: tuple[str, str]) -> None:
    for player, card in moves:
        response = game.post({"type": "play", "player": player, "card": card})
        assert response.status_code == 201, response.get_json()


def _fork(game: Game, seq: int) -> Game:
    response = game.post({"seq": seq}, "fork")
    assert response.status_code == 201, response.get_json()
    return Game(game.client, response.get_json())


def _page(game: Game, path: str, token: bool = False):  # noqa: ANN202 - a test client response
    return game.client.get(f"/watch/{game.id}{path}", headers=game.auth if token else {})


# --- (a) the what-if page of a sealed fork ---------------------------------------------------


def test_the_what_if_page_of_a_sealed_fork_is_refused_like_every_other_read(client):
    original = create(client, visibility="open")
    assert original.post(OPEN_DEAL).status_code == 201
    fork = _fork(original, 2)
    # the fork plays its hand to the end: its dealt hands would be public there
    assert fork.post({"type": "adjust", "player": "Ann", "amount": 10, "reason": "what if"}).status_code == 201
    live = [card for cards in OPEN_DEAL["hands"].values() for card in cards]
    for seq in (1, 2, 3):
        response = _page(fork, f"/fork?seq={seq}")
        assert response.status_code == 401, seq
        assert [card for card in live if _names(response.get_data(as_text=True), card)] == [], seq
    assert_problem(fork.get("/timeline", token=False), 401, "token_required")
    # the fork's scorekeeper still gets the page
    assert _page(fork, "/fork?seq=2", token=True).status_code == 200


# --- (b) an undone card is back in the hand ---------------------------------------------------

#: Bob leads 7♥, Cas follows with 8♥ and the table takes it back: 8♥ is in Cas's hand again.
UNDONE = "8H"


def _game_with_an_undone_play(client) -> tuple[Game, int]:
    game = create(client, visibility="open")
    assert game.post(OPEN_DEAL).status_code == 201
    _plays(game, ("Bob", "7H"), ("Cas", UNDONE))
    played = game.get().get_json()["version"]
    undo = game.post({}, "undo")
    assert undo.status_code == 201
    # the scorekeeper's own 201 names what was cancelled
    assert undo.get_json()["target"] == {"seq": played, "type": "play", "summary": "Cas played 8♥"}
    return game, played


PUBLIC_READS = ("", "/events", "/timeline", "/timeline?hand=1", "/hands/1", "/hands/1/tricks/1", "/actions",
                "/irregularities", "/export?format=json", "/export?format=jsonl", "/export?format=text",
                "/export?format=csv")


def test_an_undone_card_is_named_by_no_public_read_while_its_hand_is_in_play(client):
    game, played = _game_with_an_undone_play(client)
    for path in PUBLIC_READS:
        response = game.get(path, token=False)
        assert response.status_code == 200, path
        assert not _names(response.get_data(as_text=True), UNDONE), path
    # the log and the timeline keep the undone event, with the card left out
    event = game.get("/events", token=False).get_json()["events"][played - 1]
    assert event["undone"] is True and event["data"] == {"player": "Cas"}
    step = game.get("/timeline", token=False).get_json()["steps"][played - 1]
    assert step["undone"] is True and step["summary"] == "Cas played a card."
    assert game.get("/timeline", token=False).get_json()["steps"][-1]["summary"] == (
        "Undone: Cas played a card.")
    redo = next(a for a in game.get("/actions", token=False).get_json()["actions"] if a["type"] == "redo")
    assert redo["target"] == {"seq": played, "type": "play", "summary": "Cas played a card"}
    # the moment that showed it is the scorekeeper's only
    body = assert_problem(game.get(f"/states/{played}", token=False), 401, "token_required")
    assert body["shows_seq"] == played and "Cas's card of hand 1, trick 1" in body["detail"]
    assert "event" not in body["detail"] and not _names(body["detail"], UNDONE)
    assert game.get(f"/states/{played - 1}", token=False).status_code == 200  # Bob's lead is still in force
    # the pages: replay (the step, its board fragment, its list), the game page, the audits
    for path in (f"/replay?step={played}", f"/replay/board?step={played}", f"/replay/timeline?step={played}",
                 "/replay", "", "/board", "/hands/1", "/hands/1/tricks/1", f"/fork?seq={played}"):
        response = _page(game, path)
        assert response.status_code in (200, 401), path
        assert not _names(response.get_data(as_text=True), UNDONE), path
    # with the token everything is there
    assert game.get("/events").get_json()["events"][played - 1]["data"]["card"] == UNDONE
    assert game.get(f"/states/{played}").status_code == 200
    assert "Cas played 8♥" in next(a for a in game.get("/actions").get_json()["actions"]
                                   if a["type"] == "redo")["target"]["summary"]


def test_an_undone_card_is_public_again_once_its_hand_is_over(client):
    game, played = _game_with_an_undone_play(client)
    for action in ({"type": "knock", "player": "Cas"}, *({"type": "fold", "player": p} for p in ("Dee", "Ann", "Bob"))):
        assert game.post(action).status_code == 201, action
    assert game.get("/hands/1", token=False).get_json()["result"] is not None  # the hand is over; Cas did not fold
    assert game.get("/events", token=False).get_json()["events"][played - 1]["data"]["card"] == UNDONE
    assert game.get(f"/states/{played}", token=False).status_code == 200


def test_a_redo_puts_the_card_back_on_the_table_for_everyone(client):
    game, played = _game_with_an_undone_play(client)
    assert game.post({}, "redo").status_code == 201
    assert game.get("/events", token=False).get_json()["events"][played - 1]["data"]["card"] == UNDONE
    assert "Cas played 8♥" in game.get("/timeline", token=False).get_json()["steps"][played - 1]["summary"]
    assert game.get(f"/states/{played}", token=False).status_code == 200


def test_an_undone_card_of_a_table_game_was_seen_by_the_table(client):
    """In ``table`` visibility the record holds only cards the table saw face up: nothing to hide."""
    game = create(client)
    assert game.post({"type": "deal", "dealer": "Ann"}).status_code == 201
    _plays(game, ("Bob", "7H"))
    assert game.post({}, "undo").status_code == 201
    assert game.get("/events", token=False).get_json()["events"][2]["data"]["card"] == "7H"


# --- (c) a fork inside a hand the original still plays -----------------------------------------


def test_a_fork_inside_a_hand_in_play_shows_nothing_of_it_move_by_move(client):
    original = create(client, visibility="open")
    assert original.post(OPEN_DEAL).status_code == 201
    _plays(original, ("Bob", "7H"))
    fork = _fork(original, 3)
    _plays(fork, ("Cas", "JH"), ("Dee", "AH"))  # both still in their hands at the original table
    version = fork.get().get_json()["version"]
    for path in ("", "/events", "/timeline", f"/states/{version}", "/hands/1", "/hands/1/tricks/1", "/actions",
                 "/irregularities", "/export?format=json", "/export?format=text", "/export?format=csv"):
        body = assert_problem(fork.get(path, token=False), 401, "token_required")
        assert body["sealed_by"] == original.id and original.id not in body["detail"] and "hand 1" in body["detail"], path
    for path in ("", "/board", f"/replay?step={version}", f"/replay/board?step={version}", "/replay/timeline",
                 "/hands/1", "/hands/1/tricks/1", f"/fork?seq={version}"):
        response = _page(fork, path)
        assert response.status_code == 401, path
        assert not _names(response.get_data(as_text=True), "JH") and not _names(response.get_data(as_text=True), "AH")
    # the table page's shell shows no card: the fork's scorekeeper opens it without a header
    assert client.get(f"/table/{fork.id}").status_code == 200
    # its scorekeeper reads everything; a fork of a table game, or a fork once the original's
    # hand is over, is readable when it names no card the original never shows (its folders'
    # cards: tests/test_fork_keeps_folded_cards_secret_server.py): here J♥ and A♥, which the
    # original's table saw played too
    assert "JH" in fork.get("/events").get_data(as_text=True)
    for action in ({"type": "play", "player": "Cas", "card": "JH"}, {"type": "play", "player": "Dee", "card": "AH"},
                   {"type": "play", "player": "Ann", "card": "TH"}, {"type": "knock", "player": "Ann"},
                   *({"type": "fold", "player": p} for p in ("Bob", "Cas", "Dee"))):
        assert original.post(action).status_code == 201, action
    assert fork.get("/events", token=False).status_code == 200
    assert _page(fork, f"/fork?seq={version}").status_code == 200
    # an undo at the original table reopens its hand 1: sealed again
    assert original.post({}, "undo").status_code == 201
    assert_problem(fork.get("/timeline", token=False), 401, "token_required")


def test_a_fork_between_hands_shares_no_hand_in_play(client):
    original = create(client, visibility="open")
    assert original.post(OPEN_DEAL).status_code == 201
    for action in ({"type": "knock", "player": "Bob"}, *({"type": "fold", "player": p} for p in ("Cas", "Dee", "Ann"))):
        assert original.post(action).status_code == 201, action
    fork = _fork(original, original.get().get_json()["version"])
    deal = {"type": "deal", "dealer": "Bob", "hands": {
        "Ann": ["7S", "8S", "9S", "TS"], "Bob": ["JS", "QS", "KS", "AS"],
        "Cas": ["7D", "8D", "9D", "TD"], "Dee": ["JD", "QD", "KD", "AD"]}}
    assert fork.post(deal).status_code == 201
    assert fork.get("/events", token=False).status_code == 200  # hand 2 is the fork's own


def test_an_undone_card_of_a_player_who_then_folds_stays_hidden_after_the_hand(client):
    """A Toepen folder's unplayed cards are dead and never shown: the undone 8♥ went back into
    Cas's hand, Cas folded, so it stays hidden once the hand is over too."""
    game, played = _game_with_an_undone_play(client)
    for action in ({"type": "knock", "player": "Bob"}, *({"type": "fold", "player": p} for p in ("Cas", "Dee", "Ann"))):
        assert game.post(action).status_code == 201, action
    assert game.get("/hands/1", token=False).get_json()["result"] is not None
    for path in PUBLIC_READS:
        assert not _names(game.get(path, token=False).get_data(as_text=True), UNDONE), path
    assert_problem(game.get(f"/states/{played}", token=False), 401, "token_required")


def test_the_middle_of_an_undone_stop_the_bus_deal_is_hidden_until_the_round_is_over(client):
    game = create(client, game="stop_the_bus", players=["Ann", "Bob", "Cas"], visibility="open")
    first = {"type": "deal", "centre": ["2C", "3C", "4C"],
             "hands": {"Ann": ["AS", "KS", "QS"], "Bob": ["5D", "6D", "8H"], "Cas": ["9C", "9D", "JH"]}}
    again = {"type": "deal", "centre": ["AS", "KS", "QS"],
             "hands": {"Ann": ["2C", "3C", "4C"], "Bob": ["5D", "6D", "8H"], "Cas": ["9C", "9D", "JH"]}}
    assert game.post(first).status_code == 201
    assert game.post({}, "undo").status_code == 201
    assert game.post(again).status_code == 201  # 2♣ 3♣ 4♣ are in Ann's hand now
    events = game.get("/events", token=False).get_json()["events"]
    assert events[1]["undone"] is True and "centre" not in events[1]["data"]
    assert events[3]["data"]["centre"] == ["AS", "KS", "QS"]  # the middle in force is face up
    assert_problem(game.get("/states/2", token=False), 401, "token_required")


def test_a_fork_of_a_table_game_is_never_sealed(client):
    original = create(client)
    assert original.post({"type": "deal", "dealer": "Ann"}).status_code == 201
    _plays(original, ("Bob", "7H"))
    fork = _fork(original, 3)
    _plays(fork, ("Cas", "8H"))
    assert fork.get("/events", token=False).status_code == 200
    assert _page(fork, "/fork?seq=3").status_code == 200
