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

import gc
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, NamedTuple

from pyrsistent import PVector, pvector

from engine import stream as streams
from engine.interface import GameRules
from replays import secrecy

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
    """Fold a whole stored log: the same streams as ``engine.stream.replay``, one
    ``engine.stream.advance`` per event after ``game_created`` (``engine.stream.start``),
    with each event's :class:`Fact`. Raises ``ValueError`` if empty, and what
    ``engine.stream.advance`` raises for an event that does not fold.

    Of the steps it folds it keeps the state of one in ``engine.stream.KEEP_EVERY`` along
    the chain and of the last ``engine.stream.RECENT`` (``engine.stream.let_go``): any other
    is folded again from the one kept below it when something reads it (an undo reaching
    far back, ``engine.stream.before``, a correction), so a long game's fold holds a
    fraction of the states and frees the rest as it goes.

    The cyclic garbage collector is paused while it runs (:func:`collector_paused`): a
    fold builds a state per event, none in a cycle, and the collector would otherwise walk
    the growing pile again and again (a quarter of a long game's fold in
    ``bench/rebuild_vs_eventsourcing.py`` when every state was kept)."""
    with collector_paused():
        return _fold(rules, events)


def _fold(rules: GameRules, events: Iterable[Mapping[str, Any]]) -> Folded:
    """:func:`fold`'s loop. A game action is folded as ``engine.stream.advance`` folds it
    (:func:`engine.stream.game_step`: the rules' ``apply``, a new step on the chain, nothing
    left to redo), without building a :class:`engine.stream.Stream` per event: the chain and
    the redo stack are carried from event to event and made a stream once, at the end, or
    when a bookkeeping event (undo, redo, note, abandon, correct) or an action of a game
    recorded under an older rules version is folded by ``engine.stream.advance`` itself."""
    events = iter(events)
    first = next(events, None)
    if first is None:
        raise ValueError("an empty log has no state")
    position, hand_number, game_step = rules.position, rules.hand_number, streams.game_step
    advance, let_go, target_seq = streams.advance, streams.let_go, streams.target_seq
    not_game_actions, abandon, fact = streams.NOT_GAME_ACTIONS, streams.ABANDON, _fact
    kind = {"type": first["type"], **first["data"]}["type"]  # action(event)'s type
    stream = streams.start(rules, {k: v for k, v in first["data"].items() if k != "type"})
    state = stream.state
    facts: list[Fact] = [fact((first["seq"], kind, hand_number(state), None, 0))]
    keep = facts.append
    # a game recorded under an older rules version has every action upcast by advance
    current_rules = stream.rules_version is None or stream.rules_version == rules.RULES_VERSION
    done, undone, version, rules_version = stream.done, stream.undone, stream.version, stream.rules_version
    recent: deque[streams.Step] = deque()
    for event in events:
        seq = event["seq"]
        folded = {"type": event["type"], **event["data"], "seq": seq}  # action(event) as advance folds it
        kind = folded["type"]
        where = position(state)
        top = done.head
        if kind not in not_game_actions and current_rules and top.action["type"] != abandon:
            done = game_step(rules, done, seq, folded)
            undone, target = None, None
        else:  # only an undo, a redo or a correct acts on an earlier event (engine.stream.target_seq)
            stream = streams.Stream(rules, version, done, undone, rules_version)
            recorded = {"type": event["type"], **event["data"]}  # action(event)
            target = target_seq(stream, recorded) if kind in not_game_actions else None
            stream = advance(stream, seq, recorded)
            done, undone = stream.done, stream.undone
        version = seq
        if done.head is not top:  # a new latest step: the one RECENT steps before it lets its state go
            recent.append(top)
            if len(recent) > streams.RECENT:
                let_go(recent.popleft())
        state = done.head.state
        keep(fact((seq, kind, hand_number(state), target, where)))
    return Folded(streams.Stream(rules, version, done, undone, rules_version), pvector(facts))


def _fact(fields: tuple[int, str, int, int | None, int]) -> Fact:
    """``Fact(*fields)`` without the named tuple's own ``__new__`` (a Python call per event)."""
    return tuple.__new__(Fact, fields)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for the block (``gc.disable``), and enable it
    again after it unless it was paused already (by another thread's fold: the first to
    pause is the last to resume, so it is never left off). Reference counting still frees
    whatever the block drops; only cycles wait, for the block's few milliseconds."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def extend(folded: Folded, seq: int, event_action: Mapping[str, Any]) -> Folded:
    """Fold one more event (``engine.stream.advance``) and return the new ``Folded``.

    Raises :class:`engine.core.RulesError` when the action is illegal now; ``folded`` is
    unchanged in that case.
    """
    stream = folded.stream
    kind = event_action["type"]
    target = streams.target_seq(stream, event_action)
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


def corrected(folded: Folded) -> dict[int, int]:
    """Each corrected entry with the ``correct`` now in force for it (``engine.stream.corrected_by``
    over the folded game's facts)."""
    return streams.corrected_by((fact.seq, fact.type, fact.target) for fact in folded.facts)


def out_of_record(folded: Folded) -> dict[int, int]:
    """The events whose recorded action a correction has put out of the current record, each
    with the ``correct`` in force (``engine.stream.out_of_record``): their cards are to be
    hidden from the public like an undone one's until their hand is over."""
    return streams.out_of_record((fact.seq, fact.type, fact.target) for fact in folded.facts)


def hand_of(folded: Folded, seq: int) -> int:
    """The hand event ``seq`` belongs to: its own fact's hand, or for a ``correct`` (and an
    undo or redo of one) the hand of the entry it corrected."""
    facts = folded.facts
    fact = facts[seq - 1]
    seen = {seq}
    while fact.type in (streams.CORRECT, streams.UNDO, streams.REDO) and fact.target is not None \
            and fact.target not in seen:
        seen.add(fact.target)
        fact = facts[fact.target - 1]
    return int(fact.hand)


def event_log(folded: Folded, events: Iterable[Mapping[str, Any]], full: bool) -> list[dict[str, Any]]:
    """``events`` (any slice of the stored log up to ``folded.version``) as the API shows
    them: each with ``undone`` and ``corrected_by`` (the ``correct`` in force for it, or
    None), its data redacted for a reader without the token while its hand is not over
    (:func:`shown_data`); ``hash`` always, ``salt`` only where the data is shown in full
    (api.md, "A tamper-evident record")."""
    cancelled = undone(folded)
    fixed = corrected(folded)
    events = list(events)
    kept = None if full else hidden(folded, events)
    out = []
    for event in events:
        data = shown_data(folded, event, hand_of(folded, event["seq"]), full, kept)
        shown = {**event, "data": data, "undone": event["seq"] in cancelled, "corrected_by": fixed.get(event["seq"])}
        if not full and data != event["data"]:  # its salt would let a reader try every hidden card
            shown.pop("salt", None)
        out.append(shown)
    return out


def kept_secret(folded: Folded, events: Iterable[Mapping[str, Any]]) -> dict[int, set[Any]]:
    """The cards that ``folded``'s record names in each hand that is over, yet its public view
    never shows (a Toepen folder's dead cards, an undone laundry's cards of a folder …): the
    cards of its stored events (``events``: the whole log) less those the public event log
    names (:func:`event_log`). A what-if fork that shares such a hand must not name them
    (api.md, "Forks share hands"; ``service.record.secrecy``)."""
    events = list(events)
    rules, state = folded.stream.rules, folded.stream.state
    hands = [hand_of(folded, event["seq"]) for event in events]
    recorded = secrecy.cards_by_hand(zip(hands, (event["data"] for event in events), strict=True))
    public = secrecy.cards_by_hand(zip(hands, (event["data"] for event in event_log(folded, events, False)), strict=True))
    return {hand: cards - public.get(hand, set()) for hand, cards in recorded.items()
            if rules.hand_over(state, hand) and cards - public.get(hand, set())}


def named_publicly(folded: Folded, events: Iterable[Mapping[str, Any]]) -> dict[int, set[Any]]:
    """The cards ``folded``'s public event log names, per hand (``events``: the whole log)."""
    events = list(events)
    shown_log = event_log(folded, events, False)
    return secrecy.cards_by_hand((hand_of(folded, event["seq"]), event["data"]) for event in shown_log)


def shown_data(folded: Folded, event: Mapping[str, Any], hand: int, full: bool,
               kept: set[int] | None = None) -> dict[str, Any]:
    """The ``data`` of ``event`` (recorded in hand ``hand``) as a reader may see it now.

    With the token (``full``) everything; otherwise the game's ``public_action`` copy for
    that hand in the current state (its ``redact`` copy while the hand is in play; cards the
    rules never reveal, such as a Toepen folder's dead cards, stay out after it too), and
    without the cards back in a hand of an event :func:`hidden` now (``kept``: that set,
    computed here when not given). Bookkeeping events are never redacted, but a
    ``correct``'s ``action`` is, like the action itself; ``hand`` is then its target's
    (:func:`hand_of`).
    """
    data = dict(event["data"])
    if full or event["type"] in PUBLIC or not hand:
        return data
    if kept is None:
        kept = hidden(folded, [event])
    rules, state = folded.stream.rules, folded.stream.state
    if event["type"] == streams.CORRECT:  # its action redacted like the action itself
        return correct_data(rules, state, hand, data, event["seq"] in kept)
    return secrecy.public_data(rules, state, hand, action(event), event["seq"] in kept)


def hidden(folded: Folded, events: Iterable[Mapping[str, Any]]) -> set[int]:
    """The seqs among ``events`` whose recorded cards are back in a hand and still secret now
    (``replays.secrecy.hidden`` over the folded game's facts)."""
    facts = [(fact.seq, fact.type, fact.hand, fact.target) for fact in folded.facts]
    actions = {event["seq"]: action(event) for event in events if event["type"] not in PUBLIC}
    return secrecy.hidden(folded.stream.rules, folded.stream.state, facts, actions)


def correct_data(rules: GameRules, state: Any, hand: int, data: Mapping[str, Any], is_hidden: bool = False) -> dict[str, Any]:
    """The ``data`` of a ``correct`` event whose target is in hand ``hand`` as a reader
    without the token may see it in ``state``: its ``action`` redacted like that action
    recorded on its own (``replays.secrecy.public_data``; ``is_hidden``: the correction is
    out of the record and its cards back in a hand)."""
    inner = data.get("action")
    if not isinstance(inner, Mapping):
        return dict(data)
    return {**data, "action": {"type": inner.get("type"), **secrecy.public_data(rules, state, hand, inner, is_hidden)}}
