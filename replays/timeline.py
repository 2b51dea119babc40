"""The timeline: every stored event in order with a one-line summary in plain words.

``GET /games/<id>/timeline`` and ``kibitz replay`` (api.md, "Replay and audit"). Each step
carries its ``seq``, times, type, player, hand number, the data as this reader may see it,
and a summary that includes what the rules derived (the trick's winner, the Fool, who was
flushed, the showdown's loser …), written by the game's ``describe``. An action that is
cancelled now is ``undone`` with ``undone_by`` (the undo that cancelled it); undo and redo
steps name their ``target``; notes and rulings appear where they were recorded. A corrected
entry carries ``corrected_by`` (the ``correct`` in force) and ``corrected`` ("corrected: Dee
played 9♣, not 9♠"); a ``correct`` step names its ``target`` and says what it changed. Every
step says where it was recorded as card players say it, ``place`` ("hand 2, trick 1",
``engine.stream.place``; an undo, redo or correct: its target's), and ``brief``, who did
what in a short phrase ("Cas played 10♣", ``engine.stream.summary``): no sentence a person
reads names an event number (ui.md, "Words for card players").

Game actions are described as they were when recorded: the state before and after each
comes from one replay of the whole log, so an action undone later still reads as it
happened; an action in the current record is described from the current record's states,
so after a correction what the rules derived (a trick's winner …) follows the corrected
record. An undone or replaced correction reads publicly without its card while it is back
in a hand (``engine.stream.withheld``), and so does the undo or redo line about it. A reader without the token gets every step's summary and data redacted the same
way as the event log (``replays.replay.shown_data``) while its hand is not over.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from engine import stream as streams
from engine.interface import GameRules
from replays import secrecy
from replays.replay import PUBLIC, action, correct_data


def timeline(rules: GameRules, events: Sequence[Mapping[str, Any]], full: bool) -> list[dict[str, Any]]:
    """Every event of a stored log (oldest first, from ``game_created``) as a timeline step.

    ``full`` is True for the scorekeeper. Raises :class:`engine.core.RulesError` if the
    stored log no longer folds (the rules changed under it).
    """
    replayed = list(streams.replay(rules, ((event["seq"], action(event)) for event in events)))
    if not replayed:
        return []
    final = replayed[-1].stream.state
    undone_by = streams.undone_by((step.seq, step.action["type"], step.target) for step in replayed)
    kept = set() if full else _hidden(rules, final, replayed)
    record = _record_states(replayed[-1].stream, replayed)
    hands: dict[int, int] = {}
    places: dict[int, str] = {}
    briefs: dict[int, str] = {}
    out: list[dict[str, Any]] = []
    previous: Any = None
    for event, step in zip(events, replayed, strict=True):
        seq, kind, after = step.seq, step.action["type"], step.stream.state
        before = after if previous is None else previous
        previous = after
        hand = rules.hand_number(after)
        if step.target is not None:
            hand = hands.get(step.target, hand)
        hands[seq] = hand
        places[seq] = places.get(step.target, "") if step.target is not None else (
            "" if kind in (streams.CREATED, streams.ABANDON) else streams.place(rules, before, after, step.action))
        data = dict(event["data"])
        if not (full or kind in PUBLIC or not hand):
            data = (correct_data(rules, final, hand, data, seq in kept) if kind == streams.CORRECT
                    else secrecy.public_data(rules, final, hand, step.action, seq in kept))
        # described in full only when nothing is hidden from this reader
        visible = (full or kind in PUBLIC or not hand or rules.hand_over(final, hand)) and data == event["data"]
        brief = ""
        if kind in (streams.UNDO, streams.REDO):
            summary = _correction(kind, event["data"].get("reason"), step.target, briefs)
        elif kind == streams.CORRECT:
            shown = full or not hand or rules.hand_over(final, hand)
            fixing = step.stream.done.head  # out of the record now: its card is back in a hand
            fixing = streams.withheld(fixing) if seq in kept else fixing
            summary = corrected_words(rules, fixing, shown, event["data"].get("reason"), places[seq])
            assert fixing.fix is not None
            brief = f"Fix: {changed(rules, fixing.fix.stood, fixing.fix.replacement, shown)}"
        elif kind == streams.ABANDON:
            summary, brief = f"The game was abandoned: {event['data'].get('reason', '')}.", "Game abandoned"
        elif seq in kept:  # its card is back in a hand: who did what, not which card
            summary = secrecy.public_summary(rules, seq, step.action, after)
            brief = streams.summary(rules, streams.withheld(streams.Step(seq, step.action, after)), False)
        elif kind == streams.NOTE:
            by = event["data"].get("player")
            summary = f"Note{' by ' + by if by else ''}: {event['data'].get('text', '')}"
        elif kind == streams.CREATED:
            summary = rules.describe(before, {**step.action, "seq": seq}, after, visible)
        else:  # an action in the record now: what the rules derive from the record as it stands
            was, now = record.get(seq, (before, after))
            summary = rules.describe(was, {**step.action, "seq": seq}, now, visible)
            brief = streams.summary(rules, streams.Step(seq, step.action, now), visible)
        briefs[seq] = brief
        out.append(
            {
                "seq": seq,
                "recorded_at": event["recorded_at"],
                "at": event["at"],
                "type": kind,
                "player": data.get("player", data.get("dealer")),
                "hand": hand,
                "summary": summary,
                "place": places[seq],
                "brief": brief,
                "undone": seq in undone_by,
                "undone_by": undone_by.get(seq),
                "target": step.target,
                "data": data,
                "corrected_by": None,
            }
        )
    for number, by in streams.corrected_by((s.seq, s.action["type"], s.target) for s in replayed).items():
        entry, fix = out[number - 1], replayed[by - 1].stream.done.head.fix
        assert fix is not None
        shown = full or not entry["hand"] or rules.hand_over(final, entry["hand"])
        first = replayed[number - 1].stream.done.head  # the entry as first recorded
        entry["corrected_by"] = by
        entry["corrected"] = f"corrected: {changed(rules, first, fix.replacement, shown)}"
    return out


def _record_states(stream: streams.Stream, replayed: Sequence[streams.Replayed]) -> dict[int, tuple[Any, Any]]:
    """The states before and after each game action of the current record (``stream``'s
    effective chain) recorded as it stands (neither a corrected entry nor a correction): after
    a correction, the actions after its target are folded again, and what the rules derive
    from them (a trick's winner, a showdown's loser) is the corrected record's."""
    gone = secrecy.withdrawn((step.seq, step.action["type"], step.target) for step in replayed)
    out: dict[int, tuple[Any, Any]] = {}
    link: streams.Link | None = stream.done
    while link is not None and link.rest is not None:
        head = link.head
        if head.fix is None and head.seq not in gone and head.action["type"] not in PUBLIC:
            out[head.seq] = (link.rest.head.state, head.state)
        link = link.rest
    return out


def _hidden(rules: GameRules, final: Any, replayed: Sequence[streams.Replayed]) -> set[int]:
    """The seqs whose cards a public reader may not see now (``replays.secrecy.hidden``)."""
    hands: dict[int, int] = {}
    facts = []
    for step in replayed:
        hand = hands.get(step.target, 0) if step.target is not None else rules.hand_number(step.stream.state)
        hands[step.seq] = hand
        facts.append((step.seq, step.action["type"], hand, step.target))
    actions = {step.seq: step.action for step in replayed if step.action["type"] not in PUBLIC}
    return secrecy.hidden(rules, final, facts, actions)


def corrected_words(rules: GameRules, step: streams.Step, shown: bool, reason: Any = None, where: str = "") -> str:
    """The timeline's line of a ``correct`` ``step`` (its :class:`engine.stream.Fix`), its
    target recorded at ``where`` (``engine.stream.place``): "Corrected in hand 1, trick 3: Dee
    played 9♣, not 9♠ (reason)." ``shown`` False (a reader without the token while the
    target's hand is not over): the entry first recorded is not named, "Corrected in hand 1,
    trick 3: Dee played 9♣; another card was first recorded." (api.md)."""
    fix = step.fix
    assert fix is not None
    why = f" ({reason})" if reason else ""
    return f"Corrected{' in ' + where if where else ''}: {changed(rules, fix.stood, fix.replacement, shown)}{why}."


def changed(rules: GameRules, old: streams.Step, new: streams.Step, shown: bool) -> str:
    """``new``'s summary and, when ``shown``, what it was (only the words that differ:
    "Dee played 9♣, not 9♠"); else "…; another card was first recorded"."""
    now = streams.summary(rules, new, shown)
    if not shown:
        return f"{now}; another {'card was' if old.action['type'] != 'deal' else 'deal was'} first recorded"
    was = streams.differing(now, streams.summary(rules, old, True))
    return f"{now}, not {was}" if was else f"{now}, with other cards than first recorded"


def _correction(kind: str, reason: Any, target: int | None, briefs: Mapping[int, str]) -> str:
    """An undo's or redo's line, naming what it took back or put back as the Undo button
    does ("Undone: Cas played 10♣."; "Redone (wrong card): Cas played 10♣.")."""
    verb = "Undone" if kind == streams.UNDO else "Redone"
    what = briefs.get(target, "") if target is not None else ""
    return f"{verb}{f' ({reason})' if reason else ''}: {what or 'an entry'}."


#: Characters that would break a line of the text record (``replays.export``) or of ``kibitz replay`` or drive a terminal: C0/C1
#: controls (newlines, tabs, escapes …) and Unicode line and paragraph separators.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def one_line(text: str) -> str:
    """``text`` on one printable line: every control character (a newline in a name, a title
    or a note …) is written as an escape (``\\n``, ``\\t``, ``\\x1b``), so that free text can
    never start a line of its own or forge a tag, a hand or a result."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def for_hand(steps: Sequence[Mapping[str, Any]], n: int) -> list[dict[str, Any]]:
    """The steps of hand/round ``n`` (undo and redo go with the hand of their target)."""
    return [dict(step) for step in steps if step["hand"] == n]


def render(title: str, steps: Sequence[Mapping[str, Any]], width: int = 80, word: str = "hand") -> list[str]:
    """The timeline as terminal lines no wider than ``width``: a ``title`` line, a heading
    before each hand (``── round 2 ──`` with ``word`` the game's ``HAND_WORD``), then one step per line (its seq in the margin, as the replay page's
    "Step 4", then the summary, wrapped under itself when it is long); a step that was undone or
    redone says so in words first ("[undone]", "[undone, then redone]": :func:`undo_stories`),
    never by the undo's number."""
    import textwrap

    lines = [textwrap.shorten(one_line(title), width, placeholder="…")]
    stories = undo_stories(steps)
    hand: int | None = None
    indent = " " * 6
    for step in steps:
        if step["hand"] != hand and step["type"] not in (streams.UNDO, streams.REDO, streams.NOTE, streams.CORRECT):
            hand = step["hand"]
            if hand:
                heading = f"── {word} {hand} "
                lines.append(heading + "─" * max(0, width - 2 - len(heading)))
        text = one_line(str(step["summary"]))
        story = stories.get(step["seq"])
        if story:  # in card players' words, never the undo's event number (issue 25)
            text = f"[{story['tag']}] {text}"
        if step.get("corrected"):
            text = f"{text} [{one_line(str(step['corrected']))}]"
        lines.extend(
            textwrap.wrap(text, width, initial_indent=f"{step['seq']:>4}  ", subsequent_indent=indent,
                          break_on_hyphens=False)
            or [f"{step['seq']:>4}"]
        )
    return lines


def undo_stories(steps: Sequence[Mapping[str, Any]]) -> dict[int, dict[str, str]]:
    """For each step that an undo or redo targeted, its story, by seq (``steps`` as
    :func:`timeline` gives them): ``{"tag": words for a list of steps, "detail": the same for a
    board's note when there was more than one undo or redo}``, in card players' words, never event
    numbers (ui.md): ``"undone"``; ``"undone, then redone"``; ``"undone, redone, then undone
    again"``. The undo and redo steps themselves say what they took back ("Undone: Cas played
    8♥.")."""
    history: dict[int, list[str]] = {}
    for entry in steps:
        if entry["type"] in (streams.UNDO, streams.REDO) and entry["target"] is not None:
            history.setdefault(entry["target"], []).append(entry["type"])
    words: dict[int, dict[str, str]] = {}
    for seq, done in history.items():
        said = [("undone" if kind == streams.UNDO else "redone") + (" again" if index > 1 else "")
                for index, kind in enumerate(done)]
        tag = said[0] if len(said) == 1 else f"{', '.join(said[:-1])}, then {said[-1]}"
        words[seq] = {"tag": tag, "detail": tag if len(said) > 1 else ""}
    return words
