"""One driver of random legal games for the four games, shared by the property tests and the benchmarks.

``play(game, rng, players, options, visibility, ...)`` plays one seeded random game of
``game`` (``"toepen"``, ``"fool"``, ``"fuji_flush"`` or ``"stop_the_bus"``) from that engine's
``legal_actions`` and returns a :class:`Playout`: the event log (``(seq, action)`` pairs from
``game_created``, ready for ``engine.stream.replay`` or ``POST /games/<id>/events``), the
final stream and the physical :class:`Table` (the truth the scorekeeper sees at the table).

The loop is the same for every game; a game's table only turns what ``legal_actions`` offers
into real actions (real shuffled cards, real hands) and follows what was recorded:

1. ``legal_actions(state, True)`` is never empty while the game runs, and empty once it is over;
2. the table proposes actions, best first; the first one ``apply`` accepts is recorded (a
   refused proposal is how a table finds a card the engine cannot rule out, or a card that
   follows suit in an open game); none accepted is an error;
3. now and then (``undo_rate``) one to ``undo_depth`` actions are undone, a note may come
   between (``note_rate``), and they are redone: each undo must give back the state before that action, the redos the
   state after, and one more redo must be refused;
4. ``probe_undo``: after every action, an undo and a redo folded off the log give the state back;
5. ``check(playout, legal)`` runs on every state, the first and the last included (the
   tests' per-game properties).

Only ``engine`` is imported here (public functions, constants and state fields); no service,
no I/O. The engine is the thing under test: nothing here asks it which card is legal except
through ``legal_actions`` and ``apply``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import engine
from engine import fool, fuji_flush, stop_the_bus, toepen
from engine.core import RulesError
from engine.interface import GameRules
from engine.stream import Stream, advance, start

T = TypeVar("T")
Action = dict[str, Any]
Log = list[tuple[int, Action]]

#: The engine module of each game, by the name ``POST /games`` takes.
GAMES: dict[str, GameRules] = engine.GAMES
NAMES = ["Ann", "Bob", "Cas", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon"]


def _sample(rng: random.Random, items: list[T]) -> list[T]:
    """``items`` in a random order (a copy)."""
    return rng.sample(items, len(items))


# --------------------------------------------------------------------------- tables


class Table:
    """The physical table of one game: what really happens, turned into actions to record.

    ``propose(state, legal)`` returns the actions to try, best first (each a complete action
    dict); ``recorded(action, state)`` is called once the engine has accepted ``action``.
    """

    rules: GameRules

    def __init__(self, rng: random.Random, created: dict[str, Any]) -> None:
        self.rng = rng
        self.players: list[str] = list(created["players"])
        self.visibility: str = created["visibility"]
        self.options: dict[str, Any] = created["options"]

    def propose(self, state: Any, legal: list[Action]) -> list[Action]:
        raise NotImplementedError

    def recorded(self, action: Action, state: Any) -> None:
        """Follow an accepted action on the table (a card leaves a hand, a stock shrinks)."""


class ToepenTable(Table):
    """Toepen (``rules/toepen.md``): mostly the turn's own action (play, stay, deal), sometimes a
    knock, fold, laundry, challenge or reveal.

    ``open`` games deal real shuffled hands and laundries name the real next four cards, so the
    engine knows every hand. ``table`` games deal nothing: a play is any card the engine
    cannot rule out (known cards and unseen ones, tried in a random order), a reveal shows
    the known cards and one or two unseen ones, a challenged laundry lays down its known cards
    and unseen ones (court cards half the time, to make it genuine).

    ``side_rate``: the chance of a side action instead of the turn's own, before the first
    card of a hand (laundry time) and after it.
    """

    rules = toepen

    def __init__(self, rng: random.Random, created: dict[str, Any], side_rate: tuple[float, float] = (0.5, 0.15)) -> None:
        super().__init__(rng, created)
        self.side_rate = side_rate
        self.stock: list[str] = []  # open games: the real stock of the hand in play

    def propose(self, state: toepen.State, legal: list[Action]) -> list[Action]:
        rng = self.rng
        turn = [o for o in legal if o["type"] in ("play", "stay", "deal")]
        hand = state.hand
        rate = self.side_rate[0] if hand is not None and not hand.started else self.side_rate[1]
        if turn and (len(turn) == len(legal) or rng.random() >= rate):
            offer = rng.choice(turn)
        else:
            kind = rng.choice(sorted({o["type"] for o in legal if o not in turn}))
            offer = rng.choice([o for o in legal if o["type"] == kind])
        return self.concrete(state, offer)

    def unseen(self, hand: toepen.Hand) -> list[str]:
        return [card for card in toepen.DECK if card not in hand.seen]

    def concrete(self, state: toepen.State, offer: Action) -> list[Action]:
        rng, kind, player = self.rng, offer["type"], offer["player"]
        base: Action = {"type": kind, "player": player}
        if kind == "deal":
            if self.visibility == "table":
                return [{"type": "deal", "dealer": player}]
            deck = _sample(rng, list(toepen.DECK))
            seats = [n for n, out in zip(state.names, state.eliminated, strict=True) if not out]
            self.stock = deck[toepen.HAND_CARDS * len(seats):]
            hands = {name: sorted(deck[4 * i: 4 * i + 4]) for i, name in enumerate(seats)}
            return [{"type": "deal", "dealer": player, "hands": hands}]
        hand = state.hand
        assert hand is not None
        seat = state.names.index(player)
        if kind == "play":
            cards = offer["cards"]
            if cards is None:  # table game: any card the engine cannot rule out
                holding = hand.holdings[seat]
                cards = sorted(holding.known) + (self.unseen(hand) if holding.unknown else [])
            return [{**base, "card": card} for card in _sample(rng, cards)]
        if kind == "laundry" and self.visibility == "open":
            return [{**base, "cards": sorted(self.stock[:4])}]
        if kind == "challenge":
            base["target"] = offer["target"]
            if self.visibility == "open":
                return [base]
            entry = next(e for e in hand.laundries if state.names[e.seat] == offer["target"])
            fresh = _sample(rng, self.unseen(hand))
            if rng.random() < 0.5:
                fresh = [c for c in fresh if c[0] in toepen.LAUNDRY_RANKS] or fresh
            return [{**base, "cards": sorted(entry.known) + fresh[: entry.unknown]}]
        if kind == "reveal":
            holding = hand.holdings[seat]
            new = rng.sample(self.unseen(hand), rng.randint(1, min(2, holding.unknown)))
            return [{**base, "cards": sorted(holding.known) + new}]
        return [base]

    def recorded(self, action: Action, state: toepen.State) -> None:
        if action["type"] == "laundry" and self.visibility == "open":
            self.stock = self.stock[4:]


class FoolTable(Table):
    """Fool! (``rules/fool.md``), with real hands even in ``table`` games (the engine does not
    know them there): a shuffled deck is dealt, a player follows the lead colour when their
    real hand can (``revoke_rate``: now and then they revoke, as real players do), parts of
    hands are revealed mid-round (``reveal_rate``), the remaining hands after the last trick,
    and ``adjust`` rulings are recorded now and then (``adjust_rate``).

    ``rescue_below``: before each deal, a ruling lifts every total below it back to 0, so a
    benchmark game runs for many rounds.
    """

    rules = fool

    def __init__(
        self,
        rng: random.Random,
        created: dict[str, Any],
        reveal_rate: float = 0.02,
        adjust_rate: float = 0.005,
        revoke_rate: float = 0.05,
        rescue_below: int | None = None,
    ) -> None:
        super().__init__(rng, created)
        self.reveal_rate, self.adjust_rate, self.revoke_rate = reveal_rate, adjust_rate, revoke_rate
        self.rescue_below = rescue_below
        self.hands: list[list[str]] = [[] for _ in self.players]  # the real hands now
        self.rounds = 0

    def propose(self, state: fool.State, legal: list[Action]) -> list[Action]:
        rng, players = self.rng, self.players
        if rng.random() < self.adjust_rate:
            return [{"type": "adjust", "player": rng.choice(players), "amount": rng.randint(-15, 15), "reason": "ruling"}]
        phase = fool.phase(state)
        if phase == "deal":
            if self.rescue_below is not None:
                low = [s for s, total in enumerate(state.scores) if total < self.rescue_below]
                if low:
                    return [{"type": "adjust", "player": players[low[0]], "amount": -state.scores[low[0]], "reason": "rescue"}]
            deck = _sample(rng, list(fool.DECK))
            size = state.options.hand_size
            self.hands = [sorted(deck[i * size: (i + 1) * size]) for i in range(len(players))]
            deal: Action = {"type": "deal", "dealer": legal[0]["player"]}
            if self.visibility == "open":
                deal["hands"] = {name: list(self.hands[i]) for i, name in enumerate(players)}
            return [deal]
        if phase == "reveal":
            name = state.names[fool.to_act(state)[0]]
            return [{"type": "reveal", "player": name, "cards": list(self.hands[players.index(name)])}]
        reveals = [a for a in legal if a["type"] == "reveal"]
        if reveals and rng.random() < self.reveal_rate:
            name = rng.choice(reveals)["player"]
            held = self.hands[players.index(name)]
            return [{"type": "reveal", "player": name, "cards": rng.sample(held, rng.randint(1, len(held)))}]
        entry = next(a for a in legal if a["type"] == "play")
        seat = players.index(entry["player"])
        if entry["cards"] is not None:
            tries = _sample(rng, entry["cards"])
        else:
            tries = self.choose_cards(state, self.hands[seat])
        return [{"type": "play", "player": entry["player"], "card": card} for card in tries]

    def choose_cards(self, state: fool.State, hand: list[str]) -> list[str]:
        """Cards of the real ``hand`` to try, best first: a real player's legal choice, or now
        and then a revoke."""
        rnd = state.round
        assert rnd is not None
        trick = rnd.current_trick
        lead = trick.lead_colour if trick is not None else None
        options = list(hand)
        if lead is not None and any(fool.colour_of(c) == lead for c in hand) and self.rng.random() >= self.revoke_rate:
            options = [c for c in hand if c == fool.WILD or fool.colour_of(c) == lead]
        self.rng.shuffle(options)
        return options + [c for c in hand if c not in options]

    def recorded(self, action: Action, state: fool.State) -> None:
        if action["type"] == "play":
            self.hands[self.players.index(action["player"])].remove(action["card"])
        elif action["type"] == "deal":
            self.rounds += 1


class FujiFlushTable(Table):
    """Fuji Flush (``rules/fuji_flush.md``): a real game with real shuffled cards, played by a
    second, deliberately plain reading of the rules (true hands, table, draw pile and discard
    pile). The engine is fed only what a scorekeeper records: plays and, in ``open`` games,
    the deal and a ``draw`` naming every drawn card. The table checks that the engine offers
    the real active player's real cards (open) or none (table), and each real draw."""

    rules = fuji_flush

    def __init__(self, rng: random.Random, created: dict[str, Any]) -> None:
        super().__init__(rng, created)
        seats, deck = len(self.players), self.options["deck"]
        size = self.options["hand_size"]
        cards = [int(value) for value, copies in deck.items() for _ in range(copies)]
        rng.shuffle(cards)
        self.hands = [cards[i * size: (i + 1) * size] for i in range(seats)]
        self.pile = cards[seats * size:]
        self.discard: list[int] = []
        self.table: list[int | None] = [None] * seats
        self.active = self.players.index(created["first_player"])
        self.winners: list[int] = []
        self.pending: list[tuple[int, int]] = []  # open games: real draws still to record, in order

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

    def propose(self, state: fuji_flush.State, legal: list[Action]) -> list[Action]:
        names = self.players
        if not state.dealt:
            deal: Action = {"type": "deal"}
            if self.visibility == "open":
                deal["hands"] = {name: list(self.hands[s]) for s, name in enumerate(names)}
            return [deal]
        if self.pending:
            seat, drawn = self.pending[0]
            offered = next(a for a in legal if a["type"] == "draw" and a["player"] == names[seat])
            assert drawn in offered["cards"], f"{names[seat]} really drew {drawn}, not offered in {offered['cards']}"
            return [{"type": "draw", "player": names[seat], "card": drawn}]
        move = next(a for a in legal if a["type"] == "play")
        assert move["player"] == names[self.active], f"the engine says {move['player']} plays, really {names[self.active]}"
        hand = self.hands[self.active]
        assert move["cards"] == (sorted(set(hand)) if self.visibility == "open" else None), (move["cards"], hand)
        return [{"type": "play", "player": names[self.active], "card": self.rng.choice(hand)}]

    def recorded(self, action: Action, state: fuji_flush.State) -> None:
        if action["type"] == "draw":
            self.pending.pop(0)
        elif action["type"] == "play":
            draws = self.play(action["card"])
            # after the win a draw is refused (game_over): only open games name drawn cards
            self.pending = draws if self.visibility == "open" and not self.winners else []


class StopTheBusTable(Table):
    """Stop the Bus (``rules/stop_the_bus.md``): the physical truth of each round (every hand,
    the middle). ``table`` games deal no hands and the showdown shows the real cards, so an
    engine that refuses a truthful recording fails. Mostly swaps (``take_all`` now and then
    where the options allow it), a stop with ``stop_chance``, rulings with ``adjust_chance``."""

    rules = stop_the_bus

    def __init__(
        self, rng: random.Random, created: dict[str, Any], stop_chance: float = 0.35, adjust_chance: float = 0.0
    ) -> None:
        super().__init__(rng, created)
        self.stop_chance, self.adjust_chance = stop_chance, adjust_chance
        self.hands: dict[str, list[str]] = {}
        self.centre: list[str] = []
        self.next: tuple[dict[str, list[str]], list[str]] | None = None  # the table after the proposed action

    def propose(self, state: stop_the_bus.State, legal: list[Action]) -> list[Action]:
        rng = self.rng
        self.next = None
        if self.adjust_chance and rng.random() < self.adjust_chance:
            return [{"type": "adjust", "player": rng.choice(self.players), "amount": rng.choice([-2, -1, 1]),
                     "reason": "a ruling"}]
        kinds = {entry["type"]: entry for entry in legal}
        if "deal" in kinds:
            return [self.deal([name for name, chips in zip(state.names, state.chips, strict=True) if chips > 0])]
        stops = [entry for entry in legal if entry["type"] == "stop"]
        if stops and rng.random() < self.stop_chance:
            return [{"type": "stop", "player": rng.choice(stops)["player"]}]
        shows = [entry for entry in legal if entry["type"] == "show"]
        if shows:
            player = rng.choice(shows)["player"]
            return [{"type": "show", "player": player, "cards": _sample(rng, self.hands[player])}]
        swap = kinds["swap"]
        return [self.swap(swap["player"], bool(swap["take_all"]) and rng.random() < 0.15)]

    def deal(self, players: list[str]) -> Action:
        deck = _sample(self.rng, list(stop_the_bus.DECK))
        hands = {name: deck[3 * i: 3 * i + 3] for i, name in enumerate(players)}
        centre = deck[3 * len(players): 3 * len(players) + 3]
        self.next = (hands, centre)
        action: Action = {"type": "deal", "centre": list(centre)}
        if self.visibility == "open":
            action["hands"] = {name: list(cards) for name, cards in hands.items()}
        return action

    def swap(self, player: str, take_all: bool) -> Action:
        rng, hand = self.rng, self.hands[player]
        if take_all:
            given = _sample(rng, hand)
            self.next = ({**self.hands, player: list(self.centre)}, list(given))
            return {"type": "swap", "player": player, "take_all": True, "give": list(given)}
        index = rng.randrange(3)
        take = self.centre[index]
        if self.options["allow_return"] and rng.random() < 0.1:
            return {"type": "swap", "player": player, "take": take, "give": take}
        give = rng.choice(hand)
        new_hand, centre = list(hand), list(self.centre)
        new_hand[hand.index(give)], centre[index] = take, give
        self.next = ({**self.hands, player: new_hand}, centre)
        return {"type": "swap", "player": player, "take": take, "give": give}

    def recorded(self, action: Action, state: stop_the_bus.State) -> None:
        if self.next is not None:
            self.hands, self.centre = self.next
            self.next = None


TABLES: dict[str, type[Table]] = {
    "toepen": ToepenTable,
    "fool": FoolTable,
    "fuji_flush": FujiFlushTable,
    "stop_the_bus": StopTheBusTable,
}


# --------------------------------------------------------------------------- the driver


@dataclass
class Playout:
    """One game being played: the engine module, the table, the log and the stream."""

    rules: GameRules
    table: Table
    events: Log
    stream: Stream
    #: The states before the latest effective actions (top = latest), for the undo checks.
    before: list[Any] = field(default_factory=list)

    @property
    def state(self) -> Any:
        return self.stream.state

    @property
    def created(self) -> dict[str, Any]:
        """The ``game_created`` data (without ``type``)."""
        return {k: v for k, v in self.events[0][1].items() if k != "type"}

    @property
    def actions(self) -> list[Action]:
        """The recorded actions after ``game_created``, in order (for ``POST /games/<id>/events``)."""
        return [action for _, action in self.events[1:]]

    def record(self, action: Action) -> None:
        """Fold ``action`` into the stream and log it (``RulesError`` if refused: nothing is kept)."""
        self.stream = advance(self.stream, self.stream.version + 1, action)
        self.events.append((self.stream.version, action))


#: ``check(playout, legal)``: called on every state the game passes through, the first and
#: the last included, with ``legal_actions(state, True)`` of that state.
Check = Callable[[Playout, list[Action]], None]


def created(
    game: str, players: list[str], options: dict[str, Any] | None = None, visibility: str = "open",
    starter: str | None = None,
) -> dict[str, Any]:
    """The ``game_created`` data (without ``type``) of a game of ``game`` with these seats and
    options; ``starter`` (who deals, or plays first in Fuji Flush) defaults to the first seat."""
    rules = GAMES[game]
    return {
        "players": list(players),
        "options": rules.resolve_options(options or {}, list(players)),
        "visibility": visibility,
        rules.STARTER: starter or players[0],
        "rules_version": rules.RULES_VERSION,
    }


def play(
    game: str,
    rng: random.Random,
    players: list[str],
    options: dict[str, Any] | None = None,
    visibility: str = "open",
    *,
    starter: str | None = None,
    check: Check | None = None,
    undo_rate: float = 0.0,
    undo_depth: int = 3,
    note_rate: float = 0.5,
    probe_undo: bool = False,
    max_events: int = 100_000,
    **table_options: Any,
) -> Playout:
    """Play one random legal game of ``game`` to its end (or ``max_events`` events) and return it.

    ``rng`` makes every choice (the same seed plays the same game); ``table_options`` go to the
    game's :class:`Table` (e.g. ``stop_chance``, ``revoke_rate``, ``side_rate``). Raises
    ``AssertionError`` when the engine breaks a property of the loop (see the module doc) and
    whatever ``check`` raises.
    """
    rules = GAMES[game]
    data = created(game, players, options, visibility, starter)
    table = TABLES[game](rng, data, **table_options)
    out = Playout(rules, table, [(1, {"type": "game_created", **data})], start(rules, data))
    while True:
        state = out.state
        legal = rules.legal_actions(state, True)
        if check is not None:
            check(out, legal)
        if rules.status(state) == "finished":
            assert legal == [], f"legal_actions offers {legal} after the game is over"
            break
        assert legal, "legal_actions is empty while the game runs"
        if len(out.events) >= max_events:
            break
        refused: list[tuple[Action, str]] = []
        for action in table.propose(state, legal):
            try:
                out.record(action)
            except RulesError as error:
                refused.append((action, error.code))
                continue
            break
        else:
            raise AssertionError(f"no proposed action was accepted: {refused}")
        table.recorded(action, out.state)
        out.before = [*out.before[-2:], state]
        if probe_undo:
            undone = advance(out.stream, out.stream.version + 1, {"type": "undo"})
            assert undone.state == state, f"undo of {action} does not give back the state before it"
            redone = advance(undone, undone.version + 1, {"type": "redo"})
            assert redone.state == out.state, f"redo of {action} does not give back the state after it"
        if undo_rate and rng.random() < undo_rate:
            undo_redo(out, rng.randint(1, undo_depth), rng.random() < note_rate)
    return out


def undo_redo(out: Playout, depth: int, note: bool) -> None:
    """Undo up to ``depth`` recorded actions (with a ``note`` between if asked), then redo them:
    each undo gives back the state before its action, the redos the state now, and one more
    redo is refused."""
    after = out.state
    depth = min(depth, len(out.before))
    for back in range(1, depth + 1):
        out.record({"type": "undo"})
        assert out.state == out.before[-back], f"undo {back} deep does not give back the state before that action"
    if depth and note:
        out.record({"type": "note", "text": "a dispute"})
    for _ in range(depth):
        out.record({"type": "redo"})
    assert out.state == after, "undo then redo does not restore the state"
    try:
        advance(out.stream, out.stream.version + 1, {"type": "redo"})
    except RulesError as error:
        assert error.code == "nothing_to_redo", error.code
    else:
        raise AssertionError("a redo with nothing undone was accepted")
