"""A driver's error message as one sentence, the way every command prints it.

psycopg's messages run to several lines (``connection to server at "127.0.0.1", port 1
failed: Connection refused`` then, indented on the next line, ``Is the server running on that
host and accepting TCP/IP connections?``; a ``DETAIL:`` or ``HINT:`` line after an error).
:func:`one_sentence` keeps every line, in order, and joins them so that each ends with a full
stop (or its own ``?``, ``!`` or ``:``) before the next begins.
"""

from __future__ import annotations

_ENDS = (".", "?", "!", ":")


def one_sentence(err: BaseException | str) -> str:
    """``err``'s message (or the text given) on one line: each of its lines stripped of
    surrounding space and runs of spaces, empty ones dropped, joined with ``". "`` after a line
    without closing punctuation (else a space), ending with a full stop unless it ends with
    ``.``, ``?`` or ``!`` already. An error without a message gives its class name. Raises
    nothing."""
    text = err if isinstance(err, str) else str(err)
    lines = [" ".join(line.split()) for line in text.splitlines()]
    lines = [line for line in lines if line]
    if not lines:
        lines = [type(err).__name__ if not isinstance(err, str) else "no message"]
    joined = ""
    for line in lines:
        if joined:
            joined += " " if joined.endswith(_ENDS) else ". "
        joined += line
    return joined if joined.endswith((".", "?", "!")) else joined + "."
