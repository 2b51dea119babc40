"""Random complete games of Fuji Flush, checked against an independent simulation.

:class:`Table` plays a real game with real shuffled cards (a second, deliberately plain
reading of ``../shared/spec/rules/fuji_flush.md``); the engine is fed only what a
scorekeeper records (plays; in open games the deal and ``draw`` events naming every drawn
card) and must agree with the simulation after every play: hand sizes, table cards, pile
sizes, whose turn it is and who won. Along the way: the engine's ``legal_actions`` are
never empty and offer the real cards, cards are conserved, undo then redo restores the
state, and replaying the stored log twice rebuilds the same state.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import fuji_flush as ff
from engine.stream import Stream, advance, replay, start

#: A game longer than this many plays counts as not ending (random games take 30-250).
MAX_PLAYS = 3000

SMALL_DECK = {"2": 8, "3": 6, "5": 4, "9": 3, "13": 2, "20": 1}
OPTION_SETS = [
    {},
    {"hand_size": 3},
    {"hand_size": 2, "deck": SMALL_DECK},
    {"hand_size": 1},
    {"deck": {"2": 30, "4": 15, "8": 10, "16": 5}, "hand_size": 4},
]


class Table:
    """A real game: true hands, table, draw pile and discard pile, shuffled by ``rng``."""

    def __init__(self, rng: random.Random, seats: int, deck: dict[str, int], hand_size: int, first: int) -> None:
        cards = [int(value) for value, copies in deck.items() for _ in range(copies)]
        rng.shuffle(cards)
        self.rng = rng
        self.hands = [cards[i * hand_size:(i + 1) * hand_size] for i in range(seats)]
        self.pile = cards[seats * hand_size:]
        self.discard: list[int] = []
        self.table: list[int | None] = [None] * seats
        self.active = first
        self.winners: list[int] = []

    def strength(self, number: int) -> int:
        return number * self.table.count(number)

    def play(self, card: int) -> list[tuple[int, int]]:
        """The active player plays ``card``; returns the draws ``(seat, card)`` in order."""
        seats = len(self.table)
        me = self.active
        self.hands[me].remove(card)
        self.table[me] = card
        mine = self.strength(card)
        flushed = [s for s, c in enumerate(self.table) if c is not None and c != card and self.strength(c) < mine]
        for s in flushed:
            self.discard.append(self.table[s])  # type: ignore[arg-type]
        for s in flushed:
            self.table[s] = None
        draws = []
        for step in range(1, seats):
            s = (me + step) % seats
            if s not in flushed:
                continue
            if not self.pile:
                self.pile, self.discard = self.discard, []
                self.rng.shuffle(self.pile)
            if self.pile:
                drawn = self.pile.pop()
                self.hands[s].append(drawn)
                draws.append((s, drawn))
        self.active = (me + 1) % seats
        mine_now = self.table[self.active]
        if mine_now is not None:
            for s, c in enumerate(self.table):
                if c == mine_now:
                    self.discard.append(c)
                    self.table[s] = None
        self.winners = [s for s in range(seats) if not self.hands[s] and self.table[s] is None]
        return draws


def check_agrees(state: ff.State, real: Table, full: bool) -> None:
    view = ff.view(state, full)
    assert [p["hand_size"] for p in view["players"]] == [len(h) for h in real.hands]
    assert [p["table_card"] for p in view["players"]] == real.table
    assert view["draw_pile_size"] == len(real.pile)
    assert view["discard_size"] == len(real.discard)
    if real.winners:
        assert view["status"] == "finished" and view["to_act"] == []
        assert view["winners"] == [state.names[s] for s in real.winners]
    else:
        assert view["status"] == "in_progress" and view["to_act"] == [state.names[real.active]]
    if full and state.visibility == "open" and not real.winners:  # every drawn card was named: the engine knows every hand
        assert [sorted(p["cards_known"]) for p in view["players"]] == [sorted(h) for h in real.hands]


def conserved(state: ff.State) -> None:
    hands = sum(h.size for h in state.holdings)
    table = sum(1 for c in state.table if c is not None)
    assert hands + table + state.draw_pile + state.discard_size == state.options.deck_size
    for value in range(ff.LOW, ff.HIGH + 1):
        located = sum(h.known.count(value) for h in state.holdings) + state.table.count(value) + state.discard[value]
        assert located == state.seen[value] <= state.options.deck[value]


def play_game(seed: int, seats: int, visibility: str, options: dict[str, Any]) -> ff.State:
    """Play one random game to its end, checking the engine at every step; return the final state."""
    rng = random.Random(seed)
    names = [f"P{i}" for i in range(seats)]
    resolved = ff.resolve_options(options, names)
    first = rng.randrange(seats)
    created = {"players": names, "options": resolved, "visibility": visibility,
               "first_player": names[first], "rules_version": ff.RULES_VERSION}
    real = Table(rng, seats, resolved["deck"], resolved["hand_size"], first)
    log: list[tuple[int, dict[str, Any]]] = [(1, {"type": "game_created", **created})]
    stream = start(ff, created)

    def record(action: dict[str, Any]) -> Stream:
        seq = stream.version + 1
        log.append((seq, action))
        return advance(stream, seq, action)

    deal: dict[str, Any] = {"type": "deal"}
    if visibility == "open":
        deal["hands"] = {name: list(real.hands[s]) for s, name in enumerate(names)}
    stream = record(deal)
    plays = 0
    while not real.winners:
        assert plays < MAX_PLAYS, "the game does not end"
        actions = ff.legal_actions(stream.state, True)
        assert actions, "legal_actions is empty while the game runs"
        move = next(a for a in actions if a["type"] == "play")
        assert move["player"] == names[real.active]
        hand = real.hands[real.active]
        assert move["cards"] == (sorted(set(hand)) if visibility == "open" else None)
        card = rng.choice(hand)
        before = stream.state
        stream = record({"type": "play", "player": names[real.active], "card": card})
        plays += 1
        if rng.random() < 0.15:  # undo then redo restores the state
            after = stream.state
            stream = record({"type": "undo"})
            assert stream.state == before
            stream = record({"type": "redo"})
            assert stream.state == after
        for seat, drawn in real.play(card):
            if visibility == "open" and not real.winners:  # after the win a draw is refused (game_over)
                offered = next(a for a in ff.legal_actions(stream.state, True) if a["type"] == "draw" and a["player"] == names[seat])
                assert drawn in offered["cards"]
                stream = record({"type": "draw", "player": names[seat], "card": drawn})
        check_agrees(stream.state, real, full=True)
        conserved(stream.state)
    assert ff.status(stream.state) == "finished" and ff.legal_actions(stream.state, True) == []
    assert stream.state.winners
    physical = sum(len(h) for h in real.hands) + len(real.pile) + len(real.discard) + sum(c is not None for c in real.table)
    assert physical == sum(resolved["deck"].values())
    assert Counter(c for h in real.hands for c in h) + Counter(real.pile) + Counter(real.discard) + Counter(
        c for c in real.table if c is not None) == Counter({int(v): n for v, n in resolved["deck"].items()})
    first_rebuild = [step.stream.state for step in replay(ff, log)]
    second_rebuild = [step.stream.state for step in replay(ff, log)]
    assert first_rebuild[-1] == second_rebuild[-1] == stream.state
    assert ff.view(first_rebuild[-1], True) == ff.view(stream.state, True)
    assert ff.hand_view(first_rebuild[-1], 1, False) == ff.hand_view(stream.state, 1, False)
    final: ff.State = stream.state
    return final


GAMES = st.tuples(
    st.integers(0, 2**32 - 1),
    st.integers(3, 8),
    st.sampled_from(["table", "open"]),
    st.sampled_from(range(len(OPTION_SETS))),
)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(GAMES)
def test_random_games(game: tuple[int, int, str, int]) -> None:
    seed, seats, visibility, option_set = game
    options = OPTION_SETS[option_set]
    if options.get("deck") is SMALL_DECK and seats * options["hand_size"] > sum(SMALL_DECK.values()):
        seats = 3
    play_game(seed, seats, visibility, options)


def test_published_deck_every_table_size() -> None:
    for seats in range(3, 9):
        for visibility in ("table", "open"):
            play_game(seats * 101, seats, visibility, {})


def test_playouts_reach_the_rare_cases() -> None:
    """Seeded games that reshuffle the discard and end with several winners at once."""
    finals = [play_game(seed, 3 + seed % 6, "table", OPTION_SETS[seed % len(OPTION_SETS)]) for seed in range(60)]
    assert any(state.reshuffles > 0 for state in finals)
    assert any(len(state.winners) > 1 for state in finals)
    assert any(turn.pushed is not None and len(turn.pushed.seats) > 1 for state in finals for turn in ff._items(state.turns))
