"""Hands and tricks for the audit: the engine's views plus times and corrections.

A *correction* is an ``undo`` or ``redo`` event whose target action was recorded during
the hand in question. That is best effort for tricks: the engine does not say which trick
an undone action belonged to, so a trick lists every correction of its hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from replays.replay import Folded, shown_data


def hand(folded: Folded, events: Sequence[Mapping[str, Any]], n: int, full: bool) -> dict[str, Any] | None:
    """``GET hands/<n>``: the engine's ``hand_view`` plus ``corrections``; None if no hand n.

    ``events`` is the stored log up to ``folded.version``.
    """
    view = folded.stream.rules.hand_view(folded.stream.state, n, full)
    if view is None:
        return None
    return {**view, "corrections": corrections(folded, events, n, full)}


def trick(folded: Folded, events: Sequence[Mapping[str, Any]], n: int, t: int, full: bool) -> dict[str, Any] | None:
    """``GET hands/<n>/tricks/<t>``: ``trick_view`` with each play's ``recorded_at`` and
    the hand's ``corrections``; None if there is no such trick."""
    view = folded.stream.rules.trick_view(folded.stream.state, n, t, full)
    if view is None:
        return None
    recorded = {event["seq"]: event["recorded_at"] for event in events}
    plays = [
        {**play, "recorded_at": recorded.get(play.get("seq"))} if isinstance(play, Mapping) else play
        for play in view.get("plays", [])
    ]
    return {**view, "plays": plays, "corrections": corrections(folded, events, n, full)}


def corrections(folded: Folded, events: Sequence[Mapping[str, Any]], n: int, full: bool) -> list[dict[str, Any]]:
    """The undo/redo events whose target was recorded during hand ``n``, oldest first.

    Each is ``{seq, type, reason, recorded_at, at, target: {seq, type, data}}``; the
    target's data is shown as the event log would show it to this reader.
    """
    facts = folded.facts
    by_seq = {event["seq"]: event for event in events}
    out: list[dict[str, Any]] = []
    for fact in facts:
        if fact.target is None or facts[fact.target - 1].hand != n:
            continue
        event, target = by_seq[fact.seq], by_seq[fact.target]
        out.append(
            {
                "seq": fact.seq,
                "type": event["type"],
                "reason": event["data"].get("reason"),
                "recorded_at": event["recorded_at"],
                "at": event["at"],
                "target": {"seq": target["seq"], "type": target["type"], "data": shown_data(folded, target, n, full)},
            }
        )
    return out
