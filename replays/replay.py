"""Rebuild a stored log: the folded stream, the state at a seq, the event log.

Events are the store's dicts ``{"seq", "type", "data", "recorded_at", "at"}``, oldest
first, starting with ``game_created``. A stored log was accepted once, so the
:class:`engine.core.RulesError` a replay may raise means the rules changed under it.

A :class:`Folded` game is the stream (``engine.stream``) plus one small :class:`Fact` per
event (its hand number and, for undo/redo, its target), kept while folding. That is all the
event log and the audit need besides the current state, so they never refold the game; and
:func:`extend` adds one event in O(1) folds and an O(1) append to a persistent vector
(pyrsistent), which is what the service's cache keeps: a tuple copied per event made
recording slower as a game grew.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from pyrsistent import PVector, pvector

from engine import stream as streams
from engine.interface import GameRules

#: Event types that are not game actions (never ``undone``).
NOT_ACTIONS = frozenset({streams.CREATED, streams.UNDO, streams.REDO, streams.NOTE})
#: Event types that never carry hidden cards (an ``abandon`` is an action, undone like any).
PUBLIC = NOT_ACTIONS | {streams.ABANDON}


class Fact(NamedTuple):
    """What the log and the audit need to know of one event.

    ``hand`` is the hand/round number right after it (0 before the first deal); ``target``
    the seq of the action an undo cancelled or a redo restored, else None; ``position`` the
    trick or turn in progress just before it (the engine's ``position``).
    """

    seq: int
    type: str
    hand: int
    target: int | None
    position: int = 0


@dataclass(frozen=True, slots=True)
class Folded:
    """A game folded up to ``stream.version``: the stream and one fact per event."""

    stream: streams.Stream
    facts: PVector[Fact]  # persistent: appending shares the rest, O(1) whatever the length

    @property
    def version(self) -> int:
        """The seq of the last event folded."""
        return self.stream.version


def action(event: Mapping[str, Any]) -> dict[str, Any]:
    """The engine's view of a stored event: ``{"type": ..., **data}``."""
    return {"type": event["type"], **event["data"]}


def _pairs(events: Iterable[Mapping[str, Any]]) -> Iterable[tuple[int, dict[str, Any]]]:
    return ((event["seq"], action(event)) for event in events)


def fold(rules: GameRules, events: Iterable[Mapping[str, Any]]) -> Folded:
    """Fold a whole stored log (``engine.stream.replay``). Raises ``ValueError`` if empty."""
    last: streams.Stream | None = None
    facts: list[Fact] = []
    for step in streams.replay(rules, _pairs(events)):
        where = rules.position(last.state) if last is not None else 0
        last = step.stream
        facts.append(Fact(step.seq, step.action["type"], rules.hand_number(last.state), step.target, where))
    if last is None:
        raise ValueError("an empty log has no state")
    return Folded(last, pvector(facts))


def extend(folded: Folded, seq: int, event_action: Mapping[str, Any]) -> Folded:
    """Fold one more event (``engine.stream.advance``) and return the new ``Folded``.

    Raises :class:`engine.core.RulesError` when the action is illegal now; ``folded`` is
    unchanged in that case.
    """
    stream = folded.stream
    kind = event_action["type"]
    step = streams.target(stream, kind)
    target = None if step is None else step.seq
    after = streams.advance(stream, seq, event_action)
    fact = Fact(seq, kind, stream.rules.hand_number(after.state), target, stream.rules.position(stream.state))
    return Folded(after, folded.facts.append(fact))


def state_at(rules: GameRules, events: Iterable[Mapping[str, Any]], seq: int) -> Any:
    """The game state right after event ``seq``: the fold of the actions effective then.

    Undos recorded after ``seq`` do not reach back into it. Raises ``LookupError`` if no
    event has that ``seq``.
    """
    return stream_at(rules, events, seq).state


def stream_at(rules: GameRules, events: Iterable[Mapping[str, Any]], seq: int) -> streams.Stream:
    """The stream right after event ``seq`` (its state is :func:`state_at`; its
    ``engine.stream.status`` says whether the game was abandoned then). Raises
    ``LookupError`` if no event has that ``seq``."""
    for step in streams.replay(rules, _pairs(events)):
        if step.seq == seq:
            return step.stream
        if step.seq > seq:
            break
    raise LookupError(f"no event {seq}")


def reopened_hands(rules: GameRules, past: Any, current: Any) -> list[int]:
    """The hands that are over in the ``past`` state but not in the ``current`` one.

    A past state read after an undo can show a hand as over (its hidden cards public)
    while the undo has put that hand back in play: in an ``open`` game its cards are then
    still secret for a reader without the token (api.md, "Views and secrets").
    """
    return [
        number
        for number in range(1, rules.hand_number(past) + 1)
        if rules.hand_over(past, number) and not rules.hand_over(current, number)
    ]


def undone(folded: Folded) -> set[int]:
    """The seqs of the actions cancelled now (``engine.stream.undone_by`` over the folded
    game's facts: the same set as ``engine.stream.cancelled`` over a replay)."""
    return set(streams.undone_by((fact.seq, fact.type, fact.target) for fact in folded.facts))


def event_log(folded: Folded, events: Iterable[Mapping[str, Any]], full: bool) -> list[dict[str, Any]]:
    """``events`` (any slice of the stored log up to ``folded.version``) as the API shows
    them: each with ``undone``, its data redacted for a reader without the token while its
    hand is not over (:func:`shown_data`); ``hash`` always, ``salt`` only where the data is
    shown in full (api.md, "A tamper-evident record")."""
    cancelled = undone(folded)
    facts = folded.facts
    out = []
    for event in events:
        fact = facts[event["seq"] - 1]
        data = shown_data(folded, event, fact.hand, full)
        shown = {**event, "data": data, "undone": event["seq"] in cancelled}
        if not full and data != event["data"]:  # its salt would let a reader try every hidden card
            shown.pop("salt", None)
        out.append(shown)
    return out


def shown_data(folded: Folded, event: Mapping[str, Any], hand: int, full: bool) -> dict[str, Any]:
    """The ``data`` of ``event`` (recorded in hand ``hand``) as a reader may see it now.

    With the token (``full``) everything; otherwise the game's ``public_action`` copy for
    that hand in the current state (its ``redact`` copy while the hand is in play; cards the
    rules never reveal, such as a Toepen folder's dead cards, stay out after it too).
    Bookkeeping events are never redacted.
    """
    data = dict(event["data"])
    if full or event["type"] in PUBLIC or not hand:
        return data
    return public_data(folded.stream.rules, folded.stream.state, hand, action(event))


def public_data(rules: GameRules, state: Any, hand: int, event_action: Mapping[str, Any]) -> dict[str, Any]:
    """The ``data`` of a game action of hand ``hand`` that a reader without the token may see
    in ``state`` (the current state): the engine's ``public_action`` without ``type``."""
    return {k: v for k, v in rules.public_action(state, hand, event_action).items() if k != "type"}
