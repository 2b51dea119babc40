"""Folding a game's event stream: effective actions, undo and redo.

Rules of the stream (``../shared/spec/recording.md``, "Undo and redo"):

- ``undo`` cancels the most recent *effective* action; ``game_created`` cannot be undone
  (``nothing_to_undo``).
- ``redo`` restores the most recently undone action, only while no new action has been
  recorded since (``nothing_to_redo``); undo and redo stack.
- a new action clears what could be redone; a ``note`` changes nothing at all.
- ``abandon`` (recording.md, "Bookkeeping actions") is an ordinary action folded here for
  every game: the game stands as it was, :func:`status` says ``abandoned``, and only undo,
  redo and notes may follow.
- ``correct`` (recording.md, "Correcting an earlier entry") replaces an effective game
  action (its ``target``) with another one and folds every later effective action after it
  again (:func:`correct`); it is an action for undo and redo like any other.

Also here, the same for every game: :func:`target` (what an undo or redo acts on) with its
:func:`summary`, :func:`actions` (``GET …/actions`` with the bookkeeping entries) and the
state's :func:`status_sentence`.

A :class:`Stream` is immutable (named tuples, cheap to build). Its effective actions and its redo stack are linked lists
of :class:`Step` (each giving the state right after that action), so recording, undoing
and redoing cost the same whatever the length of the game: undo pops a step, redo pushes the
very step it popped (its state is still right, because nothing but notes came between).
A whole-log fold keeps the state of one step in :data:`KEEP_EVERY` along the chain
(:func:`let_go`); an undo that reaches a step whose state it let go of folds it again from
the one kept below it (at most ``KEEP_EVERY - 1`` actions), once.

Rules versions: ``game_created`` names the ``rules_version`` the game was recorded under.
A version in the engine module's ``SUPPORTED_VERSIONS`` that is older than its
``RULES_VERSION`` is read through the module's ``upcast(version, action)``: every event of
that game (``game_created`` included) is turned into the current version's shape and meaning
before the reducer sees it. Any other version is refused with
:class:`UnknownRulesVersion`, never folded with a meaning it did not have.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Set
from typing import Any, NamedTuple

from engine.core import PAST_TENSE, Action, OptionError, RulesError, without_hand_cards
from engine.interface import GameRules

UNDO, REDO, NOTE, CREATED = "undo", "redo", "note", "game_created"
#: The bookkeeping action that fixes an earlier entry (recording.md, "Correcting an earlier entry").
CORRECT = "correct"
#: The bookkeeping action that stops a game (recording.md, "Bookkeeping actions").
ABANDON = "abandon"
#: A game's ``status`` (api.md, ``GET /games/<id>``): the engine's two, and an abandoned game.
IN_PROGRESS, FINISHED, ABANDONED = "in_progress", "finished", "abandoned"
#: Event types handled here rather than by a game's reducer.
BOOKKEEPING = frozenset({UNDO, REDO, NOTE, ABANDON, CORRECT})
#: Event types that are neither the target nor the replacement of a correction: the
#: bookkeeping actions (recording.md, "Bookkeeping actions": ``adjust`` among them) and
#: ``game_created``.
NOT_CORRECTABLE = BOOKKEEPING | {CREATED, "adjust"}
#: Event types :func:`advance` folds itself rather than through the game's ``apply``.
NOT_GAME_ACTIONS = BOOKKEEPING | {CREATED}
#: The effective actions whose step holds the state under it as it was.
_SAME_STATE = frozenset({ABANDON, CORRECT})
#: The refusal of any action but undo, redo and note in an abandoned game.
ABANDONED_MESSAGE = "The game was abandoned: nothing more can be recorded (undo the abandon to go on)."


class UnknownRulesVersion(OptionError):
    """A ``game_created`` whose ``rules_version`` this engine module cannot rebuild."""

    def __init__(self, game: str, version: object, supported: Iterable[int]) -> None:
        known = ", ".join(str(v) for v in sorted(supported))
        super().__init__("rules_version", f"{game} rules version {version!r} is unknown here (supported: {known}).")
        self.version = version


class CorrectionConflict(RulesError):
    """A correction refused because a later effective action no longer fits after it
    (409 ``correction_conflict``): ``conflicts_with`` is that action's seq, ``cause`` the
    rules code it now gets, ``message`` names it and says why in the rules' own sentence."""

    def __init__(self, conflicts_with: int, cause: str, message: str) -> None:
        super().__init__("correction_conflict", message)
        self.conflicts_with = conflicts_with
        self.cause = cause


class Fix(NamedTuple):
    """What a ``correct`` step changed (kept on its :class:`Step`).

    ``prior`` is the chain of effective actions before the correction (an undo of the
    correction puts it back), ``below`` the corrected chain under the ``correct`` step (a
    redo puts it back), ``stood`` the target's step as it stood before, ``replacement`` the
    step that took its place (the target's seq, the replacement action, the state after it).
    """

    prior: Link
    below: Link
    stood: Step
    replacement: Step


#: A fold (:func:`let_go`) keeps the state of every step whose :attr:`Step.depth` is a
#: multiple of this, and refolds any other from the one kept below it when it is read.
KEEP_EVERY = 32
#: A fold lets a step's state go only once this many later steps have been the latest after
#: it, so that undoing the last few actions of a game just folded refolds nothing.
RECENT = 8

#: The state of a step that a fold let go of (:func:`let_go`): refolded when read.
_GONE: Any = object()


class Step:
    """One effective action: its ``seq``, the action and the game state right after it
    (``state``); ``fix`` is set on a ``correct`` step only.

    A step is a value (equal to another with the same four fields; never changed as far as
    a reader can tell). The stream's own steps also know the chain they were folded on
    (``base``: the link below them, or None for ``game_created``), the rules that folded
    them and their ``depth`` (how many steps are below them). That lets a whole-log fold
    (:func:`let_go`) keep the state of only one step in :data:`KEEP_EVERY` along a chain:
    the state of any other is folded again from the nearest kept state below it when it is
    first read (at most ``KEEP_EVERY - 1`` applies, the same state the rules gave the first
    time: they are pure) and kept from then on.
    """

    __slots__ = ("seq", "action", "fix", "depth", "_state", "_base", "_rules")

    seq: int
    action: Action
    fix: Fix | None
    depth: int

    def __init__(self, seq: int, action: Action, state: Any, fix: Fix | None = None,
                 base: Link | None = None, rules: GameRules | None = None) -> None:
        self.seq = seq
        self.action = action
        self.fix = fix
        self.depth = 0 if base is None else base.head.depth + 1
        self._state = state
        self._base = base
        self._rules = rules

    @property
    def state(self) -> Any:
        """The game state right after this step's action (refolded if a fold let it go)."""
        state = self._state
        if state is _GONE:
            state = self._state = _refold(self)
        return state

    def _replace(self, **changes: Any) -> Step:
        """A new step with ``changes`` (any of ``seq``, ``action``, ``state``, ``fix``), its
        state held (no longer refolded from a chain: its action may have changed)."""
        fields = {"seq": self.seq, "action": self.action, "state": self.state, "fix": self.fix, **changes}
        return Step(**fields)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Step):
            return NotImplemented
        return (self.seq, self.action, self.fix) == (other.seq, other.action, other.fix) and self.state == other.state

    __hash__ = None  # type: ignore[assignment]  # a value holding a dict, like the named tuple it was

    def __repr__(self) -> str:
        return f"Step(seq={self.seq!r}, action={self.action!r}, state={self.state!r}, fix={self.fix!r})"


def _refold(step: Step) -> Any:
    """The state after ``step``, folded again from the nearest step below it whose state is
    kept (through the chain each was folded on): a game action through the rules' ``apply``;
    an ``abandon`` or a ``correct`` leaves the state below it as it was."""
    pending: list[Step] = []
    while step._state is _GONE:
        pending.append(step)
        assert step._base is not None  # only a step with a chain below it lets its state go
        step = step._base.head
    state = step._state
    for step in reversed(pending):
        if step.action["type"] not in _SAME_STATE:
            assert step._rules is not None
            state = step._rules.apply(state, step.action)
    return state


def let_go(step: Step) -> None:
    """Let go of ``step``'s state unless its depth is a multiple of :data:`KEEP_EVERY` (or it
    has no chain below it): it is refolded when next read (:attr:`Step.state`). Only for a
    step no reader holds yet (a whole-log fold's own steps, ``replays.replay.fold``), so
    that the memory a long game's fold keeps is one state in :data:`KEEP_EVERY`, not one per event."""
    if step.depth % KEEP_EVERY and step._base is not None and step._rules is not None:
        step._state = _GONE


class Link(NamedTuple):
    """A cons cell: ``head`` on top of the stack ``rest``."""

    head: Step
    rest: Link | None


class Stream(NamedTuple):
    """The folded stream of one game.

    ``rules`` is the game's engine module, ``version`` the seq of the last event folded,
    ``done`` the effective actions (top = latest; the bottom step is ``game_created``),
    ``undone`` the actions that ``redo`` can restore (top = next to restore),
    ``rules_version`` the version the game was recorded under (its actions are upcast
    from it when it is older than the module's ``RULES_VERSION``).
    """

    rules: GameRules
    version: int
    done: Link
    undone: Link | None
    rules_version: int | None = None

    @property
    def state(self) -> Any:
        """The current game state (the state after the latest effective action)."""
        return self.done.head.state


def start(rules: GameRules, created: Mapping[str, Any]) -> Stream:
    """Begin a stream from the ``game_created`` event data (seq 1).

    ``created`` holds ``players``, ``options`` (resolved), ``visibility``, ``dealer`` or
    ``first_player`` and ``rules_version``. Raises :class:`engine.core.OptionError` when the
    rules refuse the set-up, :class:`UnknownRulesVersion` (an ``OptionError``) when the
    module cannot rebuild that rules version.
    """
    version = rules_version_of(rules, created)
    action = {"type": CREATED, **created}
    if version != rules.RULES_VERSION:
        action = {**rules.upcast(version, action), "rules_version": rules.RULES_VERSION}
    state = rules.initial_state({k: v for k, v in action.items() if k != "type"})
    return Stream(rules, 1, Link(Step(1, action, state), None), None, version)


def rules_version_of(rules: GameRules, created: Mapping[str, Any]) -> int:
    """The ``rules_version`` of a ``game_created`` (the module's current one when absent).

    Raises :class:`UnknownRulesVersion` unless it is one of the module's
    ``SUPPORTED_VERSIONS``.
    """
    version = created.get("rules_version", rules.RULES_VERSION)
    supported = rules.SUPPORTED_VERSIONS
    if isinstance(version, bool) or not isinstance(version, int) or version not in supported:
        raise UnknownRulesVersion(rules.GAME, version, supported)
    return version


def advance(stream: Stream, seq: int, action: Action) -> Stream:
    """Fold one more event (number ``seq``) into ``stream`` and return the new stream.

    ``action`` is ``{"type": ..., **fields}``. ``abandon`` (recording.md, "Bookkeeping
    actions") is folded here for every game: an ordinary action (undo takes it off) that
    leaves the game state as it was and makes the game :func:`abandoned`; ``correct`` is
    :func:`correct`. Raises :class:`RulesError` when the action is illegal now
    (``nothing_to_undo``, ``nothing_to_redo``, :func:`correct`'s refusals, ``game_over`` for an abandon of a game that is over and for any
    action but undo, redo and note in an abandoned game, or the game's own codes); the
    given stream is unchanged in that case.
    """
    kind = action["type"]
    rules, done = stream.rules, stream.done
    if kind not in NOT_GAME_ACTIONS:  # one of the game's own actions: the common case, first
        if done.head.action["type"] == ABANDON:  # abandoned(stream)
            raise RulesError("game_over", ABANDONED_MESSAGE)
        if stream.rules_version is not None and stream.rules_version != rules.RULES_VERSION:
            action = rules.upcast(stream.rules_version, action)
        return Stream(rules, seq, game_step(rules, done, seq, {**action, "seq": seq}), None, stream.rules_version)
    if kind == UNDO:
        if done.rest is None:
            raise RulesError("nothing_to_undo", "There is nothing to undo: no move has been recorded yet.")
        top = done.head
        below = done.rest if top.fix is None else top.fix.prior  # a correction: the entry as it was
        return Stream(rules, seq, below, Link(top, stream.undone), stream.rules_version)
    if kind == REDO:
        if stream.undone is None:
            raise RulesError("nothing_to_redo", "There is nothing to redo: no undone move can be restored.")
        top = stream.undone.head
        under = done if top.fix is None else top.fix.below
        return Stream(rules, seq, Link(top, under), stream.undone.rest, stream.rules_version)
    if kind == NOTE:
        return Stream(rules, seq, done, stream.undone, stream.rules_version)
    if kind == CREATED:
        raise RulesError("wrong_phase", "The game has already been created.")
    if abandoned(stream):
        raise RulesError("game_over", ABANDONED_MESSAGE)
    if kind == ABANDON:
        if rules.status(stream.state) != IN_PROGRESS:
            raise RulesError("game_over", "The game is over: it can no longer be abandoned.")
        step = Step(seq, {**action, "seq": seq}, stream.state, base=done, rules=rules)  # the game stands as it was
        return Stream(rules, seq, Link(step, done), None, stream.rules_version)
    return correct(stream, seq, action)  # kind == CORRECT


def game_step(rules: GameRules, done: Link, seq: int, action: Action) -> Link:
    """The chain ``done`` with one more game action on top: ``action`` (the game's own, in
    the current rules version, ``seq`` among its fields) applied by the rules to the state
    of the latest step. Raises what the rules' ``apply`` raises. What :func:`advance` does
    for a game action, which a whole-log fold (``replays.replay.fold``) calls directly."""
    return _link((Step(seq, action, rules.apply(done.head.state, action), None, done, rules), done))


def _link(cell: tuple[Step, Link | None]) -> Link:
    """``Link(*cell)`` without the named tuple's own ``__new__`` (a Python call per event)."""
    return tuple.__new__(Link, cell)


def correct(stream: Stream, seq: int, action: Action) -> Stream:
    """Fold a ``correct`` event (number ``seq``): ``{"type": "correct", "target": <seq>,
    "action": {...one game action...}, "reason"?}`` (recording.md, "Correcting an earlier
    entry"; api.md, ``POST …/correct``).

    The target (named by the seq it was first recorded with) must be an effective game
    action; its action is replaced by the replacement, folded from the state before it
    (it keeps the target's seq), and every later effective action is folded after it again,
    in order, once: the cost is that of the actions after the target, never of the whole
    game. A later ``correct`` of the same target replaces the earlier one (the chain holds
    the entry now in force); the ``correct`` becomes the latest effective action (undo takes
    it off and puts the chain back as it was) and clears what could be redone.

    Raises :class:`RulesError`: ``nothing_to_correct`` (the target is ``game_created``, an
    undone action, a bookkeeping event or outside the log, or the replacement is JSON-equal
    to the entry now in force), ``wrong_phase`` (a bookkeeping replacement, a deal replaced
    by something else or the other way round: a deal is corrected only in what it lists), the
    replacement's own rules code when it breaks the rules at that point, and
    :class:`CorrectionConflict` (``correction_conflict``) naming the first later effective
    action that no longer fits. The given stream is unchanged in every case.
    """
    rules = stream.rules
    number, replacement = action.get("target"), dict(action.get("action") or {})
    above: list[Step] = []  # the effective steps after the target, latest first
    link: Link | None = stream.done
    while link is not None and isinstance(number, int) and link.head.seq > number:
        above.append(link.head)
        link = link.rest
    if link is None or link.head.seq != number or link.rest is None or link.head.action["type"] in NOT_CORRECTABLE:
        raise RulesError("nothing_to_correct", _no_target(number, link))
    stood, base = link.head, link.rest
    kind = replacement.get("type")
    if not isinstance(kind, str) or kind in NOT_CORRECTABLE:
        raise RulesError("wrong_phase", "A correction puts a game action in place of another: an undo, redo, note, "
                                        "ruling or abandon cannot be one.")
    if (kind == "deal") != (stood.action["type"] == "deal"):
        raise RulesError("wrong_phase", f"That entry ({summary(rules, stood, True)}) is "
                                        f"{'a deal' if kind != 'deal' else 'not a deal'}: a deal is corrected only in "
                                        "what it lists, and only a deal can take its place.")
    if stream.rules_version is not None and stream.rules_version != rules.RULES_VERSION:
        replacement = rules.upcast(stream.rules_version, replacement)
    if replacement == {k: v for k, v in stood.action.items() if k != "seq"}:
        raise RulesError("nothing_to_correct", f"That entry already reads {summary(rules, stood, True)}: "
                                               "there is nothing to correct.")
    placed = {**replacement, "seq": number}
    fixed = Step(number, placed, rules.apply(base.head.state, placed), base=base, rules=rules)
    chain = Link(fixed, base)
    for step in reversed(above):
        state = chain.head.state
        kind = step.action["type"]
        try:
            if kind == CORRECT:  # an earlier correction of a later entry stays in force
                step = Step(step.seq, step.action, state, step.fix, base=chain, rules=rules)
            elif kind == ABANDON:
                if rules.status(state) != IN_PROGRESS:
                    raise RulesError("game_over", "The game is over: it can no longer be abandoned.")
                step = Step(step.seq, step.action, state, base=chain, rules=rules)
            else:
                step = Step(step.seq, step.action, rules.apply(state, step.action), base=chain, rules=rules)
        except RulesError as err:
            where = place(rules, state, step.state, step.action)
            raise CorrectionConflict(
                step.seq, err.code,
                f"{'In ' + where + ', ' if where else ''}{summary(rules, step, True)}, which no longer fits: "
                f"{err.message}") from err
        chain = Link(step, chain)
    top = Step(seq, {**action, "seq": seq}, chain.head.state, Fix(stream.done, chain, stood, fixed), base=chain,
               rules=rules)
    return stream._replace(version=seq, done=Link(top, chain), undone=None)


def _no_target(number: object, link: Link | None) -> str:
    """Why event ``number`` cannot be corrected (``link``: where the walk down the chain stopped)."""
    if not isinstance(number, int) or isinstance(number, bool) or number < 1:
        return "Name the entry to correct by its number in the record (its seq)."
    if link is not None and link.head.seq == number:
        kind = link.head.action["type"]
        if kind == CREATED:
            return "The game's setup (its seats and options) cannot be corrected."
        return (f"That entry is {_BOOKKEEPING_WORDS.get(kind, 'a bookkeeping entry')}, not a game action: it cannot "
                "be corrected.")
    return ("That entry is not in force now (undone, a bookkeeping entry, or not in the record): only a move in "
            "force can be corrected.")


#: A bookkeeping entry as :func:`_no_target` names it.
_BOOKKEEPING_WORDS = {UNDO: "an undo", REDO: "a redo", NOTE: "a note", ABANDON: "the abandon", CORRECT: "a correction",
                      "adjust": "a ruling"}


def place(rules: GameRules, before: Any, after: Any, action: Mapping[str, Any]) -> str:
    """Where an action was recorded, as card players say it (ui.md, "Words for card players"):
    ``"hand 2, trick 1"``, ``"round 1, turn 3"``, ``"turn 7"`` (a game of one round played
    turn by turn: its score sheet is kept per turn), ``"hand 2"`` for a deal; ``""`` before
    the first deal. ``before`` and ``after`` are the states around it: the hand is the one
    after it (a deal starts one), the trick or turn the one in progress before it (the
    engine's ``position``), so no event number is needed."""
    return place_words(rules, rules.hand_number(after), rules.position(before), str(action.get("type")))


def place_words(rules: GameRules, hand: int, position: int, kind: str) -> str:
    """:func:`place` from the numbers: ``hand`` the hand or round after the action, ``position``
    the trick or turn in progress before it (as ``replays.replay.Fact`` keeps them), ``kind``
    the action's type."""
    where = position if kind != "deal" else 0
    if not hand:
        return ""
    if rules.SHEET.per_turn:
        return f"{rules.PLAY_UNIT} {where}" if where else "the deal"
    return f"{rules.HAND_WORD} {hand}, {rules.PLAY_UNIT} {where}" if where else f"{rules.HAND_WORD} {hand}"


def before(stream: Stream, seq: int) -> Stream | None:
    """The stream just before the effective action ``seq`` of the current record (its
    corrections included): what a correction of ``seq`` starts from (``GET …/actions?before=``).
    Its ``done`` is the chain under that action and nothing can be redone. None when ``seq``
    is not an effective action now. Walks down from the latest step (the cost of the
    actions after ``seq``)."""
    link: Link | None = stream.done
    while link is not None and link.head.seq > seq:
        link = link.rest
    if link is None or link.head.seq != seq or link.rest is None:
        return None
    return stream._replace(version=seq - 1, done=link.rest, undone=None)


def correctable(stream: Stream) -> bool:
    """True when some effective game action exists and the game is not abandoned: ``correct``
    is open (``GET …/actions``). Walks down from the latest step to the first game action."""
    if abandoned(stream):
        return False
    link: Link | None = stream.done
    while link is not None:
        if link.head.action["type"] not in NOT_CORRECTABLE:
            return True
        link = link.rest
    return False


def abandoned(stream: Stream) -> bool:
    """True when the latest effective action is an ``abandon`` (nothing but notes can follow
    one, and undo takes it off)."""
    return bool(stream.done.head.action["type"] == ABANDON)


def status(stream: Stream) -> str:
    """The game's ``status``: ``abandoned`` (:func:`abandoned`), else the game's own
    ``status`` of the current state (``in_progress`` or ``finished``)."""
    return ABANDONED if abandoned(stream) else str(stream.rules.status(stream.state))


def seen_state(stream: Stream, full: bool) -> Any:
    """The current state as this reader knows it: the whole state for the token (``full``),
    else the game's ``public_state`` (no card still hidden in an open game's hands), so that
    nothing a public read computes depends on hidden cards (api.md, "Views and secrets")."""
    return stream.state if full else stream.rules.public_state(stream.state)


def view(stream: Stream, full: bool) -> dict[str, Any]:
    """The API's ``state`` of the current state: the game's ``view`` (``full``: the reader
    holds the token), for an abandoned game with ``status`` and ``phase`` ``abandoned`` and
    nobody ``to_act``, ``next_dealer`` null (it is over: nobody deals next) and no
    ``winners``/``losers`` (abandon is refused once a game is over); with its
    ``status_sentence`` (:func:`status_sentence`), written from this view alone."""
    out: dict[str, Any] = stream.rules.view(seen_state(stream, full), full)
    if abandoned(stream):
        out = {**out, "status": ABANDONED, "phase": ABANDONED, "to_act": []}
        if "next_dealer" in out:  # an abandoned game is over: nobody deals next
            out["next_dealer"] = None
    out["status_sentence"] = status_sentence(stream.rules, out)
    return out


def status_sentence(rules: GameRules, state: Mapping[str, Any]) -> str:
    """Whose turn it is, or what happens next, in card players' words: the state's
    ``status_sentence`` (docs/decisions.md, "The status sentence"), which the game page shows
    as its headline and the table page as its status line ("Cas to play", "Ann knocked — Bob:
    stay or fold?", "Deal round 2 — dealer Cas", "Game over: Ann won.").

    ``state`` is the API's state as one reader sees it (:func:`view`); the sentence is written
    from its ``status``, ``phase`` and ``to_act`` and the names and counts beside them, never
    from a card, so it names no card, whoever reads it.
    """
    kind, to_act = rules.GAME, list(state.get("to_act") or [])
    if state["status"] == "finished":
        winners = list(state.get("winners") or [])
        return f"Game over: {_names(winners)} won." if winners else "Game over."
    if state["status"] == ABANDONED:
        return "The game was abandoned."
    phase, who = state["phase"], _names(to_act)
    if phase == "deal":
        if kind == "fuji_flush":
            return f"Deal — {state.get('first_player') or ''} plays first"
        number = (state.get("hand_number") or 0) + 1
        return f"Deal {rules.HAND_WORD} {number} — dealer {state.get('next_dealer') or state.get('dealer')}"
    if not to_act:
        return "Waiting for the next move"
    if kind == "toepen":
        if phase == "answering":
            return f"{state.get('last_knocker')} knocked — {who}: stay or fold?"
        knocked, may_fold = state.get("last_knocker"), list(state.get("can_fold") or [])
        if knocked and may_fold:
            return f"{who} to play — {knocked} knocked (stake {state.get('stake')}): {_names(may_fold)} may fold"
        return f"{who} to play"
    if kind == "fool" and phase == "reveal":  # "reveal Ann's and Cas's cards", each name its own
        return f"Round over: reveal {_names([name + chr(39) + 's' for name in to_act])} cards"
    if kind == "stop_the_bus":
        if phase == "showdown":
            return f"Showdown: {who} to show"
        if phase == "final_turns":
            return f"{state.get('stopped_by')} stopped the bus — {who} to swap"
        return f"{who} to swap" + (" or stop" if to_act[0] in (state.get("can_stop") or []) else "")
    return f"{who} to play"


def _names(names: list[str]) -> str:
    """``"Ann"``, ``"Ann and Bob"``, ``"Ann, Bob and Cas"``."""
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def results(stream: Stream) -> dict[str, dict[str, Any]]:
    """The game's ``results`` (each player's result and stats), with every ``result``
    ``abandoned`` in an abandoned game: never a win or a loss."""
    out: dict[str, dict[str, Any]] = stream.rules.results(stream.state)
    if abandoned(stream):
        out = {name: {**entry, "result": ABANDONED} for name, entry in out.items()}
    return out


class Replayed(NamedTuple):
    """One event seen during a replay: the event, the stream after it, and what it did.

    ``target`` is the seq of the action an ``undo`` cancelled or a ``redo`` restored, or
    the entry a ``correct`` corrected.
    """

    seq: int
    action: Action
    stream: Stream
    target: int | None


def replay(rules: GameRules, events: Iterable[tuple[int, Action]]) -> Iterator[Replayed]:
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
        stream, number = advance(stream, seq, action), target_seq(stream, action)
        yield Replayed(seq, action, stream, number)


def target(stream: Stream, kind: str) -> Step | None:
    """The effective action an ``undo`` (``kind``) would cancel now, or the undone action a
    ``redo`` would restore; None when there is none (the undo or redo would be refused) and
    for every other ``kind``. The one place that says what undo and redo act on."""
    if kind == UNDO:
        return stream.done.head if stream.done.rest is not None else None
    if kind == REDO:
        return stream.undone.head if stream.undone is not None else None
    return None


def target_seq(stream: Stream, action: Mapping[str, Any]) -> int | None:
    """The seq an event ``action`` about to be folded into ``stream`` acts on: what an undo
    cancels or a redo restores (:func:`target`), the ``target`` of a ``correct``, else None
    (:attr:`Replayed.target`, the folded game's facts)."""
    kind = action["type"]
    if kind == CORRECT:
        number = action.get("target")
        return number if isinstance(number, int) else None
    step = target(stream, kind)
    return None if step is None else step.seq


def target_json(rules: GameRules, step: Step, full: bool, hidden: Set[int] = frozenset()) -> dict[str, Any]:
    """``{"seq", "type", "summary"}`` of an undo's or redo's target ``step`` (api.md, undo's
    ``target``), the :func:`summary` written for this reader (``full``: the token holder);
    ``hidden``: the seqs whose cards a public reader may not see (``replays.secrecy.hidden``),
    whose summary leaves the card out ("Cas played a card"; for a ``correct``, both its
    replacement's card and the card first recorded: "Fix: Bob played a card").

    A ``correct`` in force reads in card players' words, naming what now stands and what it
    replaced (api.md, ``POST …/correct``): "Fix: Dee played 9♣, not 8♣" for the token holder,
    and publicly too once the card first recorded is public; while it is not (its entry is
    in ``hidden``: the hand is in play, or the card is dead), publicly "Fix: Dee played 9♣;
    another card was first recorded", or what else differed ("Fix: Cas played 10♣, not Bob")."""
    if not full and step.seq in hidden:
        step = withheld(step)
    elif not full and step.fix is not None:
        return {"seq": step.seq, "type": step.action["type"],
                "summary": public_fix(rules, step.fix, step.fix.stood.seq in hidden)}
    return {"seq": step.seq, "type": step.action["type"], "summary": summary(rules, step, full)}


def public_fix(rules: GameRules, fix: Fix, first_hidden: bool) -> str:
    """What a reader without the token reads of a ``correct`` in force (:func:`target_json`):
    the replacement, then the entry first recorded where it differs, its card left out while
    ``first_hidden`` (that card is back in a hand, or dead): "Fix: Dee played 9♣, not 8♣";
    "Fix: Dee played 9♣; another card was first recorded"; "Fix: Cas played 10♣, not Bob"."""
    now = summary(rules, fix.replacement, False)
    if not first_hidden:
        was = differing(now, summary(rules, fix.stood, False))
        return f"Fix: {now}" + (f", not {was}" if was else "")
    bare_now = summary(rules, withheld(fix.replacement), False)
    was = differing(bare_now, summary(rules, withheld(fix.stood), False))
    other = "deal" if fix.stood.action["type"] == "deal" else "card"
    return f"Fix: {now}" + (f", not {was}" if was else f"; another {other} was first recorded")


def withheld(step: Step) -> Step:
    """``step`` without the cards taken from (and now back in) a player's hand
    (``engine.core.without_hand_cards``); for a ``correct`` step, its replacement's cards and
    the target's cards as first recorded, which are what its :func:`summary` names."""
    if step.fix is not None:
        replacement, stood = step.fix.replacement, step.fix.stood
        fix = step.fix._replace(replacement=replacement._replace(action=without_hand_cards(replacement.action)),
                                stood=stood._replace(action=without_hand_cards(stood.action)))
        return step._replace(fix=fix)
    return step._replace(action=without_hand_cards(step.action))


def summary(rules: GameRules, step: Step, full: bool) -> str:
    """A short phrase naming who did what in ``step``, without what the rules derived from
    it: ``"Cas played 10♣"``, ``"Bob knocked"``, ``"Ann dealt"``, ``"Game abandoned"``; a
    ``correct`` step reads ``"Fix: Dee played 9♣, not 9♠"`` (its replacement's summary, then
    what differed in the entry first recorded: ``"Fix: Cas played 10♣, not Bob"``; for a reader
    without the token, ``full`` False, only the replacement: ``"Fix: Dee played 9♣"``), with no
    event number and no type name (ui.md, "Words for card players"; docs/corrections.md).
    It is the name of the Undo and Redo buttons, so it stays short: an abandon's reason is
    left to the timeline's ``describe``.

    ``rules`` is the game's engine module (its ``card_text`` writes a card, its ``redact``
    hides what a reader without the token, ``full`` False, may not see). The same words for
    every game; the timeline's ``describe`` adds the outcomes.
    """
    if step.fix is not None:  # a correct: "Fix: Dee played 9♣, not 9♠"
        now = summary(rules, step.fix.replacement, full)
        # the entry first recorded only for the token holder: its card may be back in a hand
        was = differing(now, summary(rules, step.fix.stood, True)) if full else ""
        return f"Fix: {now}" + (f", not {was}" if was else "")
    action = step.action if full else {"type": step.action["type"], **rules.redact(step.action)}
    kind = str(action["type"])
    who = str(action.get("player", ""))
    card = rules.card_text

    def cards(key: str) -> str:
        return " ".join(card(c) for c in action.get(key) or [])

    if kind == "deal":
        dealer = action.get("dealer") or rules.view(step.state, full).get("dealer")
        return f"{dealer} dealt" if dealer else "The cards were dealt"
    if kind == "play":  # a card back in a hand is left out (engine.core.without_hand_cards)
        return f"{who} played {card(action['card']) if 'card' in action else 'a card'}"
    if kind in ("reveal", "show"):
        return f"{who} {'revealed' if kind == 'reveal' else 'showed'} {cards('cards') or 'cards'}"
    if kind == "swap":
        if action.get("take_all"):
            return f"{who} exchanged the whole hand for the middle"
        return f"{who} took {card(action['take'])} and gave {card(action['give']) if 'give' in action else 'a card'}"
    if kind == "draw":
        return f"{who} drew {card(action['card'])}" if action.get("card") is not None else f"{who} drew a card"
    if kind == "challenge":
        return f"{who} challenged {action.get('target')}'s laundry"
    if kind == "adjust":
        amount = int(action["amount"])
        return f"Ruling: {who} {'+' if amount >= 0 else ''}{amount} ({action.get('reason', '')})"
    if kind == ABANDON:
        return "Game abandoned"
    return f"{who} {_VERBS.get(kind, kind)}".strip()


def differing(now: str, was: str) -> str:
    """What the phrase ``was`` says that ``now`` does not: the words after those both begin
    with ("Dee played 9♣" / "Dee played 9♠" → "9♠"), else the words before those both end with
    ("Cas played 10♣" / "Bob played 10♣" → "Bob"); "" when both read the same (a deal whose
    cards were fixed: "Ann dealt"), the whole of ``was`` when nothing is shared."""
    new, old = now.split(), was.split()
    if new == old:
        return ""
    head = 0
    while head < min(len(new), len(old)) and new[head] == old[head]:
        head += 1
    if head:
        return " ".join(old[head:])
    tail = 0
    while tail < min(len(new), len(old)) and new[-1 - tail] == old[-1 - tail]:
        tail += 1
    return " ".join(old[:len(old) - tail])


#: The past tense of the actions that take only a ``player`` (one wording: ``engine.core``).
_VERBS = PAST_TENSE


#: Game actions whose ``cards`` are chosen by the player: they get ``possible`` in table games.
CHOSEN = frozenset({"play", "reveal", "show", "swap"})


def actions(stream: Stream, full: bool, hidden: Set[int] = frozenset()) -> list[dict[str, Any]]:
    """``GET …/actions``: what can be recorded next, for a reader with (``full``) or without
    the token.

    The game's ``legal_actions`` (each entry whose ``cards`` is null and whose cards are
    chosen gets ``possible`` from the game's ``possible`` in a table game), then the
    bookkeeping actions open now (api.md): ``undo`` and ``redo`` with their ``target``
    (:func:`target_json`, ``hidden`` the seqs whose cards a public reader may not see),
    ``note`` (always), ``correct`` while :func:`correctable`, ``adjust`` (where the game's reducer has one
    in its ``HANDLERS``) and ``abandon`` while the game is in progress, with ``player`` and
    ``cards`` null. An abandoned game lists no game action.
    Reads the folded state only: nothing is applied.
    """
    rules, state = stream.rules, seen_state(stream, full)
    out: list[dict[str, Any]] = []
    for entry in [] if abandoned(stream) else rules.legal_actions(state, full):
        if entry.get("cards") is None and entry["type"] in CHOSEN and entry.get("player") is not None:
            possible = rules.possible(state, entry["player"])
            if possible is not None:
                entry = {**entry, "possible": possible}
        out.append(entry)
    for kind in (UNDO, REDO):
        step = target(stream, kind)
        if step is not None:
            out.append({"type": kind, "player": None, "cards": None, "target": target_json(rules, step, full, hidden)})
    out.append({"type": NOTE, "player": None, "cards": None})
    if correctable(stream):  # after a game is over too: a correction may reopen it
        out.append({"type": CORRECT, "player": None, "cards": None})
    if status(stream) == IN_PROGRESS:  # both refused once the game is over
        if "adjust" in rules.HANDLERS:
            out.append({"type": "adjust", "player": None, "cards": None})
        out.append({"type": ABANDON, "player": None, "cards": None})
    return out


def undone_by(corrections: Iterable[tuple[int, str, int | None]]) -> dict[int, int]:
    """The actions cancelled at the end of a log, each with the seq of the undo that cancelled it.

    ``corrections`` are ``(seq, type, target)`` of every event in order (``target`` the seq an
    undo cancelled or a redo restored, None for other events: :attr:`Replayed.target`, the
    folded game's facts). An action is cancelled when an undo took it off and no redo put it
    back (a new action after an undo leaves the undone actions cancelled for good). The one
    place that computes the cancelled actions: the event log's and the timeline's ``undone``
    and the timeline's ``undone_by`` read it.
    """
    out: dict[int, int] = {}
    for seq, kind, target in corrections:
        if target is None:
            continue
        if kind == UNDO:
            out[target] = seq
        elif kind == REDO:
            out.pop(target, None)
    return out


def corrected_by(corrections: Iterable[tuple[int, str, int | None]]) -> dict[int, int]:
    """Each corrected entry (the seq it was first recorded with) with the seq of the
    ``correct`` now in force for it (api.md, ``corrected_by`` in ``GET …/events``).

    ``corrections`` are ``(seq, type, target)`` of every event in order, as for
    :func:`undone_by` (a ``correct``'s target is the entry it corrects). A ``correct`` is in
    force when it is not cancelled (:func:`undone_by`) and no later ``correct`` in force
    names the same entry. Entries whose ``correct`` was undone are not listed: they read
    as first recorded again.
    """
    events = list(corrections)
    cancelled = undone_by(events)
    out: dict[int, int] = {}
    for seq, kind, target in events:
        if kind == CORRECT and target is not None and seq not in cancelled:
            out[target] = seq
    return out


def out_of_record(corrections: Iterable[tuple[int, str, int | None]]) -> dict[int, int]:
    """The events whose recorded game action is no longer in the current record because of a
    correction, each with the ``correct`` that put it out (the seq now in force for that entry).

    Listed: every corrected entry (its stored ``data`` was replaced: :func:`corrected_by`)
    and every ``correct`` that a later one of the same entry replaced (its ``data.action``
    is out too). Undone events are :func:`undone_by`'s. Their cards are like an undone
    play's (api.md, "Views and secrets"): recorded, but not in the record now, so a card they
    name may still be in a hand. ``corrections`` as for :func:`undone_by`.
    """
    events = list(corrections)
    cancelled = undone_by(events)
    in_force = corrected_by(events)
    out = dict(in_force)
    for seq, kind, target in events:
        if kind == CORRECT and target is not None and seq not in cancelled and in_force.get(target) != seq:
            out[seq] = in_force[target]
    return out


def cancelled(steps: Iterable[Replayed]) -> set[int]:
    """Return the seqs of actions that are cancelled at the end of ``steps`` (:func:`undone_by`)."""
    return set(undone_by((step.seq, step.action["type"], step.target) for step in steps))


def effective_seqs(stream: Stream) -> list[int]:
    """Return the seqs of the effective actions of ``stream``, oldest first."""
    seqs: list[int] = []
    link: Link | None = stream.done
    while link is not None:
        seqs.append(link.head.seq)
        link = link.rest
    seqs.reverse()
    return seqs
