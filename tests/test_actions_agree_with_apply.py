"""``GET …/actions`` (``engine.stream.actions``) agrees with the rules, in random table games
of every game (hypothesis).

At every step of a random playout:

- every listed entry stands for at least one action that ``engine.stream.advance`` accepts
  (a listed ``cards`` list: every card accepted, every other card refused), and undo/redo
  carry the target that the undo or redo really acts on; ``correct`` is listed exactly while
  an entry in force can be corrected (its alternatives are ``tests/test_correct_playouts.py``'s);
- ``possible`` is exactly the cards conservation allows: a card outside it is refused with
  ``card_not_available`` (never for a reason the table could not see), a card in it never is;
- the action types that take only a ``player`` (knock, fold, stay, laundry, stop), ``play``,
  ``deal``, ``adjust``, ``abandon``, undo and redo are refused whenever they are not listed.

The playout then records one listed action (or an undo, a redo, a note) and goes on.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine import stream as streams
from engine.core import RulesError

NAMES = ["Ann", "Bob", "Cas", "Dee", "Eve", "Fay"]
SIMPLE = ("knock", "fold", "stay", "laundry", "stop")
MAX_STEPS = 120
SETUPS = [
    pytest.param("toepen", 4, {"limit": 3}, id="toepen"),
    pytest.param("toepen", 3, {"limit": 3, "knock_responses": "explicit"}, id="toepen-explicit"),
    pytest.param("fool", 4, {"hand_size": 4}, id="fool"),
    pytest.param("fuji_flush", 4, {"hand_size": 3}, id="fuji_flush"),
    pytest.param("stop_the_bus", 3, {"chips": 2}, id="stop_the_bus"),
]


def start(game: str, players: int, options: dict[str, Any]) -> streams.Stream:
    rules = engine.GAMES[game]
    names = NAMES[:players]
    created: dict[str, Any] = {"players": names, "options": rules.resolve_options(options, names),
                               "visibility": "table", "rules_version": rules.RULES_VERSION}
    created["first_player" if game == "fuji_flush" else "dealer"] = names[0]
    return streams.start(rules, created)


def accepted(stream: streams.Stream, action: dict[str, Any]) -> RulesError | None:
    """None when ``advance`` takes ``action`` now, else its refusal."""
    try:
        streams.advance(stream, stream.version + 1, action)
    except RulesError as error:
        return error
    return None


def deck(stream: streams.Stream) -> list[Any]:
    rules = stream.rules
    return list(dict.fromkeys(rules.DECK)) if hasattr(rules, "DECK") else list(range(2, 21))


def holding(stream: streams.Stream, player: str) -> Any:
    state = stream.state
    seat = state.names.index(player)
    current = getattr(state, "hand", None) or getattr(state, "round", None)
    return (current.holdings if current is not None else state.holdings)[seat]


def candidates(stream: streams.Stream, offer: dict[str, Any], rng: random.Random) -> list[dict[str, Any]]:
    """Concrete actions that one listed entry stands for (a sample where there are many)."""
    kind, player = offer["type"], offer.get("player")
    base: dict[str, Any] = {"type": kind, **({"player": player} if player else {})}
    pool = offer.get("cards") if offer.get("cards") is not None else offer.get("possible", [])
    if kind == "deal":
        if stream.rules.GAME == "stop_the_bus":
            return [{"type": "deal", "centre": rng.sample(deck(stream), 3)} for _ in range(3)]
        return [{"type": "deal"}]
    if kind == "play":
        return [{**base, "card": card} for card in pool]
    if kind in ("reveal", "show"):
        held = holding(stream, player)
        known = list(held.known)
        rest = [c for c in pool if c not in known]
        out = [{**base, "cards": [c]} for c in rest[:6]]
        for _ in range(4):
            if len(rest) >= held.unknown:
                out.append({**base, "cards": known + rng.sample(rest, held.unknown)})
        return out
    if kind == "swap":
        gives = pool or []
        out = [{**base, "take": take, "give": give} for take in offer["take"] for give in gives[:8]]
        if offer.get("take_all") and len(gives) >= 3:
            out.append({**base, "take_all": True, "give": rng.sample(gives, 3)})
        return out
    if kind == "challenge":  # the laid-down hand: the cards known to be in it, the rest unseen
        hand = stream.state.hand
        seat = stream.state.names.index(offer["target"])
        laid = sorted(next(e.known for e in hand.laundries if e.seat == seat))
        unseen = [c for c in deck(stream) if c not in hand.seen]
        return [{**base, "target": offer["target"], "cards": laid + rng.sample(unseen, 4 - len(laid))} for _ in range(4)]
    if kind == "adjust":
        return [{"type": "adjust", "player": name, "amount": 1, "reason": "ruling"} for name in stream.state.names]
    if kind == "note":
        return [{"type": "note", "text": "a dispute"}]
    if kind == "abandon":
        return [{"type": "abandon", "reason": "the club closes"}]
    return [base]


def check(stream: streams.Stream, offers: list[dict[str, Any]], rng: random.Random) -> dict[int, list[dict[str, Any]]]:
    """The properties of the module docstring; returns each offer's accepted actions."""
    good: dict[int, list[dict[str, Any]]] = {}
    for index, offer in enumerate(offers):
        kind = offer["type"]
        if kind in (streams.UNDO, streams.REDO):
            step = streams.target(stream, kind)
            assert step is not None and offer["target"]["seq"] == step.seq
            assert accepted(stream, {"type": kind}) is None
            continue
        if kind == streams.CORRECT:  # open whenever an entry in force can be corrected (api.md)
            assert streams.correctable(stream)
            continue
        tried = candidates(stream, offer, rng)
        good[index] = [action for action in tried if accepted(stream, action) is None]
        assert good[index], f"listed but refused: {offer} -> {[str(accepted(stream, a)) for a in tried[:3]]}"
        if kind == "play" and offer.get("cards") is not None:
            assert len(good[index]) == len(tried), offer
            for card in set(deck(stream)) - set(offer["cards"]):
                assert accepted(stream, {"type": "play", "player": offer["player"], "card": card}) is not None
        if "possible" in offer:
            assert offer.get("cards") is None
            for card in deck(stream):
                probe = {"type": "play", "player": offer["player"], "card": card} if kind == "play" else None
                if probe is None:
                    continue
                refusal = accepted(stream, probe)
                if card in offer["possible"]:
                    assert refusal is None or refusal.code != "card_not_available", (card, refusal)
                else:
                    assert refusal is not None and refusal.code == "card_not_available", (card, refusal)
    listed = {(o["type"], o.get("player")) for o in offers}
    names = stream.state.names
    for kind in SIMPLE:
        for name in names:
            if (kind, name) not in listed:
                assert accepted(stream, {"type": kind, "player": name}) is not None, (kind, name)
    for name in names:
        if ("play", name) not in listed:
            for card in rng.sample(deck(stream), 5):
                assert accepted(stream, {"type": "play", "player": name, "card": card}) is not None, (name, card)
    if not any(o["type"] == "deal" for o in offers):
        assert accepted(stream, {"type": "deal"}) is not None
    for kind in (streams.UNDO, streams.REDO):
        if (kind, None) not in listed:
            assert accepted(stream, {"type": kind}) is not None
    if ("adjust", None) not in listed:
        assert all(accepted(stream, a) is not None for a in candidates(stream, {"type": "adjust"}, rng))
    if ("abandon", None) not in listed:
        assert accepted(stream, {"type": "abandon", "reason": "closing time"}) is not None
    assert ("note", None) in listed
    if (streams.CORRECT, None) not in listed:
        assert not streams.correctable(stream)
        assert accepted(stream, {"type": streams.CORRECT, "target": stream.version,
                                 "action": {"type": "knock", "player": names[0]}}) is not None
    return good


@pytest.mark.parametrize(("game", "players", "options"), SETUPS)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_listed_actions_are_accepted_and_unlisted_refused(game: str, players: int, options: dict[str, Any],
                                                          seed: int) -> None:
    rng = random.Random(seed)
    stream = start(game, players, options)
    for _ in range(MAX_STEPS):
        offers = streams.actions(stream, True)
        assert offers == streams.actions(stream, False)  # a table game hides nothing from the public
        good = check(stream, offers, rng)
        if stream.rules.status(stream.state) == "finished":
            break
        roll = rng.random()
        if roll < 0.05 and any(o["type"] == streams.UNDO for o in offers):
            action: dict[str, Any] = {"type": streams.UNDO}
        elif roll < 0.08 and any(o["type"] == streams.REDO for o in offers):
            action = {"type": streams.REDO}
        else:
            moves = [i for i, o in enumerate(offers) if i in good and o["type"] not in ("note", "adjust")]
            turn = [i for i in moves if offers[i]["type"] in ("play", "deal", "swap", "show", "stay")]
            pick = rng.choice(turn if turn and rng.random() < 0.85 else moves or list(good))
            action = rng.choice(good[pick])
        stream = streams.advance(stream, stream.version + 1, action)
