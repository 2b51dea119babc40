"""Random complete games of Toepen (``bench.playouts``, run by ``tests/test_playouts.py``).

Every step picks one of the actions ``legal_actions`` offers; open games deal from a shuffled
32-card deck. Properties checked on every state the game passes through:

- every action ``legal_actions`` offers is accepted by ``apply`` (in ``open`` games, exactly
  the listed cards are playable); knock, fold, stay and laundry are offered to exactly the
  players ``apply`` accepts, and refusals read as plain sentences;
- cards are conserved: holdings, played cards and laundry discards never share a card,
  hand sizes agree with the cards played, the stock with the laundries;
- every view (game, hand, trick; full and public) can be built and agrees with the state.

The driver itself checks that ``legal_actions`` is never empty while the game runs, that
undo then redo restores the state, and ``tests/test_playouts.py`` that the game ends
(limits up to 5) and that rebuilding the log twice gives the same state.

``open`` games deal real hands (laundries name their new cards, so the engine knows every
hand); ``table`` games deal nothing and play random cards the engine cannot rule out.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from bench.playouts import Playout, ToepenTable
from engine import toepen
from engine.core import RulesError

OPTION_SETS = [
    ("defaults-limit-4", {"limit": 4}),
    ("defaults", {}),
    ("explicit-answers", {"knock_responses": "explicit", "limit": 4}),
    ("elimination", {"game_end": "elimination", "limit": 3}),
    ("left-best-active", {"next_dealer": "left", "folded_last_trick": "best_active", "limit": 4}),
    ("limit-3-no-mandatory-laundry", {"limit": 3, "laundry_mandatory": False}),
    ("max-stake-2", {"max_stake": 2, "limit": 5}),
]
#: ``(id, (fewest, most) players, options, visibility)`` of the games ``tests/test_playouts.py`` plays.
SETUPS = [(f"{visibility}-{name}", (3, 8), options, visibility) for visibility in ("open", "table") for name, options in OPTION_SETS]
#: ``bench.playouts.play`` arguments: one action in 25 followed by undos and redos; a limit-10
#: game is stopped after about 1500 actions.
PLAY: dict[str, Any] = {"undo_rate": 1 / 25, "max_events": 2000}


def check(game: Playout, legal: list[dict[str, Any]]) -> None:
    """Every offer is accepted, the side actions are offered exactly, cards are conserved, views work."""
    state: toepen.State = game.state
    table: ToepenTable = game.table  # type: ignore[assignment]
    check_offers(state, table, legal)
    check_exact(state, table, legal)
    conserved(state)
    views(state)


def check_end(game: Playout, options: dict[str, Any]) -> None:
    """Limits up to 5 end within the driver's bound."""
    if options.get("limit", 10) <= 5:
        assert toepen.status(game.state) == "finished"


def unseen(hand: toepen.Hand) -> list[str]:
    return [card for card in toepen.DECK if card not in hand.seen]


def every_action(state: toepen.State, table: ToepenTable, offer: dict[str, Any]) -> list[dict[str, Any]]:
    """The actions an offer stands for (table plays: every card the engine cannot rule out)."""
    kind, player = offer["type"], offer["player"]
    base = {"type": kind, "player": player}
    if kind == "deal":
        if table.visibility == "table":
            return [{"type": "deal", "dealer": player}]
        seats = [n for n, out in zip(state.names, state.eliminated, strict=True) if not out]
        return [{"type": "deal", "dealer": player, "hands": {n: sorted(toepen.DECK[4 * i: 4 * i + 4]) for i, n in enumerate(seats)}}]
    hand = state.hand
    assert hand is not None
    seat = state.names.index(player)
    holding = hand.holdings[seat]
    if kind == "play":
        cards = offer["cards"]
        if cards is None:  # table game: any card the engine cannot rule out
            pool = sorted(holding.known) + (unseen(hand) if holding.unknown else [])
            cards = [c for c in pool if toepen._can(toepen.check_card, state, hand, seat, c)]
            assert cards, f"{player} has no playable card"
        return [{**base, "card": card} for card in cards]
    if kind == "laundry" and table.visibility == "open":
        return [{**base, "cards": sorted(table.stock[:4])}]
    if kind == "challenge":
        base["target"] = offer["target"]
        if table.visibility == "open":
            return [base]
        entry = next(e for e in hand.laundries if state.names[e.seat] == offer["target"])
        return [{**base, "cards": sorted(entry.known) + unseen(hand)[: entry.unknown]}]
    if kind == "reveal":
        return [{**base, "cards": sorted(holding.known) + unseen(hand)[:1]}]
    return [base]


def check_offers(state: toepen.State, table: ToepenTable, offers: list[dict[str, Any]]) -> None:
    """Every offered action is accepted; in open games the listed cards are exactly the legal ones."""
    for offer in offers:
        for action in every_action(state, table, offer):
            toepen.apply(state, action)
        if offer["type"] == "play" and table.visibility == "open":
            hand = state.hand
            assert hand is not None
            holding = hand.holdings[state.names.index(offer["player"])]
            assert holding.unknown == 0
            for card in sorted(holding.known - set(offer["cards"])):
                with pytest.raises(RulesError):
                    toepen.apply(state, {"type": "play", "player": offer["player"], "card": card})


def check_exact(state: toepen.State, table: ToepenTable, offers: list[dict[str, Any]]) -> None:
    """Knock, fold, stay and laundry are offered to exactly the players ``apply`` accepts."""
    if state.hand is None:
        return
    offered = {(o["type"], o["player"]) for o in offers}
    extra = {"cards": sorted(table.stock[:4])} if table.visibility == "open" else {}
    for kind in ("knock", "fold", "stay", "laundry"):
        for name in state.names:
            try:
                toepen.apply(state, {"type": kind, "player": name, **(extra if kind == "laundry" else {})})
                accepted = True
            except RulesError as error:
                accepted = False
                plain_sentence(error.message)
            assert accepted == ((kind, name) in offered), f"{kind} by {name}: accepted={accepted}"


def plain_sentence(message: str) -> None:
    """Refusals read as plain sentences, with no Python reprs."""
    assert message and message[-1] == "." and message[0] not in " \n", message
    assert not any(bad in message for bad in ("frozenset", "None", "Holding(", "{'", "['")), message


def conserved(state: toepen.State) -> None:
    """No card in two places; sizes agree with plays, laundries and the stock."""
    assert all(0 <= lost <= state.options.limit for lost in state.lives_lost)
    for hand in (state.hand, state.history[-1] if state.history else None):
        if hand is None:
            continue
        played = [p.card for t in hand.tricks for p in t.plays]
        discards = [c for e in hand.laundries for c in sorted(set(e.known) | set(e.shown))]
        known = [c for s in hand.players for c in hand.holdings[s].known]
        everything = Counter(played + discards + known)
        assert all(n == 1 for n in everything.values()), everything.most_common(3)
        assert set(everything) == hand.seen
        assert set(everything) <= set(toepen.DECK)
        assert hand.stock == len(toepen.DECK) - 4 * len(hand.players) - 4 * len(hand.laundries)
        assert hand.stock >= 0
        plays = Counter(p.seat for t in hand.tricks for p in t.plays)
        for seat in hand.players:
            holding = hand.holdings[seat]
            assert holding.unknown >= 0
            assert holding.size == 4 - plays[seat]
        for trick in hand.tricks:
            assert len({p.seat for p in trick.plays}) == len(trick.plays)
            assert trick.complete == (trick.winner is not None)
        assert len(hand.tricks) <= 4


def views(state: toepen.State) -> None:
    """Every read works at every step and agrees with the state."""
    full, public = toepen.view(state, True), toepen.view(state, False)
    assert full["status"] == public["status"] == toepen.status(state)
    assert len(full["to_act"]) <= 1
    number = toepen.hand_number(state)
    if number:
        hand = toepen.hand_view(state, number, True)
        assert hand is not None
        toepen.hand_view(state, number, False)
        for t in range(1, len(hand["tricks"]) + 1):
            trick = toepen.trick_view(state, number, t, True)
            assert trick is not None
            assert (trick["winner"] is None) == (trick["winner_reason"] is None)
    if state.finished:
        assert full["winners"] is not None and full["losers"]
        assert set(full["winners"]).isdisjoint(full["losers"])
