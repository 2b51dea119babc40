"""replays/ works on the engine and stored events alone: no Flask, no database."""

from __future__ import annotations

import sys
from pathlib import Path

from engine import toepen
from replays import audit, replay
from tests.conftest import OPEN_DEAL, PLAYERS


def _log(*actions):
    created = {"game": "toepen", "players": PLAYERS, "visibility": "open", "dealer": "Ann",
               "options": toepen.resolve_options({}, PLAYERS), "rules_version": toepen.RULES_VERSION}
    events = [{"seq": 1, "type": "game_created", "data": created, "recorded_at": "t1", "at": None}]
    for seq, action in enumerate(actions, start=2):
        data = {k: v for k, v in action.items() if k != "type"}
        events.append({"seq": seq, "type": action["type"], "data": data, "recorded_at": f"t{seq}", "at": None})
    return events


PLAY = {"type": "play", "player": "Bob", "card": "7H"}
UNDO = {"type": "undo"}


def test_rebuild_and_state_at():
    events = _log(OPEN_DEAL, PLAY, UNDO)
    assert toepen.view(replay.rebuild(toepen, events).state, True)["to_act"] == ["Bob"]
    assert toepen.view(replay.state_at(toepen, events, 3), True)["to_act"] == ["Cas"]


def test_event_log_undone_and_redaction():
    events = _log(OPEN_DEAL, PLAY, UNDO)
    log = replay.event_log(toepen, events, full=False)
    assert [e["undone"] for e in log] == [False, False, True, False]
    assert "hands" not in log[1]["data"]
    assert replay.event_log(toepen, events, full=True)[1]["data"]["hands"] == OPEN_DEAL["hands"]
    assert [e["seq"] for e in replay.event_log(toepen, events, True, after=1, limit=2)] == [2, 3]


def test_trick_carries_recorded_at_and_corrections():
    events = _log(OPEN_DEAL, PLAY, UNDO, PLAY)
    trick = audit.trick(toepen, events, 1, 1, True)
    assert [(p["seq"], p["recorded_at"]) for p in trick["plays"]] == [(5, "t5")]
    assert [(c["seq"], c["target"]["seq"]) for c in trick["corrections"]] == [(4, 3)]
    assert audit.trick(toepen, events, 1, 2, True) is None
    assert audit.hand(toepen, events, 2, True) is None


def test_no_web_or_storage_imports():
    for name in ("replays.replay", "replays.audit"):
        module = sys.modules[name]
        source = Path(module.__file__).read_text()
        assert "flask" not in source and "sqlite" not in source
