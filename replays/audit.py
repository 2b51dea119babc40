"""Hands and tricks for the audit: the engine's views plus times and corrections.

A *correction* is an ``undo`` or ``redo`` event whose target action was recorded during
the hand in question. That is best effort for tricks: the engine does not say which trick
an undone action belonged to, so a trick lists every correction of its hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

from engine import stream as streams
from replays.replay import hand_of, shown_data, steps


def hand(rules: ModuleType, events: Sequence[Mapping[str, Any]], n: int, full: bool) -> dict[str, Any] | None:
    """``GET hands/<n>``: the engine's ``hand_view`` plus ``corrections``; None if no hand n."""
    replayed = steps(rules, events)
    view = rules.hand_view(replayed[-1].stream.state, n, full)
    if view is None:
        return None
    return {**view, "corrections": corrections(rules, events, replayed, n, full)}


def trick(rules: ModuleType, events: Sequence[Mapping[str, Any]], n: int, t: int, full: bool) -> dict[str, Any] | None:
    """``GET hands/<n>/tricks/<t>``: ``trick_view`` with each play's ``recorded_at`` and
    the hand's ``corrections``; None if there is no such trick."""
    replayed = steps(rules, events)
    view = rules.trick_view(replayed[-1].stream.state, n, t, full)
    if view is None:
        return None
    recorded = {event["seq"]: event["recorded_at"] for event in events}
    plays = [
        {**play, "recorded_at": recorded.get(play.get("seq"))} if isinstance(play, Mapping) else play
        for play in view.get("plays", [])
    ]
    return {**view, "plays": plays, "corrections": corrections(rules, events, replayed, n, full)}


def corrections(rules: ModuleType, events: Sequence[Mapping[str, Any]], replayed: Sequence[streams.Replayed],
                n: int, full: bool) -> list[dict[str, Any]]:
    """The undo/redo events whose target was recorded during hand ``n``, oldest first.

    Each is ``{seq, type, reason, recorded_at, at, target: {seq, type, data}}``; the
    target's data is shown as the event log would show it to this reader.
    """
    hands = hand_of(rules, replayed)
    by_seq = {event["seq"]: event for event in events}
    current = replayed[-1].stream.state
    out: list[dict[str, Any]] = []
    for step in replayed:
        if step.target is None or hands.get(step.target) != n:
            continue
        event, target = by_seq[step.seq], by_seq[step.target]
        out.append(
            {
                "seq": step.seq,
                "type": event["type"],
                "reason": event["data"].get("reason"),
                "recorded_at": event["recorded_at"],
                "at": event["at"],
                "target": {
                    "seq": target["seq"],
                    "type": target["type"],
                    "data": shown_data(rules, current, target, n, full),
                },
            }
        )
    return out
