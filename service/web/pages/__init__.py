"""The HTML pages (``../shared/spec/ui.md``), served by ``kibitz serve`` from the API's origin.

Every page lives in a blueprint whose name starts with ``pages`` (so the OpenAPI test, which
documents the JSON API only, can tell them apart) and under a path the API does not use:

=====================  =========================================================
``/``                  home: games in progress, recent finished games, links
``/new``               new game form (its script creates the game with ``POST /games``)
``/table/<id>``        the table page: record a live game (needs the game's token)
``/table/<id>/share``  POST with the token: the share link and its QR code (SVG, segno)
``/static/<file>``     the pages' CSS, scripts and vendored assets
=====================  =========================================================

The read-only pages (public game page, replay, audits, player page, club table) add their
routes under their own prefixes (``/watch/…``, ``/people/…``, ``/club``), never under
``/games`` or ``/players``, which are the API's.

Pages read through the same functions as the API (``service.record.games``, ``service.storage.sqlite``) and
record only through the API's write path: the table page's script is a client of the
documented REST API, so a page can never accept what the API would refuse.

Part of ``service.web``: may import ``service.record`` and below, never a view of
``service.web.views`` (``tests/test_import_layers.py``).
"""

from __future__ import annotations

import io
from typing import Any
from urllib.parse import urlsplit

import segno
from flask import Response, current_app, render_template, request

from engine import stream as streams
from engine.core import visibility_words
from replays import chain
from service import clubtime, http
from service.problems import ApiError
from service.record import games, projections, secrecy
from service.storage import backend as store
from service.storage.connections import get_db
from service.web.pages import catalogue
from service.web.pages.blueprint import bp


def is_page_endpoint(endpoint: str) -> bool:
    """True for the endpoints of HTML pages and their static files (not part of the JSON API)."""
    return endpoint.split(".", 1)[0].startswith("pages")


@bp.get("/")
@secrecy.reads()
def home() -> str:
    """Games in progress (newest first), recent finished games and the links to everything else."""
    db = get_db()
    playing, _ = store.list_games(db, status="in_progress", limit=50)
    finished, _ = store.list_games(db, status="finished", limit=20)
    abandoned, _ = store.list_games(db, status="abandoned", limit=10)
    every, _ = store.list_games(db, fork=True, limit=100)
    projections.check_listed([*playing, *finished, *abandoned, *every])
    nights = _series(db, [*playing, *finished, *abandoned])
    return render_template(
        "home.html",
        playing=[_listed(row, nights) for row in playing],
        finished=[{**_listed(row, nights), "outcome": _outcome(row)} for row in finished],
        abandoned=[_listed(row, nights) for row in abandoned],
        forks=[_listed(row) for row in every if row.get("forked_from_game")][:30],
        today=clubtime.today(clubtime.club_zone()).isoformat(),
    )


@bp.app_template_filter("visibility")
def visibility_filter(visibility: str) -> str:
    """A game's visibility as a person says it: ``"open hands"`` or ``"table visibility"``."""
    return visibility_words(visibility)


@bp.app_template_filter("sentence")
def sentence_filter(text: Any) -> str:
    """``text`` ending with exactly one full stop (ui.md, "Words for card players")."""
    return catalogue.sentence("" if text is None else str(text))


@bp.get("/new")
@secrecy.reads()
def new_game() -> str:
    """The new-game form: game, seats, dealer (first player), visibility and the game's options;
    the **Club key** input where the server has one (``club_key_required``)."""
    return render_template("new_game.html", games=catalogue.GAMES, catalogue=catalogue.as_dict(),
                           club_key_required=http.club_key_required(), known_players=known_players())


#: How many recent games the new-game page's list of the club's players is drawn from.
KNOWN_FROM = 300


def known_players() -> list[str]:
    """The club's players, for the new-game page's type-ahead (``<datalist>``): every name seated
    in the last :data:`KNOWN_FROM` games (forks left out), one per name as histories match names
    (trimmed, case-folded), spelled as last seated, the most often seated first. The rows are
    checked against their logs first (``projections.check_listed``), as the home page's are."""
    rows, _ = store.list_games(get_db(), limit=KNOWN_FROM)
    projections.check_listed(rows)
    seen: dict[str, list[Any]] = {}  # key -> [spelling, games, order of first sight]
    for order, row in enumerate(rows):  # newest first: the first spelling seen is the latest
        for name in row["players"]:
            key = str(name).strip().casefold()
            if key not in seen:
                seen[key] = [str(name).strip(), 0, order]
            seen[key][1] += 1
    return [entry[0] for entry in sorted(seen.values(), key=lambda e: (-e[1], e[2], e[0].casefold()))]


@bp.get("/table/<game_id>")
@secrecy.reads(cards=False)
def table(game_id: str) -> str | tuple[str, int]:
    """The table page of one game; its script reads and writes through the API with the token."""
    try:
        row = games.load(game_id)
    except ApiError as err:  # an unknown game: the page says so, with a way home
        return render_template("page_error.html", err=err), err.status
    deck = catalogue.deck_layout(row["game"], row["options"])
    return render_template(
        "table.html",
        game=games.summary(row),
        game_name=catalogue.GAMES[row["game"]].name,
        deck=deck,
        deck_names={card.code: card.name for line in deck for card in line.cards},
        origin=review.fork_origin(row),  # a what-if fork names the game it came from in words
        club_key_required=http.club_key_required(),  # Play again asks for it, as the new-game page does
    )


@bp.post("/table/<game_id>/share")
def share(game_id: str) -> Response:
    """The link that opens this game's table page on another device, and its QR code.

    Needs the game's token (``Authorization: Bearer``): 401/403 problem bodies otherwise. The
    token goes in the link's fragment (``#token=…``), which browsers never send to a server.
    The link's origin is the one the page was opened under, except on a loopback name when
    ``kibitz serve --lan`` found LAN addresses (``SHARE_BASE``): a tablet cannot open
    ``127.0.0.1``. Answers ``{"link": str, "svg": str, "reachable": bool, "warning": str or
    None}`` (the QR code is an SVG document drawn by segno): ``reachable`` is False, with
    ``warning`` saying why and what to do, when other devices cannot open the link — the
    server listens on loopback only (start it with ``kibitz serve --lan``), or the link names
    this computer's own loopback address.
    """
    row = games.load(game_id)
    http.require_token(row)
    token = http._bearer() or ""
    base = share_base()
    link = f"{base}/table/{game_id}#token={token}"
    out = io.BytesIO()
    segno.make(link, error="m").save(out, kind="svg", scale=6, border=2, xmldecl=False, svgns=True,
                                      title="QR code of the share link", dark="#000", light="#fff")
    warning = share_warning(base, current_app.config.get("LISTEN_HOST"))
    return http.json_response({"link": link, "svg": out.getvalue().decode("utf-8"),
                               "reachable": warning is None, "warning": warning})


def is_loopback(host: str | None) -> bool:
    """True for ``localhost``, ``127.x.y.z`` and ``::1`` (addresses only this computer reaches)."""
    name = (host or "").strip("[]").lower()
    return name in LOOPBACK_NAMES or name.startswith("127.") or name == "::1"


def share_warning(base: str, listen_host: str | None) -> str | None:
    """Why another device cannot open a share link on ``base`` (the link's origin) from a
    server listening on ``listen_host`` (``kibitz serve --host``; None when unknown, as under
    another WSGI server), in words for the scorekeeper; None when it can."""
    if is_loopback(listen_host):
        return (f"This server listens on {listen_host} only, so other devices cannot reach this address. "
                "To share scorekeeping, stop it and start it for the club with kibitz serve --lan: "
                "it then listens on the club's network and prints the address to open.")
    if is_loopback(urlsplit(base).hostname):
        return ("This link names this computer's own address, which other devices cannot open. "
                "Open this page under the computer's network address, or start the server with "
                "kibitz serve --lan, which puts that address in the link.")
    return None


LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1", "[::1]"}


def share_base() -> str:
    """The origin a share link uses (``scheme://host:port``, no trailing slash)."""
    here = request.host_url.rstrip("/")
    host = urlsplit(here).hostname or ""
    lan = current_app.config.get("SHARE_BASE")
    if lan and is_loopback(host):
        return str(lan).rstrip("/")
    return here


def _listed(row: dict[str, Any], nights: dict[str, tuple[int, int]] | None = None) -> dict[str, Any]:
    listed = games.summary(row)
    listed["game_name"] = catalogue.GAMES[row["game"]].name if row["game"] in catalogue.GAMES else row["game"]
    number, of = (nights or {}).get(row["id"], (1, 1))
    listed["night"] = f"game {number} of {of} that night" if of > 1 else None
    return listed


def _series(db: Any, rows: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """For each game listed, ``(n, of)``: it is the n-th of ``of`` games of one series, the
    games a table started one after the other with **Play again** (each ``game_created``'s
    ``play_again_of`` names the game before it), so that they are told apart on the home page
    ("game 2 of 3 that night"). Only that link makes a series: two games of the same players
    started apart (another table, the new-game page) are not one. Games are linked among those
    listed; the first events read are checked against their hashes (as ``check_listed`` does)."""
    ids = [str(row["id"]) for row in rows]
    before: dict[str, str] = {}
    for game_id, first in store.first_events(db, ids).items():
        if chain.first_break([first]) is not None:
            raise store.damaged(game_id, 1, "its hash does not follow the chain: the event was changed after it "
                                            "was recorded")
        data = first.get("data")
        previous = data.get("play_again_of") if isinstance(data, dict) else None
        if isinstance(previous, str) and previous in ids and previous != game_id:
            before[game_id] = previous
    def first_of(game_id: str) -> str:
        seen = {game_id}
        while game_id in before and before[game_id] not in seen:  # a loop (never made by Play again) ends
            game_id = before[game_id]
            seen.add(game_id)
        return game_id
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(first_of(str(row["id"])), []).append(row)
    out: dict[str, tuple[int, int]] = {}
    for group in groups.values():
        group.sort(key=lambda r: str(r["created_at"]))
        for number, row in enumerate(group, start=1):
            out[row["id"]] = (number, len(group))
    return out


#: A score unit of ``results`` in words on the home page.
UNIT_WORDS = {"lives_lost": "lives lost", "points": "points", "chips": "chips"}


def _outcome(row: dict[str, Any]) -> dict[str, Any]:
    """A finished game's result for the home page: ``{"winners": [names], "scores": "Ann 10,
    Bob 1, Cas 3 lives lost" or None}``, from the game's ``results`` (public once it is over)."""
    results = streams.results(games.current(row).stream)
    winners = [name for name, entry in results.items() if entry["result"] == "won"]
    scored = [(name, entry["score"], entry["unit"]) for name, entry in results.items() if entry["score"] is not None]
    scores = None
    if scored:
        unit = UNIT_WORDS.get(str(scored[0][2]), str(scored[0][2] or ""))
        scores = ", ".join(f"{name} {score}" for name, score, _ in scored) + (f" {unit}" if unit else "")
    return {"winners": winners, "scores": scores}


# The read-only pages (game page, replay, audits, players, club table) add their routes here.
from service.web.pages import clock, record, review  # noqa: E402,F401  (record: the fingerprint's verify page; clock: times in club time)
