"""Layers that only point down, and no import in a circle (issues 11 and 26).

The imports of every module of ``engine/``, ``schemas/``, ``replays/`` and ``service/`` are
read with ``ast`` (an import inside a function counts too) and resolved to the project's
own modules. The layers are packages, lowest first (docs/architecture.md, "The folders";
``service/__init__.py``):

0. ``engine``  1. ``schemas``  2. ``replays``
3. ``service.storage``
4. the modules at the top of ``service`` (problems, http, parsing, clubtime, catalogue)
5. ``service.record``
6. ``service.web``
7. ``service.cli``

A module belongs to the deepest package of :data:`LAYERS` that holds it, and imports only from
its own layer or below; a package under ``service/`` that :data:`LAYERS` does not name fails
(a new package takes its place in the layers when it is made). No view imports another view or
a page, no page imports a view; the import graph has no cycle.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "schemas", "replays", "service")
#: The layers, lowest first: each a package (``service`` itself: the modules at its top).
LAYERS = ("engine", "schemas", "replays", "service.storage", "service", "service.record", "service.web",
          "service.cli")
#: Packages inside a layer's package, which belong to it.
INSIDE = ("service.web.views", "service.web.pages")

def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the four packages: dotted name -> file."""
    return {module_name(path, root): path for package in PACKAGES for path in sorted((root / package).rglob("*.py"))}


def imports(path: Path, name: str, known: set[str]) -> set[str]:
    """The project modules ``path`` (module ``name``) imports: ``from a import b`` is the
    module ``a.b`` when there is one, else ``a``; relative imports are resolved."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:  # import a.b.c of a name inside module a.b
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def graph(root: Path = ROOT) -> dict[str, set[str]]:
    found = modules(root)
    known = set(found)
    return {name: imports(path, name, known) for name, path in found.items()}


def layer(name: str) -> int:
    """The index in :data:`LAYERS` of the deepest package holding module ``name``."""
    held = [index for index, package in enumerate(LAYERS) if within(name, package)]
    return max(held, key=lambda index: LAYERS[index].count("."))


def within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def wrong_way(edges: dict[str, set[str]]) -> list[str]:
    """Every import against the layers, as a sentence."""
    bad = []
    for source, targets in sorted(edges.items()):
        for target in sorted(targets):
            if layer(target) > layer(source):
                bad.append(f"{source} ({LAYERS[layer(source)]}) imports {target} "
                           f"({LAYERS[layer(target)]}), a layer above it")
            elif within(source, "service.web.views") and within(target, "service.web.views") and target != "service.web.views":
                bad.append(f"view {source} imports view {target}: share it from a module below the views")
            elif within(source, "service.web.views") and within(target, "service.web.pages"):
                bad.append(f"view {source} imports page module {target}")
            elif within(source, "service.web.pages") and within(target, "service.web.views"):
                bad.append(f"page module {source} imports view {target}: share it from a module below the views")
    return bad


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles (each as the modules around it, the first repeated at the end)."""
    found: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                found.append([*stack[stack.index(nxt):], nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)
    return found


def test_the_graph_sees_the_packages() -> None:
    edges = graph()
    assert "service.record.writes" in edges and "engine.toepen" in edges and "service.web.views.recording" in edges
    assert "service.record.moves" in edges["service.web.views.recording"]  # the write routes, shared with the server
    assert "service.record.writes" in edges["service.record.moves"]
    assert "service.storage.backend" in edges["service.record.writes"]


def unnamed_packages(root: Path = ROOT) -> list[str]:
    """The packages under ``service/`` that neither :data:`LAYERS` nor :data:`INSIDE` names."""
    named = set(LAYERS) | set(INSIDE)
    return sorted(name for name in (module_name(path.parent / "__init__.py", root)
                                    for path in (root / "service").rglob("__init__.py")) if name not in named)


def test_every_package_of_the_service_has_its_layer() -> None:
    assert not unnamed_packages(), "packages the layers do not name (add each to LAYERS, or to INSIDE when it " \
                                   "belongs to its parent's layer): " + ", ".join(unnamed_packages())
    edges = graph()
    assert all(any(layer(name) == index for name in edges) for index in range(len(LAYERS))), "an empty layer"
    assert layer("service.problems") == LAYERS.index("service")
    assert layer("service.web.views.games") == LAYERS.index("service.web")


def test_every_package_says_what_lives_there_and_what_it_may_import() -> None:
    for package in [*LAYERS[3:], *INSIDE]:
        path = ROOT / Path(*package.split(".")) / "__init__.py"
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        assert "import" in doc, f"{path.relative_to(ROOT)}: its docstring says what it may import"


def test_no_import_points_up_the_layers() -> None:
    bad = wrong_way(graph())
    assert not bad, "imports against the layers (" + " < ".join(LAYERS) + "):\n" + "\n".join(bad)


def test_no_import_cycle() -> None:
    found = cycles(graph())
    assert not found, "import cycles (move what both need into a module below them):\n" + "\n".join(
        " -> ".join(cycle) for cycle in found)


@pytest.mark.parametrize(("files", "expected"), [
    ({"service/storage/sqlite.py": "from service.storage import history\n",
      "service/storage/history.py": "def f():\n    from . import sqlite\n"},
     "cycle"),
    ({"service/web/views/a.py": "from service.web.views.b import x\n", "service/web/views/b.py": "x = 1\n"}, "view"),
    ({"service/storage/sqlite.py": "from service.web.views import games\n", "service/web/views/games.py": ""}, "layer"),
    ({"engine/toepen.py": "import replays.replay\n", "replays/replay.py": ""}, "layer"),
    ({"service/storage/history.py": "from service.problems import ApiError\n", "service/problems.py": ""}, "layer"),
    ({"service/problems.py": "def f():\n    from service.record import writes\n", "service/record/writes.py": ""},
     "layer"),
    ({"service/record/writes.py": "from service.web import boards\n", "service/web/boards.py": ""}, "layer"),
    ({"service/web/app.py": "from service.cli.lan import known_hosts\n", "service/cli/lan.py": ""}, "layer"),
    ({"service/cli/main.py": "from service.web.app import create_app\n", "service/web/app.py": "from service.record "
      "import writes\n", "service/record/writes.py": "from service import http\n", "service/http.py": "from "
      "service.storage import backend\n", "service/storage/backend.py": "import replays.replay\n",
      "replays/replay.py": "import engine.core\n", "engine/core.py": ""}, "down"),
])
def test_the_checks_catch_what_they_look_for(tmp_path: Path, files: dict[str, str], expected: str) -> None:
    for package in PACKAGES:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    for sub in ("web", "web/views", "storage", "record", "cli"):
        (tmp_path / "service" / sub).mkdir()
        (tmp_path / "service" / sub / "__init__.py").write_text("")
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    edges = graph(tmp_path)
    bad, found = wrong_way(edges), cycles(edges)
    if expected == "cycle":
        assert found and not bad
    elif expected == "view":
        assert bad and "view service.web.views.a imports view service.web.views.b" in bad[0]
    elif expected == "down":
        assert not bad and not found
    else:
        assert len(bad) == 1 and "a layer above it" in bad[0]


def test_a_package_the_layers_do_not_name_is_found(tmp_path: Path) -> None:
    for package in ("service", "service/record", "service/record/drafts", "service/tools"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    assert unnamed_packages(tmp_path) == ["service.record.drafts", "service.tools"]


#: The storage modules below the rest of the service: they import nothing of it but each other.
STORAGE_BASE = ("service.storage", "service.storage.interface", "service.storage.sqlite", "service.storage.admin",
                "service.storage.postgres", "service.storage.backend")


def test_the_storage_backends_import_nothing_of_the_service_above_them() -> None:
    edges = graph()
    assert all(name in edges for name in STORAGE_BASE)
    bad = [f"{name} imports {target}" for name in STORAGE_BASE for target in sorted(edges[name])
           if target.startswith("service") and not within(target, "service.storage")]
    assert not bad, "\n".join(bad)


def folder_map(text: str) -> set[str]:
    """The modules the folder map of docs/architecture.md ("The folders") names under
    ``service/``: each entry of the map's block is a name set off by two spaces, a folder ending
    in ``/``, and belongs to the nearest folder indented less than it."""
    block = text.split("## The folders\n", 1)[1].split("```\n", 2)[1]
    named: set[str] = set()
    folders: list[tuple[int, str]] = []
    for line in block.splitlines():
        indent = len(line) - len(line.lstrip(" "))
        for entry in re.split(r" {2,}", line.strip()):
            if not re.fullmatch(r"[\w.]+/?", entry):
                break  # the rest of the line describes its entries
            while folders and folders[-1][0] >= indent:
                folders.pop()
            path = "".join(name for _, name in folders) + entry
            if entry.endswith("/"):
                folders.append((indent, entry))
            elif entry.endswith(".py") and path.startswith("service/"):
                named.add(path)
    return named


def test_the_folder_map_of_architecture_md_is_the_tree() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text()
    named = folder_map(text)
    actual = {path.relative_to(ROOT).as_posix() for path in (ROOT / "service").rglob("*.py")
              if path.name != "__init__.py" and "static" not in path.parts}
    assert "service/record/writes.py" in named and "service/web/app.py" in named
    assert named == actual, f"in the map, not in the tree: {sorted(named - actual)}; " \
                            f"in the tree, not in the map: {sorted(actual - named)}"
