"""The record's fingerprint on the game page, and checking a noted one (api.md, "A
tamper-evident record"; docs/tamper-evidence.md).

``/watch/<id>/verify?fingerprint=…`` checks the game's whole record afresh (every event
rebuilt, the hash chain recomputed: ``service.record.cache.verified``, whatever is cached; the row,
the match-history rows and a fork's lineage compared with it: ``service.record.projections``) and
says in words whether the noted fingerprint matches the record as it stands now, as it
stood at an earlier moment ("after Cas led 10♠ in hand 1, trick 1", the event number as
small print), or no moment of it. A damaged record is the 503
``record_damaged`` page, as on every route of that game.
"""

from __future__ import annotations

from typing import Any

from flask import render_template, request

from replays import chain
from service.record import cache, games, projections, secrecy
from service.storage.connections import get_db
from service.web.pages import review
from service.web.pages.blueprint import bp
from service.web.pages.review import guarded, load_row


@bp.get("/watch/<game_id>/verify")
@secrecy.reads("fingerprint")
@guarded
def verify(game_id: str) -> Any:
    """Whether the ``fingerprint`` given matches the game's record: 200 with the sentence
    (a match now, a match at an earlier moment named as card players name it, or no match,
    naming the fingerprint as given; the event number as small print);
    without one, 200 with the form; 422 with a hint when it is not 12 to 64 hex digits; 503 ``record_damaged`` when the record itself does not hold."""
    row = load_row(game_id)
    rules = games.rules_of(row)
    events = games.events(row, upto=row["version"])
    folded = cache.verified(rules, row["id"], row["version"], events, row.get("record_hash"))  # all of it, afresh
    projections.check_game(get_db(), row, events, folded)  # and what is stored beside it
    typed = request.args.get("fingerprint", "")[:200]
    normal = chain.normal_fingerprint(typed)
    context = {"game": games.summary(row), "typed": typed, "verdict": None,
               **games.fingerprint_context(row, row["version"], row["status"]),
               "fingerprint_moment": review.record_moment(row, secrecy.reader(row))}
    if normal is None:  # the form alone when nothing was typed yet; a 422 for what is not a fingerprint
        return render_template("watch_verify.html", **context), 422 if typed else 200
    moments = chain.moments(review.timeline_steps(row, secrecy.reader(row)))
    context["verdict"] = chain.verdict(normal, [(event["seq"], event["hash"]) for event in events], moments)
    return render_template("watch_verify.html", **context)

