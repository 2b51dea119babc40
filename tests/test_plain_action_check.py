"""The plain check of action bodies (``service.parsing.plain_loader``) answers exactly what the
marshmallow schema answers, and a move's JSON body is read and its answer written the same way
as the standard library does (``service.http.decode_json``, ``service.http.dumps``).

The plain check stands in for ``schema.load`` only on bodies it can vouch for; on every other
body marshmallow loads it and words its errors. So ``parse_action`` must give the same
``Parsed`` with the check as with marshmallow alone: over every action of random legal games
of the four games (both visibilities) and over bodies wrong in each way the check looks at.
"""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.playouts import NAMES, play
from service import http, parsing
from service.parsing import Parsed, action_schema, parse_action, plain_loader
from service.problems import ApiError


def marshmallow_only(row: dict[str, Any], body: Any) -> Parsed:
    """``parse_action`` as it was before the plain check: the schema loads every body."""
    original = parsing.plain_loader
    parsing.plain_loader = lambda schema: None  # type: ignore[assignment]
    try:
        return parse_action(row, body)
    finally:
        parsing.plain_loader = original


GAMES = [("toepen", {"limit": 5}), ("fool", {}), ("fuji_flush", {}), ("stop_the_bus", {"chips": 3})]


@pytest.mark.parametrize("visibility", ["open", "table"])
@pytest.mark.parametrize(("game", "options"), GAMES)
def test_every_recorded_action_reads_the_same(game, options, visibility):
    checked = plain = 0
    for seed in range(3):
        players = NAMES[:4]
        log = play(game, random.Random(seed), players, options, visibility, undo_rate=0.05, note_rate=0.3).events
        row = {"game": game, "players": players, "visibility": visibility}
        for _, action in log[1:]:
            if action["type"] in ("undo", "redo"):
                continue
            body = dict(action)
            for variant in (body, {**body, "at": "2026-11-29T20:15:00+01:00"},
                            {k: (v.lower() if k == "player" and isinstance(v, str) else v) for k, v in body.items()}):
                assert parse_action(row, variant) == marshmallow_only(row, variant), variant
                checked += 1
            schema = action_schema(game, action["type"], tuple(players), visibility)
            loader = plain_loader(schema)
            plain += loader is not None and loader(body) is not None
    assert checked > 100 and plain > 20  # the plain check took many of them


WRONG = [
    {"type": "play", "player": "Bob"},  # a required field missing
    {"type": "play", "player": "Bob", "card": "ZZ"},  # not a card
    {"type": "play", "player": "Bob", "card": 7},  # not text
    {"type": "play", "player": "Bob", "card": True},
    {"type": "play", "player": "Bob", "card": None},
    {"type": "play", "player": "Zed", "card": "TH"},  # not a seat
    {"type": "play", "player": " Bob", "card": "10h"},  # the schema's own spellings
    {"type": "play", "player": "BOB", "card": " th "},
    {"type": "play", "player": ["Bob"], "card": "TH"},
    {"type": "play", "player": "Bob", "card": "TH", "extra": 1},  # a field it does not take
    {"type": "play", "player": "Bob", "card": "TH", "at": "yesterday"},
    {"type": "play", "player": "Bob", "card": "TH", "at": "2026-11-29T20:15:00Z"},
    {"type": "play", "player": "B\ud800b", "card": "TH"},  # not Unicode
    {"type": "play", "player": "Bob", "card": "T\ud800"},
    {"type": "play", "player": "Bob\x00", "card": "TH"},
    {"type": "knock", "player": "Bob", "card": "TH"},
    {"type": "knock"},
    {"type": "knock", "player": "x" * 200},
    {"type": "stay", "player": "Cas"},
    # lists of cards and a deal's hands (seats to lists of cards)
    {"type": "laundry", "player": "Cas", "cards": ["8S", "JH", "KD", "TS"]},
    {"type": "laundry", "player": "Cas", "cards": []},  # too few
    {"type": "laundry", "player": "Cas", "cards": ["8S"] * 60},  # too many
    {"type": "laundry", "player": "Cas", "cards": "8S"},  # not a list
    {"type": "laundry", "player": "Cas", "cards": ["8S", True]},
    {"type": "laundry", "player": "Cas", "cards": ["8S", None]},
    {"type": "laundry", "player": "Cas", "cards": ["8s", " 10h "]},
    {"type": "laundry", "player": "Cas", "cards": None},
    {"type": "challenge", "player": "Cas", "target": "Ann"},  # the cards a table game needs
    {"type": "challenge", "player": "Cas", "target": "Ann", "cards": ["8S", "JH", "KD", "TS"]},
    {"type": "deal", "dealer": "Ann"},  # an open game's deal lists the hands
    {"type": "deal", "dealer": "Ann", "hands": {"Ann": ["7C", "8D", "9H", "QC"], "Bob": ["7H", "JD", "QD", "TD"]}},
    {"type": "deal", "hands": {"Ann": ["7C", "8D", "9H", "QC"]}},
    {"type": "deal", "dealer": "Ann", "hands": {}},  # too few
    {"type": "deal", "dealer": "Ann", "hands": {f"P{n}": ["7C"] for n in range(9)}},  # too many, not seats
    {"type": "deal", "dealer": "Ann", "hands": {"Ann": ["7C"], "ann": ["8D"]}},  # one seat twice
    {"type": "deal", "dealer": "Ann", "hands": {"Ann": ["7C"], "bob": ["8D"]}},
    {"type": "deal", "dealer": "Ann", "hands": {"Ann": "7C"}},
    {"type": "deal", "dealer": "Ann", "hands": {"Ann": []}},
    {"type": "deal", "dealer": "Ann", "hands": {"Zed": ["7C"]}},
    {"type": "deal", "dealer": "Ann", "hands": [["Ann", ["7C"]]]},
    {"type": "deal", "dealer": "Ann", "hands": None},
    {"type": "deal", "dealer": "Ann", "hands": {"Ann": ["7C", "ZZ"]}},
]


@pytest.mark.parametrize("body", WRONG, ids=range(len(WRONG)))
def test_a_body_wrong_any_way_reads_as_the_schema_reads_it(body):
    for players in (("Ann", "Bob", "Cas", "Dee"), ("Ann", "bob", "Bob", "Dee")):  # two seats one spelling apart
        for visibility in ("open", "table"):
            row = {"game": "toepen", "players": players, "visibility": visibility}
            assert parse_action(row, body) == marshmallow_only(row, body)


def old_decode(raw: bytes) -> Any:
    """``service.http.read_json``'s reading before orjson (the standard library only)."""
    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not a JSON number")

    def finite(text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            raise ValueError(f"{text[:20]} is out of range")
        return value

    return json.loads(raw.decode("utf-8"), parse_constant=refuse, parse_float=finite)


def outcome(call: Any, raw: bytes) -> Any:
    try:
        value = call(raw)
    except ApiError as err:
        return ("refused", err.status, err.code)
    except ValueError as err:  # JSON, a number out of the range read: a 422 (docs/decisions.md)
        return ("refused", 422 if "out of range" in str(err) else 400,
                "validation_failed" if "out of range" in str(err) else "malformed_json")
    except RecursionError:
        return ("refused", 400, "malformed_json")
    return ("read", json.dumps(value), repr(value))


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**80), max_value=2**80) | st.floats(allow_nan=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_a_body_reads_as_the_standard_library_reads_it(value):
    raw = json.dumps(value).encode("utf-8", "surrogatepass")
    assert outcome(http.decode_json, raw) == outcome(old_decode, raw)


@pytest.mark.parametrize("raw", [b"[1e400]", b"NaN", b"[Infinity]", b'"\\ud800"', b"[18446744073709551616]",
                                 b"-9223372036854775809", b"12345678901234567890123.5", b"[1,]", b'{"a":1,"a":2}',
                                 b"1.0", b"-0", b"[" * 70 + b"]" * 70, b"\xff", b'"\xed\xa0\x80"'])
def test_edges_read_as_the_standard_library_reads_them(raw):
    mine = outcome(http.decode_json, raw)
    theirs = outcome(old_decode, raw)
    if theirs[0] == "read" and raw.startswith(b"[[[[["):
        theirs = ("refused", 400, "malformed_json")  # nested past MAX_JSON_DEPTH: refused by both readings
    if raw in (b"\xff", b'"\xed\xa0\x80"'):
        theirs = ("refused", 400, "malformed_json")  # not UTF-8: refused before either reads it
    assert mine == theirs


FINITE_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(FINITE_JSON)
def test_an_answer_is_json_equal_to_the_standard_librarys(value):
    """(No answer holds a number that is not finite: bodies refuse them, the rules count in
    whole numbers; the standard library would write one as ``Infinity``, which is not JSON.)"""
    assert json.loads(http.dumps(value)) == json.loads(json.dumps(value))


@pytest.mark.parametrize("visibility", ["open", "table"])
def test_every_toepen_action_of_the_playouts_takes_the_plain_check(visibility):
    """A deal's hands and a laundry's or a challenge's cards (lists of cards, seats to lists of
    cards) take the plain check too, with the schema's own checks run on what it loads: no
    action the playouts record goes to marshmallow (before, every deal did)."""
    players = ("Ann", "Bob", "Cas", "Dee")
    seen: set[str] = set()
    for seed in range(3):
        log = play("toepen", random.Random(seed), list(players), {"limit": 5}, visibility).events
        for _, action in log[1:]:
            if action["type"] in ("undo", "redo", "note"):
                continue
            loader = plain_loader(action_schema("toepen", action["type"], players, visibility))
            assert loader is not None and loader(action) is not None, action
            seen.add(action["type"])
    assert {"deal", "play", "knock"} <= seen
