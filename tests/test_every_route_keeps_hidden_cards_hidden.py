"""Every route of the app, read without the token, says nothing about the cards still hidden
(api.md, "Views and secrets", judged against the current record; docs/secrecy.md).

Each route comes from Flask's URL map (``app.url_map``) and each view's query parameters from
its registration beside the view (``service.record.secrecy.reads``): a ``GET`` route without one
fails here, so a route is covered the day it is added. Every route is read publicly, with
each registered parameter varied, for seeded random open games of all four games (undos,
redos and new moves at random points; a what-if fork inside the hand in play, played on),
and compared with the same read of a **twin**: a game with the same public moves whose hidden
cards differ. The twin renames, by one permutation, every card the public has not seen in
the hand in play (the unplayed cards, the undone ones back in a hand, the fork's moves), and
is kept only when the rules accept it. Ids, times, hashes and cursors are masked; any other
difference is a leak.
"""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from flask.testing import FlaskClient

import engine
from bench import playouts
from engine import stream as streams
from engine.core import RulesError
from replays import replay
from service.record import secrecy
from service.web.app import create_app
from tests.zips import body_text

#: The seats of each game (Fool! needs four).
SEATS = {"toepen": ["Ann", "Bob", "Cas"], "fool": ["Ann", "Bob", "Cas", "Dee"], "fuji_flush": ["Ann", "Bob", "Cas"],
         "stop_the_bus": ["Ann", "Bob", "Cas"]}
FUJI_DECK = {str(n): 2 for n in range(2, 21)}
OPTIONS: dict[str, dict[str, Any]] = {
    "toepen": {},
    "fool": {"hand_size": 4},
    "fuji_flush": {"hand_size": 3, "deck": FUJI_DECK},
    "stop_the_bus": {},
}
#: Seeds per game: each makes one original game (and its twin), with a fork.
SEEDS = (1, 2)
#: Card fields whose cards every reader sees once the action is in force (played, shown,
#: revealed, laid down, swapped face up, the middle dealt face up); every other card field of
#: an action (a deal's hands, a laundry's new cards, a draw) is hidden while its hand is in play.
PUBLIC_FIELDS = {"play": ("card",), "reveal": ("cards",), "show": ("cards",), "challenge": ("cards",),
                 "swap": ("take", "give"), "deal": ("centre",)}
CARD_FIELDS = ("card", "cards", "take", "give", "hands", "centre")


# --------------------------------------------------------------------------- random games


@dataclass
class Played:
    """A random game: ``created`` data, every action recorded after it (undo and redo
    included), a fork at ``fork_seq`` with the moves recorded in it."""

    game: str
    created: dict[str, Any]
    actions: list[dict[str, Any]]
    fork_seq: int | None = None
    fork_moves: list[dict[str, Any]] = field(default_factory=list)
    #: A second fork, taken in a hand that is over at the original table (None if there is none).
    early_seq: int | None = None


def _log(created: dict[str, Any], actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"seq": i + 1, "type": a["type"], "data": {k: v for k, v in a.items() if k != "type"}}
            for i, a in enumerate([{"type": "game_created", **created}, *actions])]


def _mid_hand(rules: Any, state: Any) -> bool:
    number = rules.hand_number(state)
    return bool(number) and not rules.hand_over(state, number) and rules.status(state) == "in_progress"


def _drive(rng: random.Random, rules: Any, table: Any, stream: streams.Stream, steps: int,
           bookkeeping: bool) -> tuple[streams.Stream, list[dict[str, Any]]]:
    """``steps`` or so random events from ``stream`` (undo/redo at random when ``bookkeeping``),
    then on until a hand is in play; the table follows undo and redo through snapshots."""
    done, undone = [copy.deepcopy(table, {id(rng): rng})], []
    out: list[dict[str, Any]] = []
    for _ in range(steps + 40):
        if len(out) >= steps and _mid_hand(rules, stream.state):
            break
        roll = rng.random()
        if bookkeeping and roll < 0.18 and len(done) > 1 and stream.done.rest is not None:
            stream = streams.advance(stream, stream.version + 1, {"type": "undo"})
            undone.append(done.pop())
            table = copy.deepcopy(done[-1], {id(rng): rng})
            out.append({"type": "undo"})
            continue
        if bookkeeping and roll < 0.24 and undone:
            stream = streams.advance(stream, stream.version + 1, {"type": "redo"})
            done.append(undone.pop())
            table = copy.deepcopy(done[-1], {id(rng): rng})
            out.append({"type": "redo"})
            continue
        if rules.status(stream.state) != "in_progress":
            break
        try:
            proposed = table.propose(stream.state, rules.legal_actions(stream.state, True))
        except (AssertionError, KeyError, IndexError, ValueError):  # the table lost track: stop here
            break
        for action in proposed:
            if action["type"] == "adjust":
                continue  # a ruling can end the game; the fork gets its own below
            try:
                stream = streams.advance(stream, stream.version + 1, action)
            except RulesError:
                continue
            table.recorded(action, stream.state)
            done.append(copy.deepcopy(table, {id(rng): rng}))
            undone.clear()
            out.append(action)
            break
        else:
            break
    return stream, out


def _random_game(game: str, seed: int) -> Played:
    rules = engine.GAMES[game]
    for attempt in range(20):
        rng = random.Random(f"every-route-{game}-{seed}-{attempt}")
        data = playouts.created(game, SEATS[game], OPTIONS[game], "open", starter=rng.choice(SEATS[game]))
        table = playouts.TABLES[game](rng, data)
        stream, actions = _drive(rng, rules, table, streams.start(rules, data), rng.randint(8, 30), True)
        if not _mid_hand(rules, stream.state) or not any(a["type"] == "undo" for a in actions):
            continue
        played = Played(game, data, actions)
        folded = replay.fold(rules, _log(data, actions))
        hand = rules.hand_number(stream.state)
        inside = [f.seq for f in folded.facts if f.hand == hand and f.type == "deal"]
        played.fork_seq = rng.randint(inside[-1], stream.version)
        at = replay.stream_at(rules, _log(data, actions), played.fork_seq)
        moves = _moves(rng, rules, _refold(rules, at), rng.randint(0, 4))
        if "adjust" in rules.HANDLERS and rng.random() < 0.5:  # the fork plays its game to the end
            moves.append({"type": "adjust", "player": "Ann", "amount": 10, "reason": "what if"})
        played.fork_moves = moves
        earlier = [f.seq for f in folded.facts if 0 < f.hand < hand]
        played.early_seq = rng.choice(earlier) if earlier else None
        return played
    raise AssertionError(f"no random {game} game ended inside a hand with an undo")


def _moves(rng: random.Random, rules: Any, stream: streams.Stream, count: int) -> list[dict[str, Any]]:
    """Up to ``count`` random moves the engine offers (plays of a legal card, knocks, stays,
    folds, stops: what needs no more than ``legal_actions`` says), for a fork."""
    out: list[dict[str, Any]] = []
    for _ in range(count):
        offers = []
        for entry in rules.legal_actions(stream.state, True):
            if entry["type"] == "play" and entry.get("cards"):
                offers += [{"type": "play", "player": entry["player"], "card": card} for card in entry["cards"]]
            elif entry["type"] in ("knock", "stay", "fold", "stop") and entry.get("player"):
                offers.append({"type": entry["type"], "player": entry["player"]})
        for action in rng.sample(offers, len(offers)):
            try:
                stream = streams.advance(stream, stream.version + 1, action)
            except RulesError:
                continue
            out.append(action)
            break
        else:
            break
    return out


def _refold(rules: Any, stream: streams.Stream) -> streams.Stream:
    """A stream of the actions in force in ``stream`` (what a fork starts from)."""
    steps, link = [], stream.done
    while link is not None:
        steps.append(link.head.action)
        link = link.rest
    steps.reverse()
    out = streams.start(rules, {k: v for k, v in steps[0].items() if k != "type"})
    for action in steps[1:]:
        out = streams.advance(out, out.version + 1, {k: v for k, v in action.items() if k != "seq"})
    return out


# --------------------------------------------------------------------------- the twin


def _rename(value: Any, sigma: dict[Any, Any]) -> Any:
    if isinstance(value, list):
        return [_rename(v, sigma) for v in value]
    if isinstance(value, dict):
        return {k: _rename(v, sigma) for k, v in value.items()}
    return sigma.get(value, value)


def _renamed(action: dict[str, Any], sigma: dict[Any, Any]) -> dict[str, Any]:
    return {k: (_rename(v, sigma) if k in CARD_FIELDS else v) for k, v in action.items()}


def _group(game: str, card: Any) -> Any:
    """Cards swapped for each other in a twin: of one suit or colour (so following suit and a
    revoke read the same), Fuji Flush's numbers all together."""
    text = str(card)
    return text[-1] if game in ("toepen", "stop_the_bus") else text[0] if game == "fool" else ""


def _twin(played: Played) -> tuple[Played, int]:
    """The twin of ``played`` and how many cards it renames: a permutation of the cards the
    public has not seen in the hand in play, applied to every event of that hand (undone
    ones, the fork's moves), kept only if the rules accept every event of both games."""
    game, rules = played.game, engine.GAMES[played.game]
    log = _log(played.created, played.actions)
    folded = replay.fold(rules, log)
    state = folded.stream.state
    hand = rules.hand_number(state)
    effective = set(streams.effective_seqs(folded.stream))
    current = {f.seq for f in folded.facts if f.hand >= hand}
    public: set[Any] = set()
    for event in log:
        if event["seq"] in effective and event["seq"] in current:
            for name in PUBLIC_FIELDS.get(event["type"], ()):
                value = event["data"].get(name)
                public.update(value if isinstance(value, list) else [] if value is None else [value])
    deck = sorted({int(v) for v in FUJI_DECK} if game == "fuji_flush" else set(rules.DECK), key=str)
    free = [card for card in deck if card not in public]
    rng = random.Random(f"twin-{game}-{played.actions!r}"[:200])
    for attempt in range(60):
        sigma: dict[Any, Any] = {}
        groups: dict[Any, list[Any]] = {}
        for card in free:
            groups.setdefault(_group(game, card) if attempt < 50 else "", []).append(card)
        for cards in groups.values():
            sigma.update(zip(cards, rng.sample(cards, len(cards)), strict=True))
        actions = [_renamed(a, sigma) if i + 2 in current else a for i, a in enumerate(played.actions)]
        twin = Played(game, played.created, actions, played.fork_seq, [_renamed(m, sigma) for m in played.fork_moves],
                      played.early_seq)
        renamed = sum(a != b for a, b in zip(actions, played.actions, strict=True))
        if renamed and _accepted(twin):
            return twin, renamed
    return played, 0


def _accepted(played: Played) -> bool:
    rules = engine.GAMES[played.game]
    try:
        log = _log(played.created, played.actions)
        replay.fold(rules, log)
        if played.fork_seq is not None:
            fork = _refold(rules, replay.stream_at(rules, log, played.fork_seq))
            for move in played.fork_moves:
                fork = streams.advance(fork, fork.version + 1, move)
    except RulesError:
        return False
    return True


# --------------------------------------------------------------------------- recording over HTTP


@dataclass
class Stored:
    """One game recorded in one app: its client, the original's and the fork's ids and tokens."""

    client: Any
    ids: dict[str, str]
    version: dict[str, int]


def _record(client: Any, played: Played) -> Stored:
    rules = engine.GAMES[played.game]
    body = {"game": played.game, "players": SEATS[played.game], "visibility": "open", "options": OPTIONS[played.game],
            rules.STARTER: played.created[rules.STARTER]}
    made = client.post("/games", json=body)
    assert made.status_code == 201, made.get_json()
    ids, tokens = {"game": made.get_json()["id"]}, {"game": made.get_json()["token"]}

    def post(which: str, action: dict[str, Any]) -> Any:
        kind = action["type"]
        path = kind if kind in ("undo", "redo") else "events"
        payload = {} if kind in ("undo", "redo") else action
        response = client.post(f"/games/{ids[which]}/{path}", json=payload,
                               headers={"Authorization": f"Bearer {tokens[which]}"})
        assert response.status_code == 201, (action, response.get_json())
        return response

    for action in played.actions:
        post("game", action)
    if played.fork_seq is not None:
        forked = client.post(f"/games/{ids['game']}/fork", json={"seq": played.fork_seq},
                             headers={"Authorization": f"Bearer {tokens['game']}"})
        assert forked.status_code == 201, forked.get_json()
        ids["fork"], tokens["fork"] = forked.get_json()["id"], forked.get_json()["token"]
        for move in played.fork_moves:
            post("fork", move)
    if played.early_seq is not None:
        forked = client.post(f"/games/{ids['game']}/fork", json={"seq": played.early_seq},
                             headers={"Authorization": f"Bearer {tokens['game']}"})
        assert forked.status_code == 201, forked.get_json()
        ids["early"], tokens["early"] = forked.get_json()["id"], forked.get_json()["token"]
    version = {which: client.get(f"/games/{gid}", headers={"Authorization": f"Bearer {tokens[which]}"}
                                 ).get_json()["version"] for which, gid in ids.items()}
    return Stored(client, ids, version)


# --------------------------------------------------------------------------- every route


@dataclass
class Context:
    """What the values of a route's parameters are drawn from (the same in both twins)."""

    game: str
    which: str  # "game" (the original), "fork" (in the hand in play) or "early" (in a hand over)
    version: int
    hands: int
    undone: list[int]
    rng: random.Random


def _seqs(ctx: Context) -> list[str]:
    """The first and last events, one past the log, up to three undone actions and the event
    after each (a moment that showed a card now back in a hand), one more at random."""
    undone = ctx.rng.sample(ctx.undone, min(3, len(ctx.undone)))
    picks = {1, ctx.version, ctx.version + 1, *undone, *(s + 1 for s in undone), ctx.rng.randint(1, ctx.version)}
    return [str(s) for s in sorted(picks) if s <= ctx.version + 1]


def _hands(ctx: Context) -> list[str]:
    return [str(n) for n in sorted({1, ctx.hands, ctx.hands + 1})]


#: Values of every path parameter, by name: a route with another one fails the test.
PATH_VALUES: dict[str, Callable[[Context], list[str]]] = {
    "game_id": lambda ctx: [f"__{ctx.which}__"],
    "seq": _seqs,
    "n": _hands,
    "t": lambda ctx: ["1", "3"],
    "name": lambda ctx: ["Ann", "Cas"],
    "filename": lambda ctx: ["kibitz.css"],
}
#: Values of every query parameter a view registers (``service.record.secrecy.reads``), by name: a
#: parameter registered without values here fails the test.
QUERY_VALUES: dict[str, Callable[[Context], list[str]]] = {
    "step": _seqs,
    "seq": _seqs,
    "hand": _hands,
    "after": lambda ctx: ["0", str(max(ctx.undone, default=2) - 1)],
    "limit": lambda ctx: ["1", "3"],
    "offset": lambda ctx: ["1"],
    "format": lambda ctx: ["json", "jsonl", "csv", "text"],
    "game": lambda ctx: [ctx.game, "__game__"],
    "player": lambda ctx: ["Ann"],
    "status": lambda ctx: ["in_progress"],
    "fork": lambda ctx: ["true"],
    "forked_from": lambda ctx: ["__game__"],
    "cursor": lambda ctx: ["WyJ4IiwgMV0"],
    "period": lambda ctx: ["all", "week"],
    "since": lambda ctx: ["2020-01-01"],
    "until": lambda ctx: ["2099-12-31"],
    "sort": lambda ctx: ["wins", "average"],
    "order": lambda ctx: ["asc"],
    "before": _seqs,
    "fingerprint": lambda ctx: ["0123456789ab", "12345"],
}


def _read_routes(app: Any) -> list[tuple[Any, tuple[str, ...]]]:
    """Every ``GET`` rule with its registered query parameters; fails for a rule without one."""
    out, missing = [], []
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        if "GET" not in (rule.methods or ()):
            continue
        query = secrecy.query_of(rule.endpoint, app.view_functions[rule.endpoint])
        if query is None:
            missing.append(rule.rule)
            continue
        out.append((rule, query))
    assert not missing, f"routes without registered query parameters (service.record.secrecy.reads): {missing}"
    unknown = sorted({a for rule, _ in out for a in rule.arguments if a not in PATH_VALUES}
                     | {q for _, query in out for q in query if q not in QUERY_VALUES})
    assert not unknown, f"parameters this test has no values for: {unknown}"
    return out


def _urls(app: Any, rule: Any, query: tuple[str, ...], ctx: Context) -> Iterator[str]:
    """The route with every combination of its path values, bare and with each query
    parameter set to each of its values (one at a time)."""
    adapter = app.url_map.bind("localhost")
    combos: list[dict[str, str]] = [{}]
    for name in sorted(rule.arguments):
        combos = [{**c, name: v} for c in combos for v in PATH_VALUES[name](ctx)]
    for values in combos:
        path = adapter.build(rule.endpoint, values)
        yield path
        for name in query:
            for value in QUERY_VALUES[name](ctx):
                yield f"{path}?{name}={value}"


TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z?")
HEX = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{12,}(?![0-9A-Za-z])|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-"
                 r"|(?<![0-9A-Za-z])[0-9a-f]{4}(?: [0-9a-f]{4}){3}(?![0-9A-Za-z])")  # a fingerprint in four groups
CURSOR = re.compile(r'("next_cursor": ?)"[^"]*"')
CLOCK = re.compile(r"(<time[^>]*>)[^<]*(</time>)")


def _masked(text: str, ids: list[str]) -> str:
    for number, gid in enumerate(ids):
        text = text.replace(gid, f"<id {number}>")
    text = CLOCK.sub(r"\1\2", text)
    return CURSOR.sub(r"\1<cursor>", HEX.sub("<hex>", TIME.sub("<time>", text)))


def _answers(stored: Stored, urls: list[str], ids: list[str]) -> dict[str, tuple[int, str, str]]:
    """Each public answer: status, media type and the body with ``ids`` (every game id of
    this app, in the order made), times, hashes and cursors masked."""
    out = {}
    for url in urls:
        real = url
        for which, gid in stored.ids.items():
            real = real.replace(f"__{which}__", gid)
        response = stored.client.get(real)
        out[url] = (response.status_code, response.mimetype, _masked(body_text(response), ids))
        response.close()
    return out


def _undone_seqs(played: Played) -> list[int]:
    rules = engine.GAMES[played.game]
    return sorted(replay.undone(replay.fold(rules, _log(played.created, played.actions))))


@pytest.mark.parametrize("game", sorted(OPTIONS))
def test_every_route_answers_a_public_reader_the_same_for_twin_games(game, tmp_path):
    apps = [create_app({"TESTING": True, "DATABASE": str(tmp_path / f"{name}.db"), "SYNCHRONOUS": "OFF"})
            for name in ("one", "twin")]  # throwaway games: no fsync per event
    for app in apps:  # the OpenAPI document's own tests check the answers' shapes; this one compares them
        app.test_client_class = FlaskClient
    routes = _read_routes(apps[0])
    renamed_total = 0
    ids: list[list[str]] = [[], []]
    for seed in SEEDS:
        last = seed == SEEDS[-1]
        played = _random_game(game, seed)
        twin, renamed = _twin(played)
        renamed_total += renamed
        stored = [_record(app.test_client(), p) for app, p in zip(apps, (played, twin), strict=True)]
        assert stored[0].version == stored[1].version
        for known, one in zip(ids, stored, strict=True):
            known.extend(one.ids.values())
        rules = engine.GAMES[game]
        hands = rules.hand_number(replay.fold(rules, _log(played.created, played.actions)).stream.state)
        urls: list[str] = []
        for which in stored[0].ids:
            ctx = Context(game, which, stored[0].version[which], hands,
                          _undone_seqs(played) if which == "game" else [], random.Random(f"{game}-{seed}-{which}"))
            for rule, query in routes:
                # routes of no game (lists, players, the club table) once, after the last game
                if "game_id" in rule.arguments or (which == "game" and last):
                    urls.extend(_urls(apps[0], rule, query, ctx))
        urls = list(dict.fromkeys(urls))
        first, second = (_answers(s, urls, known) for s, known in zip(stored, ids, strict=True))
        leaks = [url for url in urls if first[url] != second[url]]
        assert not leaks, _explain(leaks, first, second)
        # the fork shares the hand the original is still playing: sealed on every route naming its cards
        fork_reads = [url for url in urls if "__fork__" in url and not url.startswith("/table/")]
        assert fork_reads and {first[url][0] for url in fork_reads} == {401}, \
            sorted({(first[url][0], url) for url in fork_reads if first[url][0] != 401})[:5]
        # a fork taken in a hand that is over at the original table is read like any open game
        early = [url for url in urls if "__early__" in url]
        assert not early or 200 in {first[url][0] for url in early}
    assert renamed_total > 0, "no twin renamed a hidden card: nothing was compared"


def _explain(leaks: list[str], first: dict[str, Any], second: dict[str, Any]) -> str:
    url = leaks[0]
    a, b = first[url][2], second[url][2]
    at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return (f"{len(leaks)} public reads differ between twin games, first {url} "
            f"({first[url][0]} vs {second[url][0]}):\n…{a[max(0, at - 300):at + 200]}\n---\n…{b[max(0, at - 300):at + 200]}"
            f"\nall: {leaks[:20]}")


# --------------------------------------------------------------------------- a route added later


def _app_with_a_new_route(tmp_path: Any) -> Any:
    """The app plus a route that reads a game's whole log and forgets every check of secrecy."""
    from flask import jsonify

    from service.storage import sqlite as store
    from service.storage.connections import get_db

    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "new.db")})
    app.test_client_class = FlaskClient  # a route the OpenAPI document does not know yet

    def careless(game_id: str) -> Any:
        return jsonify([event["data"] for event in store.events(get_db(), game_id)])

    app.add_url_rule("/games/<game_id>/careless", "careless", careless)
    return app


def test_a_get_route_without_registered_parameters_fails_the_every_route_test(tmp_path):
    with pytest.raises(AssertionError, match="/games/<game_id>/careless"):
        _read_routes(_app_with_a_new_route(tmp_path))


def test_a_route_added_later_is_sealed_for_a_fork_without_asking(tmp_path):
    """``service.record.secrecy.guard`` runs before every read of a game: the careless route answers
    401 for a fork that shares a hand the original still plays, and is open to its token."""
    client = _app_with_a_new_route(tmp_path).test_client()
    made = client.post("/games", json={"game": "toepen", "players": ["Ann", "Bob", "Cas"], "visibility": "open"})
    original = made.get_json()
    auth = {"Authorization": f"Bearer {original['token']}"}
    deal = {"type": "deal", "hands": {"Ann": ["7H", "8H", "9H", "TH"], "Bob": ["7S", "8S", "9S", "TS"],
                                      "Cas": ["7C", "8C", "9C", "TC"]}}
    assert client.post(f"/games/{original['id']}/events", json=deal, headers=auth).status_code == 201
    fork = client.post(f"/games/{original['id']}/fork", json={"seq": 2}, headers=auth).get_json()
    refused = client.get(f"/games/{fork['id']}/careless")
    assert refused.status_code == 401 and refused.get_json()["code"] == "token_required"
    assert "9H" in client.get(f"/games/{fork['id']}/careless",
                              headers={"Authorization": f"Bearer {fork['token']}"}).get_data(as_text=True)
