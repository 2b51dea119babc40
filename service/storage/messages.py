"""A driver's error message as one sentence, the way every command prints it.

psycopg's messages run to several lines (``connection to server at "127.0.0.1", port 1
failed: Connection refused`` then, indented on the next line, ``Is the server running on that
host and accepting TCP/IP connections?``; a ``DETAIL:`` or ``HINT:`` line after an error).
:func:`one_sentence` keeps every line, in order, and joins them so that each ends with a full
stop (or its own ``?``, ``!`` or ``:``) before the next begins.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

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


#: A URL's user information with a password (``scheme://user:password@``), anywhere in a text.
_USERINFO = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.\-]*://[^\s\"'/@:?#]*):[^\s\"'@]*@")
#: A line of psycopg's quote of a statement: ``LINE 1: …`` or the caret under it.
_STATEMENT_QUOTE = re.compile(r"^\s*(LINE \d+: .*|\^\s*)$")
#: A ``password=…`` setting of a connection string or URL query, anywhere in a text.
_PASSWORD_SETTING = re.compile(r"(?P<head>\bpassword\s*=\s*)(?:'(?:[^'\\]|\\.)*'|[^\s&\"']+)", re.IGNORECASE)


def _passwords(database: str) -> list[str]:
    """Every password ``database`` (a ``--db`` value, well formed or not) holds: the one of its
    user information, raw and percent-decoded, and those of ``password=`` settings."""
    found: list[str] = []
    scheme, sep, rest = database.partition("://")
    if sep:
        userinfo, at, _ = rest.rpartition("@")
        if at and ":" in userinfo:
            found.append(userinfo.split("/", 1)[0].partition(":")[2])
    for match in _PASSWORD_SETTING.finditer(database):
        found.append(match.group(0)[len(match.group("head")):].strip("'"))
    found += [unquote(secret) for secret in found]
    return sorted({secret for secret in found if secret}, key=len, reverse=True)


def shown(database: str) -> str:
    """``database`` (a ``--db`` value: a path, a ``sqlite:`` or a ``postgresql://`` URL, well
    formed or not) as any message may print it: a URL's password left out of its user
    information (``postgresql://ann@host/db``) and of any ``password=`` setting; a path is
    printed as it is. Raises nothing."""
    text = str(database)
    for secret in _passwords(text):
        text = text.replace(secret, "…") if len(secret) > 2 else text
    text = _USERINFO.sub(lambda m: m.group("head") + "@", text)
    text = _PASSWORD_SETTING.sub(lambda m: m.group("head") + "…", text)
    return text.replace(":…@", "@")


def failure(err: BaseException | str, database: str | None = None) -> str:
    """``err``'s message as :func:`one_sentence` gives it, with every password removed: any
    URL's user information keeps its user name alone, any ``password=`` setting is blanked,
    psycopg's quote of the statement (``LINE 1: …`` and its caret) is left out,
    and every occurrence of the password of ``database`` (the ``--db`` value the error came
    from, raw or percent-decoded, of three characters or more) becomes ``…``. Raises nothing."""
    lines = (err if isinstance(err, str) else str(err)).splitlines()
    # psycopg's quote of the statement (``LINE 1: SELECT …`` and a line with a caret under it)
    # is the program's, not the user's: left out
    kept = [line for line in lines if not _STATEMENT_QUOTE.match(line)]
    text = one_sentence("\n".join(kept)) if any(line.strip() for line in kept) else one_sentence(err)
    if database is not None:
        for secret in _passwords(str(database)):
            text = text.replace(secret, "…") if len(secret) > 2 else text
    text = _USERINFO.sub(lambda m: m.group("head") + "@", text)
    return _PASSWORD_SETTING.sub(lambda m: m.group("head") + "…", text)
