"""What ``kibitz serve`` refuses from the headers alone, before it reads a body or takes a
thread (``docs/crowds.md``, "Anonymous floods"): writes whose token this game does not have,
and game creation past a per-address limit where the server has no club key.

* :class:`TokenGate`: for ``POST /games/<id>/events``, ``/correct``, ``/undo`` and ``/redo``.
  When the app refuses a write for its token (401 ``token_required``, 403 ``token_invalid``),
  the gate keeps that answer and the game's live token hashes (the app leaves them in the
  WSGI environ, :data:`TOKENS_KEY`, ``service.http.require_token``). From then on, each write
  to that game takes the epoch of ``service.web.boards`` before the app reads the game, so the
  next refusal is known to hold while nothing has been committed since (the epoch unchanged:
  the game's version and tokens are then the same); a later write with no token or a token
  that is not one of those hashes (and not the club key) gets that same answer from the
  headers alone. Anything the gate does not know goes to the app as before, and a game no
  write was refused to costs its moves nothing (no epoch, no query). So a flood of large
  bodies with a junk token costs the app one refusal per commit of that game (two at its
  start), not one per request.
* :class:`CreateLimit`: at most ``per_minute`` ``POST /games`` and ``POST /games/import`` per
  client address in any 60 s (a moving window, the ``limits`` library), where the server has
  no club key; past it a 429 ``too_many_requests`` with ``Retry-After`` (whole seconds until
  the oldest of them leaves the window).
"""

from __future__ import annotations

import hmac
import json
import math
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from cachetools import LRUCache
from limits import RateLimitItemPerMinute
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from service.http import TOKEN_INVALID, TOKENS_KEY, token_hash
from service.web.boards import BoardAnswers, Epoch

#: The writes the gate knows: a game's token decides them.
WRITE_PATH = re.compile(r"/games/([^/]+)/(?:events|correct|undo|redo)")
#: The paths that create a game (anonymously where the server has no club key).
CREATE_PATHS = ("/games", "/games/import")

Headers = list[tuple[bytes, bytes]]


@dataclass
class _Known:
    """A game's live token hashes and the app's refusals (status -> headers, body), all as
    read at ``epoch`` (None: when is not known, so nothing of it is trusted; the next write
    to the game takes the epoch before the app reads it)."""

    epoch: Epoch | None
    hashes: frozenset[str]
    refusals: dict[int, tuple[Headers, bytes]] = field(default_factory=dict)


def _same(now: Epoch | None, then: Epoch) -> bool:
    """Nothing this game's answers depend on was committed between ``then`` and ``now``
    (as ``BoardAnswers.current`` judges a game that is not a fork)."""
    return now is not None and now[0] == then[0] and now[2] == then[2]


class TokenGate:
    """The token check from the headers alone (see the module). Thread-safe."""

    def __init__(self, boards: BoardAnswers, club_key: str | None, maxsize: int = 4096) -> None:
        self.boards = boards
        self._club_key_hash = token_hash(club_key) if club_key else None
        self._games: LRUCache[str, _Known] = LRUCache(maxsize=maxsize)
        self._lock = threading.Lock()

    def epoch(self, game_id: str) -> Epoch | None:
        """The epoch to take before the app reads the game (``BoardAnswers.epoch``), for a game
        the app has refused a write to (None for any other: an ordinary move costs no query)."""
        if game_id not in self._games:  # a plain read of its dict (most games: never refused)
            return None
        return self.boards.epoch(game_id)

    def refusal(self, game_id: str, authorization: list[bytes]) -> tuple[int, Headers, bytes] | None:
        """The app's own refusal of a write to ``game_id`` with these ``Authorization``
        headers, when it is known for certain from memory; None: ask the app."""
        if game_id not in self._games:  # a plain read of its dict (most games: never refused)
            return None
        with self._lock:
            known = self._games.get(game_id)
        if known is None or len(authorization) > 1:
            return None
        token = None
        if authorization:
            scheme, _, rest = authorization[0].decode("latin-1").strip().partition(" ")
            if scheme.lower() == "bearer" and rest.strip():
                token = rest.strip()
        if token is None:
            status = 401
        else:
            digest = token_hash(token)
            if digest in known.hashes:
                return None
            if self._club_key_hash is not None and hmac.compare_digest(digest, self._club_key_hash):
                return None  # the app says what the club key is for
            status = 403
        answer = known.refusals.get(status)
        if answer is None or known.epoch is None or not _same(self.boards.epoch(game_id), known.epoch):
            return None
        return status, *answer

    def learn(self, game_id: str, epoch: Epoch | None, environ: dict[str, Any], status: int, headers: Headers,
              body: bytes) -> None:
        """What the app's refusal of a write to ``game_id`` shows (a 401 ``token_required`` or a
        403 ``token_invalid``, not the club key's; other answers teach nothing), the app having
        read the game after ``epoch`` (None: not taken, so kept but not yet trusted): the live
        token hashes (``environ[TOKENS_KEY]``) and the answer itself."""
        told = environ.get(TOKENS_KEY)
        if status not in (401, 403) or told is None or told[0] != game_id:
            return
        try:
            problem = json.loads(body)
        except ValueError:
            return
        if not ((status, problem.get("code")) == (401, "token_required") or
                (status, problem.get("code"), problem.get("detail")) == (403, "token_invalid", TOKEN_INVALID)):
            return
        refusal = [(name, value) for name, value in headers if name not in (b"connection", b"content-length")]
        with self._lock:
            known = self._games.get(game_id)
            if known is None or known.epoch != epoch or epoch is None:
                known = self._games[game_id] = _Known(epoch, frozenset(told[2]))
            known.refusals[status] = (refusal, body)


class CreateLimit:
    """At most ``per_minute`` game creations per client address in any 60 s (see the module)."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._item = RateLimitItemPerMinute(per_minute)
        self._limiter = MovingWindowRateLimiter(MemoryStorage())

    def retry_after(self, address: str) -> int | None:
        """Count one creation from ``address``; None when it is within the limit, else the
        whole seconds until one more is allowed (at least 1)."""
        if self._limiter.hit(self._item, address):
            return None
        reset = self._limiter.get_window_stats(self._item, address).reset_time
        return max(1, math.ceil(reset - time.time()))


def too_many_detail(per_minute: int, retry_after: int) -> str:
    """The ``detail`` of a 429 ``too_many_requests``."""
    return (f"This address has created {per_minute} game{'s' if per_minute != 1 else ''} in the last minute, "
            f"as many as this server allows without a club key: try again in {retry_after} "
            f"second{'s' if retry_after != 1 else ''}.")

