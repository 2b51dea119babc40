"""``kibitz serve``'s HTTP server: waitress, with the 413 answered before the body is read.

waitress reads a whole request body before it hands the request to the application, so
an application cannot answer a ``Content-Length`` over its limit until the client has sent
it all (api.md, order of checks: "413 … answered before the body is read when
``Content-Length`` says so"). Here waitress's own limit (``max_request_body_size``) is the
app's ``MAX_CONTENT_LENGTH``: its parser refuses such a request from the headers alone, and
its error task answers with the app's problem body (``payload_too_large``) instead of
waitress's ``text/plain`` page. A chunked body that grows past the limit is refused the same
way as soon as it does. The connection is closed after the answer.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

import waitress
from flask import Flask
from waitress.channel import HTTPChannel
from waitress.task import ErrorTask
from waitress.utilities import RequestEntityTooLarge

from service import problems


class ProblemErrorTask(ErrorTask):  # type: ignore[misc]
    """waitress's error answer, with the app's problem body for a body over the limit."""

    def execute(self) -> None:
        if not isinstance(self.request.error, RequestEntityTooLarge):
            super().execute()
            return
        content_type, body = self.channel.server.kibitz_too_large
        self.status = f"413 {HTTPStatus(413).phrase}"
        self.response_headers.append(("Content-Type", content_type))
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
    # waitress refuses a body of max_request_body_size bytes or more; the app, one over its limit
    limit = app.config["MAX_CONTENT_LENGTH"] + 1
    server = waitress.create_server(app, max_request_body_size=limit, **adjustments)
    for listener in {id(server): server, **{id(each): each for each in getattr(server, "map", {}).values()}}.values():
        if hasattr(listener, "channel_class"):
            listener.channel_class = ProblemChannel
            listener.kibitz_too_large = too_large
    return server
