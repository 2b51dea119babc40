"""The table page's modules import in one direction (docs/table-page.md, "Where the code is").

The import statements of ``service/web/static/table.js`` (the page's entry module) and of every
module under ``service/web/static/table/`` are read and their graph must have no cycle: state.js at
the bottom importing none of them, the queue above it importing state.js alone, the drawing and
the entry module on top. A module asks for what lies above it through state.js's events.

Imports are read from each file's head (its leading comments and import statements, where ES
modules keep them); an ``import`` or ``export … from`` statement anywhere after the head, or a
dynamic ``import(…)``, fails the test rather than being missed.
"""
from __future__ import annotations

import graphlib
import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parent.parent / "service" / "web" / "static"

COMMENT = re.compile(r"\s*(?:/\*.*?\*/|//[^\n]*)", re.S)
STATEMENT = re.compile(r"""\s*(?:import|export)\s+(?:[\w$*{},\s]+?\s+from\s*)?(["'])([^"'\n]+)\1\s*;?""")
LATE_IMPORT = re.compile(r"""^\s*(?:import\s*[\w${*"']|export\s[^;\n]*\bfrom\s*["'])""", re.M)
DYNAMIC_IMPORT = re.compile(r"\bimport\s*\(")


def head_imports(source: str) -> tuple[list[str], str]:
    """The specifiers a module's head imports, and the source after its head."""
    found: list[str] = []
    at = 0
    while True:
        comment = COMMENT.match(source, at)
        if comment and comment.end() > at:
            at = comment.end()
            continue
        statement = STATEMENT.match(source, at)
        if statement is None:
            return found, source[at:]
        found.append(statement.group(2))
        at = statement.end()


def import_graph(static: Path) -> dict[str, set[str]]:
    """``{module: modules it imports}``, paths relative to ``static``, from ``table.js`` and
    every ``table/*.js`` (and whatever they import)."""
    todo = [static / "table.js", *sorted((static / "table").glob("*.js"))]
    graph: dict[str, set[str]] = {}
    while todo:
        path = todo.pop()
        name = path.relative_to(static).as_posix()
        if name in graph:
            continue
        source = path.read_text(encoding="utf-8")
        specifiers, rest = head_imports(source)
        late = LATE_IMPORT.search(rest)
        assert late is None, f"{name}: an import after the module's head: {late.group(0).strip()!r}"
        assert not DYNAMIC_IMPORT.search(source), f"{name}: a dynamic import() is not read by this test"
        graph[name] = set()
        for specifier in specifiers:
            assert specifier.startswith("."), f"{name} imports {specifier!r}: only the page's own files"
            target = (path.parent / specifier).resolve()
            assert target.is_file(), f"{name} imports {specifier!r}, which is not a file"
            graph[name].add(target.relative_to(static).as_posix())
            todo.append(target)
    return graph


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of the graph (``[a, b, …, a]``), or None."""
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as err:
        return list(err.args[1])
    return None


def test_the_head_reader_reads_imports() -> None:
    """The reader finds every form of import the modules use, and stops at the first statement."""
    source = ('/* a comment naming import {x} from "./no.js" */\n// import "./no.js";\n'
              'import {a, b as c} from "./a.js";\nimport * as all from \'./b.js\';\n'
              'import "./c.js";\nimport d, {e} from "./d.js"\nexport {f} from "./e.js";\n'
              'export * from "./f.js";\nexport const g = 1;\nimport {h} from "./late.js";\n')
    found, rest = head_imports(source)
    assert found == ["./a.js", "./b.js", "./c.js", "./d.js", "./e.js", "./f.js"]
    assert LATE_IMPORT.search(rest) is not None
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) is not None
    assert cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_table_modules_import_in_one_direction() -> None:
    graph = import_graph(STATIC)
    assert "table/state.js" in graph and "table/queue.js" in graph and len(graph) >= 11
    found = cycle(graph)
    assert found is None, "the table page's modules import in a circle: " + " → ".join(found or [])


STATE, QUEUE, FIX = "table/state.js", "table/queue.js", "table/fix.js"


@pytest.mark.parametrize(("module", "may_import"), [
    (STATE, set()),
    (QUEUE, {STATE}),
    ("table/sheet.js", {STATE}),
    ("table/end.js", {STATE}),
    ("table/token.js", {STATE}),
    ("table/awake.js", {STATE}),
    (FIX, {STATE}),
    ("table/controls.js", {QUEUE, STATE}),
    ("table/waiting.js", {QUEUE, STATE}),
    ("table/menu.js", {FIX, QUEUE, STATE}),
])
def test_each_module_imports_only_what_lies_below_it(module: str, may_import: set[str]) -> None:
    """The direction docs/table-page.md gives, module by module (board.js and table.js, on top,
    may import any module below them: the cycle test holds them)."""
    assert import_graph(STATIC)[module] <= may_import


def test_every_module_is_reached_from_the_page() -> None:
    """Every module under table/ is imported by the entry module or a module it imports."""
    graph = import_graph(STATIC)
    reached, todo = set(), ["table.js"]
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo.extend(graph[name])
    assert reached == set(graph)
