"""``GET /health`` and ``GET /openapi.json``."""

from __future__ import annotations

from flask import Blueprint, Response, current_app

from service import http, openapi, secrecy

bp = Blueprint("meta", __name__)


@bp.get("/health")
@secrecy.reads()
def health() -> Response:
    """``{"status": "ok"}``."""
    return http.json_response({"status": "ok"})


@bp.get("/openapi.json")
@secrecy.reads()
def document() -> Response:
    """The OpenAPI 3 document (built once per app)."""
    built = current_app.extensions.setdefault("kibitz_openapi", openapi.build())
    return http.json_response(built)
