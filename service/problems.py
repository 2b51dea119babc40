"""RFC 9457 problem bodies: one function builds them all, one place registers the handlers.

Every error response of the API is ``application/problem+json`` with ``type``, ``title``,
``status``, ``detail`` and a stable snake_case ``code``; payload errors add ``errors``
(field -> list of messages) and errors about a game add ``version``.
"""

from __future__ import annotations

import json as stdjson
import sqlite3
from http import HTTPStatus
from typing import Any

from flask import Flask, Response, current_app, render_template, request
from flask.json.provider import DefaultJSONProvider
from marshmallow import ValidationError
from werkzeug.exceptions import HTTPException, SecurityError

from schemas.games import flatten
from service.storage import backend as store
from service.storage import connections

PROBLEM_TYPE = "urn:kibitz:problem:"
PROBLEM_JSON = "application/problem+json"
#: The ``detail`` of every 413 ``payload_too_large``.
TOO_LARGE = "The request body is larger than 1 MiB."

#: The ``detail`` of every 400 ``host_not_allowed`` (a ``Host`` that is not one of this server's names).
HOST_NOT_ALLOWED = ("This server does not answer to that host name: open it under the address kibitz serve printed "
                    "(or this computer's own name), or start it with --allowed-host NAME for another name.")

#: Codes for the HTTP errors Werkzeug raises itself (routing, method, size …).
HTTP_CODES = {
    400: "malformed_json",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    415: "unsupported_media_type",
}


class ApiError(Exception):
    """An error the API reports as a problem body.

    ``status`` is the HTTP status, ``code`` the stable snake_case code, ``detail`` a plain
    sentence; ``errors`` (field -> messages) for payload errors, ``version`` for errors
    about a game, ``headers`` for extra response headers, ``extra`` for more body fields
    (``import_invalid`` names the failing ``seq`` and its ``rule_code``).
    """

    def __init__(self, status: int, code: str, detail: str, *, errors: dict[str, list[str]] | None = None,
                 version: int | None = None, headers: dict[str, str] | None = None,
                 extra: dict[str, Any] | None = None) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.errors = errors
        self.version = version
        self.headers = headers or {}
        self.extra = extra or {}


def problem(status: int, code: str, detail: str, *, errors: dict[str, list[str]] | None = None,
            version: int | None = None, headers: dict[str, str] | None = None,
            extra: dict[str, Any] | None = None) -> Response:
    """Build the ``application/problem+json`` response for one error (:func:`problem_json`)."""
    response = current_app.response_class(problem_json(status, code, detail, errors=errors, version=version,
                                                       extra=extra), status=status, mimetype=PROBLEM_JSON)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def problem_json(status: int, code: str, detail: str, *, errors: dict[str, list[str]] | None = None,
                 version: int | None = None, extra: dict[str, Any] | None = None) -> bytes:
    """The body of an ``application/problem+json`` answer (RFC 9457), as text: ``title`` is
    the status's standard phrase, ``type`` is ``urn:kibitz:problem:<code>``; ``errors``,
    ``version`` and the ``extra`` fields when given."""
    body: dict[str, Any] = {
        "type": PROBLEM_TYPE + code,
        "title": _phrase(status),
        "status": status,
        "detail": detail,
        "code": code,
    }
    if errors is not None:
        body["errors"] = errors
    if version is not None:
        body["version"] = version
    for name, value in (extra or {}).items():
        body.setdefault(name, value)
    return stdjson.dumps(body, default=DefaultJSONProvider.default).encode("utf-8")


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def register(app: Flask) -> None:
    """Install the error handlers: ``ApiError``, marshmallow's ``ValidationError`` (422
    ``validation_failed`` with ``errors``: views load their schemas without catching it),
    every ``HTTPException``, 503 ``record_damaged`` (a game's stored record is not what
    Kibitz writes: ``store.RecordDamaged``; a page of that game in words), 503
    ``storage_unavailable`` (the database cannot take a write or answer a read now: any
    error ``store.fault`` recognises, of either backend; the thread's connection is dropped)
    and a catch-all 500."""

    @app.errorhandler(ApiError)
    def _api_error(err: ApiError) -> Response:
        return problem(err.status, err.code, err.detail, errors=err.errors, version=err.version, headers=err.headers,
                       extra=err.extra)

    @app.errorhandler(ValidationError)
    def _invalid(err: ValidationError) -> Response:
        # the one place a schema's refusal becomes a 422: a GET's schemas load its query
        # parameters, every other method's the request body
        detail = "The query parameters are not valid." if request.method == "GET" else "The request body is not valid."
        return problem(422, "validation_failed", detail, errors=flatten(err.messages))

    @app.errorhandler(SecurityError)
    def _host(err: SecurityError) -> Response:
        return problem(400, "host_not_allowed", HOST_NOT_ALLOWED)

    @app.errorhandler(HTTPException)
    def _http_error(err: HTTPException) -> Response:
        status = err.code or 500
        code = HTTP_CODES.get(status) or _phrase(status).lower().replace(" ", "_").replace("-", "_")
        headers = {}
        if status == 405 and err.get_response().headers.get("Allow"):
            headers["Allow"] = err.get_response().headers["Allow"]
        return problem(status, code, _detail(status, err), headers=headers)

    @app.errorhandler(store.RecordDamaged)
    def _damaged(err: store.RecordDamaged) -> Response:
        app.logger.warning("record damaged: %s", err)
        refusal = record_damaged(err)
        if request.method == "GET" and (request.blueprint or "").startswith("pages"):  # a page: in words
            page = render_template("page_error.html", err=refusal)
            return current_app.response_class(page, status=503, mimetype="text/html")
        return problem(refusal.status, refusal.code, refusal.detail, extra=refusal.extra)

    @app.errorhandler(store.StorageUnavailable)
    @app.errorhandler(sqlite3.Error)
    def _storage(err: Exception) -> Response:
        unavailable = store.fault(err)
        if unavailable is None:
            return _internal(err)
        app.logger.warning("storage unavailable: %s", unavailable.name)
        try:
            connections.drop_connection()
        except Exception:  # noqa: BLE001 - closing a broken connection must not hide the 503
            app.logger.exception("closing the connection after a storage fault")
        return problem(503, "storage_unavailable", unavailable.detail,
                       headers={"Retry-After": str(unavailable.retry_after)})

    @app.errorhandler(Exception)
    def _internal(err: Exception) -> Response:
        if store.fault(err) is not None:  # a storage fault of a driver not named above (psycopg)
            return _storage(err)
        app.logger.exception("unhandled error")
        return problem(500, "internal_error", "Something went wrong on the server.")


def record_damaged(err: store.RecordDamaged) -> ApiError:
    """The 503 ``record_damaged`` for ``err`` (api.md): names the game, the event and
    ``kibitz check``; ``game_id`` and ``seq`` in the body; no ``Retry-After``, since waiting
    will not mend it."""
    where = f"at event {err.seq}" if err.seq is not None else "in its games row"
    detail = (f"The stored record of game {err.game_id} is damaged {where} ({err.what}): it is not what "
              "Kibitz wrote, so nothing of this game can be read or recorded. On the server, run kibitz check "
              "to see every problem, and restore the database from a backup.")
    return ApiError(503, "record_damaged", detail, extra={"game_id": err.game_id, "seq": err.seq})


def _detail(status: int, err: HTTPException) -> str:
    if status == 404:
        return "There is no such resource."
    if status == 405:
        return "This method is not allowed on this resource."
    if status == 413:
        return TOO_LARGE
    return err.description or _phrase(status)
