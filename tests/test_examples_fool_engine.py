"""The Fool! example files of ``../shared/examples`` folded through the engine alone.

Each step goes through the game's schema (as the service would parse it) and
``engine.stream``; every ``status``/``code`` and ``expect`` is checked against the engine's
views, so the examples are verified without the HTTP service.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine import fool
from engine.core import RulesError
from engine.stream import Stream, advance, start
from schemas import fool as fool_schemas

EXAMPLES = Path(__file__).resolve().parents[2] / "shared" / "examples"
FILES = sorted(EXAMPLES.glob("fool-*.json"))


def dig(doc: Any, path: str) -> Any:
    """Follow ``a.b[Name].c`` through dicts and name-keyed lists (examples/README.md)."""
    current = doc
    for part in path.split("."):
        key, _, selector = part.partition("[")
        if key:
            current = current.get(key) if isinstance(current, dict) else None
        if selector and isinstance(current, list):
            wanted = selector.rstrip("]")
            current = next((item for item in current if item.get("name") == wanted), None)
        if current is None:
            return None
    return current


def matches(actual: Any, expected: Any) -> bool:
    if isinstance(expected, dict) and "$set" in expected:
        return isinstance(actual, list) and sorted(actual) == sorted(expected["$set"])
    if isinstance(expected, dict) and "$len" in expected:
        return actual is not None and len(actual) == expected["$len"]
    if isinstance(expected, dict) and "$absent" in expected:
        return actual is None
    return bool(actual == expected)


def read(stream: Stream, path: str) -> Any:
    state = stream.state
    if path.startswith("trick:"):
        hand, trick, rest = path[len("trick:") :].split(".", 2)
        return dig(fool.trick_view(state, int(hand), int(trick), True), rest)
    if path.startswith("hand:"):
        hand, rest = path[len("hand:") :].split(".", 1)
        return dig(fool.hand_view(state, int(hand), True), rest)
    doc = {"state": fool.view(state, True), "status": fool.status(state)}
    return dig(doc, path)


def run(scenario: dict[str, Any]) -> list[str]:
    """Play ``scenario`` through the schema and the engine; return the failures found."""
    create = scenario["create"]
    players = create["players"]
    visibility = create.get("visibility", "table")
    options = fool.resolve_options(fool_schemas.OPTIONS().load(create.get("options", {})), players)
    stream = start(fool, {"players": players, "options": options, "visibility": visibility,
                          "dealer": create.get("dealer"), "rules_version": fool.RULES_VERSION})
    failures: list[str] = []
    for number, step in enumerate(scenario["steps"], 1):
        for verb in ("post", "undo", "redo"):
            if verb not in step:
                continue
            if verb == "post":
                body = dict(step["post"])
                action = fool_schemas.ACTIONS[body["type"]](players=players, visibility=visibility).load(body)
            else:
                action = {"type": verb}
            try:
                stream = advance(stream, stream.version + 1, action)
                status, code = 201, None
            except RulesError as err:
                status, code = 409, err.code
            if status != step.get("status", 201) or ("code" in step and code != step["code"]):
                failures.append(f"step {number} {action}: got {status} {code}, want {step.get('status', 201)} {step.get('code')}")
        for path, expected in step.get("expect", {}).items():
            actual = read(stream, path)
            if not matches(actual, expected):
                failures.append(f"step {number} {path}: got {actual!r}, want {expected!r}")
    return failures


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_example_through_engine(path: Path) -> None:
    assert run(json.loads(path.read_text())) == []


def test_examples_exist() -> None:
    assert FILES, f"no fool-*.json in {EXAMPLES}"
