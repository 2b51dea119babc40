"""All SQL behind the storage boundary (issue 11): only the storage modules speak SQL.

The storage modules are the package ``service/storage/``: ``sqlite.py`` (the SQLite backend:
games, events, idempotency, tokens, projections, transactions), ``admin.py`` (backups and
checks of a whole database), ``migrations.py`` (the schema) and ``interface.py`` (what a
backend implements, as a ``typing.Protocol``), ``postgres.py`` (the PostgreSQL backend) and
``postgres_admin.py`` (its whole-database work, ``admin.py``'s sibling), ``postgres_bounds.py``
(the bounded waits on a PostgreSQL server, its watchdog's ``SELECT 1``). Everywhere else in
``engine/``, ``schemas/``, ``replays/`` and ``service/`` the code is read with ``ast`` (so
docstrings and comments may name SQL): no string holding an SQL statement, no
``.execute(…)`` / ``.executemany`` / ``.executescript`` / ``.query(…)`` call, no ``.conn``
(the raw connection), no ``db[...]`` table lookup.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STORAGE = {"service/storage/__init__.py", "service/storage/interface.py", "service/storage/sqlite.py",
           "service/storage/admin.py", "service/storage/migrations.py", "service/storage/postgres.py",
           "service/storage/backend.py", "service/storage/postgres_admin.py", "service/storage/messages.py",
           "service/storage/postgres_bounds.py", "service/storage/connections.py",
           "service/storage/forks.py", "service/storage/history.py"}
#: A string that starts with an SQL keyword (written in capitals, as every statement here is).
SQL = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|PRAGMA|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|CREATE|ALTER|"
                 r"DROP|VACUUM)\b")
SQL_WORDS = re.compile(r"\b(SELECT .+ FROM|INSERT INTO|UPDATE \w+ SET|DELETE FROM|PRAGMA \w+)\b")
CALLS = {"execute", "executemany", "executescript", "query"}


def docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string nodes that are docstrings."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def sql_in(path: Path) -> list[str]:
    """Each place in ``path`` that speaks SQL, as ``file:line: what``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    skip = docstrings(tree)
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            if SQL.match(node.value) or SQL_WORDS.search(node.value):
                found.append(f"{where}:{node.lineno}: SQL text {node.value[:60]!r}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in CALLS \
                and node.args:
            found.append(f"{where}:{node.lineno}: .{node.func.attr}(…) call")
        elif isinstance(node, ast.Attribute) and node.attr == "conn":
            found.append(f"{where}:{node.lineno}: the raw connection (.conn)")
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "db":
            found.append(f"{where}:{node.lineno}: a table looked up as db[...]")
    return found


def outside_storage() -> list[Path]:
    return [path for package in ("engine", "schemas", "replays", "service")
            for path in sorted((ROOT / package).rglob("*.py"))
            if path.relative_to(ROOT).as_posix() not in STORAGE]


def test_the_storage_modules_exist() -> None:
    assert all((ROOT / name).is_file() for name in STORAGE)
    assert sorted(path.relative_to(ROOT).as_posix() for path in (ROOT / "service" / "storage").glob("*.py")) \
        == sorted(STORAGE), "a new module of service/storage/ must be named in STORAGE"
    assert ROOT / "service" / "record" / "writes.py" in outside_storage()


def test_no_sql_outside_the_storage_modules() -> None:
    found = [hit for path in outside_storage() for hit in sql_in(path)]
    assert not found, ("SQL outside the storage modules (" + ", ".join(sorted(STORAGE)) +
                       "): add a function to a backend of service/storage/ instead:\n" + "\n".join(found))


def test_the_scan_sees_sql(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        '"""Docstrings may say SELECT * FROM games."""\n'
        "def f(db):\n"
        '    """BEGIN IMMEDIATE is fine here."""\n'
        '    db.execute("UPDATE games SET version = 2")\n'
        '    rows = db.query(sql)\n'
        '    db.conn.rollback()\n'
        '    table = db["games"]\n'
        '    text = f"SELECT id FROM games WHERE {where}"\n'
        "    super().execute()\n"
    )
    kinds = [hit.split(": ", 1)[1] for hit in sql_in(probe)]
    assert len(kinds) == 6, kinds
    assert sum(kind.startswith("SQL text") for kind in kinds) == 2
