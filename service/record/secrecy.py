"""The one gate of every read of a game: who sees what (api.md, "Views and secrets").

Every read of a game (API routes, pages, page fragments, exports, ``actions``) goes through
here; what an event or a past moment shows a reader without the token is judged against
the **current** record by ``replays.secrecy``.

- :func:`reader`: True for the holder of the game's token (the full view), False for the
  public view; 401 ``token_required`` for the public view of a what-if fork while a game up
  its chain is still playing a hand it shares (``service.storage.forks.sealed_by``, any chain length).
- :func:`guard`: run by the app before every ``GET``/``HEAD`` whose route names a game
  (``<game_id>``), API and pages alike, so a route added later is sealed without asking.
- :func:`hidden_seqs`: the events whose recorded cards are back in a hand and still secret
  (``replays.secrecy.hidden`` over the current fold); ``actions`` leaves their cards out.
- :func:`state_after`: ``states/<seq>`` and the replay's steps: refused with 401
  ``token_required`` for a public reader when the moment shows a hand as over that is in play
  now, or shows a card that is back in a hand now (:func:`moment`, which ``actions?before=``
  of an event not in the record asks too).
- :func:`reads`: the registry of each read view's query parameters (beside the view), which
  ``tests/test_every_route_keeps_hidden_cards_hidden.py`` reads to try every route.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from cachetools import LRUCache
from flask import current_app, g, request

import engine
from engine import stream as streams
from engine.core import name_list
from replays import replay
from replays import secrecy as seen
from replays.replay import Folded
from service import http
from service.problems import ApiError
from service.record import games
from service.storage import backend as store
from service.storage import forks
from service.storage.connections import get_db

F = TypeVar("F", bound=Callable[..., Any])

#: The attribute :func:`reads` puts on a view: the query parameters it reads.
QUERY_ATTRIBUTE = "kibitz_query"
#: The attribute :func:`reads` puts on a view: False when the route shows none of the game's cards.
CARDS_ATTRIBUTE = "kibitz_names_cards"
#: Query parameters of views this project does not write (Flask's static files), by endpoint.
OTHER_QUERIES: dict[str, tuple[str, ...]] = {"pages.static": ()}
_WWW = {"WWW-Authenticate": 'Bearer realm="kibitz"'}


class Sealed(ApiError):
    """401 ``token_required``: the public view of a what-if fork that shares a hand a game up
    its chain is still playing (:func:`reader`); the pages show it as a page."""


def reads(*query: str, cards: bool = True) -> Callable[[F], F]:
    """Register the query parameters a read view takes (``@reads("step")``; ``@reads()`` for
    none), directly under its route decorator. The every-route leak test varies each of them
    and fails for a route that has no registration. ``cards=False`` for a page of a game that
    shows none of its cards (the table page's shell: its script reads through the API with
    the token), which :func:`guard` then lets through for a sealed fork."""
    def mark(view: F) -> F:
        setattr(view, QUERY_ATTRIBUTE, tuple(query))
        setattr(view, CARDS_ATTRIBUTE, cards)
        return view
    return mark


def query_of(endpoint: str, view: Callable[..., Any]) -> tuple[str, ...] | None:
    """The registered query parameters of ``view`` (endpoint ``endpoint``), None when unregistered."""
    if endpoint in OTHER_QUERIES:
        return OTHER_QUERIES[endpoint]
    found = getattr(view, QUERY_ATTRIBUTE, None)
    return None if found is None else tuple(found)


def reader(row: dict[str, Any]) -> bool:
    """True for the reader holding ``row``'s token (``http.reader_is_full``: 403
    ``token_invalid`` for any other token but the club key), False for the public view.

    Raises :class:`ApiError` 401 ``token_required`` for the public view of an open what-if
    fork that shares a hand a game up its chain is still playing (``forks.sealed_by``).
    Judged once per request and game version.
    """
    key = (row["id"], row["version"])
    known: dict[tuple[str, int], bool] = g.setdefault("kibitz_readers", {})
    if key in known:
        return known[key]
    full = http.reader_is_full(row)
    if not full:
        origin = forks.sealed_by(get_db(), row)
        word = games.rules_of(row).HAND_WORD
        if origin is not None:
            raise Sealed(401, "token_required",
                         f"This what-if fork shares {word} {origin[1]} with {game_words(origin[0])}, where it is still in "
                         f"play: "
                         f"what the fork records names cards still in players' hands there, so only the fork's "
                         f"scorekeeper (its token) may read it until that {word} is over.",
                         version=row["version"], headers=_WWW, extra={"sealed_by": origin[0]})
        origin = names_kept_secret(row)
        if origin is not None:
            raise Sealed(401, "token_required",
                         f"This what-if fork shares {word} {origin[1]} with {game_words(origin[0])}, which never shows some "
                         f"of its cards (a folded player's cards are never revealed), and the fork names them: only "
                         f"the fork's scorekeeper (its token) may read it.",
                         version=row["version"], headers=_WWW, extra={"sealed_by": origin[0]})
    known[key] = full
    return full


def game_words(game_id: str) -> str:
    """A game as people name it in a sentence, never by its id (ui.md, "Words for card
    players"): "Friday club (Ann, Bob, Cas)", "the game of Ann, Bob and Cas", or "a game not
    stored here"."""
    try:
        row = games.load(game_id)
    except ApiError:
        return "a game not stored here"
    players = [str(name) for name in row.get("players") or []]
    if row.get("title"):
        return f"{row['title']} ({', '.join(players)})"
    return f"the game of {name_list(players)}"


#: Per game record (id, version, record_hash): the cards it keeps secret for good per hand
#: (``"kept"``) or its public view names per hand (``"named"``), so that a crowd polling a
#: fork's page does not fold its public event logs once per poll.
_CARDS: LRUCache[tuple[str, str, int, str | None], dict[int, set[Any]]] = LRUCache(maxsize=256)
_CARDS_LOCK = threading.Lock()


def _cards(kind: str, row: dict[str, Any]) -> dict[int, set[Any]]:
    """``replays.replay.kept_secret`` (``kind`` "kept") or ``named_publicly`` ("named") of
    game ``row`` at its version, remembered per record (:data:`_CARDS`)."""
    key = (kind, row["id"], int(row["version"]), row.get("record_hash"))
    with _CARDS_LOCK:
        found = _CARDS.get(key)
    if found is None:
        folded = games.current(row)
        events = games.events(row, upto=folded.version)
        found = replay.kept_secret(folded, events) if kind == "kept" else replay.named_publicly(folded, events)
        with _CARDS_LOCK:
            _CARDS[key] = found
    return found


def names_kept_secret(row: dict[str, Any]) -> tuple[str, int] | None:
    """``(game id, hand)`` when the public view of open fork ``row`` names a card that the
    game which dealt a hand the fork shares keeps secret for good (a Toepen folder's dead
    cards there, which the fork, where that player stayed in, plays or shows:
    ``replays.replay.kept_secret``); else None.

    A fork inherits the dealt cards of the games up its chain, so it inherits their secrecy
    too: while a shared hand is in play in any of them, :func:`forks.sealed_by`; once it is
    over, the cards the game that dealt it (the farthest game up the chain sharing that hand,
    whose record is the table's) never shows. A card a what-if fork in between left unplayed
    is no secret when that game showed it."""
    lineage = store.fork_lineage(get_db(), row["id"]) if row.get("forked_from_game") else []
    if row["visibility"] != "open" or not lineage:
        return None
    dealt_by: dict[int, str] = {}  # each shared hand -> the farthest game up the chain sharing it
    for ancestor_id, shared in lineage:  # farthest first
        for hand in range(1, shared + 1):
            dealt_by.setdefault(hand, ancestor_id)
    named: dict[int, set[Any]] | None = None
    for ancestor_id in dict.fromkeys(dealt_by.values()):
        ancestor = store.get_game(get_db(), ancestor_id)
        if ancestor is None or ancestor["game"] != row["game"]:
            continue
        secret = _cards("kept", ancestor)
        hands = sorted(hand for hand in secret if dealt_by.get(hand) == ancestor_id)
        if not hands:
            continue
        if named is None:
            named = _cards("named", row)
        for hand in hands:
            if secret[hand] & named.get(hand, set()):
                return ancestor_id, hand
    return None


def guard() -> None:
    """Before every ``GET``/``HEAD`` whose route names a game (``<game_id>``), API and pages
    alike: the :func:`reader` check, so a sealed fork answers 401 ``token_required`` on every
    route, including routes added later. Unknown games are left to the view (its 404)."""
    game_id = (request.view_args or {}).get("game_id")
    if request.method not in ("GET", "HEAD") or not isinstance(game_id, str) or len(game_id) > 100:
        return
    view = current_app.view_functions.get(request.endpoint or "")
    if getattr(view, CARDS_ATTRIBUTE, True) is False:
        return
    row = store.get_game(get_db(), game_id)
    if row is None or row["game"] not in engine.GAMES or not row.get("forked_from_game") or row["visibility"] != "open":
        return  # only an open fork is ever sealed; the view judges the token as usual
    row["token_hashes"] = store.live_token_hashes(get_db(), row["id"])
    reader(row)


def hidden_seqs(row: dict[str, Any], folded: Folded) -> set[int]:
    """The seqs of ``row``'s events (folded as ``folded``) whose recorded cards are back in a
    hand and still secret now (``replays.secrecy.hidden``); empty when nothing was withdrawn."""
    gone = seen.withdrawn((fact.seq, fact.type, fact.target) for fact in folded.facts)
    if not gone:
        return set()
    events = [event for event in games.events(row, upto=folded.version) if event["seq"] in gone]
    return replay.hidden(folded, events)


def actions(row: dict[str, Any], full: bool, stream: streams.Stream | None = None) -> list[dict[str, Any]]:
    """``GET …/actions`` for this reader: ``engine.stream.actions`` of ``stream`` (the current
    one when None; ``actions?before=`` passes a past moment's) with the cards of an undo's or
    redo's target left out publicly while they are back in a hand (:func:`hidden_seqs`)."""
    folded = games.current(row)
    hidden = set() if full else hidden_seqs(row, folded)
    return streams.actions(folded.stream if stream is None else stream, full, hidden)


def state_after(row: dict[str, Any], seq: int, full: bool) -> dict[str, Any]:
    """``{"seq", "version", "state"}``: the state right after event ``seq`` of the game ``row``
    as ``full`` (the token) or public reader sees it (the API's ``states/<seq>`` and the replay page).

    Raises :class:`ApiError` 404 ``not_found`` for a seq outside the log and, for the public
    view of an open game, 401 ``token_required`` when that moment shows a hand as over that
    an undo has put back in play, or a card that is back in a player's hand now (an undone
    play, show, reveal … still in force at that moment, its hand not over now).
    """
    if not 1 <= games.path_number(seq) <= row["version"]:
        raise ApiError(404, "not_found", f"This game has no event {seq}: its events are 1 to {row['version']}.",
                       version=row["version"])
    rules = games.rules_of(row)
    past = replay.stream_at(rules, games.events(row, upto=seq), seq)
    if not full:
        moment(row, past, f"The state after step {seq}")
    return {"seq": seq, "version": row["version"], "state": streams.view(past, full)}


def moment(row: dict[str, Any], past: streams.Stream, what: str) -> None:
    """Check a past moment ``past`` of the game ``row`` (as it was recorded then) before a
    reader without the token reads anything computed from it (``states/<seq>``, the replay's
    steps, ``actions?before=`` of an event that is not in the record now). ``what`` names the
    moment in the refusal ("The state after step 5"); the card is named by where it was
    recorded ("Cas's card of hand 1, trick 1"), never by an event number (ui.md).

    Raises :class:`ApiError` 401 ``token_required`` in an open game when that moment shows a
    hand as over that an undo has put back in play, or a card that is back in a player's hand
    now (an undone or corrected-away play, show, swap … in force at that moment, as that
    moment shows it: ``replays.secrecy.shown``; a moment after a correction shows the
    replacement, not the card first recorded). A table game's moments are never refused.
    """
    if row["visibility"] != "open":
        return
    rules = games.rules_of(row)
    folded = games.current(row)
    reopened = replay.reopened_hands(rules, past.state, folded.stream.state)
    if reopened:
        raise ApiError(401, "token_required",
                       f"{what} shows the cards of {rules.HAND_WORD} {reopened[0]}, which an undo has "
                       "put back in play: only the scorekeeper (this game's token) may read it.",
                       version=row["version"], headers=_WWW)
    shown = seen.shows_hidden(seen.shown(past), hidden_seqs(row, folded))
    if shown is not None:
        fact = folded.facts[shown - 1]
        if fact.type == streams.CORRECT and fact.target is not None:  # where the corrected entry was
            fact = folded.facts[fact.target - 1]
        place = streams.place_words(rules, fact.hand, fact.position, fact.type)
        data = games.events(row, upto=shown)[-1]["data"]
        who = data.get("player") or (data.get("action") or {}).get("player")
        card = f"{who}'s card" if who else "a card"
        raise ApiError(401, "token_required",
                       f"{what} shows {card}{' of ' + place if place else ''}, which is back in the player's hand "
                       f"now: only the scorekeeper (this game's token) may read it until that {rules.HAND_WORD} is over.",
                       version=row["version"], headers=_WWW, extra={"shows_seq": shown})
