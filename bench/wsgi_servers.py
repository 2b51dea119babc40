"""The Kibitz Flask app under other WSGI servers, for ``bench/move_cpu_bench.py`` (run by hand).

Usage::

    python bench/wsgi_servers.py NAME --port P --db FILE [--threads 8] [--synchronous FULL]

NAME is one of :data:`SERVERS`. The app is built exactly as ``kibitz serve`` builds it
(``service.web.app.create_app`` with the database and ``synchronous``), then served by that
server on 127.0.0.1:P until SIGTERM. Only for measuring: ``kibitz serve`` is the server
Kibitz ships (its crowd promises, docs/crowds.md, are kept by ``service/web/server.py``).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SERVERS = ("granian", "gunicorn-gthread", "waitress", "cheroot")


def app() -> Any:
    """The Flask app (a factory, for servers that import their target by name)."""
    from service.web.app import create_app

    return create_app({"DATABASE": os.environ["KIBITZ_BENCH_DB"],
                       "SYNCHRONOUS": os.environ.get("KIBITZ_BENCH_SYNCHRONOUS", "FULL")})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name", choices=SERVERS)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--db", required=True)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--synchronous", default="FULL")
    args = parser.parse_args()
    os.environ["KIBITZ_BENCH_DB"] = args.db
    os.environ["KIBITZ_BENCH_SYNCHRONOUS"] = args.synchronous
    bench_dir = str(Path(__file__).resolve().parent)
    os.environ["PYTHONPATH"] = os.pathsep.join([bench_dir, str(Path(bench_dir).parent),
                                                os.environ.get("PYTHONPATH", "")])
    if args.name == "granian":
        from granian import Granian
        from granian.constants import Interfaces

        sys.path.insert(0, bench_dir)
        Granian("wsgi_servers:app", address="127.0.0.1", port=args.port, interface=Interfaces.WSGI, factory=True,
                workers=1, blocking_threads=args.threads, log_enabled=False).serve()
    elif args.name == "gunicorn-gthread":
        os.execvp(sys.executable, [sys.executable, "-m", "gunicorn", "--chdir", bench_dir, "-k", "gthread",
                                   "-w", "1", "--threads", str(args.threads), "-b", f"127.0.0.1:{args.port}",
                                   "--log-level", "warning", "wsgi_servers:app()"])
    elif args.name == "waitress":
        import waitress

        waitress.serve(app(), host="127.0.0.1", port=args.port, threads=args.threads, _quiet=True)
    else:
        from cheroot import wsgi

        server = wsgi.Server(("127.0.0.1", args.port), app(), numthreads=args.threads)
        signal.signal(signal.SIGTERM, lambda *_: server.stop())
        try:
            server.start()
        except KeyboardInterrupt:
            server.stop()


if __name__ == "__main__":
    main()
