"""The shared Toepen scenarios (``shared/examples/toepen-*.json``) folded through the engine alone.

Each ``post`` / ``undo`` / ``redo`` step goes through ``engine.stream.advance`` (201 when it
is accepted, 409 with the rules code when it is refused); each ``expect`` reads the same
documents the API serves (``view``, ``hand_view``, ``trick_view``) as the scorekeeper.
The HTTP run of the same files belongs to the API tests.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine import stream, toepen
from engine.core import RulesError

SHARED = Path(__file__).resolve().parents[2] / "shared"
EXAMPLES = sorted((SHARED / "examples").glob("toepen-*.json")) if SHARED.is_dir() else []

pytestmark = pytest.mark.skipif(
    not EXAMPLES, reason=f"no Toepen scenarios: {SHARED / 'examples'} is absent (shared spec not checked out)"
)


def canonical(action: dict[str, Any]) -> dict[str, Any]:
    """Card codes as the schemas would hand them to the engine."""
    out = dict(action)
    if "card" in out:
        out["card"] = toepen.parse_card(out["card"])
    if "cards" in out:
        out["cards"] = [toepen.parse_card(c) for c in out["cards"]]
    if "hands" in out:
        out["hands"] = {name: [toepen.parse_card(c) for c in cards] for name, cards in out["hands"].items()}
    return out


def dig(doc: Any, path: str) -> Any:
    """Follow ``a.b[Name].c`` through dicts and lists of ``{"name": ...}`` items."""
    current = doc
    for part in path.split("."):
        key, _, selector = part.partition("[")
        if key:
            current = current.get(key) if isinstance(current, dict) else None
        if selector and current is not None:
            wanted = selector.rstrip("]")
            current = next((item for item in current if item.get("name") == wanted), None)
        if current is None:
            return None
    return current


def read(state: toepen.State, path: str) -> Any:
    if path.startswith("trick:"):
        hand, trick, rest = path[len("trick:") :].split(".", 2)
        return dig(toepen.trick_view(state, int(hand), int(trick), True), rest)
    if path.startswith("hand:"):
        hand, rest = path[len("hand:") :].split(".", 1)
        return dig(toepen.hand_view(state, int(hand), True), rest)
    return dig({"state": toepen.view(state, True)}, path)


def matches(actual: Any, expected: Any) -> bool:
    if isinstance(expected, dict) and "$set" in expected:
        return sorted(actual or []) == sorted(expected["$set"])
    if isinstance(expected, dict) and "$len" in expected:
        return actual is not None and len(actual) == expected["$len"]
    if isinstance(expected, dict) and "$absent" in expected:
        return actual is None
    return bool(actual == expected)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_toepen_scenario_through_the_engine(path: Path) -> None:
    scenario = json.loads(path.read_text())
    create = scenario["create"]
    players = list(create["players"])
    created = {
        "players": players,
        "options": toepen.resolve_options(create.get("options", {}), players),
        "visibility": create.get("visibility", "table"),
        "dealer": create.get("dealer") or players[0],
        "rules_version": toepen.RULES_VERSION,
    }
    game = stream.start(toepen, created)
    for number, step in enumerate(scenario["steps"], 1):
        for verb in ("post", "undo", "redo"):
            if verb not in step:
                continue
            action = canonical(step[verb]) if verb == "post" else {"type": verb}
            try:
                game = stream.advance(game, game.version + 1, action)
                status, code = 201, None
            except RulesError as error:
                status, code = 409, error.code
            assert status == step.get("status", 201), f"step {number} {action}: {status} {code}"
            if "code" in step:
                assert code == step["code"], f"step {number} {action}"
        for where, expected in step.get("expect", {}).items():
            actual = read(game.state, where)
            assert matches(actual, expected), f"step {number}: {where} is {actual!r}, expected {expected!r}"
