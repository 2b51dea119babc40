"""Rebuild a stored log: the stream after every event, the state at a seq, the event log.

Events are the store's dicts ``{"seq", "type", "data", "recorded_at", "at"}``, oldest
first, starting with ``game_created``. A stored log was accepted once, so the
:class:`engine.core.RulesError` a replay may raise means the rules changed under it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import ModuleType
from typing import Any

from engine import stream as streams

#: Event types that never carry hidden cards.
PUBLIC = frozenset({streams.CREATED, streams.UNDO, streams.REDO, streams.NOTE})


def action(event: Mapping[str, Any]) -> dict[str, Any]:
    """The engine's view of a stored event: ``{"type": ..., **data}``."""
    return {"type": event["type"], **event["data"]}


def steps(rules: ModuleType, events: Iterable[Mapping[str, Any]]) -> list[streams.Replayed]:
    """Fold ``events`` and return one :class:`engine.stream.Replayed` per event, in order."""
    return list(streams.replay(rules, ((event["seq"], action(event)) for event in events)))


def rebuild(rules: ModuleType, events: Iterable[Mapping[str, Any]]) -> streams.Stream:
    """The stream after the last of ``events``. Raises ``ValueError`` for an empty log."""
    last: streams.Stream | None = None
    for step in streams.replay(rules, ((event["seq"], action(event)) for event in events)):
        last = step.stream
    if last is None:
        raise ValueError("an empty log has no state")
    return last


def state_at(rules: ModuleType, events: Iterable[Mapping[str, Any]], seq: int) -> Any:
    """The game state right after event ``seq``: the fold of the actions effective then.

    Undos recorded after ``seq`` do not reach back into it. Raises ``LookupError`` if no
    event has that ``seq``.
    """
    for step in streams.replay(rules, ((event["seq"], action(event)) for event in events)):
        if step.seq == seq:
            return step.stream.state
        if step.seq > seq:
            break
    raise LookupError(f"no event {seq}")


def hand_of(rules: ModuleType, replayed: Sequence[streams.Replayed]) -> dict[int, int]:
    """Map each seq to the hand/round number in force right after it (0 before a deal)."""
    return {step.seq: rules.hand_number(step.stream.state) for step in replayed}


def event_log(rules: ModuleType, events: Sequence[Mapping[str, Any]], full: bool,
              after: int = 0, limit: int | None = None) -> list[dict[str, Any]]:
    """The stored log as the API shows it: each event with ``undone``.

    ``undone`` is true for an action cancelled now (undo, redo and note never are). For a
    reader without the token (``full`` false) an event's data is passed through the game's
    ``redact`` while the hand it belongs to is not over, so hidden cards stay hidden.
    Only events with ``seq > after`` are returned, at most ``limit`` of them.
    """
    replayed = steps(rules, events)
    undone = streams.cancelled(replayed)
    current = replayed[-1].stream.state if replayed else None
    out: list[dict[str, Any]] = []
    for event, step in zip(events, replayed, strict=True):
        if event["seq"] <= after:
            continue
        if limit is not None and len(out) >= limit:
            break
        data = shown_data(rules, current, event, rules.hand_number(step.stream.state), full)
        out.append({**event, "data": data, "undone": event["seq"] in undone})
    return out


def shown_data(rules: ModuleType, current: Any, event: Mapping[str, Any], hand: int, full: bool) -> dict[str, Any]:
    """The ``data`` of ``event`` (recorded in hand ``hand``) as a reader may see it now.

    With the token (``full``) everything; otherwise the game's ``redact`` copy while that
    hand is not over in the ``current`` state (bookkeeping events are never redacted).
    """
    data = dict(event["data"])
    if full or event["type"] in PUBLIC or not hand or rules.hand_over(current, hand):
        return data
    return {k: v for k, v in rules.redact(action(event)).items() if k != "type"}
