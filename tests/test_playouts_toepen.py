"""Random complete games of Toepen played from ``engine.toepen.legal_actions`` (hypothesis).

Every step picks one of the actions ``legal_actions`` offers (hypothesis ``data()`` chooses,
and deals come from a shuffled 32-card deck). Properties checked as the game goes:

- ``legal_actions`` is never empty while the game runs, and every action it offers is
  accepted by ``apply`` (in ``open`` games, exactly the listed cards are playable);
- cards are conserved: holdings, played cards and laundry discards never share a card,
  hand sizes agree with the cards played, the stock with the laundries;
- undo then redo (``engine.stream.advance``) restores the state; rebuilding the log twice
  (``engine.stream.replay``) gives the same state; games end.

``open`` games deal real hands (laundries name their new cards, so the engine knows every
hand); ``table`` games deal nothing and play random cards the engine cannot rule out.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import stream, toepen
from engine.core import RulesError

OPTION_SETS = [
    pytest.param({"limit": 4}, id="defaults-limit-4"),
    pytest.param({}, id="defaults"),
    pytest.param({"knock_responses": "explicit", "limit": 4}, id="explicit-answers"),
    pytest.param({"game_end": "elimination", "limit": 3}, id="elimination"),
    pytest.param({"next_dealer": "left", "folded_last_trick": "best_active", "limit": 4}, id="left-best-active"),
    pytest.param({"limit": 3, "laundry_mandatory": False}, id="limit-3-no-mandatory-laundry"),
    pytest.param({"max_stake": 2, "limit": 5}, id="max-stake-2"),
]
PLAYERS = st.integers(min_value=3, max_value=8)
NAMES = ["Ann", "Bob", "Cas", "Dee", "Eve", "Fay", "Gus", "Hal"]
MAX_STEPS = 1500  # actions per game (undo/redo excluded); a limit-10 game is stopped there


class Playout:
    """One random game: the stream, the stored log and the hidden truth of an open deal."""

    def __init__(self, data: st.DataObject, players: int, options: dict[str, Any], visibility: str) -> None:
        names = NAMES[:players]
        self.data = data
        self.visibility = visibility
        created = {
            "players": names,
            "options": toepen.resolve_options(options, names),
            "visibility": visibility,
            "dealer": data.draw(st.sampled_from(names), label="dealer"),
            "rules_version": toepen.RULES_VERSION,
        }
        self.stream = stream.start(toepen, created)
        self.log: list[tuple[int, dict[str, Any]]] = [(1, {"type": "game_created", **created})]
        self.stock: list[str] = []  # open games: the real stock of the current hand

    @property
    def state(self) -> toepen.State:
        return self.stream.state  # type: ignore[no-any-return]

    def record(self, action: dict[str, Any]) -> None:
        seq = self.stream.version + 1
        self.stream = stream.advance(self.stream, seq, action)
        self.log.append((seq, action))

    # ----------------------------------------------------------- turning offers into actions

    def unseen(self) -> list[str]:
        hand = self.state.hand
        assert hand is not None
        return [card for card in toepen.DECK if card not in hand.seen]

    def concrete(self, offer: dict[str, Any], choose: bool) -> list[dict[str, Any]]:
        """The actions an offer stands for: all of them (``choose`` False) or one drawn."""
        kind, player = offer["type"], offer["player"]
        base = {"type": kind, "player": player}
        state, draw = self.state, self.data.draw
        if kind == "deal":
            if self.visibility == "table":
                return [{"type": "deal", "dealer": player}]
            deck = draw(st.permutations(toepen.DECK), label="deck") if choose else list(toepen.DECK)
            seats = [n for n, out in zip(state.names, state.eliminated, strict=True) if not out]
            hands = {name: sorted(deck[4 * i : 4 * i + 4]) for i, name in enumerate(seats)}
            if choose:
                self.stock = list(deck[4 * len(seats) :])
            return [{"type": "deal", "dealer": player, "hands": hands}]
        if kind == "play":
            cards = offer["cards"]
            if cards is None:  # table game: any card the engine cannot rule out
                hand = state.hand
                assert hand is not None
                seat = state.names.index(player)
                holding = hand.holdings[seat]
                pool = sorted(holding.known) + (self.unseen() if holding.unknown else [])
                cards = [c for c in pool if toepen._can(toepen.check_card, state, hand, seat, c)]
                assert cards, f"{player} has no playable card"
            picked = [draw(st.sampled_from(cards), label="card")] if choose else cards
            return [{**base, "card": card} for card in picked]
        if kind == "laundry" and self.visibility == "open":
            if choose:
                new, self.stock = self.stock[:4], self.stock[4:]
            else:
                new = self.stock[:4]
            return [{**base, "cards": sorted(new)}]
        if kind == "challenge":
            base["target"] = offer["target"]
            if self.visibility == "open":
                return [base]
            return [{**base, "cards": self.laid_down(offer["target"], choose)}]
        if kind == "reveal":
            hand = state.hand
            assert hand is not None
            holding = hand.holdings[state.names.index(player)]
            fresh = self.unseen()
            count = draw(st.integers(1, min(2, holding.unknown)), label="reveal count") if choose else 1
            new = draw(st.permutations(fresh), label="revealed")[:count] if choose else fresh[:count]
            return [{**base, "cards": sorted(holding.known) + new}]
        return [base]

    def laid_down(self, target: str, choose: bool) -> list[str]:
        """Four cards for a table challenge: what is known of the laundry plus unseen cards."""
        hand = self.state.hand
        assert hand is not None
        entry = next(e for e in hand.laundries if self.state.names[e.seat] == target)
        fresh = self.unseen()
        if choose and self.data.draw(st.booleans(), label="genuine"):
            fresh = [c for c in fresh if c[0] in "JQKA"] or fresh
        extra = self.data.draw(st.permutations(fresh), label="laid down") if choose else fresh
        return sorted(entry.known) + extra[: entry.unknown]

    # ----------------------------------------------------------- one step

    def offers(self) -> list[dict[str, Any]]:
        offers = toepen.legal_actions(self.state, True)
        assert offers or toepen.status(self.state) == "finished", "legal_actions is empty while the game runs"
        return offers

    def check_offers(self, offers: list[dict[str, Any]]) -> None:
        """Every offered action is accepted; in open games the listed cards are exactly the legal ones."""
        for offer in offers:
            for action in self.concrete(offer, choose=False):
                toepen.apply(self.state, action)
            if offer["type"] == "play" and self.visibility == "open":
                hand = self.state.hand
                assert hand is not None
                holding = hand.holdings[self.state.names.index(offer["player"])]
                assert holding.unknown == 0
                for card in sorted(holding.known - set(offer["cards"])):
                    with pytest.raises(RulesError):
                        toepen.apply(self.state, {"type": "play", "player": offer["player"], "card": card})

    def check_exact(self, offers: list[dict[str, Any]]) -> None:
        """Knock, fold, stay and laundry are offered to exactly the players ``apply`` accepts."""
        state = self.state
        if state.hand is None:
            return
        offered = {(o["type"], o["player"]) for o in offers}
        extra = {"cards": sorted(self.stock[:4])} if self.visibility == "open" else {}
        for kind in ("knock", "fold", "stay", "laundry"):
            for name in state.names:
                try:
                    toepen.apply(state, {"type": kind, "player": name, **(extra if kind == "laundry" else {})})
                    accepted = True
                except RulesError as error:
                    accepted = False
                    plain_sentence(error.message)
                assert accepted == ((kind, name) in offered), f"{kind} by {name}: accepted={accepted}"

    def pick(self, offers: list[dict[str, Any]]) -> dict[str, Any]:
        """Mostly the turn's own action (play, stay, deal), sometimes anything offered."""
        turn = [o for o in offers if o["type"] in ("play", "stay", "deal")]
        hand = self.state.hand
        odds = 10 if hand is not None and not hand.started else 17  # laundry time: more side actions
        if turn and self.data.draw(st.integers(0, 19), label="turn?") < odds:
            return self.data.draw(st.sampled_from(turn), label="turn action")
        kind = self.data.draw(st.sampled_from(sorted({o["type"] for o in offers})), label="kind")
        return self.data.draw(st.sampled_from([o for o in offers if o["type"] == kind]), label="action")

    def undo_redo(self) -> None:
        """Undo a few actions and redo them: the state comes back exactly."""
        before = self.stream
        depth = self.data.draw(st.integers(1, 3), label="undo depth")
        done = 0
        for _ in range(depth):
            try:
                self.record({"type": "undo"})
            except RulesError as error:
                assert error.code == "nothing_to_undo"
                break
            done += 1
        if self.data.draw(st.booleans(), label="note"):
            self.record({"type": "note", "text": "a dispute"})
        for _ in range(done):
            self.record({"type": "redo"})
        assert self.stream.state == before.state
        with pytest.raises(RulesError):
            self.record({"type": "redo"})

    def run(self, max_steps: int = MAX_STEPS, check_all: bool = True) -> None:
        for _ in range(max_steps):
            if toepen.status(self.state) == "finished":
                return
            offers = self.offers()
            if check_all:
                self.check_offers(offers)
                self.check_exact(offers)
            if self.data.draw(st.integers(0, 24), label="undo?") == 24:
                self.undo_redo()
            offer = self.pick(offers)
            (action,) = self.concrete(offer, choose=True)
            self.record(action)
            conserved(self.state)
            views(self.state)


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


def rebuilt(log: list[tuple[int, dict[str, Any]]]) -> toepen.State:
    last = None
    for step in stream.replay(toepen, log):
        last = step.stream
    assert last is not None
    return last.state  # type: ignore[no-any-return]


@pytest.mark.parametrize("options", OPTION_SETS)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), players=PLAYERS)
def test_open_games_end_conserve_cards_and_rebuild(data: st.DataObject, players: int, options: dict[str, Any]) -> None:
    game = Playout(data, players, options, "open")
    game.run()
    if options.get("limit", 10) <= 5:
        assert toepen.status(game.state) == "finished"
    assert rebuilt(game.log) == rebuilt(game.log) == game.state


@pytest.mark.parametrize("options", OPTION_SETS)
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), players=PLAYERS)
def test_table_games_of_unseen_cards(data: st.DataObject, players: int, options: dict[str, Any]) -> None:
    game = Playout(data, players, options, "table")
    game.run()
    if options.get("limit", 10) <= 5:
        assert toepen.status(game.state) == "finished"
    assert rebuilt(game.log) == game.state
