"""What a write answers is pinned (docs/tamper-evidence.md, "What is derived from a game,
beyond its own routes": the stored first answer of an ``Idempotency-Key``): a retry gets the stored first answer only when it is the one rebuilt
from the log (``service.record.writes.answer_of``), and ``kibitz check`` names every stored
answer that is not. So a change of what a write answers (its ``state``'s words or fields, a
target's summary, the irregularities) turns every answer stored before it into a "damaged"
one, unless the change comes with a migration that rewrites the stored answers from the logs.

This test folds one fixed game of each kind (``bench.playouts``, a fixed seed, undos and redos
included) and hashes every answer its writes gave. When it fails, what a write answers has
changed: either the change was not meant (put it back), or it was, and then the same commit
adds a migration rewriting ``idempotency.response`` from the logs (both backends) and pins the
new digest here.
"""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from bench.playouts import NAMES, play
from replays import replay
from service.record import writes

#: The digest of every answer of each game's fixed playout (see the module's docstring).
PINNED = {
    "toepen": "678de780961280b2",
    "fool": "cc931528419db8c6",
    "fuji_flush": "e70944f6ddc974dd",
    "stop_the_bus": "5233ee3737541b45",
}
SEATS = {"toepen": 4, "fool": 4, "fuji_flush": 4, "stop_the_bus": 4}


def answers(game: str) -> list[dict[str, object]]:
    """Every write's 201 body of a fixed playout of ``game``, as ``answer_of`` rebuilds it."""
    playout = play(game, random.Random(7), NAMES[:SEATS[game]], undo_rate=0.1, max_events=120)
    stored = [{"seq": seq, "type": action["type"], "data": {k: v for k, v in action.items() if k != "type"},
               "recorded_at": "2026-12-05T19:42:00.000000Z", "at": None, "salt": f"{seq:032x}", "hash": f"{seq:064x}"}
              for seq, action in playout.events]
    before = replay.fold(playout.rules, stored[:1])
    out = []
    for event in stored[1:]:
        after = replay.extend(before, int(event["seq"]), replay.action(event))
        out.append(writes.answer_of(before, after, event))
        before = after
    return out


@pytest.mark.parametrize("game", list(PINNED))
def test_what_a_write_answers_is_pinned(game: str) -> None:
    text = json.dumps(answers(game), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    assert digest == PINNED[game], (
        f"what a {game} write answers changed (digest {digest}): answers stored before this change would be "
        "named damaged by kibitz check and refused on a retry; add a migration rewriting the stored answers "
        "from the logs, then pin the new digest (this module's docstring)")
