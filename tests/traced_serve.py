"""``kibitz`` with every SQLite statement it runs written to a file, for the tests and
benchmarks that count statements (tests/test_round_trips.py, bench/append_bench.py).

``python -m tests.traced_serve TRACE_FILE serve --port … --db …`` runs ``kibitz serve``
(``service.cli.main``, the same command) after wrapping ``sqlite3.connect`` so that each
connection's ``set_trace_callback`` appends one line per statement executed to
``TRACE_FILE``: the thread's name, a tab, the statement on one line (SQLite reports each
trigger a statement fires as that statement again, on the next line). Nothing else of the
server changes.
"""

from __future__ import annotations

import sqlite3
import sys
import threading
from typing import Any


def install(path: str) -> None:
    """Trace every SQLite connection opened from now on into the file ``path``."""
    out = open(path, "a", buffering=1, encoding="utf-8")  # noqa: SIM115 - open for the process's life
    lock = threading.Lock()
    connect = sqlite3.connect

    def trace(statement: str) -> None:
        line = f"{threading.current_thread().name}\t{' '.join(statement.split())}\n"
        with lock:
            out.write(line)

    def traced(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn = connect(*args, **kwargs)
        conn.set_trace_callback(trace)
        return conn

    sqlite3.connect = traced  # type: ignore[assignment]


def main() -> None:
    """Install the trace into ``sys.argv[1]``, then run ``kibitz`` with the arguments after it."""
    install(sys.argv[1])
    sys.argv = ["kibitz", *sys.argv[2:]]
    from service.cli.main import main as kibitz

    kibitz()


if __name__ == "__main__":
    main()
