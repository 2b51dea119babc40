"""``kibitz serve``'s HTTP server: waitress, with the 413 answered before the body is read.

waitress reads a whole request body before it hands the request to the application, so
an application cannot answer a ``Content-Length`` over its limit until the client has sent
it all (api.md, order of checks: "413 … answered before the body is read when
``Content-Length`` says so"). Here waitress's own limit (``max_request_body_size``) is the
app's ``MAX_CONTENT_LENGTH``: its parser refuses such a request from the headers alone, and
its error task answers with the app's problem body (``payload_too_large``) instead of
waitress's ``text/plain`` page. A chunked body that grows past the limit is refused the same
way as soon as it does. Every other request waitress's parser refuses before the app sees it
(a ``Content-Length`` that is negative, not a number or given twice, a bad start line or
header, headers over waitress's limit, an unknown transfer coding) is answered with a problem
body too: 400 ``malformed_request`` naming waitress's reason, 431 ``request_headers_too_large``,
501 ``not_implemented``. The connection is closed after the answer.
"""

from __future__ import annotations

from collections.abc import Callable
from http import HTTPStatus
from typing import Any

import waitress
from flask import Flask
from waitress.channel import HTTPChannel
from waitress.task import ErrorTask
from waitress.utilities import BadRequest, RequestEntityTooLarge, RequestHeaderFieldsTooLarge, ServerNotImplemented

from service import problems

#: waitress's refusals (before the app sees the request) -> (status, code, the sentence's start).
REFUSALS: list[tuple[type[Exception], int, str, str]] = [
    (RequestHeaderFieldsTooLarge, 431, "request_headers_too_large", "The request's headers are too large"),
    (ServerNotImplemented, 501, "not_implemented", "The request uses what this server does not implement"),
    (BadRequest, 400, "malformed_request", "The request is not valid HTTP"),
]


class ProblemErrorTask(ErrorTask):  # type: ignore[misc]
    """waitress's error answer, with the app's problem body for every error (see the module)."""

    def execute(self) -> None:
        error = self.request.error
        if isinstance(error, RequestEntityTooLarge):
            status = 413
            content_type, body = self.channel.server.kibitz_too_large
        else:
            refusal = next((each for each in REFUSALS if isinstance(error, each[0])), None)
            if refusal is None:
                super().execute()
                return
            _, status, code, start = refusal
            reason = str(getattr(error, "body", "") or "").strip().rstrip(".")
            detail = f"{start}: {reason}." if reason else f"{start}."
            content_type, body = self.channel.server.kibitz_problem(status, code, detail)
        self.status = f"{status} {HTTPStatus(status).phrase}"
        self.response_headers.append(("Content-Type", content_type))
        self.response_headers.append(("X-Content-Type-Options", "nosniff"))  # as service.http.security_headers
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


class ProblemChannel(HTTPChannel):  # type: ignore[misc]
    """A waitress connection whose errors are answered by :class:`ProblemErrorTask`."""

    error_task_class = ProblemErrorTask


def create_server(app: Flask, **adjustments: Any) -> Any:
    """A waitress server for ``app`` (``host``, ``port``, ``threads`` … as
    ``waitress.create_server`` takes them), refusing exactly what the app refuses: a body
    over its ``MAX_CONTENT_LENGTH``. Raises ``OSError`` when it cannot listen."""
    with app.app_context():
        response = problems.problem(413, "payload_too_large", problems.TOO_LARGE)
    too_large = (response.content_type, response.get_data())

    def refusal(status: int, code: str, detail: str) -> tuple[str, bytes]:
        with app.app_context():
            answer = problems.problem(status, code, detail)
        return answer.content_type, answer.get_data()

    kibitz_problem: Callable[[int, str, str], tuple[str, bytes]] = refusal
    # waitress refuses a body of max_request_body_size bytes or more; the app, one over its limit
    limit = app.config["MAX_CONTENT_LENGTH"] + 1
    server = waitress.create_server(app, max_request_body_size=limit, **adjustments)
    for listener in {id(server): server, **{id(each): each for each in getattr(server, "map", {}).values()}}.values():
        if hasattr(listener, "channel_class"):
            listener.channel_class = ProblemChannel
            listener.kibitz_too_large = too_large
            listener.kibitz_problem = kibitz_problem
    return server
