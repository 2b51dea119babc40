"""The hash chain of a stored log (api.md, "A tamper-evident record").

Every stored event carries a random 16-byte ``salt`` (32 lowercase hex characters) and a
``hash``: SHA-256, in lowercase hex, of the UTF-8 bytes of the previous event's ``hash``
(:data:`GENESIS`, 64 zeros, for event 1) followed directly by the event's canonical JSON,
the object of exactly ``seq``, ``type``, ``data``, ``recorded_at``, ``at`` (null when the
client sent none) and ``salt``, keys sorted at every level, no spaces, non-ASCII characters
written as themselves (``json.dumps(…, sort_keys=True, separators=(",", ":"),
ensure_ascii=False)``). A game's ``record_hash`` is its last event's ``hash``; its
fingerprint is the first :data:`FINGERPRINT_LENGTH` (16) hex digits of that, shown in four
groups of four (64 bits: beyond a brute-force search for a forged record that matches); a
noted prefix of at least :data:`SHORTEST_FINGERPRINT` (12) digits still proves a record, so
fingerprints noted before the pages showed 16 keep working.

Pure functions only: no storage, no clock (the salt comes from :func:`new_salt`, the one
place that draws randomness).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from schemas.common import scrub

#: The "previous hash" of event 1.
GENESIS = "0" * 64
#: How many hex digits of ``record_hash`` a fingerprint shows (api.md: 16, in four groups of four).
FINGERPRINT_LENGTH = 16
#: The fewest hex digits a noted fingerprint may have (what the pages showed before: 48 bits).
SHORTEST_FINGERPRINT = 12
#: Hex digits per group where a fingerprint is shown to people.
GROUP = 4
#: The keys of the canonical object, in the order api.md lists them (``salt`` last).
KEYS = ("seq", "type", "data", "recorded_at", "at", "salt")
HEX64 = re.compile(r"^[0-9a-f]{64}$")
SALT = re.compile(r"^[0-9a-f]{32}$")
FINGERPRINT = re.compile(r"^[0-9a-f]{1,64}$")
#: The canonical JSON writer: what ``json.dumps(…, sort_keys=True, separators=(",", ":"),
#: ensure_ascii=False)`` builds on every call, built once (a rebuild hashes every event).
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def new_salt() -> str:
    """A fresh random 16-byte salt as 32 lowercase hex characters (``os.urandom``, what
    ``secrets.token_hex(16)`` reads, without its two calls around it: a write draws one)."""
    return os.urandom(16).hex()


def canonical(event: Mapping[str, Any]) -> str:
    """The canonical JSON text of ``event`` (a mapping with at least :data:`KEYS`; ``at`` may
    be missing, meaning null). Raises ``KeyError`` for a missing key, ``TypeError`` for a
    value JSON cannot write."""
    body = {key: event.get(key) if key == "at" else event[key] for key in KEYS}
    return _CANONICAL.encode(body)


def event_hash(previous: str, event: Mapping[str, Any]) -> str:
    """The ``hash`` of ``event`` whose predecessor's hash is ``previous`` (:data:`GENESIS`
    for event 1): lowercase hex SHA-256 of ``previous`` + :func:`canonical` (``event``).

    Text holding a lone surrogate (stored before such text was refused) is hashed as every
    read gives it back, with U+FFFD in its place (``schemas.common.scrub``)."""
    try:
        raw = (previous + canonical(event)).encode("utf-8")
    except UnicodeEncodeError:
        raw = (previous + canonical(scrub(dict(event)))).encode("utf-8")
    return hashlib.sha256(raw).hexdigest()


def first_break(events: Iterable[Mapping[str, Any]], previous: str = GENESIS) -> int | None:
    """The ``seq`` of the first event whose stored ``hash`` is not :func:`event_hash` of the
    hash before it (``previous`` before the first one given), or None when every link holds.

    The chain is recomputed from ``previous``: once a link breaks, that event is named. Each
    link is first tried with :func:`_quick_hash`; only when that does not give the stored
    hash does :func:`event_hash` decide (so a quick text that differed from the canonical
    one could only cost time, never call a sound link broken nor a broken one sound).
    """
    for event in events:
        stored = event.get("hash")
        if not isinstance(event.get("salt"), str):
            return int(event["seq"])
        expected = _quick_hash(previous, event)
        if expected is None or expected != stored:
            expected = event_hash(previous, event)
            if stored != expected:
                return int(event["seq"])
        previous = expected
    return None


def _quick_hash(previous: str, event: Mapping[str, Any]) -> str | None:
    """:func:`event_hash` written by ``orjson`` (sorted keys, no spaces, UTF-8 as itself: the
    canonical text for what Kibitz stores, some ten times faster than ``json``, which a
    rebuild pays on every event); None when ``orjson`` cannot write the event (a lone
    surrogate, an integer beyond 64 bits). Where its text could differ from
    :func:`canonical` (a float written otherwise), the hash differs and :func:`first_break`
    asks :func:`event_hash`."""
    body = {"seq": event["seq"], "type": event["type"], "data": event["data"], "recorded_at": event["recorded_at"],
            "at": event.get("at"), "salt": event["salt"]}  # :data:`KEYS`
    try:
        raw = previous.encode("utf-8") + orjson.dumps(body, option=orjson.OPT_SORT_KEYS)
    except (TypeError, UnicodeEncodeError):  # orjson.JSONEncodeError is a TypeError
        return None
    return hashlib.sha256(raw).hexdigest()


def fingerprint(record_hash: str | None) -> str | None:
    """The first :data:`FINGERPRINT_LENGTH` hex digits of ``record_hash`` (None for None)."""
    return None if record_hash is None else record_hash[:FINGERPRINT_LENGTH]


def grouped(digits: str) -> str:
    """Hex digits in groups of four, as the pages show a fingerprint (``a182 0958 a335 00f1``)."""
    return " ".join(digits[start:start + GROUP] for start in range(0, len(digits), GROUP))


def normal_fingerprint(text: str) -> str | None:
    """A fingerprint as a person typed it (spaces, dashes, colons and capitals allowed) in
    lowercase hex, or None unless it is :data:`SHORTEST_FINGERPRINT` to 64 hex digits (api.md:
    a noted prefix of at least 12 digits; the pages show 16, the whole hash has 64)."""
    cleaned = re.sub(r"[\s\-:]", "", text).lower()
    return cleaned if FINGERPRINT.fullmatch(cleaned) and len(cleaned) >= SHORTEST_FINGERPRINT else None


def moment_words(step: Mapping[str, Any] | None, cards: bool = True) -> str:
    """A moment of a game as card players name it, from its timeline ``step`` (the moment
    right after it; ``replays.timeline.timeline``'s ``place`` and ``brief``): "after Cas
    played 10♠ in hand 1, trick 2"; "in hand 1, trick 2" for a step without a brief (or
    without ``cards``); "at the start" before anything was played. Never an event number
    (ui.md, "Words for card players"): what a fingerprint is of, and where a fork branched."""
    if step is None or step["type"] == "game_created":
        return "at the start"
    place = step.get("place") or ""
    if cards and step.get("brief"):
        return f"after {step['brief']}" + (f" in {place}" if place else "")
    return f"in {place}" if place else "later in the game"


#: A step the timeline gives no brief for, as :func:`moments` names it.
_ENTRY_WORDS = {"note": "a note", "undo": "an undo", "redo": "a redo"}


def moments(steps: Iterable[Mapping[str, Any]]) -> dict[int, str]:
    """Every moment of a record by seq, from its timeline ``steps`` (as the reader may see
    them), in :func:`moment_words`' words, a note, undo or redo named as such ("after a note
    in hand 1, trick 1", "after a note before the first deal"): what :func:`verdict` names a
    fingerprint's moment by."""
    named = {}
    for step in steps:
        entry = _ENTRY_WORDS.get(str(step["type"])) if not step.get("brief") else None
        place = step.get("place") or ""
        named[int(step["seq"])] = (f"after {entry} " + (f"in {place}" if place else "before the first deal")
                                   if entry else moment_words(step))
    return named


@dataclass(frozen=True)
class Verdict:
    """What a noted fingerprint says of a record: ``seq`` the last event whose hash starts
    with it (None: no moment of the record), ``last`` the record's last event, ``words`` a
    sentence for people naming the moment as card players do, ``small`` the event numbers
    as small print for a dispute ("event 2 of 3"; "" when nothing matched)."""

    fingerprint: str
    seq: int | None
    last: int
    words: str
    small: str = ""

    @property
    def now(self) -> bool:
        """True when the fingerprint is the record's as it stands now."""
        return self.seq is not None and self.seq == self.last

    @property
    def line(self) -> str:
        """The sentence and its small print on one line (``kibitz verify``)."""
        return f"{self.words} ({self.small})" if self.small else self.words


def verdict(fingerprint_text: str, hashes: Iterable[tuple[int, str]],
            moments: Mapping[int, str] | None = None) -> Verdict:
    """Compare a normalised fingerprint (:func:`normal_fingerprint`) with a record's
    ``(seq, hash)`` pairs, oldest first, whose chain is known to hold; the sentence says
    whether the record still matches, or matched as it stood at an earlier moment, naming
    the fingerprint as given (every digit, in groups of four), never a part of it. A moment
    is named by ``moments[seq]`` (:func:`moment_words` of the timeline's step: "after Cas
    led 10♠ in hand 1, trick 1"), the event number only in the verdict's small print."""
    pairs = list(hashes)
    named = moments or {}
    last = pairs[-1][0] if pairs else 0
    found = None
    for seq, value in pairs:
        if value.startswith(fingerprint_text):
            found = seq
    shown = grouped(fingerprint_text)
    if found is None:
        return Verdict(fingerprint_text, None, last,
                       f"The fingerprint {shown} matches no moment of this game's record: the record is not the one "
                       "it was noted from (or the fingerprint was copied wrongly).")
    then = named.get(found) or "at that moment"
    if found == last:
        words = (f"The fingerprint {shown} matches the record as it stands now, {then}: nothing recorded up to "
                 "the moment it was noted has changed.")
        return Verdict(fingerprint_text, found, last, words, f"event {found}")
    more = last - found
    entries = "1 more entry was" if more == 1 else f"{more} more entries were"
    latest = named.get(last)
    words = (f"The fingerprint {shown} matches the record as it stood {then}: everything recorded up to then is "
             f"unchanged, and {entries} recorded after it was noted"
             + (f" (the record now stands {latest})." if latest else "."))
    return Verdict(fingerprint_text, found, last, words, f"event {found} of {last}")
