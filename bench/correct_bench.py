"""What a correction costs on a long game, and that ordinary appends do not slow down.

Usage: ``python bench/correct_bench.py [--events 3000] [--seed 1] [--repeats 5] [--engine-only]``.

Plays one random Toepen game (8 players, limit 99, table visibility, ``bench.playouts``) of
``--events`` events, then measures, first in the engine alone (``engine.stream.advance``,
CPU time) and then through the service's one write path (the Flask test client on a
temporary database: token, schema, the writer, SQLite commit):

- an ordinary append (the next legal play) before any correction;
- a ``correct`` of a play near the start (it refolds almost the whole game) and near the end
  (it refolds a few actions); the replacement is a card the log never names, so the rest of
  the game still fits;
- the same append after the corrections (it must cost what it cost before), and the same move
  on the same state folded from scratch (the corrected record with no ``correct`` in it);
- undo and redo of a correction (they refold nothing).

Engine figures are the median of ``--repeats`` runs (each append is repeated 200 times in a
run); service appends are the median of 20 stored moves, corrections are stored once and
also timed as dry runs (``?dry_run=true``), median of ``--repeats``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.playouts import NAMES, play  # noqa: E402
from engine import stream as streams  # noqa: E402
from engine import toepen  # noqa: E402
from engine.core import RulesError  # noqa: E402

PLAYERS = NAMES[:8]
OPTIONS = {"limit": 99}
EXTRA = 40  # moves played after the timed game: the appends timed through the service


def next_play(stream: streams.Stream) -> dict[str, Any]:
    """A legal next action: the first offered play whose card the rules accept (or the turn's action)."""
    for entry in toepen.legal_actions(stream.state, True):
        if entry["type"] == "play":
            for card in entry["cards"] or toepen.possible(stream.state, entry["player"]) or []:
                action = {"type": "play", "player": entry["player"], "card": card}
                try:
                    streams.advance(stream, stream.version + 1, action)
                except RulesError:
                    continue
                return action
        if entry["type"] in ("deal", "stay"):
            return {"type": entry["type"], ("dealer" if entry["type"] == "deal" else "player"): entry["player"]}
    raise AssertionError("no legal next action")


def alternatives(stream: streams.Stream, seq: int) -> list[dict[str, Any]]:
    """What could have been recorded in place of event ``seq``: each legal play (a card the
    table cannot rule out), knock and fold at that moment."""
    base = streams.before(stream, seq)
    assert base is not None
    out: list[dict[str, Any]] = []
    for entry in toepen.legal_actions(base.state, True):
        player = entry["player"]
        if entry["type"] == "play":
            out += [{"type": "play", "player": player, "card": c}
                    for c in sorted(entry["cards"] or toepen.possible(base.state, player) or [])]
        elif entry["type"] in ("knock", "fold"):
            out.append({"type": entry["type"], "player": player})
    return out


def pick(stream: streams.Stream, seqs: list[int], later: list[dict[str, Any]]) -> tuple[int, dict[str, Any]]:
    """The first entry of ``seqs`` and alternative for it whose correction the rest of the game
    fits (and the moves ``later`` still fit after it)."""
    for seq in seqs:
        for action in alternatives(stream, seq):
            try:
                fixed = streams.advance(stream, stream.version + 1, {"type": "correct", "target": seq, "action": action})
                for move in later:
                    fixed = streams.advance(fixed, fixed.version + 1, move)
            except RulesError:
                continue
            return seq, action
    raise AssertionError("no correctable entry found")


def cpu(call: Any, times: int = 1) -> float:
    started = time.process_time()
    for _ in range(times):
        call()
    return (time.process_time() - started) / times


def median_of(repeats: int, call: Any, times: int = 1) -> float:
    return statistics.median(cpu(call, times) for _ in range(repeats))


def engine_figures(log: list[tuple[int, dict[str, Any]]], everything: list[tuple[int, dict[str, Any]]],
                   repeats: int) -> tuple[dict[str, float], Any]:
    stream: streams.Stream | None = None
    for step in streams.replay(toepen, log):
        stream = step.stream
    assert stream is not None
    later = [action for _, action in everything[len(log):]]
    targets = [seq for seq in streams.effective_seqs(stream)[1:] if log[seq - 1][1]["type"] != "deal"]
    early, late = pick(stream, targets[1:120], later), pick(stream, targets[::-1][1:120], later)
    out: dict[str, float] = {}
    move = next_play(stream)
    out["append before"] = median_of(repeats, lambda: streams.advance(stream, stream.version + 1, move), 200)
    for name, (seq, action) in (("near the start", early), ("near the end", late)):
        fix = {"type": "correct", "target": seq, "action": action}
        out[f"correct {name} (event {seq} of {stream.version})"] = median_of(
            repeats, lambda fix=fix: streams.advance(stream, stream.version + 1, fix))
    corrected = streams.advance(stream, stream.version + 1, {"type": "correct", "target": early[0], "action": early[1]})
    after = next_play(corrected)
    out["append after"] = median_of(repeats, lambda: streams.advance(corrected, corrected.version + 1, after), 200)
    # the same move on the same state folded from scratch (the corrected record, no correction in it)
    scratch: streams.Stream | None = None
    for step in streams.replay(toepen, [(seq, early[1] if seq == early[0] else a) for seq, a in log]):
        scratch = step.stream
    assert scratch is not None and scratch.state == corrected.state
    out["same move, record folded from scratch"] = median_of(
        repeats, lambda: streams.advance(scratch, corrected.version + 1, after), 200)
    out["rebuild of the whole log, for comparison"] = median_of(
        repeats, lambda: [None for _ in streams.replay(toepen, log)])
    undo = {"type": "undo"}
    out["undo of the correction"] = median_of(repeats, lambda: streams.advance(corrected, corrected.version + 1, undo), 200)
    return out, (early, late)


def service_figures(events: list[tuple[int, dict[str, Any]]], extra: list[dict[str, Any]], early: tuple[int, Any],
                    late: tuple[int, Any], repeats: int) -> dict[str, tuple[float, float]]:
    from service.web.app import create_app

    folder = tempfile.mkdtemp(prefix="kibitz-correct-bench-")
    app = create_app({"TESTING": True, "DATABASE": os.path.join(folder, "kibitz.db")})
    client = app.test_client()
    url, auth = "", {}

    def post(path: str, body: Any) -> tuple[float, float]:
        started, busy = time.perf_counter(), time.process_time()
        response = client.post(f"{url}/{path}", json=body, headers=auth)
        took, used = time.perf_counter() - started, time.process_time() - busy
        assert response.status_code in (200, 201), response.get_json()
        return took, used

    def med(pairs: Any) -> tuple[float, float]:
        got = list(pairs)
        return statistics.median(p[0] for p in got), statistics.median(p[1] for p in got)

    def new_game() -> None:
        nonlocal url, auth
        made = client.post("/games", json={"game": "toepen", "players": PLAYERS, "options": OPTIONS}).get_json()
        url, auth = f"/games/{made['id']}", {"Authorization": f"Bearer {made['token']}"}
        for _, action in events[1:]:
            post("events", action)

    out: dict[str, tuple[float, float]] = {}
    new_game()  # a control: the same moves in a copy of the game that is never corrected
    out["control: moves 1-20, no correction"] = med(post("events", action) for action in extra[:20])
    out["control: moves 21-40, no correction"] = med(post("events", action) for action in extra[20:])
    new_game()
    out["append before (moves 1-20)"] = med(post("events", action) for action in extra[:20])
    for name, (seq, action) in (("near the start", early), ("near the end", late)):
        body = {"target": seq, "action": action}
        out[f"correct {name}, dry run"] = med(post("correct?dry_run=true", body) for _ in range(repeats))
    out["correct near the start, stored"] = post("correct", {"target": early[0], "action": early[1]})
    out["append after (moves 21-40)"] = med(post("events", action) for action in extra[20:])
    out["undo of the correction, stored"] = post("undo", {})
    out["redo of the correction, stored"] = post("redo", {})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--engine-only", action="store_true", help="skip the service's figures")
    args = parser.parse_args()
    out = play("toepen", random.Random(args.seed), PLAYERS, OPTIONS, "table", side_rate=(0.02, 0.01),
               max_events=args.events + EXTRA)
    if len(out.events) < args.events + EXTRA:
        raise SystemExit(f"seed {args.seed}: the game ended after {len(out.events)} events; try another --seed")
    log, extra = out.events[: args.events], [action for _, action in out.events[args.events:]]
    print(f"toepen, 8 players, table visibility: a game of {len(log)} events")
    figures, (early, late) = engine_figures(log, out.events, args.repeats)
    print("engine (engine.stream.advance, CPU time, median):")
    for name, seconds in figures.items():
        print(f"  {name:<45} {seconds * 1000:9.3f} ms")
    if args.engine_only:
        return
    service = service_figures(log, extra, early, late, args.repeats)
    print("service (Flask test client, the write path with its SQLite commit; median wall time, CPU time):")
    for name, (wall, used) in service.items():
        print(f"  {name:<45} {wall * 1000:9.3f} ms  {used * 1000:9.3f} ms CPU")


if __name__ == "__main__":
    main()
