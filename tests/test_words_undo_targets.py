"""The Undo and Redo buttons' words (``engine.stream.summary``, the ``target.summary`` of undo
and redo) for every kind of entry of the four games read as card players say them (ui.md,
"Words for card players"): no event number, no action type's name ("Correct", "abandon",
"stay"), no code; a fix reads "Fix: Dee played 9♣, not 9♠", an abandon "Game abandoned". And
one event reads the same everywhere: the timeline's sentence of an action that takes only a
player (knock, stay, fold, laundry, stop) begins with the Undo button's words."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from bench.playouts import NAMES, play
from engine import stream as streams
from engine import toepen
from tests.test_correct_playouts import correct_at_random

GAMES = [(game, visibility) for game in ("toepen", "fool", "fuji_flush", "stop_the_bus") for visibility in ("open", "table")]
#: The action types whose name a summary may use as a word of its own ("asked for a laundry").
NATURAL = {"laundry"}
TYPES = {"deal", "play", "knock", "stay", "fold", "laundry", "challenge", "reveal", "show", "swap", "draw",
         "stop", "adjust", "abandon", "correct", "undo", "redo", "note", "take_all"}


def steps(stream: streams.Stream) -> list[streams.Step]:
    out, link = [], stream.done
    while link is not None:
        out.append(link.head)
        link = link.rest
    return out[::-1]


def jargon(step: streams.Step, words: str) -> list[str]:
    """What in ``words`` is not a card player's word."""
    found = re.findall(r"\b[Ee]vent\b|\d+:|_|\bCorrect\b", words)
    kinds = {step.action["type"]} | ({step.fix.replacement.action["type"]} if step.fix else set())
    found += [kind for kind in (kinds | {"correct", "abandon"}) - NATURAL if re.search(rf"\b{kind}\b", words, re.I)]
    return found


def check(rules: Any, stream: streams.Stream) -> set[str]:
    seen = set()
    for step in steps(stream)[1:]:
        for full in (True, False):
            words = streams.target_json(rules, step, full)["summary"]
            assert not jargon(step, words), (step.action, words)
            assert words == words.strip() and "  " not in words, words
        seen.add(str(step.action["type"]))
    return seen


@pytest.mark.parametrize("game, visibility", GAMES)
def test_every_entry_reads_in_card_players_words(game, visibility):
    seen: set[str] = set()
    for seed in range(4):
        rng = random.Random(f"{game}-{visibility}-{seed}")
        out = play(game, rng, NAMES[:4], visibility=visibility, undo_rate=0.1, max_events=120,
                   **({"stop_chance": 0.35} if game == "stop_the_bus" else {}))
        stream = out.stream
        for _ in range(12):  # a few fixes of earlier entries
            fixed = correct_at_random(out.rules, stream, rng)
            stream = fixed if fixed is not None else stream
        seen |= check(out.rules, stream)
        if streams.status(stream) == "in_progress":
            stopped = streams.advance(stream, stream.version + 1, {"type": "abandon", "reason": "the club closes"})
            assert streams.summary(out.rules, stopped.done.head, True) == "Game abandoned"
            seen |= check(out.rules, stopped)
    assert "correct" in seen, seen


def test_a_fix_says_what_it_fixed_without_the_event_number():
    stream = streams.start(toepen, {"players": ["Ann", "Bob", "Cas", "Dee"], "options": toepen.resolve_options({}, ["Ann", "Bob", "Cas", "Dee"]),
                                    "visibility": "open", "dealer": "Ann", "rules_version": toepen.RULES_VERSION})
    hands = {"Bob": ["7H", "8H", "9H", "TH"], "Cas": ["7C", "8C", "9C", "TC"],
             "Dee": ["7S", "8S", "9S", "TS"], "Ann": ["7D", "8D", "9D", "TD"]}
    for seq, action in enumerate([{"type": "deal", "hands": hands}, {"type": "play", "player": "Bob", "card": "7H"},
                                  {"type": "play", "player": "Cas", "card": "9C"}], start=2):
        stream = streams.advance(stream, seq, action)
    fixed = streams.advance(stream, 5, {"type": "correct", "target": 4, "action": {"type": "play", "player": "Cas", "card": "8C"}})
    assert streams.summary(toepen, fixed.done.head, True) == "Fix: Cas played 8♣, not 9♣"
    assert streams.target_json(toepen, fixed.done.head, False, {5})["summary"] == "Fix: Cas played a card"
    undone = streams.advance(fixed, 6, {"type": "undo"})
    assert streams.target(undone, streams.REDO) is not None


@pytest.mark.parametrize("kind", ["fold", "knock", "laundry", "stay", "stop"])
def test_one_wording_per_event(kind):
    """The words of the Undo button are the words the timeline's sentence begins with."""
    assert kind in TYPES
    count = 0
    for game, visibility in GAMES:
        for seed in range(3):
            options = {"knock_responses": "explicit"} if game == "toepen" and seed else {}
            out = play(game, random.Random(f"{kind}-{game}-{visibility}-{seed}"), NAMES[:4], options, visibility,
                       max_events=150, **({"stop_chance": 0.5} if game == "stop_the_bus" else {}))
            stream = streams.start(out.rules, out.created)
            for seq, action in out.events[1:]:
                before = stream.state
                stream = streams.advance(stream, seq, action)
                if action["type"] == kind:
                    said = out.rules.describe(before, {**action, "seq": seq}, stream.state, True)
                    short = streams.summary(out.rules, stream.done.head, True)
                    assert said.startswith(short), (said, short)
                    count += 1
    assert count, f"no {kind} was played"
