"""The club key: one shared secret that creating and importing games need, where the club sets one.

Whoever runs the club's server chooses the key and gives it to the club's scorekeepers; the
server reads it from a file (``kibitz serve --club-key-file PATH``) or from the environment
(``KIBITZ_CLUB_KEY``, also read by ``wsgi.py``'s app). Requests send it as
``Authorization: Bearer <club key>`` on ``POST /games`` and ``POST /games/import``
(``service.http.require_club_key``). It never opens a game: recording and forking need the
game's own token, and a read that carries the club key gets the public view (api.md).
Without a key the service is open, as before.
"""

from __future__ import annotations

import os
from pathlib import Path

#: The environment variable that holds the key itself (not a path).
ENV = "KIBITZ_CLUB_KEY"
MIN_LENGTH = 8
MAX_LENGTH = 200


class ClubKeyError(ValueError):
    """A club key that cannot be used; the message is one sentence naming where it came from."""


def check(key: str, source: str) -> str:
    """``key`` without surrounding whitespace (a file's final newline), if it is usable:
    8 to 200 printable ASCII characters (letters, digits, punctuation, inner spaces; an HTTP
    header carries nothing else reliably). Raises :class:`ClubKeyError` naming ``source``
    (such as ``"the file club.key"``) otherwise."""
    raw, key = key, key.strip()
    if not key and raw:
        raise ClubKeyError(f"The club key in {source} is only whitespace: give 8 to {MAX_LENGTH} printable "
                           "characters, or leave it unset for an open server.")
    if not key:
        raise ClubKeyError(f"The club key in {source} is empty: write the key there (8 to {MAX_LENGTH} characters).")
    if not all(" " <= char <= "~" for char in key):
        raise ClubKeyError(f"The club key in {source} may hold only printable ASCII characters "
                           "(letters, digits, punctuation and spaces), one line.")
    if not MIN_LENGTH <= len(key) <= MAX_LENGTH:
        raise ClubKeyError(f"The club key in {source} has {len(key)} characters: give {MIN_LENGTH} to {MAX_LENGTH}.")
    return key


def read_file(path: str | Path) -> str:
    """The club key held in the file ``path`` (its whole text, stripped; see :func:`check`).
    Raises :class:`ClubKeyError` when the file cannot be read or holds no usable key."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        text = "\ufffd"  # refused by check() below, naming the file
    except OSError as err:
        raise ClubKeyError(f"Cannot read the club key file {path}: {err.strerror or err}.") from err
    return check(text, f"the file {path}")


def from_environment() -> str | None:
    """The club key in ``$KIBITZ_CLUB_KEY`` (checked), or None when it is unset or empty
    (``KIBITZ_CLUB_KEY=`` clears it). Raises :class:`ClubKeyError` for an unusable key, one
    of only whitespace included: that is a key meant but lost, never an open server."""
    raw = os.environ.get(ENV, "")
    return check(raw, ENV) if raw else None
