"""A whole-log fold (``replays.replay.fold``) keeps the state of one step in
``engine.stream.KEEP_EVERY`` (and of the last ``RECENT``), and every state it let go of reads
exactly as the rules gave it: each step of the chain, after undoing far below the last
steps kept, before an entry (``engine.stream.before``), a correction on the folded stream,
and a stored game's pages, which read their states from the fold the service caches."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bench.playouts import NAMES, play
from engine import stream as streams
from replays import replay
from tests.test_correct_playouts import TABLE_OPTIONS, correct_at_random

GAMES = ["toepen", "fool", "fuji_flush", "stop_the_bus"]


def _events(log: list[tuple[int, dict[str, Any]]]) -> list[dict[str, Any]]:
    return [{"seq": seq, "type": action["type"], "data": {k: v for k, v in action.items() if k != "type"}}
            for seq, action in log]


def _chain(stream: streams.Stream) -> list[streams.Step]:
    out, link = [], stream.done
    while link is not None:
        out.append(link.head)
        link = link.rest
    return out


def _played(game: str, seed: int) -> tuple[Any, list[dict[str, Any]]]:
    rng = random.Random(seed)
    names = NAMES[: rng.randint(4, 6)]
    out = play(game, rng, names, {}, rng.choice(["open", "table"]), undo_rate=0.08, undo_depth=3, note_rate=0.3,
               max_events=400, **TABLE_OPTIONS.get(game, {}))
    return out, _events(out.events)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", [1, 2])
def test_every_step_reads_the_state_the_rules_gave(game: str, seed: int) -> None:
    out, events = _played(game, seed)
    folded = replay.fold(out.rules, events)
    kept = _chain(out.stream)  # the playout's own stream: every state held
    steps = _chain(folded.stream)
    assert [s.seq for s in steps] == [s.seq for s in kept]
    held = sum(step._state is not streams._GONE for step in steps)  # noqa: SLF001 - what the fold kept
    assert held <= len(steps) // streams.KEEP_EVERY + streams.RECENT + 2, (held, len(steps))
    for step, truth in zip(steps, kept, strict=True):
        assert step.state == truth.state, step.seq
        assert step == truth


@pytest.mark.parametrize("game", GAMES)
def test_undo_far_down_a_folded_game_and_redo(game: str) -> None:
    out, events = _played(game, 3)
    folded = replay.fold(out.rules, events)
    truth = {step.seq: step.state for step in _chain(out.stream)}
    stream, version, undone = folded.stream, folded.version, []
    while stream.done.rest is not None and len(undone) < 3 * streams.KEEP_EVERY:
        undone.append(stream.done.head.seq)
        version += 1
        stream = streams.advance(stream, version, {"type": "undo"})
        assert stream.state == truth[stream.done.head.seq]
    for seq in reversed(undone):
        version += 1
        stream = streams.advance(stream, version, {"type": "redo"})
        assert stream.done.head.seq == seq and stream.state == truth[seq]
    for seq in [seq for seq in truth if seq != 1][::7]:  # every seventh entry but game_created
        past = streams.before(folded.stream, seq)
        assert past is not None and past.state == truth[past.done.head.seq]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", [4, 5, 6])
def test_a_correction_of_a_folded_game_is_the_game_recorded_that_way(game: str, seed: int) -> None:
    out, events = _played(game, seed)
    stream = replay.fold(out.rules, events).stream
    states = [stream.state]
    rng = random.Random(seed)
    for _ in range(3):  # checked against the corrected game folded from scratch
        after = correct_at_random(out.rules, stream, rng)
        if after is not None:
            stream = after
            states.append(stream.state)
    for back in range(len(states) - 1, 0, -1):
        stream = streams.advance(stream, stream.version + 1, {"type": streams.UNDO})
        assert stream.state == states[back - 1]
