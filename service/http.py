"""Request helpers shared by the views: the JSON body, tokens, ``If-Match``, keys, ETags.

Each helper raises :class:`service.problems.ApiError` with the status and code that
``api.md`` fixes, so views read as the order of checks.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import re
import secrets
import string
from collections.abc import Iterable, Mapping
from datetime import date
from typing import Any

import orjson
from flask import Response, current_app, g, request
from flask.json.provider import DefaultJSONProvider

from schemas.common import whole_number
from service.problems import TOO_LARGE, ApiError

JSON_TYPES = ("application/json",)
MAX_KEY_LENGTH = 200
MAX_JSON_DEPTH = 64


def read_json(*, allow_empty: bool = False) -> Any:
    """The request body parsed as JSON.

    Raises 413 ``payload_too_large`` (over ``MAX_CONTENT_LENGTH``), 415
    ``unsupported_media_type`` (a body whose ``Content-Type`` is not JSON) and 400
    ``malformed_json`` (also for a body that is not UTF-8 or starts with a byte order mark:
    api.md, bodies are JSON, RFC 8259 §8.1). With ``allow_empty`` an empty body (no bytes
    at all, any content type) is ``{}``; whitespace alone is not JSON.
    """
    limit = current_app.config["MAX_CONTENT_LENGTH"]
    if request.content_length is not None and request.content_length > limit:
        raise ApiError(413, "payload_too_large", TOO_LARGE)
    raw = request.get_data(cache=True)
    if allow_empty and not raw:
        return {}
    if request.mimetype not in JSON_TYPES and not request.mimetype.endswith("+json"):
        raise ApiError(415, "unsupported_media_type", "Send the body as JSON with Content-Type: application/json.")
    return decode_json(raw)


def decode_json(raw: bytes) -> Any:
    """A JSON body (of a JSON content type) as :func:`read_json` reads it, from its bytes:
    raises 400 ``malformed_json`` for a byte order mark, NUL bytes, bytes that are not UTF-8,
    text that is not JSON (``NaN`` and ``Infinity`` included) and nesting deeper than
    :data:`MAX_JSON_DEPTH`; 422 ``validation_failed`` naming the field for a number that is
    JSON but out of the range read (``1e999``, past a float's; an integer of more digits than
    Python converts): RFC 8259 §9 lets a reader limit the range, and the body is JSON
    (docs/decisions.md)."""
    if raw.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
        raise ApiError(400, "malformed_json", "The body starts with a byte order mark: send JSON as UTF-8 without one.")
    if b"\x00" in raw:  # never in JSON text; every UTF-16 or UTF-32 body of JSON has them
        raise ApiError(400, "malformed_json", "The body holds NUL bytes (UTF-16 or UTF-32?): send JSON as UTF-8.")
    # orjson reads an integer past 64 bits as a float: never here (fewer than 19 digits in all
    # hold no such number, and counting them costs a tenth of the search)
    if len(raw) - len(raw.translate(None, _DIGITS)) < 19 or _LONG_NUMBER.search(raw) is None:
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass  # the standard library's reading decides, and words the refusal
        else:
            # nested no deeper than it has arrays and objects (a bracket in a text only counts one more)
            if raw.count(b"[") + raw.count(b"{") >= MAX_JSON_DEPTH and _depth(value) > MAX_JSON_DEPTH:
                raise ApiError(400, "malformed_json", "The JSON body is nested too deeply.")
            return value
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ApiError(400, "malformed_json", f"The body is not UTF-8 (byte {err.start}): send JSON as UTF-8.") from err
    try:
        value = _DECODER.decode(text)
    except RecursionError as err:
        raise ApiError(400, "malformed_json", "The JSON body is nested too deeply.") from err
    except ValueError as err:
        raise ApiError(400, "malformed_json", f"The body is not valid JSON: {_reason(err)}") from err
    if _depth(value) > MAX_JSON_DEPTH:
        raise ApiError(400, "malformed_json", "The JSON body is nested too deeply.")
    found = _out_of_range(value)
    if found is not None:
        path, number = found
        place = "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in path[1:])
        text = f"{number.text[:20]}{'...' if len(number.text) > 20 else ''}"
        message = f"{text}{f' (at {path[0]}{place})' if place else ''} is out of the range of numbers read."
        field = "_schema" if not path else str(path[0])  # errors name a field of the body (api.md)
        raise ApiError(422, "validation_failed", f"A number of the body is out of range: {message}",
                       errors={field: [message]})
    return value


class _OutOfRange:
    """A number of the body out of the range read (its text), found after the reading."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _out_of_range(value: Any) -> tuple[list[str | int], _OutOfRange] | None:
    """The path (keys and indexes) of the first :class:`_OutOfRange` in ``value``, and it."""
    stack: list[tuple[list[str | int], Any]] = [([], value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, _OutOfRange):
            return path, item
        if isinstance(item, dict):
            stack.extend(([*path, key], inner) for key, inner in reversed(list(item.items())))
        elif isinstance(item, list):
            stack.extend(([*path, index], inner) for index, inner in reversed(list(enumerate(item))))
    return None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float | _OutOfRange:
    value = float(text)
    if not math.isfinite(value):
        return _OutOfRange(text)
    return value


def _bounded_int(text: str) -> int | _OutOfRange:
    try:
        return int(text)
    except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits)
        return _OutOfRange(text)


#: The standard library's JSON reading of a body: no ``NaN`` or ``Infinity``; a number out of
#: range read as an :class:`_OutOfRange` (refused with its place once read).
_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float, parse_int=_bounded_int)
#: 19 digits in a row: a number that may be past 64 bits, which only the standard library reads exactly.
_LONG_NUMBER = re.compile(rb"[0-9]{19}")
_DIGITS = b"0123456789"


def _reason(err: ValueError) -> str:
    return str(err).splitlines()[0][:200] if str(err) else type(err).__name__


def _depth(value: Any) -> int:
    depth, level = 0, [value]
    while level:
        depth += 1
        nxt: list[Any] = []
        for item in level:
            if isinstance(item, dict):  # what JSON reads (a Mapping of another kind below)
                nxt.extend(item.values())
            elif isinstance(item, list):
                nxt.extend(item)
            elif isinstance(item, Mapping):
                nxt.extend(item.values())
        level = nxt
    return depth


def require_object(body: Any) -> dict[str, Any]:
    """``body`` if it is a JSON object; else 422 ``validation_failed``."""
    if not isinstance(body, dict):
        raise ApiError(422, "validation_failed", "The body must be a JSON object.",
                       errors={"_schema": ["The body must be a JSON object."]})
    return body


# --- tokens --------------------------------------------------------------------------


#: Game ids use letters and digits only, so an id never starts with "-" (which a command
#: line would read as an option) and never needs quoting in a URL or a file name.
ID_ALPHABET = string.ascii_letters + string.digits
ID_LENGTH = 16
#: The shape of every id :func:`new_game_id` hands out (an export's ``game.id`` must have it).
GAME_ID = re.compile(rf"[A-Za-z0-9]{{{ID_LENGTH}}}")


def new_game_id() -> str:
    """A new random game id: 16 letters and digits (about 95 bits)."""
    return "".join(secrets.choice(ID_ALPHABET) for _ in range(ID_LENGTH))


def new_token() -> tuple[str, str]:
    """A fresh write token and its SHA-256 (only the hash is stored)."""
    token = secrets.token_urlsafe(32)
    return token, token_hash(token)


def token_hash(token: str) -> str:
    """The hex SHA-256 of ``token``."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def varies_with_token() -> None:
    """Mark this request's answer as one that differs with the token (or the club key):
    :func:`security_headers` gives it ``Vary: Authorization`` and ``Cache-Control: private``.
    Every read of the bearer token marks it; a view that answers before reading it (a 304)
    calls this itself."""
    g.kibitz_varies_with_token = True


def _bearer() -> str | None:
    varies_with_token()
    return bearer_token(request.headers.get("Authorization", ""))


def bearer_token(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header (the scheme in any case,
    spaces around ignored), or None for none or another scheme."""
    scheme, _, token = (header or "").strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def _is_live_token(token: str, game: Mapping[str, Any]) -> bool:
    """True when ``token`` is one of ``game``'s live write tokens (``game["token_hashes"]``,
    their SHA-256s, as ``service.record.games.load`` reads them). Every stored hash is compared, in
    constant time each, whichever matches."""
    digest = token_hash(token)
    found = False
    for stored in game["token_hashes"]:
        found |= hmac.compare_digest(digest, stored)
    return found


def token_hashes(tokens: Iterable[str]) -> frozenset[str]:
    """The SHA-256s of ``tokens`` (a reader's keyring), for :func:`holds_token`."""
    return frozenset(token_hash(token) for token in tokens)


def holds_token(held: frozenset[str], game: Mapping[str, Any]) -> bool:
    """True when one of ``game``'s live tokens (``game["token_hashes"]``) is among ``held``
    (:func:`token_hashes` of the tokens a reader sent)."""
    return any(stored in held for stored in game["token_hashes"])


TOKEN_INVALID = ("This token is not the token of this game, or it was revoked: whoever runs the club's server "
                 "can issue a new one (kibitz token).")
CLUB_KEY_IS_NOT_A_TOKEN = ("That is the club key: it lets this device create and import games, but recording "
                           "in a game or forking it needs that game's own token.")


def _token_invalid(token: str, game: Mapping[str, Any], club_key: str | None) -> ApiError:
    detail = CLUB_KEY_IS_NOT_A_TOKEN if _is_key(token, club_key) else TOKEN_INVALID
    return ApiError(403, "token_invalid", detail, version=game["version"])


def require_token(game: Mapping[str, Any]) -> None:
    """Check the write token of ``game`` (a row from ``service.record.games.load``): 401
    ``token_required`` without a bearer token, 403 ``token_invalid`` with a token that is
    not one of this game's live tokens (a revoked one, another game's, the club key).

    The game's id, version and live token hashes are left in the WSGI environ
    (``kibitz.tokens``), where ``kibitz serve`` learns them (``service.web.gate.TokenGate``)."""
    request.environ[TOKENS_KEY] = tokens_seen(game)
    check_token(game, _bearer(), current_app.config.get("CLUB_KEY"))


#: The WSGI environ key under which the app says which game's tokens a write checked
#: (:func:`tokens_seen`), for ``service.web.gate.TokenGate``.
TOKENS_KEY = "kibitz.tokens"


def tokens_seen(game: Mapping[str, Any]) -> tuple[str, int, tuple[str, ...]]:
    """What a write's token check tells ``service.web.gate.TokenGate``: ``(game id, version,
    live token hashes)``."""
    return game["id"], game["version"], tuple(game["token_hashes"])


def check_token(game: Mapping[str, Any], token: str | None, club_key: str | None) -> None:
    """:func:`require_token` on the bearer ``token`` already read (None: no bearer token):
    401 ``token_required``, 403 ``token_invalid`` (with the club key's own sentence when
    ``token`` is the server's ``club_key``)."""
    if token is None:
        raise ApiError(401, "token_required", "Recording needs this game's token: Authorization: Bearer <token>.",
                       version=game["version"], headers={"WWW-Authenticate": 'Bearer realm="kibitz"'})
    if not _is_live_token(token, game):
        raise _token_invalid(token, game, club_key)


def reader_is_full(game: Mapping[str, Any]) -> bool:
    """True when the reader holds one of ``game``'s live tokens (full view), False without
    a bearer token or with the server's club key (the public view: api.md).

    Any other bearer token (a revoked one, another game's) is 403 ``token_invalid`` on reads too.
    """
    token = _bearer()
    if token is None:
        return False
    if _is_live_token(token, game):
        return True
    if is_club_key(token):
        return False
    raise _token_invalid(token, game, current_app.config.get("CLUB_KEY"))


# --- the club key --------------------------------------------------------------------


CLUB_KEY_REQUIRED = ("This server needs the club key to create or import a game: nothing was created. "
                     "Ask whoever runs the club's server for it.")
CLUB_KEY_INVALID = ("That is not this server's club key: nothing was created. "
                    "Check it with whoever runs the club's server.")


def club_key_required() -> bool:
    """True when the app has a club key (``CLUB_KEY``): creating and importing need it."""
    return bool(current_app.config.get("CLUB_KEY"))


def is_club_key(token: str) -> bool:
    """True when ``token`` is the app's club key (compared in constant time, as SHA-256s of
    equal length); False when there is no club key."""
    return _is_key(token, current_app.config.get("CLUB_KEY"))


def _is_key(token: str, key: str | None) -> bool:
    return bool(key) and hmac.compare_digest(token_hash(token), token_hash(str(key)))


def require_club_key() -> None:
    """Where the app has a club key, the request must carry it (``Authorization: Bearer
    <club key>``): 401 ``club_key_required`` without a bearer token, 403 ``club_key_invalid``
    with any other. Without a club key every request passes (the service is open)."""
    if not club_key_required():
        return
    token = _bearer()
    if token is None:
        raise ApiError(401, "club_key_required", CLUB_KEY_REQUIRED,
                       headers={"WWW-Authenticate": 'Bearer realm="kibitz club"'})
    if not is_club_key(token):
        raise ApiError(403, "club_key_invalid", CLUB_KEY_INVALID)


# --- If-Match, Idempotency-Key, ETag -------------------------------------------------


def check_if_match(version: int, header: str | None = None) -> None:
    """412 ``version_mismatch`` unless ``If-Match`` is absent, ``*`` or names ``version``.

    Accepted spellings of a version: ``"7"`` and ``7``; a list separated by commas matches
    if any item does. A weak tag (``W/"7"``) never matches (api.md; RFC 9110 §13.1.1: If-Match
    compares strongly), nor does anything else. ``header`` is the request's ``If-Match`` value
    (read before the write, ``service.record.writes.record``).
    """
    if header is None:
        return
    for item in header.split(","):
        text = item.strip()
        if text == "*":
            return
        if text[:2] in ("W/", "w/"):
            continue
        text = text.strip('"').strip()
        if whole_number(text) == version:
            return
    raise ApiError(412, "version_mismatch",
                   f"If-Match names another version: the game is at version {version}.", version=version,
                   headers={"ETag": etag(version)})


def idempotency_key() -> str | None:
    """The ``Idempotency-Key`` header (1–200 printable characters) or None.

    Raises 422 ``validation_failed`` for an empty or overlong key.
    """
    return key_of(request.headers.get("Idempotency-Key"))


def key_of(header: str | None) -> str | None:
    """:func:`idempotency_key` of the header's value (None: no such header)."""
    if header is None:
        return None
    key = header.strip()
    if not 1 <= len(key) <= MAX_KEY_LENGTH or not key.isprintable():
        raise ApiError(422, "validation_failed", "The Idempotency-Key header is not a usable key.",
                       errors={"Idempotency-Key": [f"Give 1 to {MAX_KEY_LENGTH} printable characters."]})
    return key


def usable_idempotency_key() -> str | None:
    """The ``Idempotency-Key`` header when it is a usable key (:func:`idempotency_key` would
    return it), else None: the key a write looks up in its one read, before the checks that
    come first in api.md's order (404, the token) decide whether its 422 is the answer."""
    return usable_key(request.headers.get("Idempotency-Key"))


def usable_key(header: str | None) -> str | None:
    """:func:`usable_idempotency_key` of the header's value."""
    try:
        return key_of(header)
    except ApiError:
        return None


def request_hash(endpoint: str, body: Any) -> str:
    """A hash that is equal for JSON-equal bodies sent to the same endpoint."""
    text = json.dumps({"endpoint": endpoint, "body": body}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def etag(version: int) -> str:
    """The ETag of a game at ``version``: ``"<version>"``."""
    return f'"{version}"'


_PASSTHROUGH = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


def dumps(body: Any) -> bytes:
    """``body`` as the JSON text of an answer, UTF-8: ``orjson`` (compact, keys in their
    order, non-ASCII text as itself), or the standard library's ``json`` (Flask's way, with
    its default for other types) for what ``orjson`` refuses: an integer beyond 64 bits, a
    string with a lone surrogate, a key that is not a string. The two give JSON-equal texts
    (``tests/test_answer_json.py``)."""
    try:  # dates and dataclasses as Flask writes them
        return orjson.dumps(body, default=DefaultJSONProvider.default, option=_PASSTHROUGH)
    except TypeError:
        return json.dumps(body, default=DefaultJSONProvider.default).encode("utf-8")


def json_response(body: Any, status: int = 200, version: int | None = None,
                  headers: Mapping[str, str] | None = None) -> Response:
    """A JSON response (:func:`dumps`); with ``version`` it carries ``ETag: "<version>"``
    (and varies on the token, since the body does)."""
    response = current_app.response_class(dumps(body), status=status, mimetype="application/json")
    if version is not None:
        response.headers["ETag"] = etag(version)
        response.headers["Vary"] = "Authorization"
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def period() -> tuple[str | None, str | None]:
    """The ``since`` / ``until`` query parameters (``YYYY-MM-DD``, inclusive) or None each;
    422 ``validation_failed`` for anything that is not a calendar date, or ``since`` after ``until``."""
    errors: dict[str, list[str]] = {}
    values: dict[str, str | None] = {}
    for name in ("since", "until"):
        text = request.args.get(name)
        values[name] = text or None
        if text:
            try:
                values[name] = date.fromisoformat(text).isoformat() if len(text) == 10 else None
            except ValueError:
                values[name] = None
            if values[name] is None:
                errors[name] = ["Give a date as YYYY-MM-DD."]
    since, until = values["since"], values["until"]
    if not errors and since and until and since > until:
        errors["since"] = [f"Give a date on or before {until} (the end of the period)."]
    if errors:
        raise ApiError(422, "validation_failed", "The query parameters are not valid.", errors=errors)
    return since, until


# --- headers on every answer -----------------------------------------------------------


#: The headers every answer carries (:func:`security_headers`): the first always, the others
#: unless the view set its own.
SECURITY_HEADERS = (("X-Content-Type-Options", "nosniff"), ("Content-Security-Policy", "frame-ancestors 'none'"),
                    ("X-Frame-Options", "DENY"))


def security_headers(response: Response) -> Response:
    """The headers every answer carries (api.md, "What a crowd must not break"; one
    ``after_request`` for the API, the pages, their fragments, static files and errors):

    - ``X-Content-Type-Options: nosniff``, so no browser runs a JSON or text answer as a script;
    - ``Content-Security-Policy: frame-ancestors 'none'`` and ``X-Frame-Options: DENY`` (for
      older browsers), so no other site can frame a page (the one-tap table page above all);
    - on an answer that read the bearer token (:func:`varies_with_token`: every read or write
      of a game, its pages and fragments, whose body differs with the token),
      ``Vary: Authorization`` and ``Cache-Control: private`` (added to what the view set, a
      ``no-store`` kept), so no shared cache hands the scorekeeper's view to a watcher.
    """
    headers = response.headers
    (nosniff, value), *rest = SECURITY_HEADERS
    headers[nosniff] = value
    for name, value in rest:
        headers.setdefault(name, value)
    if g.get("kibitz_varies_with_token"):
        response.vary.add("Authorization")
        if not response.cache_control.no_store:
            response.cache_control.private = True
    return response
