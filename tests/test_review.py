"""Reviewing a game (issue 6): timeline, trick and turn audits with corrections,
irregularities, rulings, what-if forks and ``kibitz replay``, on all four games."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from engine.cards import pretty
from service.cli.main import main
from tests.conftest import (
    EXAMPLES,
    EXAMPLES_DIR,
    ON_BOTH_BACKENDS,
    OPEN_DEAL,
    assert_problem,
    create,
    needs_examples,
    play_scenario,
)


def play_all(game, actions):
    for action in actions:
        response = game.post(action)
        assert response.status_code == 201, (action, response.get_json())
    return response.get_json()


def plays(*moves):
    return [{"type": "play", "player": p, "card": c} for p, c in moves]


# --- timeline --------------------------------------------------------------------------


@needs_examples
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_timeline_of_every_example(client, path):
    game = play_scenario(client, path)
    events = game.get("/events").get_json()["events"]
    for token in (True, False):
        body = game.get("/timeline", token=token).get_json()
        steps = body["steps"]
        assert [s["seq"] for s in steps] == [e["seq"] for e in events]
        assert all(isinstance(s["summary"], str) and s["summary"].strip() for s in steps)
        assert [s["undone"] for s in steps] == [e["undone"] for e in events]
        for step in steps:
            if step["undone"]:
                undo = steps[step["undone_by"] - 1]
                assert undo["type"] == "undo" and undo["target"] == step["seq"]
                assert undo["summary"].startswith("Undone") and undo["place"] == step["place"]
                assert "event" not in undo["summary"].lower()  # named as the Undo button names it
    first_hand = game.get("/timeline?hand=1").get_json()["steps"]
    assert first_hand and {s["hand"] for s in first_hand} == {1}


def test_timeline_summaries_carry_the_consequences(client):
    fuji = play_scenario(client, EXAMPLES_DIR / "fuji-flush-walkthrough.json") if EXAMPLES else None
    if fuji is not None:
        summaries = [s["summary"] for s in fuji.get("/timeline").get_json()["steps"]]
        assert "Jisu played 20: Nami, Gahee and Yeonsu are flushed and draw." in summaries
        bus = play_scenario(client, EXAMPLES_DIR / "stop-the-bus-rounds.json")
        summaries = [s["summary"] for s in bus.get("/timeline").get_json()["steps"]]
        assert any(s.startswith("Bob stopped the bus: Cas and Ann take one more turn") for s in summaries)
        assert any("Bob has the weakest hand" in s for s in summaries)


def test_toepen_timeline_marks_undo_and_names_the_trick_winner(open_game):
    play_all(open_game, plays(("Bob", "7H"), ("Cas", "8H")))
    open_game.post({"reason": "wrong card"}, "undo")
    open_game.post({"type": "note", "text": "Cas says she meant the 8", "player": "Cas"})
    play_all(open_game, plays(("Cas", "JH"), ("Dee", "AH"), ("Ann", "TH")))
    steps = open_game.get("/timeline").get_json()["steps"]
    by_seq = {s["seq"]: s for s in steps}
    assert by_seq[4]["undone"] is True and by_seq[4]["undone_by"] == 5
    assert by_seq[5]["summary"] == "Undone (wrong card): Cas played 8♥."
    assert by_seq[5]["place"] == by_seq[4]["place"] == "hand 1, trick 1" and by_seq[4]["brief"] == "Cas played 8♥"
    assert by_seq[6]["type"] == "note" and by_seq[6]["summary"] == "Note by Cas: Cas says she meant the 8"
    assert by_seq[3]["summary"] == "Bob led 7♥ to trick 1."
    assert by_seq[9]["summary"] == "Ann played 10♥ and won trick 1: the highest heart."
    assert set(by_seq[9]) >= {"seq", "recorded_at", "at", "type", "player", "summary", "undone", "undone_by"}


def test_timeline_hand_filter_and_errors(open_game):
    assert [s["seq"] for s in open_game.get("/timeline?hand=1").get_json()["steps"]] == [2]
    assert [s["seq"] for s in open_game.get("/timeline?hand=0").get_json()["steps"]] == [1]
    assert_problem(open_game.get("/timeline?hand=2"), 404, "not_found")
    assert_problem(open_game.get("/timeline?hand=x"), 422, "validation_failed")
    assert_problem(open_game.client.get("/games/nope/timeline"), 404, "game_not_found")
    assert_problem(open_game.client.get(open_game.url + "/timeline", headers={"Authorization": "Bearer x"}),
                   403, "token_invalid")


def _card_forms(card):
    return {card, pretty(card)}


def test_public_timeline_never_shows_hidden_cards(client):
    game = create(client, visibility="open")
    play_all(game, [OPEN_DEAL, {"type": "laundry", "player": "Ann", "cards": ["7D", "7S", "KH", "QH"]}])
    play_all(game, plays(("Bob", "7H")))
    hidden = {c for hand in OPEN_DEAL["hands"].values() for c in hand} | {"7D", "7S", "KH", "QH"}
    hidden -= {"7H"}
    public = json.dumps(game.get("/timeline", token=False).get_json(), ensure_ascii=False)
    for card in hidden:
        assert not any(re.search(rf"(?<![\w♣♦♥♠]){re.escape(form)}(?![\w♣♦♥♠])", public)
                       for form in _card_forms(card)), card
    full = json.dumps(game.get("/timeline").get_json(), ensure_ascii=False)
    assert "Q♥" in full and "hands" in full


def test_public_timeline_of_open_fuji_flush_hides_named_draws(client):
    players = ["Ann", "Bob", "Cas"]
    game = create(client, game="fuji_flush", players=players, visibility="open", options={"hand_size": 2})
    play_all(game, [{"type": "deal", "hands": {"Ann": [2, 3], "Bob": [9, 10], "Cas": [4, 5]}},
                    {"type": "play", "player": "Ann", "card": 2}, {"type": "play", "player": "Bob", "card": 9},
                    {"type": "draw", "player": "Ann", "card": 17}])
    public = game.get("/timeline", token=False).get_json()["steps"]
    assert public[-1]["summary"] == "Ann's drawn card was named." and "card" not in public[-1]["data"]
    assert all("17" not in s["summary"] and 17 not in s["data"].values() for s in public)
    assert game.get("/timeline").get_json()["steps"][-1]["summary"] == "Ann drew 17."


# --- trick audits, corrections and irregularities --------------------------------------


def test_toepen_table_revoke_proven_two_tricks_later(game):
    play_all(game, [{"type": "deal"}])
    play_all(game, plays(("Bob", "7H"), ("Cas", "7C"), ("Dee", "AH"), ("Ann", "TH")))
    play_all(game, plays(("Ann", "9S"), ("Bob", "8S"), ("Cas", "9D"), ("Dee", "7S")))
    play_all(game, plays(("Ann", "8D"), ("Bob", "7D")))
    proof = game.post({"type": "play", "player": "Cas", "card": "8H"}).get_json()["seq"]
    trick = game.get("/hands/1/tricks/1").get_json()
    [revoke] = trick["irregularities"]
    assert (revoke["player"], revoke["proof_seq"], revoke["seq"]) == ("Cas", proof, 4)
    assert revoke["detail"] == "Cas did not follow hearts in trick 1 but later played 8♥ in trick 3: a revoke."
    assert "rules/" not in revoke["detail"]  # the rule in words only, and no event numbers
    assert game.get("/hands/1/tricks/3").get_json()["irregularities"] == []
    found = game.get("/irregularities", token=False).get_json()["irregularities"]
    assert [(i["hand"], i["trick"], i["proof_seq"]) for i in found] == [(1, 1, proof)]
    step = game.get("/timeline").get_json()["steps"][-1]
    assert "proves a revoke: Cas did not follow hearts in trick 1" in step["summary"] and "event" not in step["summary"]
    assert trick["source"] == "rules/toepen.md" and "rules/" not in trick["winner_reason"]  # a machine field
    assert "won" not in trick["leader_reason"]
    assert game.get("/hands/1/tricks/2").get_json()["leader_reason"].startswith("Ann won trick 1 and so led trick 2")


def test_fool_table_revoke_proven_two_tricks_later(client):
    game = create(client, game="fool", players=["Anja", "Bettina", "Uwe", "Ilja"], dealer="Ilja")
    play_all(game, [{"type": "deal"}])
    play_all(game, plays(("Anja", "G20"), ("Bettina", "G4"), ("Uwe", "G11"), ("Ilja", "R7")))
    play_all(game, plays(("Anja", "B9"), ("Bettina", "B5"), ("Uwe", "B10")))
    play_all(game, plays(("Uwe", "Y11")))
    proof = game.post({"type": "play", "player": "Ilja", "card": "G6"}).get_json()["seq"]
    play_all(game, plays(("Anja", "Y2")))
    trick = game.get("/hands/1/tricks/1", token=False).get_json()
    [revoke] = trick["irregularities"]
    assert (revoke["player"], revoke["seq"], revoke["proof_seq"], revoke["card"]) == ("Ilja", 6, proof, "G6")
    assert [i["proof_seq"] for i in game.get("/irregularities").get_json()["irregularities"]] == [proof]
    third = game.get("/hands/1/tricks/3").get_json()
    assert third["fools"] == ["Ilja"] and third["source"] == "rules/fool.md" and "rules/" not in third["fools_reason"]
    assert third["sitting_out_reason"].startswith("Bettina was the Fool of trick 2 and sat out trick 3")
    assert third["leader_reason"].startswith("Uwe won trick 2")


def test_reveal_contradicting_the_record_names_the_event(client):
    game = create(client, game="fool", players=["Anja", "Bettina", "Uwe", "Ilja"], dealer="Ilja")
    play_all(game, [{"type": "deal"}, *plays(("Anja", "G20"))])
    body = assert_problem(game.post({"type": "reveal", "player": "Uwe", "cards": ["G20"]}), 409, "card_not_available")
    assert "Anja played it in trick 1." in body["detail"] and "event" not in body["detail"]
    toepen = create(client)
    play_all(toepen, [{"type": "deal"}, {"type": "reveal", "player": "Cas", "cards": ["TC"]}])
    body = assert_problem(toepen.post({"type": "reveal", "player": "Dee", "cards": ["TC"]}), 409, "card_not_available")
    assert "Cas's hand (revealed in this hand)" in body["detail"]


def test_stop_the_bus_show_contradicting_the_record_names_the_event(client):
    game = create(client, game="stop_the_bus", players=["Ann", "Bob"], dealer="Ann")
    play_all(game, [{"type": "deal", "centre": ["QS", "4H", "9D"]},
                    {"type": "swap", "player": "Bob", "take": "QS", "give": "2C"},
                    {"type": "stop", "player": "Bob"},
                    {"type": "swap", "player": "Ann", "take": "2C", "give": "3C"}])
    body = assert_problem(game.post({"type": "show", "player": "Bob", "cards": ["QS", "2C", "5H"]}),
                          409, "card_not_available")
    assert "Ann's hand (taken from the middle in turn 3)" in body["detail"]


def test_trick_corrections_are_per_trick(open_game):
    play_all(open_game, plays(("Bob", "7H"), ("Cas", "8H")))
    open_game.post({}, "undo")
    open_game.post({}, "redo")
    play_all(open_game, plays(("Dee", "AH"), ("Ann", "TH"), ("Ann", "9C")))
    open_game.post({}, "undo")
    open_game.post({"type": "note", "text": "Ann hesitated"})
    play_all(open_game, plays(("Ann", "9C")))
    first = open_game.get("/hands/1/tricks/1").get_json()
    assert [(c["seq"], c["type"], c["target"]["seq"]) for c in first["corrections"]] == [(5, "undo", 4), (6, "redo", 4)]
    assert all(c["recorded_at"] for c in first["corrections"])
    second = open_game.get("/hands/1/tricks/2").get_json()
    assert [(c["seq"], c["target"]["seq"]) for c in second["corrections"]] == [(10, 9)]
    assert [n["text"] for n in second["notes"]] == ["Ann hesitated"] and first["notes"] == []
    hand = open_game.get("/hands/1").get_json()
    assert [c.get("trick") for c in hand["corrections"]] == [1, 1, 2]


@needs_examples
def test_turn_corrections_and_explanations(client):
    fuji = play_scenario(client, EXAMPLES_DIR / "fuji-flush-walkthrough.json")
    turns = fuji.get("/hands/1").get_json()["turns"]
    last = turns[-1]
    fuji.post({}, "undo")
    fuji.post({"type": "play", "player": last["player"], "card": last["card"]})
    turns = fuji.get("/hands/1").get_json()["turns"]
    assert [c["type"] for c in turns[-1]["corrections"]] == ["undo"]
    assert all(t["explanation"] for t in turns) and all(t["corrections"] == [] for t in turns[:-1])
    bus = play_scenario(client, EXAMPLES_DIR / "stop-the-bus-rounds.json")
    round1 = bus.get("/hands/1").get_json()
    assert all(t["explanation"] for t in round1["turns"]) and all(s["explanation"] for s in round1["shows"])
    assert "weakest hand" in round1["result"]["reason"] and "rules/" not in round1["result"]["reason"]
    assert round1["source"] == "rules/stop_the_bus.md"


# --- rulings -----------------------------------------------------------------------------


RULINGS = [
    ("toepen", ["Ann", "Bob", "Cas"], {"type": "deal"}, {"player": "Ann", "amount": 10}, "Ann"),
    ("fool", ["Ann", "Bob", "Cas", "Dee"], {"type": "deal"}, {"player": "Dee", "amount": -80}, "Dee"),
    ("stop_the_bus", ["Ann", "Bob"], {"type": "deal", "centre": ["QS", "4H", "9D"]},
     {"player": "Bob", "amount": -3}, "Bob"),
]


@pytest.mark.parametrize(("name", "players", "deal", "ruling", "who"), RULINGS, ids=[r[0] for r in RULINGS])
def test_a_ruling_that_ends_the_game(client, name, players, deal, ruling, who):
    game = create(client, game=name, players=players)
    play_all(game, [deal, {"type": "note", "text": "dispute over the last card", "player": who}])
    body = play_all(game, [{"type": "adjust", "reason": "table ruling", **ruling}])
    assert body["state"]["status"] == "finished"
    assert game.get("").get_json()["status"] == "finished"
    steps = game.get("/timeline").get_json()["steps"]
    assert steps[-1]["summary"].startswith(f"Ruling: {who} ") and "the game is over" in steps[-1]["summary"]
    assert "table ruling" in steps[-1]["summary"] and steps[-2]["summary"].startswith(f"Note by {who}:")
    hand = game.get("/hands/1").get_json()
    assert [a["reason"] for a in hand["adjustments"]] == ["table ruling"]
    assert [n["text"] for n in hand["notes"]] == ["dispute over the last card"]
    assert_problem(game.post({"type": "adjust", "reason": "again", **ruling}), 409, "game_over")


def test_fuji_flush_has_no_adjust(client):
    game = create(client, game="fuji_flush", players=["Ann", "Bob", "Cas"])
    assert_problem(game.post({"type": "adjust", "player": "Ann", "amount": 1, "reason": "x"}), 422,
                   "validation_failed")


# --- forks -------------------------------------------------------------------------------


def without_seqs(value):
    """A view with every ``seq`` left out (a fork numbers its events afresh)."""
    if isinstance(value, dict):
        return {k: without_seqs(v) for k, v in value.items() if not k.endswith("seq")}
    if isinstance(value, list):
        return [without_seqs(v) for v in value]
    return value


@needs_examples
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_fork_at_the_last_event_rebuilds_the_same_state(client, path):
    game = play_scenario(client, path)
    version = game.get("").get_json()["version"]
    response = game.post({"seq": version}, "fork")
    assert response.status_code == 201, response.get_json()
    fork = response.get_json()
    assert fork["forked_from"] == {"game": game.id, "seq": version} and fork["token"] != game.token
    assert without_seqs(fork["state"]) == without_seqs(game.get("").get_json()["state"])
    undone = sum(e["undone"] for e in game.get("/events").get_json()["events"])
    bookkeeping = sum(e["type"] in ("undo", "redo", "note") for e in game.get("/events").get_json()["events"])
    assert fork["version"] == version - undone - bookkeeping


def test_a_fork_replays_differently(open_game, client):
    play_all(open_game, plays(("Bob", "7H"), ("Cas", "8H"), ("Dee", "AH"), ("Ann", "TH")))
    play_all(open_game, [{"type": "knock", "player": "Dee"}])
    knock = open_game.get("").get_json()["version"]
    play_all(open_game, [{"type": "fold", "player": "Bob"}])
    open_game.post({}, "undo")
    open_game.post({}, "redo")
    assert open_game.get("").get_json()["state"]["players"][1]["lives_lost"] == 1
    created = open_game.post({"seq": knock}, "fork")
    assert created.status_code == 201 and created.headers["Location"].endswith(created.get_json()["id"])
    body = created.get_json()
    from tests.conftest import Game

    fork = Game(client, body)
    assert fork.get("/events").get_json()["events"][0]["data"]["forked_from"] == {"game": open_game.id, "seq": knock}
    assert [e["type"] for e in fork.get("/events").get_json()["events"]] == ["game_created", "deal", *["play"] * 4,
                                                                           "knock"]
    play_all(fork, plays(("Ann", "9C"), ("Bob", "8C")))
    assert fork.get("").get_json()["state"]["players"][1]["in_hand"] is True
    assert open_game.get("").get_json()["state"]["players"][1]["in_hand"] is False
    assert "Bob played 8♣" in fork.get("/timeline").get_json()["steps"][-1]["summary"]
    # its own token; the original's token is not the fork's
    assert_problem(client.post(f"/games/{fork.id}/events", json={"type": "knock", "player": "Cas"},
                               headers=open_game.auth), 403, "token_invalid")
    # the fork's plays name cards the original's players still hold in the hand both share:
    # sealed to the public (api.md, "Views and secrets": "Forks share hands")
    assert_problem(fork.get("/events", token=False), 401, "token_required")
    assert "hands" in fork.get("/events").get_json()["events"][1]["data"]
    # left out of GET /games unless asked for
    listed = [g["id"] for g in client.get("/games").get_json()["games"]]
    assert open_game.id in listed and fork.id not in listed
    assert fork.id in [g["id"] for g in client.get("/games?fork=true").get_json()["games"]]
    assert [g["id"] for g in client.get(f"/games?forked_from={open_game.id}").get_json()["games"]] == [fork.id]
    assert fork.get("").get_json()["forked_from"] == {"game": open_game.id, "seq": knock}
    assert open_game.get("").get_json()["forked_from"] is None


def test_a_fork_leaves_out_actions_undone_by_then(open_game):
    play_all(open_game, plays(("Bob", "7H"), ("Cas", "8H")))
    open_game.post({}, "undo")
    fork = open_game.post({"seq": 5}, "fork").get_json()
    assert fork["version"] == 3 and fork["state"]["to_act"] == ["Cas"]
    later = open_game.post({"seq": 4}, "fork").get_json()
    assert later["version"] == 4 and later["state"]["to_act"] == ["Dee"]


def test_fork_refusals(open_game, client):
    assert_problem(client.post(f"/games/{open_game.id}/fork", json={"seq": 1}), 401, "token_required")
    assert_problem(open_game.post({"seq": 99}, "fork"), 422, "validation_failed")
    assert_problem(open_game.post({"seq": 0}, "fork"), 422, "validation_failed")
    assert_problem(open_game.post({"seq": "2"}, "fork"), 422, "validation_failed")
    assert_problem(open_game.post({}, "fork"), 422, "validation_failed")
    assert_problem(client.post("/games/nope/fork", json={"seq": 1}, headers=open_game.auth), 404, "game_not_found")


# --- kibitz replay -----------------------------------------------------------------------


@ON_BOTH_BACKENDS
def test_cli_replay_fits_80_columns(client, database):
    game = create(client, visibility="open", title="Friday club")
    play_all(game, [OPEN_DEAL, *plays(("Bob", "7H"), ("Cas", "8H"))])
    game.post({}, "undo")
    play_all(game, plays(("Cas", "JH"), ("Dee", "AH"), ("Ann", "TH")))
    result = CliRunner().invoke(main, ["replay", game.id, "--db", database])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("Friday club · Ann, Bob, Cas, Dee · open")
    assert max(len(line) for line in lines) <= 80
    assert any(line.startswith("   8  Ann played 10♥ and won trick 1") for line in lines)
    # an undone step says so in words, never by the undo's event number (issue 25)
    assert any(line.startswith("   4  [undone] Cas played 8♥") for line in lines), lines
    assert not re.search(r"by \d|[Ee]vents? \d", result.output), result.output
    assert "── hand 1 " in result.output
    hand = CliRunner().invoke(main, ["replay", game.id, "--db", database, "--hand", "1"])
    assert hand.exit_code == 0 and "Toepen for" not in hand.output
    assert "Q♠" not in CliRunner().invoke(main, ["replay", game.id, "--db", database, "--public"]).output


@needs_examples
def test_cli_replay_of_long_summaries_wraps(client, db_path):
    game = play_scenario(client, EXAMPLES_DIR / "fuji-flush-walkthrough.json")
    result = CliRunner().invoke(main, ["replay", game.id, "--db", str(db_path)])
    assert result.exit_code == 0 and max(len(line) for line in result.output.splitlines()) <= 80
    assert "  12  Jisu played 20: Nami, Gahee and Yeonsu are flushed and draw." in result.output.splitlines()


@ON_BOTH_BACKENDS
def test_cli_replay_unknown_game(database, client):
    create(client)
    result = CliRunner().invoke(main, ["replay", "nope", "--db", database])
    assert result.exit_code != 0 and "no game 'nope'" in result.output
