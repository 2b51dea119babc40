"""replays/ works on the engine and stored events alone: no Flask, no database."""

from __future__ import annotations

import sys
from pathlib import Path

from engine import stream, toepen
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


def test_fold_and_state_at():
    events = _log(OPEN_DEAL, PLAY, UNDO)
    folded = replay.fold(toepen, events)
    assert folded.version == 4
    assert toepen.view(folded.stream.state, True)["to_act"] == ["Bob"]
    assert toepen.view(replay.state_at(toepen, events, 3), True)["to_act"] == ["Cas"]
    assert [(f.seq, f.type, f.hand, f.target) for f in folded.facts] == [
        (1, "game_created", 0, None), (2, "deal", 1, None), (3, "play", 1, None), (4, "undo", 1, 3)]


def test_extend_matches_a_full_fold():
    events = _log(OPEN_DEAL, PLAY, UNDO, {"type": "redo"}, UNDO, {"type": "note", "text": "x"}, PLAY)
    folded = replay.fold(toepen, events[:1])
    for event in events[1:]:
        folded = replay.extend(folded, event["seq"], replay.action(event))
    whole = replay.fold(toepen, events)
    assert folded.facts == whole.facts
    assert toepen.view(folded.stream.state, True) == toepen.view(whole.stream.state, True)
    assert replay.undone(folded) == replay.undone(whole) == stream.cancelled(list(stream.replay(
        toepen, ((e["seq"], replay.action(e)) for e in events)))) == {3}


def test_event_log_undone_and_redaction():
    events = _log(OPEN_DEAL, PLAY, UNDO)
    folded = replay.fold(toepen, events)
    log = replay.event_log(folded, events, full=False)
    assert [e["undone"] for e in log] == [False, False, True, False]
    assert "hands" not in log[1]["data"]
    assert replay.event_log(folded, events, full=True)[1]["data"]["hands"] == OPEN_DEAL["hands"]
    assert [e["seq"] for e in replay.event_log(folded, events[1:3], True)] == [2, 3]


def test_trick_carries_recorded_at_and_corrections():
    events = _log(OPEN_DEAL, PLAY, UNDO, PLAY)
    folded = replay.fold(toepen, events)
    trick = audit.trick(folded, events, 1, 1, True)
    assert [(p["seq"], p["recorded_at"]) for p in trick["plays"]] == [(5, "t5")]
    assert [(c["seq"], c["target"]["seq"]) for c in trick["corrections"]] == [(4, 3)]
    assert audit.trick(folded, events, 1, 2, True) is None
    assert audit.hand(folded, events, 2, True) is None


def test_no_web_or_storage_imports():
    for name in ("replays.replay", "replays.audit"):
        module = sys.modules[name]
        source = Path(module.__file__).read_text()
        assert "flask" not in source and "sqlite" not in source
