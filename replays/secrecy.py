"""What a reader without the token may see of a recorded event, judged against the current record.

api.md, "Views and secrets": secrecy follows the **current** record, whatever moment a read is
about. An event whose recorded cards are no longer in the current record (today: an undone
play, show, reveal, swap …; its card is back in the player's hand) names a card the public
may not see until its hand is over. This module is the one place that says which events
those are and what the public sees of them; every read that shows events or past moments
(the event log and the exports through ``replays.replay.event_log``, the timeline, the
audits' corrections, ``states/<seq>`` and the replay through ``service.record.secrecy.state_after``,
the undo/redo ``target`` of ``GET …/actions``) asks it.

- :func:`withdrawn`: the seqs whose recorded cards are no longer in the current record, from
  the ``(seq, type, target)`` of every event (the folded game's facts). The one input: a
  new way for a card to leave the record (a correction) is one more line there.
- :func:`hidden`: those of them that name a card the public may not see now.
- :func:`public_data`: the ``data`` of any game action as the public sees it now.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Set
from typing import Any

from engine import stream as streams
from engine.core import without_hand_cards
from engine.interface import GameRules

#: An event as the folded game's facts keep it: ``(seq, type, hand, target)`` (``hand`` the
#: hand number right after it, ``target`` the seq an undo or redo acted on, else None).
Fact = tuple[int, str, int, int | None]


def withdrawn(corrections: Iterable[tuple[int, str, int | None]]) -> set[int]:
    """The seqs of the events whose recorded cards are no longer in the current record.

    ``corrections`` are ``(seq, type, target)`` of every event in order, as
    ``engine.stream.undone_by`` takes them: the actions cancelled now (undone and not
    redone) and the entries a correction has put out of the record (``engine.stream.
    out_of_record``: a corrected entry, and a correction replaced by a later one).
    Every other way a recorded card leaves the current record is added here.
    """
    listed = list(corrections)
    return set(streams.undone_by(listed)) | set(streams.out_of_record(listed))


def cards_public(rules: GameRules, state: Any, hand: int, event_action: Mapping[str, Any]) -> bool:
    """True when the cards that ``event_action`` (recorded in hand ``hand``) took from a hand
    may be shown publicly in ``state`` (the current state): that hand is over and the game
    shows that player's cards of it (a Toepen folder's unplayed cards are dead and never
    shown: asked of the game's ``public_action`` on that player's dealt hand)."""
    if not hand or not rules.hand_over(state, hand):
        return False
    owner = event_action.get("target") if event_action.get("type") == "challenge" else event_action.get("player")
    if owner is None:
        return True
    probe = rules.public_action(state, hand, {"type": "deal", "hands": {owner: []}})
    return owner in (probe.get("hands") or {})


def names_hand_cards(event_action: Mapping[str, Any]) -> bool:
    """True when ``event_action`` names a card taken from (and now back in) a player's hand."""
    return without_hand_cards(event_action) != dict(event_action)


def hidden(rules: GameRules, state: Any, facts: Iterable[Fact], actions: Mapping[int, Mapping[str, Any]]) -> set[int]:
    """The seqs of the :func:`withdrawn` events that name a card the public may not see in
    ``state`` (the current state): their hand is not over, or the game keeps that player's
    cards of it hidden for good.

    ``facts`` are every event's ``(seq, type, hand, target)``; ``actions`` the game actions
    by seq (``{"type", **data}``; only the withdrawn ones are read). Empty in a ``table``
    game (every state has ``visibility``): its record holds only cards the table has seen
    face up, none from a hand the scorekeeper knows.
    """
    if getattr(state, "visibility", "open") == "table":  # a table game records only what the table saw
        return set()
    listed = list(facts)
    hands = {seq: hand for seq, _kind, hand, _target in listed}
    targets = {seq: target for seq, kind, _hand, target in listed if kind == streams.CORRECT}
    out: set[int] = set()
    for seq in withdrawn((seq, kind, target) for seq, kind, _hand, target in listed):
        event_action = actions.get(seq)
        hand = hands.get(seq, 0)
        if event_action is not None and seq in targets:  # a correction out of the record: its replacement
            inner = event_action.get("action")
            event_action = inner if isinstance(inner, Mapping) else None
            hand = hands.get(targets[seq] or 0, hand)
        if event_action is None or not names_hand_cards(event_action):
            continue
        if not cards_public(rules, state, hand, event_action):
            out.add(seq)
    return out


def public_data(rules: GameRules, state: Any, hand: int, event_action: Mapping[str, Any], is_hidden: bool) -> dict[str, Any]:
    """The ``data`` of a game action of hand ``hand`` that a reader without the token may see
    in ``state`` (the current state): the game's ``public_action`` copy, without the cards
    back in a hand when the event is :func:`hidden` (``is_hidden``)."""
    shown = without_hand_cards(event_action) if is_hidden else dict(event_action)
    return {k: v for k, v in rules.public_action(state, hand, shown).items() if k != "type"}


def public_summary(rules: GameRules, seq: int, event_action: Mapping[str, Any], state: Any) -> str:
    """The timeline's sentence for a :func:`hidden` event: who did what, without the card
    ("Cas played a card."), ``state`` the state right after it."""
    step = streams.Step(seq, without_hand_cards(event_action), state)
    return streams.summary(rules, step, False) + "."


#: The fields of an action that name cards (a ``correct``'s ``action`` is read inside).
CARD_FIELDS = ("card", "cards", "give", "take", "centre", "hands")


def named_cards(data: Mapping[str, Any]) -> set[Any]:
    """The cards an event's ``data`` (as stored, or as a reader is shown it) names: its
    :data:`CARD_FIELDS` (a deal's ``hands`` by every player), a ``correct``'s ``action`` too."""
    out: set[Any] = set()
    for key in CARD_FIELDS:
        value = data.get(key)
        if isinstance(value, Mapping):
            value = [card for held in value.values() if isinstance(held, list) for card in held]
        if isinstance(value, list):
            out.update(card for card in value if isinstance(card, (str, int)))
        elif isinstance(value, (str, int)) and not isinstance(value, bool):
            out.add(value)
    inner = data.get("action")
    if isinstance(inner, Mapping):
        out |= named_cards(inner)
    return out


def cards_by_hand(entries: Iterable[tuple[int, Mapping[str, Any]]]) -> dict[int, set[Any]]:
    """The cards named per hand by ``(hand, data)`` pairs (:func:`named_cards`)."""
    out: dict[int, set[Any]] = {}
    for hand, data in entries:
        if hand:
            out.setdefault(hand, set()).update(named_cards(data))
    return out


def shown(past: streams.Stream) -> list[int]:
    """The seqs whose recorded cards a past moment ``past`` shows, oldest first: its effective
    actions as they stood then, each entry that a correction in force at that moment replaced
    given by that correction's seq instead (the moment shows the replacement's card, not the
    card first recorded), and of several corrections of one entry only the one in force then.

    So a moment after a correction is judged by what it shows: the corrected-away card is
    back in a hand, yet no moment after the correction names it (secrecy.md: "refused for
    every moment that shows such a card")."""
    steps: list[streams.Step] = []
    link: streams.Link | None = past.done
    while link is not None:
        steps.append(link.head)
        link = link.rest
    steps.reverse()
    in_force = {step.action.get("target"): step.seq for step in steps if step.action.get("type") == streams.CORRECT}
    out: list[int] = []
    for step in steps:
        if step.action.get("type") == streams.CORRECT:
            if in_force.get(step.action.get("target")) == step.seq:
                out.append(step.seq)
        elif step.seq not in in_force:
            out.append(step.seq)
    return out


def shows_hidden(effective: Iterable[int], hidden_seqs: Set[int]) -> int | None:
    """The first of the seqs a past moment shows (:func:`shown`) that is hidden now, else
    None: a past state that shows it names a card that is back in a hand (``states/<seq>``
    refuses it)."""
    return next((seq for seq in effective if seq in hidden_seqs), None)
