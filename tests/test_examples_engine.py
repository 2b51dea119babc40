"""Every scenario of ``../shared/examples`` folded through its game's schema and engine alone.

The same files run over HTTP against a real ``kibitz serve`` in ``tests/test_server.py``;
here each step is parsed by the game's payload schema (as the service would) and folded
with ``engine.stream``, and every ``status``/``code`` and ``expect`` is checked against the
engine's views, so a failure points at the rules rather than at the web layer. The game
is looked up in the registries: nothing here names a game.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from marshmallow import ValidationError

import engine
import schemas
from engine.core import RulesError
from engine.stream import Stream, advance, start

SHARED = Path(__file__).resolve().parents[2] / "shared"
FILES = sorted((SHARED / "examples").glob("*.json")) if (SHARED / "examples").is_dir() else []

pytestmark = pytest.mark.skipif(
    not FILES, reason=f"no scenario files: {SHARED / 'examples'} is absent (../shared is not beside the repo)"
)


def dig(doc: Any, path: str) -> Any:
    """Follow ``a.b[Name].c`` through dicts and name-keyed lists (examples/README.md)."""
    current = doc
    for part in path.split("."):
        key, _, selector = part.partition("[")
        if key:
            if isinstance(current, list) and key.isdigit():
                current = current[int(key)] if int(key) < len(current) else None
            else:
                current = current.get(key) if isinstance(current, dict) else None
        if selector and isinstance(current, list):
            wanted = selector.rstrip("]")
            current = next((item for item in current if isinstance(item, dict) and item.get("name") == wanted), None)
        if current is None:
            return None
    return current


def matches(actual: Any, expected: Any) -> bool:
    """The comparison operators of examples/README.md: ``$set``, ``$len``, ``$absent``."""
    if isinstance(expected, dict) and "$set" in expected:
        return isinstance(actual, list) and sorted(map(json.dumps, actual)) == sorted(map(json.dumps, expected["$set"]))
    if isinstance(expected, dict) and "$len" in expected:
        return isinstance(actual, (list, dict, str)) and len(actual) == expected["$len"]
    if isinstance(expected, dict) and "$absent" in expected:
        return actual is None
    return bool(actual == expected)


def read(rules: Any, stream: Stream, path: str) -> Any:
    """What the scenario's ``path`` reads: the game, a trick or a hand (full view)."""
    state = stream.state
    if path.startswith("trick:"):
        hand, trick, rest = path[len("trick:") :].split(".", 2)
        return dig(rules.trick_view(state, int(hand), int(trick), True), rest)
    if path.startswith("hand:"):
        hand, rest = path[len("hand:") :].split(".", 1)
        return dig(rules.hand_view(state, int(hand), True), rest)
    return dig({"state": rules.view(state, True), "status": rules.status(state)}, path)


def run(scenario: dict[str, Any]) -> list[str]:
    """Play ``scenario`` through the schema and the engine; return the failures found."""
    create = scenario["create"]
    rules, shapes = engine.GAMES[create["game"]], schemas.GAMES[create["game"]]
    players, visibility = create["players"], create.get("visibility", "table")
    starter = rules.STARTER
    created = {
        "players": players,
        "options": rules.resolve_options(shapes.OPTIONS().load(create.get("options", {})), players),
        "visibility": visibility,
        starter: create.get(starter) or players[0],
        "rules_version": rules.RULES_VERSION,
    }
    stream = start(rules, created)
    failures: list[str] = []
    for number, step in enumerate(scenario["steps"], 1):
        for verb in ("post", "undo", "redo"):
            if verb not in step:
                continue
            want = (step.get("status", 201), step.get("code"))
            try:
                if verb == "post":
                    body = step["post"]
                    action = shapes.ACTIONS[body["type"]](players=players, visibility=visibility).load(body)
                    action.pop("at", None)
                else:
                    action = {"type": verb}
                stream = advance(stream, stream.version + 1, action)
                got: tuple[int, str | None] = (201, None)
            except ValidationError:
                got = (422, "validation_failed")
            except RulesError as err:
                got = (409, err.code)
            if got[0] != want[0] or (want[1] is not None and got[1] != want[1]):
                failures.append(f"step {number} {verb} {step[verb]}: got {got}, want {want}")
        for path, expected in step.get("expect", {}).items():
            actual = read(rules, stream, path)
            if not matches(actual, expected):
                failures.append(f"step {number} {path}: got {actual!r}, want {expected!r}")
    return failures


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_example_through_the_engine(path: Path) -> None:
    assert run(json.loads(path.read_text())) == []


def test_every_game_has_an_example() -> None:
    games = {json.loads(path.read_text())["create"]["game"] for path in FILES}
    assert games == set(engine.GAMES)
