"""A write to a game's log from the parts of its request: what ``POST /games/<id>/events``,
``/correct``, ``/undo`` and ``/redo`` do once the body is read as JSON, without Flask's
request objects.

Two callers answer these routes through :func:`write`, so they give the same answers: the
Flask view (``service.web.views.recording``, for any WSGI server and any request) and
``kibitz serve``'s direct route for the common request (``service.web.server``: a JSON body of
``Content-Length`` bytes, no query), which skips building a WSGI request for it. Both store
through ``service.record.writes.record``, the one write function (one read and one append).
:func:`answer` and :func:`refusal` are the direct route's answer as bytes and headers, the
headers the Flask app gives the same answer (``service.http.json_response``,
``service.problems.problem``, ``service.http.security_headers``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, overload

from engine import stream as streams
from service import http
from service.parsing import Parsed, parse_action, parse_correct, parse_reason
from service.problems import PROBLEM_JSON, ApiError, problem_json
from service.record import writes
from service.record.cache import FoldCache
from service.record.writer import Writer

#: The last segment of each write route, as ``service.http.request_hash`` names it.
ENDPOINTS = ("events", "correct", streams.UNDO, streams.REDO)
#: An answer's headers: (name, value) in the order the Flask app sends them.
Headers = list[tuple[str, str]]


def parser(endpoint: str, body: Any) -> Callable[[Mapping[str, Any]], Parsed]:
    """How ``endpoint`` (one of :data:`ENDPOINTS`) reads its decoded JSON ``body`` once the
    game's row is known (``service.parsing``)."""
    if endpoint == "events":
        return lambda row: parse_action(row, body)
    if endpoint == "correct":
        return lambda row: parse_correct(row, body)
    return lambda _row: parse_reason(endpoint, body)


@overload
def write(writer: Writer, cache: FoldCache, game_id: str, endpoint: str, body: Any, *, authorization: str | None,
          key: str | None, if_match: str | None, club_key: str | None,
          token_read: Callable[[Mapping[str, Any]], None] = ..., dry_run: Callable[[], bool] = ...,
          then: None = None) -> writes.Recorded: ...


@overload
def write(writer: Writer, cache: FoldCache, game_id: str, endpoint: str, body: Any, *, authorization: str | None,
          key: str | None, if_match: str | None, club_key: str | None,
          token_read: Callable[[Mapping[str, Any]], None] = ..., dry_run: Callable[[], bool] = ...,
          then: writes.Told) -> None: ...


def write(writer: Writer, cache: FoldCache, game_id: str, endpoint: str, body: Any, *, authorization: str | None,
          key: str | None, if_match: str | None, club_key: str | None,
          token_read: Callable[[Mapping[str, Any]], None] = lambda row: None,
          dry_run: Callable[[], bool] = lambda: False, then: writes.Told | None = None) -> writes.Recorded | None:
    """Store what ``body`` (decoded JSON) asks of game ``game_id`` through ``endpoint`` (one
    of :data:`ENDPOINTS`) with the request's ``Authorization``, ``Idempotency-Key`` and
    ``If-Match`` headers (None: absent) through ``service.record.writes.record``, in api.md's order
    of checks: once the game is read, ``token_read(row)`` (the answer now varies with the
    token), the token (401/403; ``club_key``: the server's, for the 403's sentence), then
    ``dry_run()`` (the request's query, 422 from its schema) and the key (422).

    Returns ``writes.Recorded``; raises ``ApiError`` and what ``writes.record`` raises. With
    ``then``, as ``writes.record``'s (a move queued with ``Writer.later``): returns None and
    tells ``then`` once its transaction ended."""

    def admit(row: Mapping[str, Any]) -> writes.Admitted:  # once the game is read
        token_read(row)
        http.check_token(row, http.bearer_token(authorization), club_key)
        dry = dry_run()
        return http.key_of(key), dry

    # the request's hash is compared and stored only with an Idempotency-Key: a write without
    # one (most moves, and a flood's junk) never pays for hashing its whole body
    fingerprint = http.request_hash(endpoint, body) if key is not None else ""
    if then is None:
        return writes.record(writer, cache, game_id, parser(endpoint, body), admit=admit, lookup=http.usable_key(key),
                             fingerprint=fingerprint, if_match=if_match)
    return writes.record(writer, cache, game_id, parser(endpoint, body), admit=admit, lookup=http.usable_key(key),
                         fingerprint=fingerprint, if_match=if_match, then=then)


def etag_version(recorded: writes.Recorded) -> int:
    """The version a write's answer carries as its ``ETag``."""
    version: int = recorded.body.get("version", recorded.version)
    return version


def answer(recorded: writes.Recorded) -> tuple[int, Headers, bytes]:
    """The Flask app's answer to a write that ``write`` returned ``recorded`` for (the token
    was read, so it varies with it): status, headers (``Content-Length`` among them) and body."""
    body = http.dumps(recorded.body)
    return recorded.status, [("Content-Type", "application/json"), ("Content-Length", str(len(body))),
                             ("ETag", http.etag(etag_version(recorded))), ("Vary", "Authorization"),
                             *http.SECURITY_HEADERS, ("Cache-Control", "private")], body


def refusal(err: ApiError, token_read: bool) -> tuple[int, Headers, bytes]:
    """The Flask app's answer to a write refused with ``err``: its problem body, its headers
    and, once the token was read (``token_read``), ``Vary: Authorization`` and
    ``Cache-Control: private``."""
    body = problem_json(err.status, err.code, err.detail, errors=err.errors, version=err.version, extra=err.extra)
    headers: Headers = [("Content-Type", PROBLEM_JSON), ("Content-Length", str(len(body))), *err.headers.items(),
                        *http.SECURITY_HEADERS]
    if token_read:
        headers += [("Vary", "Authorization"), ("Cache-Control", "private")]
    return err.status, headers, body
