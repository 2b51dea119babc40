"""Words for card players (ui.md): every sentence the service shows a person — timeline
summaries, trick/turn reasons, results, irregularities, refusals, the text export and every
read-only page — names no spec file or section, writes cards as their buttons name them
(``10♥``, ``Green 6``, ``Wild 1``, never ``TH``/``G6``), shows no option code, and never
runs two sentences together.

Whole random games of all four games (``bench/playouts.py``, open and table visibility) are
recorded through the API with Flask's test client; every text they produce is scanned.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from bench.playouts import play
from engine import GAMES
from engine.core import RulesError
from engine.stream import advance, start
from tests.page_text import PageText
from tests.test_words_plurals import _record

PLAYERS = ["Ann", "Bob", "Cas", "Dee"]

#: A spec file, a section sign or a quoted section title of the rules texts.
SPEC = re.compile(r"\.md\b|§|rules/|recording\b|'(A hand|A trick|A turn|Knowledge|Setup|Showdown|Hand ranks|Cards)'")
#: A card code where a person reads a card: French ``TH``, ``9C``; Fool! ``G6``, ``W1``; the
#: rank letter ``T`` of a ten ("order T 9 8 7").
CARD_CODE = re.compile(r"\b[2-9TJQKA][HSDC]\b|\b[GRYBW]\d{1,2}\b|\bT \d\b|\b\d T\b")
#: An option's or rule's code (``first_to_limit``, ``ace_low_run``).
CODE = re.compile(r"\b[a-z]+_[a-z_]+\b")
#: Two sentences run together: a count or a noun ending one sentence, then the next one
#: starting with a player's name and a verb ("…Dee lost 2 lives Cas won the last trick…");
#: or doubled or misplaced full stops.
RUN_TOGETHER = re.compile(
    r"\b(?:lives?|chips?|points?|tricks?|cards?|hand|round|\d+|\))\s+(?:Ann|Bob|Cas|Dee)\s+"
    r"(?:won|lost|loses|played|folded|knocked|has|is|showed|took|drew|led|wins)\b"
    r"|\.\.(?!\.)|\s\.(?!\w)|\.\s+\.")
#: An event number where a person reads (issue 25): "Event 18: …", "(event 21)", "undone by event
#: 5", "events 8 and 10"; positions are named as card players name them ("hand 2, trick 1"). Small
#: print is read too (a fresh user read "event 14" in the fingerprint's): a moment's number there
#: is the replay's "step 14", a link into it.
EVENT_NUMBER = re.compile(r"\b[Ee]vents? \d+")
#: Fields of the API that hold a whole sentence (a reason that is part of another sentence,
#: such as a hand result's ``reason``, is scanned but not asked for a full stop).
SENTENCES = {"summary", "detail", "explanation", "winner_reason", "fools_reason", "leader_reason",
             "sitting_out_reason"}
PHRASES = {"reason", "end_reason", "words"}


def _games(seed: int) -> list[tuple[str, dict[str, Any], list[dict[str, Any]]]]:
    """Whole games of each of the four games, in both visibilities, small enough to finish."""
    rng = random.Random(seed)
    out = []
    for visibility in ("open", "table"):
        for game, options, extra in (
            ("toepen", {"limit": 2}, {"side_rate": (0.15, 0.15)}),
            ("fool", {"hand_size": 3}, {"max_events": 300}),
            ("stop_the_bus", {"chips": 2}, {}),
            ("fuji_flush", {"hand_size": 3}, {}),
        ):
            players = PLAYERS if game != "stop_the_bus" else PLAYERS[:3]
            log = play(game, rng, players, options, visibility, undo_rate=0.05, undo_depth=1, note_rate=0, **extra)
            out.append((game, {"players": players, "visibility": visibility, "options": options}, log.actions))
    return out


def _strings(value: Any, key: str = "") -> list[tuple[str, str]]:
    """Every ``(field, text)`` of a JSON answer."""
    if isinstance(value, str):
        return [(key, value)]
    if isinstance(value, dict):
        return [pair for k, v in value.items() for pair in _strings(v, k)]
    if isinstance(value, list):
        return [pair for v in value for pair in _strings(v, key)]
    return []


def _page(client: Any, path: str, headers: dict[str, str]) -> PageText:
    response = client.get(path, headers=headers)
    assert response.status_code == 200, (path, response.status_code)
    parsed = PageText()
    parsed.feed(response.get_data(as_text=True))
    return parsed


def _problems(where: str, text: str, sentence: bool) -> list[str]:
    found = []
    for name, pattern in (("spec", SPEC), ("card code", CARD_CODE), ("code", CODE), ("run together", RUN_TOGETHER),
                          ("event number", EVENT_NUMBER)):
        match = pattern.search(text)
        if match:
            found.append(f"{where}: {name}: …{text[max(0, match.start() - 60):match.end() + 40]}…")
    if sentence and text and text.rstrip()[-1] not in ".!?":
        found.append(f"{where}: no full stop: {text!r}")
    return found


def _api_texts(recorded: Any, full: bool) -> list[tuple[str, str]]:
    """``(where, text)`` of every API answer a page shows: timeline, hands, tricks, the state,
    irregularities, the text export."""
    out: list[tuple[str, str]] = []
    body = recorded.get("", token=full).get_json()
    out += [(f"state.{k}", v) for k, v in _strings(body["state"]) if k in SENTENCES | PHRASES]
    out += [(f"timeline.{k}", v) for k, v in _strings(recorded.get("/timeline", token=full).get_json()) if k == "summary"]
    out += [(f"irregularities.{k}", v) for k, v in _strings(recorded.get("/irregularities", token=full).get_json())
            if k in SENTENCES | PHRASES]
    hands = body["state"].get("hand_number") or body["state"].get("round_number") or 1
    for n in range(1, hands + 1):
        hand = recorded.get(f"/hands/{n}", token=full)
        if hand.status_code != 200:
            continue
        view = hand.get_json()
        out += [(f"hands/{n}.{k}", v) for k, v in _strings(view) if k in SENTENCES | PHRASES]
        for t in range(1, len(view.get("tricks") or []) + 1):
            trick = recorded.get(f"/hands/{n}/tricks/{t}", token=full).get_json()
            out += [(f"hands/{n}/tricks/{t}.{k}", v) for k, v in _strings(trick) if k in SENTENCES | PHRASES]
    text = recorded.get("/export?format=text", token=full).get_data(as_text=True)
    # the text export's header lines (``[Options "…"]``) are its file format, not sentences
    out += [("export text", line) for line in text.splitlines() if not line.startswith("[")]
    return out


def _page_texts(client: Any, recorded: Any, full: bool) -> list[tuple[str, str]]:
    """The visible text of the game page, its audits (hands, tricks, turns), a few replay
    steps, the home page, the players' pages and the club table."""
    headers = recorded.auth if full else {}
    start_at = f"/watch/{recorded.id}"
    version = recorded.get("").get_json()["version"]
    todo = [start_at, "/", "/club", "/people", *(f"{start_at}/replay?step={n}" for n in range(2, version + 1, 7))]
    seen: dict[str, list[str]] = {}
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        page = _page(client, path, headers)
        seen[path] = page.text()
        for href in page.links:
            if href.startswith(f"{start_at}/hands/") or href.startswith("/people/"):
                todo.append(href)
    return [(path, line) for path, lines in seen.items() for line in lines]


@pytest.mark.parametrize("seed", [3])
def test_every_sentence_of_recorded_games_is_written_for_card_players(client, seed):
    problems: list[str] = []
    for game, body, actions in _games(seed):
        recorded = _record(client, game, body, actions)
        for full in (True, False):
            for where, text in _api_texts(recorded, full):
                field = where.rsplit(".", 1)[-1]
                problems += _problems(f"{game} {where}", text, field in SENTENCES)
            for where, text in _page_texts(client, recorded, full):
                problems += _problems(f"{game} page {where}", text, False)
    assert problems == [], "\n".join(problems[:40])


def _refusals(game: str, seed: int) -> list[str]:
    """The sentences of refused actions in a whole random game: at every state, every card of
    the deck played (or swapped, shown, dealt twice) by every player, through the engine that
    the API answers 409 with."""
    rng = random.Random(seed)
    rules = GAMES[game]
    players = PLAYERS if game != "stop_the_bus" else PLAYERS[:3]
    log = play(game, rng, players, {}, "open" if seed % 2 else "table", max_events=120)
    stream = start(rules, log.created)
    deck = {"toepen": ["7H", "TC", "AS", "JD"], "fool": ["G6", "1", "R20", "B3"],
            "stop_the_bus": ["TH", "2C", "AS", "QD"], "fuji_flush": [2, 14, 20]}[game]
    messages: set[str] = set()
    for seq, action in log.events[1:]:
        for player in players:
            for card in deck:
                for attempt in ({"type": "play", "player": player, "card": card},
                                {"type": "swap", "player": player, "take": card, "give": deck[0]},
                                {"type": "show", "player": player, "cards": [card, card, deck[1]]},
                                {"type": "knock", "player": player}, {"type": "fold", "player": player},
                                {"type": "stop", "player": player}, {"type": "deal"}):
                    try:
                        advance(stream, stream.version + 1, attempt)
                    except RulesError as error:
                        messages.add(error.message)
                    except (KeyError, TypeError, ValueError):
                        pass
        stream = advance(stream, seq, action)
    return sorted(messages)


@pytest.mark.parametrize("game", ["toepen", "fool", "stop_the_bus", "fuji_flush"])
def test_refusals_are_written_for_card_players(game):
    messages = _refusals(game, 5) + _refusals(game, 6)
    assert len(messages) > 5
    problems = [p for message in messages for p in _problems(f"{game} refusal", message, True)]
    assert problems == [], "\n".join(problems)


def test_the_fingerprint_and_its_check_name_moments_not_event_numbers(client):
    """A fresh user read "event 14" in the fingerprint's small print, and the check of a noted
    fingerprint said "after event 2: events 1 to 2 are unchanged, and event 3 was recorded…"
    (issue 25): the game page and the check name the moment as card players do, the number only
    as the replay's "step 2", a link into it."""
    from tests.conftest import create

    game = create(client)
    game.post({"type": "deal"})
    noted = game.get().get_json()["record_hash"][:16]
    game.post({"type": "play", "player": "Bob", "card": "7H"})
    game.post({"type": "play", "player": "Cas", "card": "8H"})
    lines: list[str] = []
    for path in (f"/watch/{game.id}", f"/watch/{game.id}/verify?fingerprint={noted}",
                 f"/watch/{game.id}/verify?fingerprint={game.get().get_json()['record_hash'][:16]}"):
        page = _page(client, path, {})
        lines += page.text()
        assert f"/watch/{game.id}/replay?step=4" in page.links, (path, page.links)  # the small print's step
    problems = [p for line in lines for p in _problems("fingerprint", line, False)]
    assert problems == [], "\n".join(problems)
    text = " ".join(lines)
    assert "matches the record as it stood after Ann dealt in hand 1: everything recorded up to then is " \
           "unchanged, and 2 more entries were recorded after it was noted (the record now stands after Cas " \
           "played 8♥ in hand 1, trick 1)." in text, text
    assert "step 4 of the replay" in text
