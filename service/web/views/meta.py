"""``GET /health`` and ``GET /openapi.json``."""

from __future__ import annotations

from flask import Blueprint, Response, current_app

from service import http, problems
from service.record import secrecy
from service.web import openapi
from service.web.boards import BoardAnswers

bp = Blueprint("meta", __name__)


#: What ``/health`` says for each trouble of the database (``service.web.boards.BoardAnswers.trouble``).
TROUBLE_DETAILS = {
    "not answering": "The database server is not answering (it may be paused, overloaded, or cut off from this "
                     "server): this server cannot record or read games now.",
    "cannot be reached": "This server cannot reach its database server: it cannot record or read games now.",
}


@bp.get("/health")
@secrecy.reads()
def health() -> Response:
    """``{"status": "ok"}`` (200) while the database answers, as far as this process knows
    without asking it (docs/league.md, "A database that stops answering": on PostgreSQL,
    from the listener's connection and the waits of every other); else a 503
    ``storage_unavailable`` problem with ``Retry-After`` whose ``database`` says ``"not
    answering"`` or ``"cannot be reached"``, for a load balancer. Never waits on the database."""
    boards: BoardAnswers = current_app.extensions["kibitz_boards"]
    trouble = boards.trouble()
    if trouble is None:
        return http.json_response({"status": "ok"})
    return problems.problem(503, "storage_unavailable", TROUBLE_DETAILS[trouble], headers={"Retry-After": "5"},
                            extra={"database": trouble})


@bp.get("/openapi.json")
@secrecy.reads()
def document() -> Response:
    """The OpenAPI 3 document (built once per app)."""
    built = current_app.extensions.setdefault("kibitz_openapi", openapi.build())
    return http.json_response(built)
