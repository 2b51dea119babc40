"""Every request example of the spec, the README and ``docs/*.md`` validates against the OpenAPI
document.

The examples are read out of the markdown itself: fenced ``json`` blocks, the single-quoted
bodies of the shell examples (``-d '…'``, ``post '…'``) and inline code spans holding a JSON
object. Each parsed object is a request body when its shape says which request it is for: an
action (``type`` naming an action of some game) for ``POST /games/<id>/events``, a new game
(``game`` and ``players``) for ``POST /games``, ``{"reason"}`` for undo/redo, ``{"seq"}``
alone for a fork. Anything else (responses, fragments with ``…``) is not a request. A shell
example answered by a ``# 422`` comment shows a refused body and is left out.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import schemas
from tests.conftest import SHARED
from tests.openapi_check import document, validator

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: The README and every page of ``docs/``: the examples moved there from the README.
DOCS = [README, *sorted((ROOT / "docs").glob("*.md"))]
#: Where the request examples live, and at least how many each holds (a page that loses its
#: examples, or an extractor that stops finding them, fails here).
AT_LEAST = {"README.md": 2, "api.md": 13, "rules-and-options.md": 11, "disputes.md": 4,
            "club-server.md": 2}
#: ``../shared/spec``; ``KIBITZ_SPEC`` names another copy (a worktree has no ``../shared``).
SPEC = Path(os.environ.get("KIBITZ_SPEC") or SHARED / "spec")
ACTION_TYPES = {kind for module in schemas.GAMES.values() for kind in module.ACTIONS}

FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
QUOTED = re.compile(r"'(\{.*?\})'", re.S)
INLINE = re.compile(r"`(\{[^`]*\})`")

needs_spec = pytest.mark.skipif(not SPEC.is_dir(), reason=f"{SPEC} is absent (../shared is not beside the repo)")


def examples(text: str) -> list[tuple[str, Any]]:
    """``(where, value)`` for every JSON object written in the markdown ``text``."""
    found: list[tuple[str, str]] = []
    for match in FENCE.finditer(text):
        language, body = match.group(1), match.group(2)
        line = text.count("\n", 0, match.start()) + 2
        if language == "json":
            found.append((f"line {line}", body))
        elif language in ("sh", "", "bash"):
            for quoted in QUOTED.finditer(body):
                after = body[quoted.end():].split("\n", 2)
                comment = after[0] + ("\n" + after[1] if len(after) > 1 else "")
                if re.search(r"#\s*422\b", comment):
                    continue  # a refused body, shown with its 422
                found.append((f"line {line + body.count(chr(10), 0, quoted.start())}", quoted.group(1)))
    outside = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    for match in INLINE.finditer(outside):
        found.append((f"line {outside.count(chr(10), 0, match.start()) + 1}", match.group(1)))
    parsed = []
    for where, raw in found:
        try:
            value = json.loads(raw)
        except ValueError:
            continue  # a fragment ("…", "...") or a response sketch, not a body
        if isinstance(value, dict):
            parsed.append((where, value))
    return parsed


def request_of(value: dict[str, Any]) -> str | None:
    """The JSON pointer of the request body schema ``value`` is an example of, or None."""
    def body(path: str) -> str:
        return f"/paths/{path.replace('/', '~1')}/post/requestBody/content/application~1json/schema"
    if value.get("type") in ACTION_TYPES and "seq" not in value and "event" not in value:
        return body("/games/{game_id}/events")
    if "game" in value and "players" in value and "id" not in value:
        return body("/games")
    if set(value) <= {"reason", "at"} and "reason" in value:
        return body("/games/{game_id}/undo")
    if set(value) == {"seq"}:
        return body("/games/{game_id}/fork")
    return None


def requests_in(path: Path) -> list[tuple[str, str, Any]]:
    return [(where, pointer, value) for where, value in examples(path.read_text(encoding="utf-8"))
            if (pointer := request_of(value)) is not None]


def _check(path: Path) -> int:
    checker = Draft202012Validator.FORMAT_CHECKER
    failures = []
    found = requests_in(path)
    for where, pointer, value in found:
        errors = list(validator(pointer).evolve(format_checker=checker).iter_errors(value))
        if errors:
            failures.append(f"{path.name} {where}: {json.dumps(value)}: {errors[0].message[:300]}")
    assert failures == []
    return len(found)


@pytest.mark.parametrize("path", DOCS, ids=lambda path: path.name)
def test_the_readme_and_docs_examples_validate(path):
    assert _check(path) >= AT_LEAST.get(path.name, 0)


def test_the_docs_show_every_kind_of_request():
    # the curl walk-through, Fool!, Fuji Flush, Stop the Bus, a ruling, a fork: far more than 15
    found = [(pointer, value) for path in DOCS for _, pointer, value in requests_in(path)]
    assert len(found) >= 30
    actions = {value["type"] for pointer, value in found if pointer.startswith("/paths/~1games~1{game_id}~1events/")}
    assert actions >= {"deal", "play", "knock", "fold", "adjust", "abandon", "draw", "swap", "stop", "show"}
    games = {value["game"] for pointer, value in found if pointer.startswith("/paths/~1games/")}
    assert games >= {"toepen", "fool"}
    kinds = {pointer.split("/")[2] for pointer, _ in found}
    assert kinds == {"~1games", "~1games~1{game_id}~1events", "~1games~1{game_id}~1undo", "~1games~1{game_id}~1fork"}


@needs_spec
def test_the_api_spec_examples_validate():
    assert _check(SPEC / "api.md") >= 3  # POST /games, a play, an undo reason


@needs_spec
@pytest.mark.parametrize("name", ["recording.md", "cards.md", *(f"rules/{p.name}" for p in sorted(
    (SPEC / "rules").glob("*.md")))] if SPEC.is_dir() else [])
def test_the_rules_examples_validate(name):
    _check(SPEC / name)


def test_the_extractor_finds_bodies_and_leaves_out_refused_ones():
    text = """
Create: `{"game": "fool", "players": ["A", "B", "C", "D"]}` and a sketch `{"id": "…", "state": {...}}`.

```sh
post '{"type":"play","player":"Bob","card":"7H"}'   # Bob leads
post '{"type":"play","player":"Cas","card":"1H"}'
# 422 validation_failed
```
```json
{"type": "knock", "player": "Ann"}
```
"""
    events = "/paths/~1games~1{game_id}~1events/post/requestBody/content/application~1json/schema"
    games = "/paths/~1games/post/requestBody/content/application~1json/schema"
    found = sorted((request_of(value) or "", value.get("type") or "") for _, value in examples(text))
    assert found == sorted([(events, "play"), (events, "knock"), (games, "")])


def test_a_refused_card_does_not_validate():
    pointer = "/paths/~1games~1{game_id}~1events/post/requestBody/content/application~1json/schema"
    assert not validator(pointer).is_valid({"type": "play", "player": "Cas", "card": "1H"})
    assert validator(pointer).is_valid({"type": "play", "player": "Cas", "card": "8h"})
    assert "anyOf" in document()["paths"]["/games/{game_id}/events"]["post"]["requestBody"]["content"][
        "application/json"]["schema"]
