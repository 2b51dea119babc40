"""Hands, tricks and irregularities for the audit: the engine's views plus times,
corrections and notes.

A *correction* is an ``undo``, ``redo`` or ``correct`` event whose target action was
recorded during the hand in question (an undo or redo of a ``correct`` goes with the entry
that correct fixed); a ``correct`` adds ``action``, what it put in the target's place. A
corrected play of a trick carries ``corrected_by`` and ``corrected`` (its words). Each correction (and each note) is placed in the hand by its
*position*: the trick (trick games) or turn (the others) in progress when its target was
recorded, that is the trick the next card played then belonged to (``{"trick": t}``,
``{"turn": t}``; empty for the deal). A trick's audit lists the corrections and notes of
its position, and every turn of a hand view gets its own. Positions come from the folded
game's facts (the engine's ``position`` before each event): no read refolds the game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine import stream as streams
from replays.replay import Folded, action, corrected, hand_of, shown_data
from replays.timeline import changed


def hand(folded: Folded, events: Sequence[Mapping[str, Any]], n: int, full: bool) -> dict[str, Any] | None:
    """``GET hands/<n>``: the engine's ``hand_view`` plus ``corrections`` and ``notes`` placed by
    the game's ``PLAY_UNIT`` (and, for games played in turns, each turn's own corrections);
    None if no hand n.

    ``events`` is the stored log up to ``folded.version``.
    """
    rules = folded.stream.rules
    view = rules.hand_view(folded.stream.state, n, full)
    if view is None:
        return None
    unit = rules.PLAY_UNIT
    fixes = corrections(folded, events, n, full, unit)
    out = {**view, "corrections": fixes, "notes": notes(folded, events, n, unit)}
    if unit == "turn":
        turns = corrected_plays(folded, events, n, view["turns"], full)
        out["turns"] = [
            {**turn, "corrections": [c for c in fixes if c.get("turn") == number]}
            for number, turn in enumerate(turns, start=1)
        ]
    elif isinstance(view.get("tricks"), list):
        out["tricks"] = [{**t, "plays": corrected_plays(folded, events, n, t["plays"], full)}
                         if isinstance(t, Mapping) and isinstance(t.get("plays"), list) else t for t in view["tricks"]]
    return out


def trick(folded: Folded, events: Sequence[Mapping[str, Any]], n: int, t: int, full: bool) -> dict[str, Any] | None:
    """``GET hands/<n>/tricks/<t>``: ``trick_view`` with each play's ``recorded_at``, the
    ``corrections`` that touched trick ``t`` and the ``notes`` recorded during it; None if
    there is no such trick."""
    view = folded.stream.rules.trick_view(folded.stream.state, n, t, full)
    if view is None:
        return None
    recorded = {event["seq"]: event["recorded_at"] for event in events}
    plays = [
        {**play, "recorded_at": recorded.get(play.get("seq"))} if isinstance(play, Mapping) else play
        for play in view.get("plays", [])
    ]
    plays = corrected_plays(folded, events, n, plays, full)
    fixes = [c for c in corrections(folded, events, n, full) if c.get("trick") == t]
    remarks = [note for note in notes(folded, events, n) if note.get("trick") == t]
    return {**view, "plays": plays, "corrections": fixes, "notes": remarks}


def corrections(folded: Folded, events: Sequence[Mapping[str, Any]], n: int, full: bool,
                unit: str = "trick") -> list[dict[str, Any]]:
    """The undo/redo/correct events whose target was recorded during hand ``n``, oldest first.

    Each is ``{seq, type, reason, recorded_at, at, target: {seq, type, data}}`` plus its
    position (key ``unit``: ``trick`` or ``turn``, see the module docstring); the target's data is shown
    as the event log would show it to this reader.
    """
    facts = folded.facts
    by_seq = {event["seq"]: event for event in events}
    found = [fact for fact in facts if fact.target is not None and hand_of(folded, fact.seq) == n]
    out: list[dict[str, Any]] = []
    for fact in found:
        assert fact.target is not None
        event, target = by_seq[fact.seq], by_seq[fact.target]
        entry = {
            "seq": fact.seq,
            "type": event["type"],
            "reason": event["data"].get("reason"),
            "recorded_at": event["recorded_at"],
            "at": event["at"],
            "target": {"seq": target["seq"], "type": target["type"], "data": shown_data(folded, target, n, full)},
            **_place(facts, unit, _home(folded, fact.seq)),
        }
        if event["type"] == streams.CORRECT:  # what it put in the target's place, shown like that action
            entry["action"] = shown_data(folded, event, n, full).get("action")
        out.append(entry)
    return out


def _home(folded: Folded, seq: int) -> int:
    """The game action an undo, redo or correct ``seq`` is about, following an undo of a
    correct to the entry the correct fixed."""
    facts, seen = folded.facts, {seq}
    fact = facts[seq - 1]
    while fact.target is not None and fact.target not in seen:
        seen.add(fact.target)
        fact = facts[fact.target - 1]
    return int(fact.seq)


def corrected_plays(folded: Folded, events: Sequence[Mapping[str, Any]], n: int, plays: Sequence[Any],
                    full: bool) -> list[Any]:
    """``plays`` (a trick's or turn's entries with their ``seq``) with ``corrected_by`` and
    ``corrected`` ("corrected: Dee played 9♣, not 9♠"; the entry first recorded
    not named for a reader without the token while hand ``n`` is not over) on each corrected one."""
    fixed = corrected(folded)
    if not fixed:
        return list(plays)
    rules, state = folded.stream.rules, folded.stream.state
    by_seq = {event["seq"]: event for event in events}
    shown = full or rules.hand_over(state, n)
    out: list[Any] = []
    for play in plays:
        seq = play.get("seq") if isinstance(play, Mapping) else None
        if seq in fixed and seq in by_seq and fixed[seq] in by_seq:
            first = streams.Step(seq, action(by_seq[seq]), state)
            new = streams.Step(seq, dict(by_seq[fixed[seq]]["data"]["action"]), state)
            play = {**play, "corrected_by": fixed[seq],
                    "corrected": f"corrected: {changed(rules, first, new, shown)}"}
        out.append(play)
    return out


def notes(folded: Folded, events: Sequence[Mapping[str, Any]], n: int, unit: str = "trick") -> list[dict[str, Any]]:
    """The ``note`` events recorded during hand ``n``: ``{seq, text, player, recorded_at, at}``
    plus their position (key ``unit``: ``trick`` or ``turn``)."""
    found = [event for event in events if event["type"] == streams.NOTE and folded.facts[event["seq"] - 1].hand == n]
    return [
        {
            "seq": event["seq"],
            "text": event["data"].get("text"),
            "player": event["data"].get("player"),
            "recorded_at": event["recorded_at"],
            "at": event["at"],
            **_place(folded.facts, unit, event["seq"]),
        }
        for event in found
    ]


def _place(facts: Sequence[Any], unit: str, seq: int) -> dict[str, int]:
    """Where event ``seq`` was recorded in its hand: ``{unit: t}``, or ``{}`` before the
    hand's first trick or turn (the deal)."""
    where = int(facts[seq - 1].position)
    return {unit: where} if where else {}


def irregularities(folded: Folded, full: bool, since: int = 1) -> list[dict[str, Any]]:
    """``GET irregularities``: every hand's ``irregularities`` (revokes proven later), each
    with its ``hand``, oldest hand first; ``since`` leaves out the hands before that one."""
    rules, state = folded.stream.rules, folded.stream.state
    out: list[dict[str, Any]] = []
    for n in range(max(1, since), rules.hand_number(state) + 1):
        for item in rules.irregularities(state, n, full):
            out.append({"hand": n, **item})
    return out


def proved_by(folded: Folded, seq: int, full: bool) -> list[dict[str, Any]]:
    """The irregularities that the action ``seq`` proves in the current state of ``folded``
    (its ``proof_seq``), in the shape of :func:`irregularities`: the ``irregularities`` of
    a write's 201 (api.md). Only the current hand is read: an action proves nothing in
    another one. ``[]`` when there is none. Reads the game's ``irregularities`` of that hand
    alone, never its whole hand view (a write asks this on every move, and a Fuji Flush
    game's one hand view lists every turn of the game)."""
    rules, state = folded.stream.rules, folded.stream.state
    number = rules.hand_number(state)
    found = rules.irregularities(state, number, full) if number else []
    return [{"hand": number, **item} for item in found if item.get("proof_seq") == seq]
