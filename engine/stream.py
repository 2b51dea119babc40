"""Folding a game's event stream: effective actions, undo and redo.

Rules of the stream (``../shared/spec/recording.md``, "Undo and redo"):

- ``undo`` cancels the most recent *effective* action; ``game_created`` cannot be undone
  (``nothing_to_undo``).
- ``redo`` restores the most recently undone action, only while no new action has been
  recorded since (``nothing_to_redo``); undo and redo stack.
- a new action clears what could be redone; a ``note`` changes nothing at all.

A :class:`Stream` is immutable (named tuples, cheap to build). Its effective actions and its redo stack are linked lists
of :class:`Step` (each holding the state right after that action), so recording, undoing
and redoing are O(1) whatever the length of the game: undo pops a step, redo pushes the
very step it popped (its state is still right, because nothing but notes came between).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from types import ModuleType
from typing import Any, NamedTuple

from engine.core import Action, RulesError

#: Event types handled here rather than by a game's reducer.
UNDO, REDO, NOTE, CREATED = "undo", "redo", "note", "game_created"
BOOKKEEPING = frozenset({UNDO, REDO, NOTE})


class Step(NamedTuple):
    """One effective action: its ``seq``, the action and the game state right after it."""

    seq: int
    action: Action
    state: Any


class Link(NamedTuple):
    """A cons cell: ``head`` on top of the stack ``rest``."""

    head: Step
    rest: Link | None


class Stream(NamedTuple):
    """The folded stream of one game.

    ``rules`` is the game's engine module, ``version`` the seq of the last event folded,
    ``done`` the effective actions (top = latest; the bottom step is ``game_created``),
    ``undone`` the actions that ``redo`` can restore (top = next to restore).
    """

    rules: ModuleType
    version: int
    done: Link
    undone: Link | None

    @property
    def state(self) -> Any:
        """The current game state (the state after the latest effective action)."""
        return self.done.head.state


def start(rules: ModuleType, created: Mapping[str, Any]) -> Stream:
    """Begin a stream from the ``game_created`` event data (seq 1).

    ``created`` holds ``players``, ``options`` (resolved), ``visibility``, ``dealer`` or
    ``first_player`` and ``rules_version``. Raises :class:`engine.core.OptionError` when the
    rules refuse the set-up.
    """
    state = rules.initial_state(created)
    action = {"type": CREATED, **created}
    return Stream(rules, 1, Link(Step(1, action, state), None), None)


def advance(stream: Stream, seq: int, action: Action) -> Stream:
    """Fold one more event (number ``seq``) into ``stream`` and return the new stream.

    ``action`` is ``{"type": ..., **fields}``. Raises :class:`RulesError` when the action is
    illegal now (``nothing_to_undo``, ``nothing_to_redo`` or the game's own codes); the
    given stream is unchanged in that case.
    """
    kind = action["type"]
    if kind == UNDO:
        if stream.done.rest is None:
            raise RulesError("nothing_to_undo", "There is nothing to undo: no move has been recorded yet.")
        return Stream(stream.rules, seq, stream.done.rest, Link(stream.done.head, stream.undone))
    if kind == REDO:
        if stream.undone is None:
            raise RulesError("nothing_to_redo", "There is nothing to redo: no undone move can be restored.")
        return Stream(stream.rules, seq, Link(stream.undone.head, stream.done), stream.undone.rest)
    if kind == NOTE:
        return Stream(stream.rules, seq, stream.done, stream.undone)
    if kind == CREATED:
        raise RulesError("wrong_phase", "The game has already been created.")
    action = {**action, "seq": seq}
    state = stream.rules.apply(stream.state, action)
    return Stream(stream.rules, seq, Link(Step(seq, action, state), stream.done), None)


class Replayed(NamedTuple):
    """One event seen during a replay: the event, the stream after it, and what it did.

    ``target`` is the seq of the action an ``undo`` cancelled or a ``redo`` restored.
    """

    seq: int
    action: Action
    stream: Stream
    target: int | None


def replay(rules: ModuleType, events: Iterable[tuple[int, Action]]) -> Iterator[Replayed]:
    """Yield the stream after every event of a stored log, in order.

    ``events`` are ``(seq, action)`` pairs starting with ``game_created``. A stored log was
    accepted once, so a :class:`RulesError` here means the rules changed under it; it is
    raised as is.
    """
    stream: Stream | None = None
    for seq, action in events:
        if stream is None:
            created = {k: v for k, v in action.items() if k != "type"}
            stream = start(rules, created)
            yield Replayed(seq, action, stream, None)
            continue
        target: int | None = None
        if action["type"] == UNDO:
            target = stream.done.head.seq
        elif action["type"] == REDO and stream.undone is not None:
            target = stream.undone.head.seq
        stream = advance(stream, seq, action)
        yield Replayed(seq, action, stream, target)


def cancelled(steps: Iterable[Replayed]) -> set[int]:
    """Return the seqs of actions that are cancelled at the end of ``steps``.

    An action is cancelled when an undo took it off and no redo put it back (a new action
    after an undo leaves the undone actions cancelled for good).
    """
    out: set[int] = set()
    for step in steps:
        if step.target is None:
            continue
        if step.action["type"] == UNDO:
            out.add(step.target)
        else:
            out.discard(step.target)
    return out


def effective_seqs(stream: Stream) -> list[int]:
    """Return the seqs of the effective actions of ``stream``, oldest first."""
    seqs: list[int] = []
    link: Link | None = stream.done
    while link is not None:
        seqs.append(link.head.seq)
        link = link.rest
    seqs.reverse()
    return seqs
