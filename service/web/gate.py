"""What ``kibitz serve`` refuses from the headers alone, before it reads a body or takes a
thread (``docs/crowds.md``, "Anonymous floods"): writes whose token this game does not have,
and game creation past a per-address limit where the server has no club key.

* :class:`TokenGate`: for ``POST /games/<id>/events``, ``/correct``, ``/undo`` and ``/redo``.
  Every token check of a write tells the gate the game's live token hashes (the app leaves
  them in the WSGI environ, :data:`TOKENS_KEY`, ``service.http.require_token``; the direct
  route hands them over), refused or not. A write whose token is one of them (or the club
  key, or that carries several ``Authorization`` headers) goes on as before, at no cost. Any
  other (a game the gate has not seen checked, no token, a token none of its live ones) is
  :meth:`TokenGate.suspect`: ``kibitz serve`` checks its token before reading its body
  (``service.web.server.Front``: the write's own checks in a scorekeeper thread, up to the
  token, without a body; the epoch of ``service.web.boards`` taken before the game is read),
  and a refusal (401 ``token_required``, 403 ``token_invalid``) is answered at once and kept
  with that epoch: while nothing has been committed since (the game's version and tokens
  are then the same), a write with no token or a token none of those hashes gets that same
  answer from memory. So a flood of large bodies with a junk token costs one check without a
  body per commit of that game, and no body is ever read, not even the first.
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

from cachetools import LRUCache
from limits import RateLimitItemPerMinute
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from service.http import TOKEN_INVALID, token_hash
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
        """The epoch to take before a token check reads the game (``BoardAnswers.epoch``)."""
        return self.boards.epoch(game_id)

    def _judged(self, known: _Known | None, authorization: list[bytes]) -> int | None:
        """The status a write with these ``Authorization`` headers gets for its token as far as
        ``known`` tells (401 no token, 403 none of the live tokens), or None: the app decides
        (one of the live tokens, the club key, several headers)."""
        if len(authorization) > 1:
            return None
        token = None
        if authorization:
            scheme, _, rest = authorization[0].decode("latin-1").strip().partition(" ")
            if scheme.lower() == "bearer" and rest.strip():
                token = rest.strip()
        if token is None:
            return 401
        digest = token_hash(token)
        if known is not None and digest in known.hashes:
            return None
        if self._club_key_hash is not None and hmac.compare_digest(digest, self._club_key_hash):
            return None  # the app says what the club key is for
        return 403

    def suspect(self, game_id: str, authorization: list[bytes]) -> bool:
        """True when a write to ``game_id`` with these ``Authorization`` headers may be refused
        for its token (no token, or one that is none of the game's live tokens as last checked,
        or a game whose tokens were never checked here): check the token before reading the
        body. False: the app decides (a live token, the club key, several headers)."""
        known = self._games.get(game_id) if game_id in self._games else None  # a plain read of the dict
        return self._judged(known, authorization) is not None

    def refusal(self, game_id: str, authorization: list[bytes]) -> tuple[int, Headers, bytes] | None:
        """The app's own refusal of a write to ``game_id`` with these ``Authorization``
        headers, when it is known for certain from memory; None: ask the app."""
        if game_id not in self._games:  # a plain read of its dict
            return None
        with self._lock:
            known = self._games.get(game_id)
        if known is None:
            return None
        status = self._judged(known, authorization)
        if status is None:
            return None
        answer = known.refusals.get(status)
        if answer is None or known.epoch is None or not _same(self.boards.epoch(game_id), known.epoch):
            return None
        return status, *answer

    def created(self, body: bytes) -> None:
        """Learn the one live token of a game just created or imported (the app's 201 ``body``,
        with its ``id`` and ``token``), so that its scorekeeper's first write is not
        :meth:`suspect`."""
        try:
            new = json.loads(body)
            game_id, token = str(new["id"]), str(new["token"])
        except (ValueError, KeyError, TypeError):
            return
        with self._lock:
            if game_id not in self._games:
                self._games[game_id] = _Known(None, frozenset({token_hash(token)}))

    def learn(self, game_id: str, epoch: Epoch | None, told: tuple[str, int, tuple[str, ...]] | None, status: int,
              headers: Headers, body: bytes) -> bool:
        """What a token check of a write to ``game_id`` shows, the game read after ``epoch``
        (None: not taken, so a refusal is kept but not trusted): the live token hashes
        (``told``, ``service.http.tokens_seen``; None: the token was not checked), and, for
        a 401 ``token_required`` or a 403 ``token_invalid`` (not the club key's), the answer
        itself. True when it was such a refusal."""
        if told is None or told[0] != game_id:
            return False
        refused = False
        if status in (401, 403):
            try:
                problem = json.loads(body)
            except ValueError:
                problem = {}
            refused = ((status, problem.get("code")) == (401, "token_required") or
                       (status, problem.get("code"), problem.get("detail")) == (403, "token_invalid", TOKEN_INVALID))
        hashes = frozenset(told[2])
        with self._lock:
            known = self._games.get(game_id)
            if known is None or known.epoch != epoch or epoch is None or known.hashes != hashes:
                if known is not None and not refused and known.hashes == hashes and known.epoch is None:
                    return False  # nothing new (a move with a live token)
                known = self._games[game_id] = _Known(epoch, hashes)
            if refused:
                known.refusals[status] = (
                    [(name, value) for name, value in headers if name not in (b"connection", b"content-length")], body)
        return refused


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

