"""Writes sent to a server that a test kills, stops or cuts off, and what the record must hold
afterwards (docs/league.md, "What works now": an acknowledged event is never lost).

A client sees a server go in many ways: the connection refused or reset, the server closing
it before an answer (``RemoteDisconnected``), an answer cut in its body (``ChunkedEncodingError``
from ``IncompleteRead``, or a body that is not whole JSON), a timeout. Every one of them means
the same thing to the tablet, and to these tests: the write was **not acknowledged**. It may
have been stored or not; what the record must hold is

- every acknowledged write (a 201 read whole) at the seq its answer named;
- no write stored twice, and nothing stored that no client sent;
- no write stored whose answer was a refusal (a documented 4xx/5xx problem: nothing stored).

:func:`send` makes one write and sorts its outcome into an :class:`Attempt`; :func:`check_log`
checks a game's log against the attempts made on it. tests/test_kill_under_load.py uses them;
a new test that kills, stops or cuts a server under load should too.
"""

from __future__ import annotations

import http.client
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import requests

#: Every exception by which ``requests`` tells that an answer never came whole: refused or reset
#: connections and ``RemoteDisconnected`` (``ConnectionError``), a cut body
#: (``ChunkedEncodingError``, ``ContentDecodingError``), connect and read timeouts (``Timeout``),
#: and what ``http.client`` or the socket raise beneath them when ``requests`` does not wrap it
#: (``IncompleteRead``; ``ConnectionResetError``, ``BrokenPipeError``). Not ``OSError`` itself:
#: every ``requests`` exception is one, a mistake of the test's own (a bad URL) among them.
LOST = (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError,
        requests.exceptions.ContentDecodingError, http.client.HTTPException, ConnectionError)

ACKNOWLEDGED, REFUSED, LOST_ANSWER = "acknowledged", "refused", "lost"


@dataclass(frozen=True)
class Attempt:
    """One write and how it ended: ``acknowledged`` (a 201 read whole: ``seq`` is the seq it
    named), ``refused`` (any other whole answer: ``detail`` is its status and body) or ``lost``
    (no whole answer: ``detail`` names the exception)."""

    key: str             #: what identifies the write in the record (the note's text)
    outcome: str
    seq: int | None = None
    detail: str = ""
    when: float = 0.0    #: ``time.monotonic()`` when the outcome was known


def send(session: requests.Session, method: str, url: str, key: str, **kwargs: Any) -> Attempt:
    """Send one write (``session.request(method, url, **kwargs)``) identified by ``key`` and
    return its :class:`Attempt`; never raises for a server that went away (:data:`LOST`)."""
    try:
        answer = session.request(method, url, **kwargs)
        body = answer.json() if answer.status_code == 201 else None
    except requests.exceptions.JSONDecodeError as err:  # a 201 whose body was cut: not read whole
        return Attempt(key, LOST_ANSWER, detail=f"a 201 with a cut body: {err}", when=time.monotonic())
    except LOST as err:
        return Attempt(key, LOST_ANSWER, detail=f"{type(err).__name__}: {err}", when=time.monotonic())
    if answer.status_code != 201:
        return Attempt(key, REFUSED, detail=f"{answer.status_code} {answer.text[:200]}", when=time.monotonic())
    seq = body["seq"] if "seq" in body else body["event"]["seq"]
    return Attempt(key, ACKNOWLEDGED, seq=int(seq), when=time.monotonic())


def check_log(logged: list[tuple[int, str]], attempts: Iterable[Attempt], first_seq: int = 1) -> None:
    """Check a game's log, ``(seq, key)`` of each event from ``first_seq`` on (earlier events are
    not the attempts'), against every attempt made on it: seqs without gap, every acknowledged
    attempt at its seq, nothing stored twice, nothing stored that was refused or never sent.
    Raises AssertionError saying what is wrong."""
    made = list(attempts)
    assert [seq for seq, _ in logged] == list(range(first_seq, first_seq + len(logged))), "the seqs have a gap"
    twice = sorted(key for key, count in Counter(key for _, key in logged).items() if count > 1)
    assert twice == [], f"stored twice: {twice}"
    at = dict(logged)
    for attempt in made:
        if attempt.outcome == ACKNOWLEDGED:
            assert at.get(attempt.seq) == attempt.key, (  # type: ignore[arg-type]
                f"acknowledged {attempt.key!r} at {attempt.seq} is not in the log ({at.get(attempt.seq)!r} is)")
    sent = {attempt.key: attempt.outcome for attempt in made}
    unknown = sorted(key for _, key in logged if key not in sent)
    assert unknown == [], f"stored, but no client sent them: {unknown}"
    refused = sorted(key for _, key in logged if sent[key] == REFUSED)
    assert refused == [], f"stored, though their answer was a refusal: {refused}"
