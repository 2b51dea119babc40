"""The engine is a pure functional core: nothing from the web, the database or the schemas.

``engine/core.py``: "no clock, no randomness, no I/O, and nothing from Flask, SQLite or
marshmallow". The imports of every module under ``engine/`` are read with ``ast`` (so an
import inside a function counts too).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[1] / "engine"
FORBIDDEN = ("flask", "sqlite3", "sqlite_utils", "marshmallow", "service", "replays", "schemas")
MODULES = sorted(ENGINE.rglob("*.py"))


def imported(path: Path) -> set[str]:
    """Every module name ``path`` imports (absolute names; relative imports stay in engine)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "__import__":
            names.update(
                arg.value for arg in node.args[:1] if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
            )
    return names


def test_engine_modules_are_found() -> None:
    assert ENGINE / "toepen.py" in MODULES and ENGINE / "stream.py" in MODULES


@pytest.mark.parametrize("path", MODULES, ids=[p.name for p in MODULES])
def test_engine_imports_nothing_from_the_outside(path: Path) -> None:
    bad = sorted(name for name in imported(path) if name.split(".")[0] in FORBIDDEN)
    assert not bad, f"{path.name} imports {', '.join(bad)}"


def test_the_scan_sees_forbidden_imports(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import flask\nfrom sqlite_utils import Database\ndef f():\n    from service.web.app import create_app\n"
    )
    assert {"flask", "sqlite_utils", "service.web.app"} <= imported(probe)
