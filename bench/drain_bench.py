"""What ``kibitz serve``'s thread draining the queue of writes does per recorded move, in the
process and without HTTP (run by hand, not in CI): CPU per move, or, under callgrind,
instructions per move, which do not move with the load of a shared machine.

Usage::

    python bench/drain_bench.py [--moves 3000] [--batch 6] [--synchronous OFF] [--profile FILE]
    valgrind --tool=callgrind --zero-before=getppid --dump-before=getpgrp \\
        python bench/drain_bench.py --moves 300        # instructions: the dump ending in .1

Random Toepen games (``bench/playouts.py``, seed 23, the same as ``bench/move_cpu_bench.py``)
are created through the app (untimed); then their moves, eight games at a time as eight
scorekeepers would send them, go through the direct route's own code
(``service.web.server.Direct.queued``: the body's JSON, the headers, ``service.record.moves.write``
queued with ``Writer.later``, ``Writer.drain`` in ``--batch`` moves a transaction, each answer
built as the direct route builds it), everything but the socket and the event loop. The timed
phase lies between a call of ``os.getppid()`` and one of ``os.getpgrp()``, so callgrind can
count it alone (``--zero-before=getppid --dump-before=getpgrp``). Another checkout's code:
run it from that checkout's folder (the current folder comes first on ``sys.path``).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, os.getcwd())
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))

from bench._common import PLAYERS, toepen_games  # noqa: E402
from service.web.app import create_app  # noqa: E402
from service.web.server import Direct, DirectWrite  # noqa: E402


class _Loop:
    """Stands for the event loop: an answer is handed over at once."""

    def call_soon_threadsafe(self, done: Any, *args: Any) -> None:
        done(*args)


class _Gate:
    def learn(self, *args: Any) -> None:
        pass


class _Front:
    def __init__(self, app: Any) -> None:
        self.app = app
        self.gate = _Gate()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=3000)
    parser.add_argument("--batch", type=int, default=6, help="moves queued per drain (a transaction)")
    parser.add_argument("--synchronous", default="OFF", help="SQLite synchronous (OFF: the fsync left out)")
    parser.add_argument("--profile", type=Path, default=None, help="cProfile (CPU clock) of the timed phase")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="drain-bench-")
    app = create_app({"DATABASE": f"{folder}/drain.db", "SYNCHRONOUS": args.synchronous, "TESTING": True})
    direct = Direct(_Front(app))  # type: ignore[arg-type]
    client = app.test_client()
    games = []
    for log in toepen_games(args.moves, 23):
        created = client.post("/games", json={"game": "toepen", "players": PLAYERS, "visibility": "open",
                                              "options": {"limit": 10}}).get_json()
        games.append((created["id"], created["token"], list(log)))
    plan: list[DirectWrite] = []
    playing, waiting = games[:8], games[8:]
    while len(plan) < args.moves and playing:
        for game in list(playing):
            if not game[2]:
                playing.remove(game)
                if waiting:
                    playing.append(waiting.pop(0))
                continue
            body = json.dumps(game[2].pop(0)).encode()
            plan.append(DirectWrite(game[0], "events", {b"content-type": b"application/json",
                                                        b"content-length": str(len(body)).encode(),
                                                        b"authorization": f"Bearer {game[1]}".encode(),
                                                        b"host": b"127.0.0.1"}, True, len(body), bytearray(body)))
            if len(plan) >= args.moves:
                break
    refused: list[Any] = []

    def done(answer: Any, error: BaseException | None) -> None:
        if answer is None or answer[0] != 201:
            refused.append((answer, error))

    loop, writer = _Loop(), direct.writer

    def run() -> None:
        for start in range(0, len(plan), args.batch):
            for write in plan[start:start + args.batch]:
                writer.later(lambda write=write: direct.queued(write, loop, done))  # type: ignore[misc, arg-type]
            writer.drain()

    cpu = time.process_time()
    os.getppid()  # callgrind: --zero-before=getppid
    if args.profile is not None:
        profile = cProfile.Profile(time.process_time)
        profile.runcall(run)
        profile.dump_stats(args.profile)
    else:
        run()
    os.getpgrp()  # callgrind: --dump-before=getpgrp
    cpu = time.process_time() - cpu
    if refused:
        raise SystemExit(f"a move was not recorded: {refused[0]}")
    print(f"{len(plan)} moves, CPU {cpu / len(plan) * 1e6:.1f} µs per move (load {os.getloadavg()[0]:.2f})")


if __name__ == "__main__":
    main()
