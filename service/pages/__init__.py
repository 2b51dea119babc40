"""The HTML pages (``../shared/spec/ui.md``), served by ``kibitz serve`` from the API's origin.

Every page lives in a blueprint whose name starts with ``pages`` (so the OpenAPI test, which
documents the JSON API only, can tell them apart) and under a path the API does not use:

=====================  =========================================================
``/``                  home: games in progress, recent finished games, links
``/new``               new game form (its script creates the game with ``POST /games``)
``/table/<id>``        the table page: record a live game (needs the game's token)
``/static/<file>``     the pages' CSS, scripts and vendored assets
=====================  =========================================================

The read-only pages (public game page, replay, audits, player page, club table) add their
routes under their own prefixes (``/watch/…``, ``/people/…``, ``/club``), never under
``/games`` or ``/players``, which are the API's.

Pages read through the same functions as the API (``service.games``, ``service.store``) and
record only through the API's write path: the table page's script is a client of the
documented REST API, so a page can never accept what the API would refuse.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Blueprint, Response, abort, render_template

from service import games, store
from service.db import get_db
from service.pages import catalogue
from service.problems import ApiError

HERE = Path(__file__).resolve().parent
bp = Blueprint(
    "pages",
    __name__,
    template_folder=str(HERE.parent / "templates"),
    static_folder=str(HERE.parent / "static"),
    static_url_path="/static",
)


def is_page_endpoint(endpoint: str) -> bool:
    """True for the endpoints of HTML pages and their static files (not part of the JSON API)."""
    return endpoint.split(".", 1)[0].startswith("pages")


@bp.get("/")
def home() -> str:
    """Games in progress (newest first), recent finished games and the links to everything else."""
    db = get_db()
    playing, _ = store.list_games(db, status="in_progress", limit=50)
    finished, _ = store.list_games(db, status="finished", limit=20)
    abandoned, _ = store.list_games(db, status="abandoned", limit=10)
    return render_template(
        "home.html",
        playing=[_listed(row) for row in playing],
        finished=[_listed(row) for row in finished],
        abandoned=[_listed(row) for row in abandoned],
    )


@bp.get("/new")
def new_game() -> str:
    """The new-game form: game, seats, dealer (first player), visibility and the game's options."""
    return render_template("new_game.html", games=catalogue.GAMES, catalogue=catalogue.as_dict())


@bp.get("/table/<game_id>")
def table(game_id: str) -> str | Response:
    """The table page of one game; its script reads and writes through the API with the token."""
    try:
        row = games.load(game_id)
    except ApiError as err:
        if err.status == 404:
            abort(404)
        raise
    return render_template(
        "table.html",
        game=games.summary(row),
        game_name=catalogue.GAMES[row["game"]].name,
        deck=catalogue.deck_layout(row["game"], row["options"]),
    )


def _listed(row: dict[str, Any]) -> dict[str, Any]:
    listed = games.summary(row)
    listed["game_name"] = catalogue.GAMES[row["game"]].name if row["game"] in catalogue.GAMES else row["game"]
    return listed
