"""Over HTTP: the state's "current hand" fields before the first deal, between hands and at
game over, in all four games (issue 10, section 2).

api.md, "Which hand is current": between hands or rounds (after one is over, before the next
deal) and once the game is over, every field a rules file lists "for the current hand" or
"for the current round" (at the top of ``state`` and in each player) keeps the value it had
when that hand ended, ``phase`` says a deal is due and ``next_dealer`` names who deals it; the
deal replaces them. Before the first deal: ``hand_number``/``round_number`` 0, ``dealer`` the
first dealer, list fields ``[]``, per-player counts 0, every other such field null.

Every read goes through the Flask test client (``GET /games/<id>``, ``/states/<seq>``,
``/hands/<n>``, ``/hands/<n>/tricks/<t>``), with and without the token.
"""

from __future__ import annotations

from typing import Any

from tests.conftest import OPEN_DEAL, Game, create


def record(game: Game, *actions: dict[str, Any]) -> None:
    for action in actions:
        response = game.post(action)
        assert response.status_code == 201, (action, response.get_json())


def state(game: Game, token: bool = True) -> dict[str, Any]:
    response = game.get(token=token)
    assert response.status_code == 200
    return response.get_json()["state"]  # type: ignore[no-any-return]


def by_name(view: dict[str, Any], field: str) -> dict[str, Any]:
    return {p["name"]: p[field] for p in view["players"]}


def play(player: str, card: Any) -> dict[str, Any]:
    return {"type": "play", "player": player, "card": card}


def get(game: Game, path: str, token: bool = True) -> dict[str, Any]:
    response = game.get(path, token=token)
    assert response.status_code == 200, (path, response.get_data(as_text=True))
    return response.get_json()  # type: ignore[no-any-return]


# =========================================================================== Toepen

#: OPEN_DEAL (Ann deals, Bob leads): Ann wins trick 1; Dee knocks in trick 2 and Bob folds
#: with 8♣ A♦ K♠ unplayed; Cas wins trick 2, Dee tricks 3 and 4 and the hand (stake 2).
TOEPEN_HAND = (
    play("Bob", "7H"), play("Cas", "8H"), play("Dee", "AH"), play("Ann", "TH"),
    play("Ann", "9C"), {"type": "knock", "player": "Dee"}, {"type": "fold", "player": "Bob"},
    play("Cas", "TC"), play("Dee", "7C"),
    play("Cas", "9S"), play("Dee", "TS"), play("Ann", "QS"),
    play("Dee", "8D"), play("Ann", "JD"), play("Cas", "JH"),
)  # fmt: skip
FULL_HAND = (
    "Bob:7H", "Cas:8H", "Dee:AH", "Ann:TH", "Ann:9C", "Bob:8C", "Cas:TC", "Dee:7C",
    "Cas:9S", "Dee:TS", "Ann:QS", "Bob:KS", "Dee:8D", "Ann:JD", "Bob:AD", "Cas:JH",
)  # fmt: skip


def test_toepen_before_the_first_deal(client):
    game = create(client, visibility="open", dealer="Cas")
    for token in (True, False):
        view = state(game, token)
        assert (view["phase"], view["to_act"], view["hand_number"]) == ("deal", [], 0)
        assert (view["dealer"], view["next_dealer"]) == ("Cas", "Cas")
        assert (view["stake"], view["last_knocker"], view["stock_size"]) == (None, None, None)
        assert (view["tricks"], view["answers_due"], view["can_fold"]) == ([], [], [])
        assert by_name(view, "in_hand") == dict.fromkeys(("Ann", "Bob", "Cas", "Dee"))
        assert set(by_name(view, "hand_size").values()) == {0}
    assert set(map(tuple, by_name(state(game), "cards_known").values())) == {()}
    assert game.get("/hands/1").status_code == 404


def test_toepen_between_hands_shows_the_hand_as_it_ended(client):
    game = create(client, visibility="open")
    record(game, OPEN_DEAL, *TOEPEN_HAND)
    ended = get(game, "/hands/1")
    assert ended["result"]["winner"] == "Dee"
    for token in (True, False):
        view = state(game, token)
        assert (view["status"], view["phase"], view["to_act"]) == ("in_progress", "deal", [])
        assert (view["hand_number"], view["dealer"], view["next_dealer"]) == (1, "Ann", "Dee")
        assert (view["stake"], view["last_knocker"], view["stock_size"]) == (2, "Dee", 16)
        assert view["tricks"] == ended["tricks"]
        assert [len(t["plays"]) for t in view["tricks"]] == [4, 3, 3, 3]
        assert all(t["complete"] for t in view["tricks"])
        assert by_name(view, "in_hand") == {"Ann": True, "Bob": False, "Cas": True, "Dee": True}
        assert by_name(view, "hand_size") == {"Ann": 0, "Bob": 3, "Cas": 0, "Dee": 0}
        assert (view["answers_due"], view["can_fold"]) == ([], [])
        assert by_name(view, "lives_lost") == ended["result"]["losses"]
    # Bob's dead cards: the scorekeeper sees them, the public never does.
    assert by_name(state(game), "cards_known")["Bob"] == ["8C", "AD", "KS"]
    assert "cards_known" not in state(game, token=False)["players"][1]
    assert sorted(get(game, "/hands/1", token=False)["hands"]) == ["Ann", "Cas", "Dee"]
    # The same fields through states/<seq>, and the trick views are unchanged.
    assert get(game, f"/states/{game.body['version'] + 1 + len(TOEPEN_HAND)}")["state"] == state(game)
    trick = get(game, "/hands/1/tricks/2")
    assert trick["winner"] == "Cas" and [f["player"] for f in trick["folded"]] == ["Bob"]
    assert get(game, "/hands/1/tricks/4")["winner"] == "Dee"

    # The deal replaces them; next_dealer is null while a hand is in play.
    record(game, {"type": "deal", "dealer": "Dee", "hands": OPEN_DEAL["hands"]})
    view = state(game)
    assert (view["phase"], view["hand_number"], view["dealer"], view["next_dealer"]) == ("playing", 2, "Dee", None)
    assert (view["stake"], view["last_knocker"], view["stock_size"], view["tricks"]) == (1, None, 16, [])
    assert set(by_name(view, "in_hand").values()) == {True}
    assert set(by_name(view, "hand_size").values()) == {4}
    assert view["to_act"] == ["Ann"]
    assert get(game, "/hands/1")["tricks"] == ended["tricks"]


def test_toepen_game_over_after_a_hand_played_out(client):
    game = create(client, visibility="open", options={"limit": 1})
    record(game, OPEN_DEAL, *(play(*move.split(":")) for move in FULL_HAND))
    for token in (True, False):
        view = state(game, token)
        assert (view["status"], view["phase"], view["to_act"]) == ("finished", "game_over", [])
        assert (view["winners"], view["losers"]) == (["Dee"], ["Ann", "Bob", "Cas"])
        assert (view["hand_number"], view["dealer"], view["next_dealer"]) == (1, "Ann", None)
        assert (view["stake"], view["last_knocker"], view["stock_size"]) == (1, None, 16)
        assert view["tricks"] == get(game, "/hands/1", token)["tricks"]
        assert [t["winner"] for t in view["tricks"]] == ["Ann", "Cas", "Dee", "Dee"]
        assert set(by_name(view, "in_hand").values()) == {True}
        assert set(by_name(view, "hand_size").values()) == {0}


def test_toepen_game_over_in_the_middle_of_a_hand_keeps_the_hand_cut_short(client):
    """Cas (1 of 2 lives lost) folds on Bob's knock in trick 1 and reaches the limit: the
    game ends at once ("first_to_limit"), and the state still shows that hand."""
    game = create(client, visibility="open", options={"limit": 2})
    record(
        game,
        {"type": "adjust", "player": "Cas", "amount": 1, "reason": "ruling"},
        OPEN_DEAL, play("Bob", "7H"), {"type": "knock", "player": "Bob"}, {"type": "fold", "player": "Cas"},
    )  # fmt: skip
    view = state(game)
    assert (view["status"], view["phase"], view["to_act"], view["losers"]) == ("finished", "game_over", [], ["Cas"])
    assert (view["hand_number"], view["dealer"], view["next_dealer"]) == (1, "Ann", None)
    assert (view["stake"], view["last_knocker"], view["stock_size"]) == (2, "Bob", 16)
    assert view["tricks"] == [{
        "number": 1, "leader": "Bob", "plays": [{"player": "Bob", "card": "7H", "seq": 4}],
        "lead_suit": "H", "winner": None, "complete": False,
    }]  # fmt: skip
    assert by_name(view, "in_hand") == {"Ann": True, "Bob": True, "Cas": False, "Dee": True}
    assert by_name(view, "hand_size") == {"Ann": 4, "Bob": 3, "Cas": 4, "Dee": 4}
    assert (view["answers_due"], view["can_fold"]) == ([], [])
    hand = get(game, "/hands/1")
    assert hand["result"]["abandoned"] is True and hand["tricks"] == view["tricks"]
    assert get(game, "/hands/1/tricks/1")["folded"] == [{"player": "Cas", "seq": 6}]


# =========================================================================== Fool!

#: rules/fool.md "End of a round" (shared/examples/fool-round-end.json): D deals, 3 cards each.
FOOL_ROUND = [play(*m.split(":")) for m in ["A:G10", "B:G3", "C:R4", "D:G12", "D:Y8", "A:Y2", "B:1", "D:B7", "A:B3", "C:B9"]]
FOOL_REVEALS = [{"type": "reveal", "player": "B", "cards": ["R20"]}, {"type": "reveal", "player": "C", "cards": ["1"]}]


def fool_game(client, **options: Any) -> Game:
    return create(client, game="fool", players=["A", "B", "C", "D"], dealer="D", options={"hand_size": 3, **options})


def test_fool_before_the_first_deal(client):
    view = state(fool_game(client))
    assert (view["phase"], view["to_act"], view["round_number"], view["hand_number"]) == ("deal", [], 0, 0)
    assert (view["dealer"], view["next_dealer"]) == ("D", "D")
    assert (view["tricks"], view["sitting_out"], view["lead_colour"], view["last_result"]) == ([], [], None, None)
    assert set(by_name(view, "hand_size").values()) == {0}
    assert set(by_name(view, "cards_unknown").values()) == {0}
    assert by_name(view, "is_fool") == dict.fromkeys("ABCD")
    assert set(map(tuple, by_name(view, "cards_known").values())) == {()}


def test_fool_between_rounds_shows_the_round_as_it_ended(client):
    game = fool_game(client)
    record(game, {"type": "deal"}, *FOOL_ROUND)
    # Tricks over, hands still to record: the round is still in play.
    view = state(game)
    assert (view["phase"], view["to_act"], view["next_dealer"]) == ("reveal", ["B", "C"], None)
    record(game, *FOOL_REVEALS)
    ended = get(game, "/hands/1")
    assert ended["result"] == {"A": 0, "B": -20, "C": -5, "D": 10}
    view = state(game)
    assert (view["status"], view["phase"], view["to_act"]) == ("in_progress", "deal", [])
    assert (view["round_number"], view["hand_number"], view["dealer"], view["next_dealer"]) == (1, 1, "D", "A")
    assert view["tricks"] == ended["tricks"] and len(view["tricks"]) == 3
    # hand_size: the cards each player was left holding, as hands/1 says.
    assert by_name(view, "hand_size") == ended["hand_sizes"] == {"A": 0, "B": 1, "C": 1, "D": 0}
    assert by_name(view, "cards_known") == {"A": [], "B": ["R20"], "C": ["1"], "D": []}
    assert set(by_name(view, "is_fool").values()) == {False}  # nobody sits out after a round's last trick
    assert (view["sitting_out"], view["lead_colour"]) == ([], None)
    assert by_name(view, "score") == ended["result"]
    assert get(game, "/hands/1/tricks/3")["winner"] == "C"
    assert get(game, "/hands/1/tricks/3")["fools"] == ["A"]
    assert get(game, f"/states/{game.body['version'] + 1 + len(FOOL_ROUND) + 2}")["state"] == view

    record(game, {"type": "deal"})
    view = state(game)
    assert (view["phase"], view["round_number"], view["dealer"], view["next_dealer"], view["to_act"]) == (
        "playing", 2, "A", None, ["B"],
    )  # fmt: skip
    assert set(by_name(view, "hand_size").values()) == {3}
    assert view["tricks"] == [] and set(by_name(view, "is_fool").values()) == {False}
    assert get(game, "/hands/1")["tricks"] == ended["tricks"]


def test_fool_game_over_shows_the_last_round(client):
    game = fool_game(client)
    record(game, {"type": "adjust", "player": "B", "amount": -70, "reason": "ruling"}, {"type": "deal"}, *FOOL_ROUND, *FOOL_REVEALS)
    view = state(game)
    assert (view["status"], view["phase"], view["to_act"], view["winners"]) == ("finished", "game_over", [], ["D"])
    assert (view["round_number"], view["dealer"], view["next_dealer"]) == (1, "D", None)
    assert by_name(view, "hand_size") == {"A": 0, "B": 1, "C": 1, "D": 0}
    assert view["tricks"] == get(game, "/hands/1")["tricks"]
    assert set(by_name(view, "is_fool").values()) == {False}
    assert by_name(view, "score") == {"A": 0, "B": -90, "C": -5, "D": 10}


# =========================================================================== Stop the Bus


def swap(player: str, take: str, give: str) -> dict[str, Any]:
    return {"type": "swap", "player": player, "take": take, "give": give}


def show(player: str, *cards: str) -> dict[str, Any]:
    return {"type": "show", "player": player, "cards": list(cards)}


#: shared/examples/stop-the-bus-rounds.json, round 1 (Cas deals; Ann stops; Bob loses a chip).
STB_ROUND = (
    {"type": "deal", "centre": ["QS", "4H", "9D"]},
    swap("Ann", "QS", "2C"), swap("Bob", "9D", "5S"), swap("Cas", "4H", "KD"), swap("Ann", "KD", "3H"),
    {"type": "stop", "player": "Ann"}, swap("Bob", "5S", "7C"), swap("Cas", "2C", "8H"),
    show("Cas", "4H", "2C", "3S"), show("Ann", "QS", "JS", "KD"), show("Bob", "9D", "9C", "5S"),
)  # fmt: skip


def test_stop_the_bus_before_the_first_deal(client):
    view = state(create(client, game="stop_the_bus", players=["Ann", "Bob", "Cas"], dealer="Cas"))
    assert (view["phase"], view["to_act"], view["round_number"], view["hand_number"]) == ("deal", [], 0, 0)
    assert (view["dealer"], view["next_dealer"]) == ("Cas", "Cas")
    assert (view["centre"], view["stopped_by"], view["final_turns_left"], view["can_stop"]) == ([], None, None, [])
    assert by_name(view, "in_round") == dict.fromkeys(("Ann", "Bob", "Cas"))
    assert set(by_name(view, "hand_size").values()) == {0}
    assert set(map(tuple, by_name(view, "hand_known").values())) == {()}
    assert set(by_name(view, "hand_rank").values()) == {None}
    assert set(by_name(view, "chips").values()) == {3}


def test_stop_the_bus_between_rounds_shows_the_round_as_it_ended(client):
    game = create(client, game="stop_the_bus", players=["Ann", "Bob", "Cas"], dealer="Cas")
    record(game, *STB_ROUND)
    ended = get(game, "/hands/1")
    assert ended["result"]["losers"] == ["Bob"]
    for token in (True, False):
        view = state(game, token)
        assert (view["status"], view["phase"], view["to_act"], view["can_stop"]) == ("in_progress", "deal", [], [])
        assert (view["round_number"], view["hand_number"], view["dealer"], view["next_dealer"]) == (1, 1, "Cas", "Ann")
        assert view["centre"] == ended["centre"] == ["8H", "3H", "7C"]
        assert (view["stopped_by"], view["final_turns_left"]) == ("Ann", 0)
        assert set(by_name(view, "in_round").values()) == {True}
        assert set(by_name(view, "hand_size").values()) == {3}
        assert by_name(view, "hand_known") == {name: held["known"] for name, held in ended["hands"].items()}
        assert by_name(view, "hand_rank") == ended["result"]["ranks"]
        assert by_name(view, "chips") == {"Ann": 3, "Bob": 2, "Cas": 3}
    assert get(game, f"/states/{game.body['version'] + len(STB_ROUND)}")["state"] == state(game)

    record(game, {"type": "deal", "centre": ["AH", "2H", "3H"]})
    view = state(game)
    assert (view["phase"], view["round_number"], view["dealer"], view["next_dealer"], view["to_act"]) == (
        "swapping", 2, "Ann", None, ["Bob"],
    )  # fmt: skip
    assert (view["centre"], view["stopped_by"], view["final_turns_left"]) == (["AH", "2H", "3H"], None, None)
    assert by_name(view, "hand_known") == {"Ann": [], "Bob": [], "Cas": []}
    assert set(by_name(view, "hand_rank").values()) == {None}
    assert get(game, "/hands/1")["centre"] == ["8H", "3H", "7C"]


def test_stop_the_bus_game_over_shows_the_last_round(client):
    """Two players with 1 chip each: Ann stops with a run, Bob's pair loses his last chip."""
    game = create(client, game="stop_the_bus", players=["Ann", "Bob"], dealer="Bob", options={"chips": 1})
    record(
        game,
        {"type": "deal", "centre": ["QS", "4H", "9D"]},
        swap("Ann", "QS", "2C"), {"type": "stop", "player": "Ann"}, swap("Bob", "9D", "5S"),
        show("Ann", "QS", "JS", "KD"), show("Bob", "9D", "9C", "7C"),
    )  # fmt: skip
    view = state(game)
    assert (view["status"], view["phase"], view["to_act"], view["winners"]) == ("finished", "game_over", [], ["Ann"])
    assert (view["round_number"], view["dealer"], view["next_dealer"]) == (1, "Bob", None)
    assert (view["centre"], view["stopped_by"], view["final_turns_left"]) == (["2C", "4H", "5S"], "Ann", 0)
    assert by_name(view, "in_round") == {"Ann": True, "Bob": True}
    assert by_name(view, "hand_known") == {"Ann": ["JS", "KD", "QS"], "Bob": ["7C", "9C", "9D"]}
    assert {name: rank["category"] for name, rank in by_name(view, "hand_rank").items()} == {"Ann": "run", "Bob": "pair"}
    assert by_name(view, "out") == {"Ann": False, "Bob": True}
    assert get(game, "/hands/1")["centre"] == view["centre"]


# =========================================================================== Fuji Flush


def test_fuji_flush_before_the_deal(client):
    view = state(create(client, game="fuji_flush", players=["Ann", "Bob", "Cas"], first_player="Bob"))
    assert (view["phase"], view["to_act"], view["hand_number"], view["first_player"]) == ("deal", [], 0, "Bob")
    assert (view["groups"], view["turns"]) == ([], [])
    assert (view["draw_pile_size"], view["discard_size"], view["reshuffles"]) == (None, None, None)
    for field in ("hand_size", "pushed_through", "drawn"):
        assert set(by_name(view, field).values()) == {0}
    assert set(by_name(view, "table_card").values()) == {None}


def test_fuji_flush_game_over_shows_the_hand_as_it_ended(client):
    """hand_size 1: Ann's 8 survives a round and is pushed through; she wins at once."""
    game = create(client, game="fuji_flush", players=["Ann", "Bob", "Cas"], visibility="open", options={"hand_size": 1})
    record(game, {"type": "deal", "hands": {"Ann": [8], "Bob": [3], "Cas": [2]}}, play("Ann", 8), play("Bob", 3), play("Cas", 2))
    hand = get(game, "/hands/1")
    for token in (True, False):
        view = state(game, token)
        assert (view["status"], view["phase"], view["to_act"], view["winners"]) == ("finished", "game_over", [], ["Ann"])
        assert (view["hand_number"], view["first_player"]) == (1, "Ann")
        assert by_name(view, "table_card") == {"Ann": None, "Bob": 3, "Cas": 2}
        assert by_name(view, "pushed_through") == {"Ann": 1, "Bob": 0, "Cas": 0}
        assert set(by_name(view, "hand_size").values()) == {0}
        assert [g["number"] for g in view["groups"]] == [2, 3]
        assert (view["draw_pile_size"], view["discard_size"]) == (hand["draw_pile_size"], hand["discard_size"]) == (87, 1)
        assert [t["card"] for t in view["turns"]] == [t["card"] for t in hand["turns"]] == [8, 3, 2]
