"""The read-only pages (``../shared/spec/ui.md``): the public game page, replay, trick and turn
audits, what-if forks, the player pages and the club table.

Routes (on the pages blueprint, never under the API's ``/games`` or ``/players``):

==========================================  ==================================================
``/watch/<id>``                             game page: the public view, updating live
``/watch/<id>/board``                       its board as an HTML fragment (``If-None-Match``: 304)
``/watch/<id>/replay?step=<seq>``           replay: the state after each event, forwards and back
``/watch/<id>/replay/board?step=<seq>``     the board at one step (fragment; the token if sent)
``/watch/<id>/hands/<n>``                   hand (round) audit: its tricks or turns and result
``/watch/<id>/hands/<n>/tricks/<t>``        trick audit: plays, winner, reasons, irregularities
``/watch/<id>/hands/<n>/turns/<t>``         turn audit (Fuji Flush, Stop the Bus)
``/watch/<id>/fork?seq=<seq>``              start a what-if game from event ``seq`` (token)
``/people``, ``/people/<name>``             players, and one player's record with charts
``/club``                                   the club table: every player's record per game
==========================================  ==================================================

Every page reads through the functions the REST reads use (``service.record.games``,
``replays.audit``, ``replays.timeline``, ``service.storage.history``, the engine's ``view`` and
``score_sheet``), so a page shows exactly what the API says. Pages are public; a request
that carries ``Authorization: Bearer <token>`` (the pages' scripts send the token this
device keeps) gets the full view, as on the API.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from threading import Lock
from typing import Any

from cachetools import LRUCache
from flask import Response, current_app, render_template, request, url_for

import engine
from engine import stream as streams
from engine.cards import SUIT_NAMES
from engine.core import plural
from replays import audit, timeline
from replays import replay as replays_replay
from replays.chain import moment_words
from schemas.common import whole_number
from service import clubtime, http
from service.problems import ApiError
from service.record import games, projections, secrecy, transfer
from service.storage import backend as store
from service.storage import history
from service.storage.connections import get_db
from service.web.boards import BoardAnswers
from service.web.pages import catalogue, charts
from service.web.pages.blueprint import bp
from service.web.pages.clock import club_zone

#: Words for each game's score unit (``results``' ``unit``) on the pages.
UNIT_WORDS = {"lives_lost": "lives lost", "points": "points", "chips": "chips"}


@bp.app_template_filter("score_words")
def score_words(score: Any, unit: str | None) -> str:
    """A score with its unit in the right number: "1 life lost", "2 lives lost", "1 chip",
    "-1 point", "10 points" (never "1 chips")."""
    if unit == "lives_lost":
        return f"{plural(int(score), 'life')} lost"
    if unit in ("chips", "points"):
        return plural(int(score), unit[:-1])
    return f"{score} {UNIT_WORDS.get(str(unit), unit or '')}".strip()
#: What a hand is called in each game.
def hand_word(kind: str) -> str:
    """The game's word for a hand ("hand" in Toepen, "round" in the others), from its engine."""
    return engine.GAMES[kind].HAND_WORD
FOOL_COLOURS = {"G": "green", "R": "red", "Y": "yellow", "B": "blue"}
#: How often the game page asks whether the game moved on (milliseconds).
POLL_MS = 1000


# --------------------------------------------------------------------------- helpers


def card_label(game: str, code: Any) -> str:
    """A card as a person says it (ui.md "Names"): ``10♥``, ``Green 20``, ``Wild 1``, ``14``."""
    return catalogue.card_name(game, code)


def card_css(game: str, code: Any) -> str:
    """The colour class of a card (suit or Fool! colour), as the table page's deck uses."""
    text = str(code)
    if game in ("toepen", "stop_the_bus") and len(text) == 2:
        return f"suit-{text[1]}"
    if game == "fool":
        return "colour-W" if text in ("1", "W1") else f"colour-{text[:1]}"
    return "number"


def lead_words(game: str, lead: str | None) -> str | None:
    """``"H"`` → ``"hearts"``, ``"G"`` → ``"green"``; None stays None."""
    if lead is None:
        return None
    return SUIT_NAMES.get(lead) if game == "toepen" else FOOL_COLOURS.get(lead, lead)


def _names(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def score_columns(game: dict[str, Any], sheet: list[dict[str, Any]]) -> dict[str, Any]:
    """The score sheet (the engine's ``score_sheet``, as in the CSV export; its columns are the
    engine's ``SHEET``) as a table: ``{"key", "label", "unit", "players": [{"name", "amount",
    "total"}], "rows"}``."""
    columns = games.rules_of(game).SHEET
    key = columns.first[0]
    players = [dict(zip(("amount", "total"), columns.of(name), strict=True), name=name) for name in game["players"]]
    return {"key": key, "label": key.capitalize(), "rows": sheet, "players": players, "unit": columns.unit}


def seat_cells(game: dict[str, Any], state: dict[str, Any]) -> list[dict[str, Any]]:
    """One dict per seat for the seats table: name, whether to act / dealer, the score in the
    game's unit and the cards known on the table, from the state view."""
    kind = game["game"]
    to_act, out = set(state["to_act"]), []
    dealer = state.get("dealer") if state.get("phase") != "deal" else state.get("next_dealer") or state.get("dealer")
    if state.get("status") != "in_progress":  # a game over deals no more: no seat is the dealer
        dealer = None
    for player in state["players"]:
        cell: dict[str, Any] = {"name": player["name"], "acting": player["name"] in to_act,
                                "dealer": player["name"] == dealer, "notes": [], "cards": []}
        if kind == "toepen":
            cell["score"] = f"{player['lives_lost']} of {game['options']['limit']} lives lost"
            cell["value"] = player["lives_lost"]
            if player["eliminated"]:
                cell["notes"].append("out of the game")
            elif not player["in_hand"] and state.get("phase") != "deal":
                cell["notes"].append("folded")
            cell["cards_held"] = player["hand_size"]
        elif kind == "fool":
            cell["score"] = f"{player['score']} points"
            cell["value"] = player["score"]
            if player.get("tens"):  # the game ends at a sixth round scored +10
                cell["notes"].append(f"+10 in {plural(player['tens'], 'round')}")
            if player["name"] in state.get("sitting_out", []):
                cell["notes"].append("Fool: sits out this trick")
            cell["cards_held"] = player["hand_size"]
        elif kind == "fuji_flush":
            # The score sheet counts the cards a player holds in hand and in front of them
            # (a player with neither has won): the seat says both, so the counts agree.
            in_front = 0 if player.get("table_card") is None else 1
            held = player["hand_size"] + in_front
            cell["score"] = plural(held, "card") + " held"
            cell["value"] = held
            if player.get("won"):
                cell["notes"].append("won")
            if in_front:
                # a count of cards, then which card lies in front (17 is its number, not a count)
                cell["notes"].append(f"{player['hand_size']} in hand, 1 in front (a {player['table_card']})")
            if player.get("pushed_through"):
                cell["notes"].append(f"{player['pushed_through']} pushed through")
            cell["cards_held"] = player["hand_size"]
        else:
            cell["score"] = plural(player["chips"], "chip")
            cell["value"] = player["chips"]
            if player["out"]:
                cell["notes"].append("out of the game")
            rank = player.get("hand_rank")
            if rank and player.get("hand_known"):
                cell["notes"].append(rank["words"])
            cell["cards_held"] = player["hand_size"]
        if state["status"] == "finished" and player["name"] in (state.get("winners") or []) and "won" not in cell["notes"]:
            cell["notes"].insert(0, "won")
        known = player.get("cards_known") if "cards_known" in player else player.get("hand_known")
        cell["cards"] = list(known or [])
        out.append(cell)
    return out


def board_context(row: dict[str, Any], state: dict[str, Any], full: bool) -> dict[str, Any]:
    """Everything the board templates show of one state view (``GET /games/<id>``'s ``state``)."""
    game = games.summary(row)
    kind = game["game"]
    tricks = state.get("tricks") or []
    current_trick = tricks[-1] if tricks else None
    return {
        "game": game,
        "kind": kind,
        "state": state,
        "full": full,
        "game_name": catalogue.GAMES[kind].name,
        "hand_word": hand_word(kind),
        "headline": state["status_sentence"],  # the API's own sentence (engine.stream.status_sentence)
        "seats": seat_cells(game, state),
        "trick": current_trick,
        "lead": lead_words(kind, (current_trick or {}).get("lead_suit") or (current_trick or {}).get("lead_colour")),
        "card_label": lambda code: card_label(kind, code),
        "card_css": lambda code: card_css(kind, code),
    }


def load_row(game_id: str) -> dict[str, Any]:
    """The game row (404 page when there is none)."""
    return games.load(game_id)


def page_error(err: ApiError) -> tuple[str, int]:
    """An API refusal shown as a page: its sentence, its status, a way home."""
    return render_template("page_error.html", err=err), err.status


#: A sealed fork refused before a page's view runs (``service.record.secrecy.guard``) is a page too.
bp.register_error_handler(secrecy.Sealed, page_error)


def guarded(view: Callable[..., Any]) -> Callable[..., Any]:
    """Render an :class:`ApiError` raised by a page view as an HTML page with its status."""
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return view(*args, **kwargs)
        except ApiError as err:
            return page_error(err)
    wrapper.__name__ = view.__name__
    wrapper.__doc__ = view.__doc__
    return wrapper


def _fragment(html: str, version: int) -> Response:
    response = Response(html, mimetype="text/html")
    response.headers["ETag"] = http.etag(version)
    response.headers["Cache-Control"] = "no-cache"
    response.headers["Vary"] = "Authorization"
    return response


def _not_modified(version: int) -> bool:
    header = request.headers.get("If-None-Match")
    return header is not None and header.strip() == http.etag(version)


# --------------------------------------------------------------------------- game page


def game_context(row: dict[str, Any], full: bool) -> dict[str, Any]:
    """The game page's board: the state as ``GET /games/<id>`` shows it (``games.body``), the
    score sheet (the CSV export's ``score_sheet``) and the hands to audit."""
    rules = games.rules_of(row)
    stream = games.current(row).stream
    shown = games.body(row, stream, full)
    context = board_context(row, shown["state"], full)
    context["game"]["status"] = shown["status"]
    context["sheet"] = score_columns(context["game"], rules.score_sheet(stream.state))
    context["version"] = stream.version
    context["hands"] = list(range(1, rules.hand_number(stream.state) + 1))
    state = shown["state"]
    number = rules.hand_number(stream.state)
    context["ended"] = None
    # Between hands (a deal is due) and once the game is over: the hand just ended and its
    # result. Fuji Flush is one hand, the whole game: its end is the headline.
    if number and row["game"] != "fuji_flush" and (state.get("phase") == "deal" or shown["status"] != "in_progress"):
        view = rules.hand_view(stream.state, number, full)
        if view is not None and view.get("result"):
            context["ended"] = result_words(row["game"], number, view["result"])
    context["last_turn"] = None
    if row["game"] == "fuji_flush" and number:
        view = rules.hand_view(stream.state, number, full)
        turns = (view or {}).get("turns") or []
        if turns:
            context["last_turn"] = catalogue.sentence(str(turns[-1].get("explanation") or ""))
    context["notes"] = game_notes(row, games.current(row))
    forks, _ = store.list_games(get_db(), forked_from=row["id"], limit=50)
    projections.check_listed(forks)
    steps = {step["seq"]: step for step in timeline_steps(row, full)} if forks else {}
    context["forks"] = [{**games.summary(f), "game_name": catalogue.GAMES[f["game"]].name,
                         "moment": moment_words(steps.get(f["forked_from_seq"]))} for f in forks]
    context["origin"] = fork_origin(row)
    context.update(games.fingerprint_context(row, stream.version, shown["status"]))  # record_fingerprint.html
    context["fingerprint_moment"] = record_moment(row, full)
    return context


def record_moment(row: dict[str, Any], full: bool) -> str:
    """The moment the record of ``row`` has reached, in :func:`moment_words`' words, from the
    folded game alone (no refold, no timeline): what the record's fingerprint is of. The card
    is named only when the last event is a move in force, as this reader sees it."""
    folded = games.current(row)
    rules, fact, head = folded.stream.rules, folded.facts[-1], folded.stream.done.head
    if fact.type == streams.CREATED:
        return "at the start"
    place = streams.place_words(rules, fact.hand, fact.position, fact.type)
    brief = ""
    if fact.type not in streams.NOT_GAME_ACTIONS and head.seq == fact.seq and head.fix is None:
        brief = streams.summary(rules, head, full)
    return moment_words({"type": fact.type, "place": place, "brief": brief})


def fork_origin(row: dict[str, Any]) -> dict[str, Any] | None:
    """What a what-if fork's pages say of the game it branched from, never by its id (ui.md,
    "Words for card players"): ``{"game": its id for links (None when it is not stored here),
    "title", "players", "created_at", "moment": moment_words(…)}``, read as the public sees
    that game (a card of a game that is itself a fork is never named: its hands may be shared
    further up); None for a game that is no fork."""
    origin = games.forked_from(row)
    if origin is None:
        return None
    try:
        parent = games.load(origin["game"])
    except ApiError:  # a fork imported without the game it came from
        return {"game": None, "title": None, "players": [], "created_at": None, "moment": ""}
    steps = {step["seq"]: step for step in timeline_steps(parent, False)}
    summary = games.summary(parent)
    return {"game": parent["id"], "title": summary.get("title"), "players": summary["players"],
            "created_at": summary["created_at"],
            "moment": moment_words(steps.get(origin["seq"]), cards=not parent.get("forked_from_game"))}


def game_notes(row: dict[str, Any], folded: Any) -> list[dict[str, Any]]:
    """Every note of the game in force (an undone one left out), oldest first, as the audits
    give them (``replays.audit.notes``: text, player, ``recorded_at``, place) with ``hand``
    (0 before the first deal): the game page lists them."""
    rules = games.rules_of(row)
    events = games.events(row, upto=folded.version)
    cancelled = replays_replay.undone(folded)
    unit = "turn" if rules.PLAY_UNIT == "turn" else "trick"
    found = [{**note, "hand": n, "unit": unit}
             for n in range(0, rules.hand_number(folded.stream.state) + 1)
             for note in audit.notes(folded, events, n, unit) if note["seq"] not in cancelled]
    return sorted(found, key=lambda note: note["seq"])


def result_words(kind: str, n: int, result: dict[str, Any]) -> str:
    """The result of hand (round) ``n`` (``GET hands/<n>``'s ``result``) in whole sentences:
    "Hand 2 is over. Dee lost 2 lives, Bob lost 1 life. Cas won the last trick with the
    highest club." Every sentence ends with one full stop (ui.md, "Words for card players")."""
    word = hand_word(kind).capitalize()
    out = [f"{word} {n} is over."]
    if kind == "fool":
        scored = [f"{who} {points:+d}" if points else f"{who} 0" for who, points in result.items()
                  if isinstance(points, int)]
        if scored:
            out.append(catalogue.sentence("Points this round: " + ", ".join(scored)))
        return " ".join(out)
    losses = result.get("losses") or {}
    lost = [f"{who} lost {plural(amount, 'life')}" for who, amount in losses.items() if amount]
    if lost:
        out.append(catalogue.sentence(", ".join(lost)))
    elif result.get("losers") and kind == "stop_the_bus":
        out.append(catalogue.sentence(f"{_names(list(result['losers']))} {'loses' if len(result['losers']) == 1 else 'lose'} a chip"))
    if result.get("reason"):
        reason = str(result["reason"])
        out.append(catalogue.sentence(reason[0].upper() + reason[1:]))
    return " ".join(out)


@bp.get("/watch/<game_id>")
@secrecy.reads()
@guarded
def watch(game_id: str) -> Any:
    """The public game page: seats, scores, the current trick/turn/centre, whose turn; it asks
    ``/watch/<id>/board`` every second whether the game moved on."""
    row = load_row(game_id)
    context = game_context(row, secrecy.reader(row))
    export_stem = transfer.file_stem(row, clubtime.club_zone())  # the Export menu's file names, as in a night's zip
    return render_template("watch.html", poll_ms=POLL_MS, export_stem=export_stem, **context)


@bp.get("/watch/<game_id>/board")
@secrecy.reads()
@guarded
def watch_board(game_id: str) -> Any:
    """The game page's live part as a fragment; 304 while ``If-None-Match`` names the version.

    What it finds is remembered (``service.web.boards``): the version, and the public board of a
    game that is not a what-if fork (a fork's public view can be sealed by its ancestors
    without its own version changing), so that the server answers the next polls from memory."""
    answers: BoardAnswers = current_app.extensions["kibitz_boards"]
    epoch = answers.epoch(game_id)  # before the row is read: see service.web.boards
    row = load_row(game_id)
    alone = not row.get("forked_from_game")  # a fork's view can change with the games it was forked from
    if _not_modified(row["version"]):
        http.varies_with_token()  # the 200 it stands for differs with the token
        answers.note(game_id, row["version"], epoch, alone=alone)
        response = Response(status=304)
        response.headers["ETag"] = http.etag(row["version"])
        return response
    full = secrecy.reader(row)
    context = game_context(row, full)
    html = render_template("watch_board.html", **context)
    shared = not full and alone and context["version"] == row["version"]
    answers.note(game_id, row["version"], epoch, html.encode("utf-8") if shared else None, alone=alone)
    return _fragment(html, context["version"])


# --------------------------------------------------------------------------- replay


def _step() -> int | None:
    return whole_number(request.args.get("step", ""))


def replay_context(row: dict[str, Any], step: int, full: bool) -> dict[str, Any]:
    """The board right after event ``step`` (the same function as ``GET states/<seq>``)."""
    body = secrecy.state_after(row, step, full)
    context = board_context(row, body["state"], full)
    rules = games.rules_of(row)
    context.update(step=step, version=row["version"],
                   hands=list(range(1, rules.hand_number(games.current(row).stream.state) + 1)))
    return context


#: How many (game, version, view) timelines the replay keeps, so stepping through a game
#: folds it once per step for the state, not twice.
TIMELINES_KEPT = 32


def timeline_steps(row: dict[str, Any], full: bool) -> list[dict[str, Any]]:
    """Every event with its summary and ``undone`` (``GET timeline``), kept per game version
    and view: a replay asks for one step after another of the same version."""
    kept: tuple[Lock, LRUCache[tuple[str, int, bool], list[dict[str, Any]]]] = current_app.extensions.setdefault(
        "kibitz_timelines", (Lock(), LRUCache(maxsize=TIMELINES_KEPT)))
    lock, cache = kept
    key = (row["id"], row["version"], full)
    with lock:
        found = cache.get(key)
    if found is None:
        rules = games.rules_of(row)
        found = list(timeline.timeline(rules, games.events(row, upto=row["version"]), full))
        with lock:
            cache[key] = found
    return found


def correction_words(steps: list[dict[str, Any]]) -> dict[int, dict[str, str]]:
    """For each event that an undo or redo targeted, its story for the replay, by seq, in card
    players' words (``replays.timeline.undo_stories``, which ``kibitz replay`` prints too)."""
    return timeline.undo_stories(steps)


@bp.get("/watch/<game_id>/replay")
@secrecy.reads("step")
@guarded
def replay(game_id: str) -> Any:
    """Replay: Previous step / Next step and the Step slider over every event (``?step=seq``,
    the last by default); the state as it was after that event; undone moves shown as such."""
    row = load_row(game_id)
    full = secrecy.reader(row)
    step = _step()
    step = row["version"] if step is None or not 1 <= step <= row["version"] else step
    steps = timeline_steps(row, full)
    try:
        context = replay_context(row, step, full)
        sealed = None
    except ApiError as err:
        if err.status != 401:
            raise
        context, sealed = {"game": games.summary(row), "kind": row["game"], "step": step,
                           "version": row["version"], "game_name": catalogue.GAMES[row["game"]].name}, err.detail
    by_seq = {entry["seq"]: entry for entry in steps}
    return render_template("replay.html", steps=steps, current=by_seq.get(step), sealed=sealed,
                           corrections=correction_words(steps), **context)


@bp.get("/watch/<game_id>/replay/board")
@secrecy.reads("step")
@guarded
def replay_board(game_id: str) -> Any:
    """The replay's board at ``?step=seq`` as a fragment (full view with the token)."""
    row = load_row(game_id)
    full = secrecy.reader(row)
    step = _step()
    if step is None or not 1 <= step <= row["version"]:
        raise ApiError(404, "not_found", f"This game's replay has no step {request.args.get('step', '')[:20]}: "
                       f"its steps are 1 to {row['version']}.", version=row["version"])
    timeline_list = timeline_steps(row, full)
    steps = {entry["seq"]: entry for entry in timeline_list}
    context = replay_context(row, step, full)
    return _fragment(render_template("replay_board.html", current=steps.get(step),
                                     corrections=correction_words(timeline_list), **context), row["version"])


@bp.get("/watch/<game_id>/replay/timeline")
@secrecy.reads("step")
@guarded
def replay_timeline(game_id: str) -> Any:
    """The replay's list of steps as a fragment (with the token: every card named)."""
    row = load_row(game_id)
    full = secrecy.reader(row)
    step = _step() or row["version"]
    steps = timeline_steps(row, full)
    return _fragment(render_template("replay_steps.html", steps=steps, step=step, game=games.summary(row),
                                     corrections=correction_words(steps)), row["version"])


# --------------------------------------------------------------------------- audits


def hand_context(row: dict[str, Any], n: int, full: bool) -> dict[str, Any]:
    """Hand ``n`` as ``GET hands/<n>`` shows it, plus each trick's audit for trick games."""
    rules = games.rules_of(row)
    folded = games.current(row)
    events = games.events(row, upto=row["version"])
    hand = audit.hand(folded, events, n, full)
    if hand is None:
        raise ApiError(404, "not_found", f"This game has no {hand_word(row['game'])} {n}.", version=row["version"])
    kind = row["game"]
    tricks = [audit.trick(folded, events, n, trick["number"], full) for trick in hand.get("tricks", [])]
    steps = timeline_steps(row, full)
    # Toepen's explicit answers to a knock: the stays in force (undone and corrected ones left
    # out), listed with the knocks and folds
    cancelled, fixed = replays_replay.undone(folded), replays_replay.corrected(folded)
    stays = [{"player": event["data"].get("player"), "seq": event["seq"]} for event in events
             if event["type"] == "stay" and event["seq"] not in cancelled and event["seq"] not in fixed
             and folded.facts[event["seq"] - 1].hand == n]
    return {
        "stays": stays,
        # each event's place ("hand 1, trick 2") and timeline words, which the pages show
        # instead of event numbers (ui.md, "Words for card players")
        "places": {step["seq"]: step["place"] for step in steps},
        "said": {step["seq"]: step["summary"] for step in steps},
        "game": games.summary(row), "kind": kind, "hand": hand, "n": n, "tricks": tricks,
        "turns": hand.get("turns", []) if rules.PLAY_UNIT == "turn" else [],
        "hands": list(range(1, rules.hand_number(folded.stream.state) + 1)),
        "game_name": catalogue.GAMES[kind].name, "hand_word": hand_word(kind),
        "card_label": lambda code: card_label(kind, code), "card_css": lambda code: card_css(kind, code),
        "lead_words": lambda lead: lead_words(kind, lead),
    }


@bp.get("/watch/<game_id>/hands/<int:n>")
@secrecy.reads()
@guarded
def hand_audit(game_id: str, n: int) -> Any:
    """A hand's (round's) audit: every trick with its winner and reason, or every turn
    explained; knocks, folds, reveals, the result, irregularities and corrections."""
    row = load_row(game_id)
    context = hand_context(row, games.path_number(n), secrecy.reader(row))
    return render_template("audit_hand.html", **context)


@bp.get("/watch/<game_id>/hands/<int:n>/tricks/<int:t>")
@secrecy.reads()
@guarded
def trick_audit(game_id: str, n: int, t: int) -> Any:
    """One trick: its plays (seq, time), winner and reasons in words, irregularities with the
    event that proves them, corrections and notes; **What if…** forks before it (token)."""
    row = load_row(game_id)
    full = secrecy.reader(row)
    trick = games.trick_audit(row, n, t, full)
    if trick is None:
        raise ApiError(404, "not_found", f"This game has no trick {t} in hand {n}.", version=row["version"])
    context = hand_context(row, n, full)
    first = trick["plays"][0]["seq"] if trick["plays"] else row["version"]
    branch = [{"seq": first - 1, "words": f"Before trick {t}"}]
    branch += [{"seq": play["seq"], "words": f"After {play['player']}'s {card_label(row['game'], play['card'])}"}
               for play in trick["plays"]]
    return render_template("audit_trick.html", trick=trick, t=t, branch=branch, **context)


@bp.get("/watch/<game_id>/hands/<int:n>/turns/<int:t>")
@secrecy.reads()
@guarded
def turn_audit(game_id: str, n: int, t: int) -> Any:
    """One turn (Fuji Flush, Stop the Bus) as ``GET hands/<n>`` explains it, with its
    corrections; **What if…** forks before it (token)."""
    row = load_row(game_id)
    full = secrecy.reader(row)
    context = hand_context(row, games.path_number(n), full)
    turns = context["hand"].get("turns") or []
    if not 1 <= games.path_number(t) <= len(turns):
        raise ApiError(404, "not_found", f"This game has no turn {t} in {hand_word(row['game'])} {n}.",
                       version=row["version"])
    turn = turns[t - 1]
    branch = [{"seq": turn["seq"] - 1, "words": f"Before turn {t}"},
              {"seq": turn["seq"], "words": f"After turn {t}"}]
    return render_template("audit_turn.html", turn=turn, t=t, branch=branch, **context)


@bp.get("/watch/<game_id>/fork")
@secrecy.reads("seq")
@guarded
def fork(game_id: str) -> Any:
    """The what-if page: a new game from the actions in force after ``?seq=``; its script
    sends ``POST /games/<id>/fork`` with this device's token and opens the new table page."""
    row = load_row(game_id)
    seq = _step_arg("seq", row["version"])
    steps = {entry["seq"]: entry for entry in timeline_steps(row, False)}
    return render_template("fork.html", game=games.summary(row), seq=seq, at=steps.get(seq),
                           game_name=catalogue.GAMES[row["game"]].name)


def _step_arg(name: str, version: int) -> int:
    number = whole_number(request.args.get(name, ""))
    if number is None or not 1 <= number <= version:
        raise ApiError(422, "validation_failed", f"Give an event of this game, 1 to {version}.",
                       errors={name: [f"Give an event of this game, 1 to {version}."]}, version=version)
    return number


# --------------------------------------------------------------------------- players


@bp.get("/people")
@secrecy.reads()
def people() -> str:
    """Every player seen, with games played and won (``GET /players``), linking to each."""
    projections.check()
    players = sorted(history.players(get_db()), key=lambda p: p["name"].casefold())
    return render_template("people.html", players=players, game_names=_game_names())


def _game_names() -> dict[str, str]:
    return {game_id: game.name for game_id, game in catalogue.GAMES.items()}


@bp.get("/people/<player:name>")
@secrecy.reads("game")
def person(name: str) -> Any:
    """A player's record: per game played, won, lost, abandoned (``GET /players/<name>``),
    the recent games, a chart of scores over one game (``?game=<id>``, the latest finished by
    default) and of results over time."""
    db = get_db()
    stats = history.stats(db, name) if len(name) <= 100 else None
    if stats is None:
        return page_error(ApiError(404, "not_found", f"Nobody called {name.strip()[:40]!r} has played a game here."))
    projections.check(name=name)
    played = history.games(db, name)
    projections.check_listed(played)
    shown = played[0]["name"] if played else name
    chosen_id = request.args.get("game")
    chosen = next((g for g in played if g["id"] == chosen_id), None) if chosen_id else None
    chosen = chosen or next((g for g in played if g["status"] == "finished"), played[0] if played else None)
    over_game = None
    if chosen is not None:
        row = games.load(chosen["id"])
        rules = games.rules_of(row)
        sheet = score_columns(games.summary(row), rules.score_sheet(games.current(row).stream.state))
        over_game = {"game": chosen, "sheet": sheet,
                     "svg": charts.scores_over_game(sheet, shown, catalogue.GAMES[row["game"]].name),
                     "together": charts.coinciding_lines(sheet)}
    return render_template("player.html", name=shown, stats=stats, games=played[:20], total=len(played),
                           over_game=over_game, over_time=charts.results_over_time(played),
                           months=charts.results_by_month(played), game_names=_game_names(), unit_words=UNIT_WORDS)


# --------------------------------------------------------------------------- club table

#: The club table's columns: query name, heading, how a row is sorted by it.
CLUB_COLUMNS: dict[str, tuple[str, Callable[[dict[str, Any]], Any]]] = {
    "name": ("Player", lambda r: r["name"].casefold()),
    "games": ("Played", lambda r: r["games"]),
    "wins": ("Won", lambda r: r["wins"]),
    "losses": ("Lost", lambda r: r["losses"]),
    "abandoned": ("Abandoned", lambda r: r["abandoned"]),
    "win_rate": ("Won %", lambda r: -1 if r["win_rate"] is None else r["win_rate"]),
    "average": ("Average", lambda r: float("-inf") if r["average"] is None else r["average"]),
}
#: Score units where a lower average is the better record (the club table sorts them best first).
LOWER_IS_BETTER = frozenset({"lives_lost"})
PERIODS = {"all": "All time", "week": "Last 7 days", "month": "Last 30 days", "year": "This year"}


def _period_bounds(choice: str, today: date) -> tuple[str | None, str | None]:
    if choice == "week":
        return (today - timedelta(days=6)).isoformat(), today.isoformat()
    if choice == "month":
        return (today - timedelta(days=29)).isoformat(), today.isoformat()
    if choice == "year":
        return date(today.year, 1, 1).isoformat(), today.isoformat()
    return None, None


@bp.get("/club")
@secrecy.reads("period", "since", "until", "sort", "order")
def club() -> Any:
    """Every player's record per game type over a chosen period (``GET /players?since=&until=``),
    one table per game type, sorted by any column (``?sort=…&order=asc|desc``)."""
    choice = request.args.get("period", "all")
    try:
        if request.args.get("since") or request.args.get("until"):
            since, until = http.period()
            choice = "custom"
        else:
            choice = choice if choice in PERIODS else "all"
            since, until = _period_bounds(choice, clubtime.today(club_zone()))
    except ApiError as err:
        return page_error(err)
    sort = request.args.get("sort", "wins")
    sort = sort if sort in CLUB_COLUMNS else "wins"
    order = "asc" if request.args.get("order") == "asc" else "desc"
    tables: dict[str, list[dict[str, Any]]] = {}
    units: dict[str, str | None] = {}
    projections.check(since=since, until=until)
    for player in history.players(get_db(), since, until):
        for kind, record in player["by_game"].items():
            average_key = next((k for k in record if k.startswith("average_")), None)
            units[kind] = average_key[len("average_"):] if average_key else None
            decided = record["wins"] + record["losses"]
            tables.setdefault(kind, []).append({
                "name": player["name"], **{k: record[k] for k in ("games", "finished", "wins", "losses", "abandoned")},
                "win_rate": round(100 * record["wins"] / decided) if decided else None,
                "average": record.get(average_key) if average_key else None,
            })
    key = CLUB_COLUMNS[sort][1]
    directions: dict[str, str] = {}
    for kind, rows in tables.items():
        # "desc" is best first: the most wins, the highest average, except where a lower
        # average is better (Toepen's lives lost), which then reads from the lowest up.
        reverse = (order == "desc") != (sort == "average" and units.get(kind) in LOWER_IS_BETTER)
        directions[kind] = "descending" if reverse else "ascending"
        rows.sort(key=lambda r: r["name"].casefold())
        rows.sort(key=key, reverse=reverse)
    ordered = [(kind, tables[kind]) for kind in catalogue.GAMES if kind in tables]
    return render_template("club.html", tables=ordered, units=units, unit_words=UNIT_WORDS, columns=CLUB_COLUMNS,
                           directions=directions, lower_is_better=LOWER_IS_BETTER,
                           sort=sort, order=order, period=choice, periods=PERIODS, since=since, until=until,
                           game_names=_game_names(), sort_url=_sort_url)


def _sort_url(column: str, sort: str, order: str) -> str:
    args: dict[str, Any] = {k: v for k, v in request.args.items() if k not in ("sort", "order")}
    flipped = "asc" if (column == sort and order == "desc") or (column != sort and column == "name") else "desc"
    return url_for("pages.club", **{**args, "sort": column, "order": flipped})
