"""Export and import of whole games (the ``json`` export of ``replays.export``).

Import re-validates the document event by event, exactly as recording would: every event
goes through its game's payload schema and then the rules (``engine.stream``), starting
from the ``game_created`` of the rules version it names. The first event refused stops the
import with a 422 ``import_invalid`` naming its ``seq``, its ``rule_code`` and the rules'
sentence; a document that is not an export at all is a 422 ``validation_failed``. Nothing
is stored unless the whole log folds.

An imported game gets a new id and token; its events keep their original ``recorded_at``
and ``at`` (the history of the night they were played), its ``created_at`` is the time
of its ``game_created``, and ``imported_at`` says when it was imported.

The hash chain (api.md, "A tamper-evident record"): an export whose every event carries its
``hash`` and ``salt`` (a full export) has its chain checked, event by event, over the
events as they will be stored; the first event whose hash does not follow is a 422
``import_invalid`` (``rule_code`` ``hash_mismatch``), and a sound chain is stored unchanged,
so the copy keeps the original's fingerprint. An export that carries a chain at all must
carry both on every event: the first that lacks one is a 422 ``import_invalid``
(``rule_code`` ``hash_missing``), a public export whose hidden events leave their salts out
included. Only an export with neither on any event (older) gets a fresh chain.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Iterable, Mapping
from datetime import datetime, tzinfo
from typing import Any

from marshmallow import ValidationError
from sqlite_utils import Database

import engine
import schemas
from engine import stream as streams
from engine.core import OptionError, RulesError
from replays import chain, export, replay
from schemas.common import UtcDateTime, unicode_errors
from schemas.games import CreateGameSchema, canonical_game, flatten
from service import catalogue, clubtime
from service.http import GAME_ID, ID_LENGTH
from service.parsing import STARTER_FIELDS, game_created, parse_action, parse_correct, parse_reason
from service.problems import ApiError
from service.record.cache import checked_events
from service.storage import backend as store

UTC_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$")
#: A client's time as Kibitz wrote a year below 1000 before times kept four-digit years
#: (``strftime("%Y")``: ``1-01-01T00:00:00.000Z``); stored records keep it (the hash chain
#: covers it), so their exports import with it unchanged.
SHORT_YEAR = re.compile(r"^(\d{1,3})(-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)$")


def load_game(db: Database, game_id: str) -> tuple[dict[str, Any], list[dict[str, Any]], replay.Folded] | None:
    """The stored row, log and fold of ``game_id`` (None if there is no such game), the log
    checked as it is read (``service.record.cache.checked_events``); raises ``store.RecordDamaged``
    naming the event of a record that is not what Kibitz wrote."""
    row = store.get_game(db, game_id)
    if row is None or row["game"] not in engine.GAMES:
        return None
    rules = engine.GAMES[row["game"]]
    events = checked_events(db, rules, game_id, upto=row["version"], record_hash=row.get("record_hash"),
                            version=row["version"])
    return row, events, replay.fold(rules, events)


def render(fmt: str, row: Mapping[str, Any], events: list[dict[str, Any]], folded: replay.Folded,
           full: bool) -> str:
    """The export of a game in ``fmt`` (one of ``replays.export.FORMATS``) as text."""
    if fmt == "json":
        return json.dumps(export.document(row, folded, events, full), ensure_ascii=False, indent=1) + "\n"
    if fmt == "jsonl":
        return export.jsonl(folded, events, full)
    if fmt == "csv":
        return export.csv_text(folded)
    return export.text(row, folded, events, full, catalogue.options_in_words(row["game"], row["options"]))


#: The formats each game of a night's archive is written in (``json`` is what import takes).
ARCHIVE_FORMATS = ("json", "csv", "text")


def file_stem(row: Mapping[str, Any], where: tzinfo) -> str:
    """The name a game's export files share, without the extension: its start in the zone
    ``where`` (club time), its game and its id, ``2026-12-05-1942-toepen-ICV5RTj9bIowzfBe``
    (``game-toepen-…`` when its start cannot be read). A club secretary tells the files of a
    night apart by it, in a night's zip (:func:`archive`) and from the game page's Export menu."""
    started = clubtime.local(str(row["created_at"]), where)
    stamp = started.strftime("%Y-%m-%d-%H%M") if started is not None else "game"
    return f"{stamp}-{row['game']}-{row['id']}"


def archive(games: Iterable[tuple[Mapping[str, Any], list[dict[str, Any]], replay.Folded, bool]],
            where: tzinfo) -> bytes:
    """A zip of many games (a night's, ``GET /games/export``): for each ``(row, events,
    folded, full)`` its ``json`` export (what ``POST /games/import`` and ``kibitz import``
    take), its ``csv`` score sheet and its ``text`` record, each as :func:`render` writes it
    for this reader (``full`` False: the public view), named by its start in the zone
    ``where`` (club time), its game and its id: ``2026-12-05-1942-toepen-ICV5RTj9bIowzfBe.json``.
    The same games give the same bytes."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as bundle:
        for row, events, folded, full in games:
            started = clubtime.local(str(row["created_at"]), where)
            stem = file_stem(row, where)
            moment = (started.timetuple()[:6] if started is not None and started.year >= 1980
                      else (1980, 1, 1, 0, 0, 0))
            for fmt in ARCHIVE_FORMATS:
                member = zipfile.ZipInfo(f"{stem}.{export.EXTENSIONS[fmt]}", moment)
                member.compress_type = zipfile.ZIP_DEFLATED
                member.external_attr = 0o644 << 16
                bundle.writestr(member, render(fmt, row, events, folded, full).encode("utf-8"))
    return out.getvalue()


def archived_documents(data: bytes) -> list[tuple[str, Any]]:
    """The ``json`` members of a zip made by :func:`archive` (or any zip of json exports), in
    name order, each as ``(name, parsed JSON)``; a member that is not JSON is given as the
    ``ValueError`` it raised, for the caller to report. Raises ``zipfile.BadZipFile``."""
    found: list[tuple[str, Any]] = []
    with zipfile.ZipFile(io.BytesIO(data)) as bundle:
        for name in sorted(bundle.namelist()):
            if not name.endswith(".json") or name.endswith("/"):
                continue
            try:
                found.append((name, json.loads(bundle.read(name).decode("utf-8"))))
            except (UnicodeDecodeError, ValueError) as err:
                found.append((name, ValueError(str(err).splitlines()[0][:120])))
    return found


# --------------------------------------------------------------------------- import


def _invalid(errors: dict[str, list[str]]) -> ApiError:
    return ApiError(422, "validation_failed", "The body is not a Kibitz game export.", errors=errors)


def refused(seq: int, rule_code: str, message: str, errors: dict[str, list[str]] | None = None) -> ApiError:
    """The 422 ``import_invalid`` for event ``seq`` refused with ``rule_code``."""
    return ApiError(422, "import_invalid", f"Event {seq} is refused: {message}", errors=errors,
                    extra={"seq": seq, "rule_code": rule_code, "rule_message": message})


def check_shape(doc: Any) -> list[dict[str, Any]]:
    """The events of an export document, after checking its shape (422 ``validation_failed``
    listing every problem found)."""
    if not isinstance(doc, dict):
        raise _invalid({"_schema": ["The body must be a JSON object (a json export)."]})
    not_unicode = unicode_errors(doc)
    if not_unicode:
        raise ApiError(422, "validation_failed", "The export holds text that is not valid Unicode.",
                       errors=dict(sorted(not_unicode.items())[:20]))
    errors: dict[str, list[str]] = {}
    if not _integer(doc.get("kibitz_export")) or doc["kibitz_export"] != export.FORMAT_VERSION:
        errors["kibitz_export"] = [f"Give {export.FORMAT_VERSION}: this service reads version {export.FORMAT_VERSION} exports."]
    game = doc.get("game")
    if game is not None and not isinstance(game, dict):
        errors["game"] = ["Give the exported game's summary as an object."]
    elif isinstance(game, dict) and "id" in game and not (isinstance(game["id"], str) and GAME_ID.fullmatch(game["id"])):
        errors["game.id"] = [f"Give the exporting service's game id: a string of {ID_LENGTH} letters and digits."]
    events = doc.get("events")
    if not isinstance(events, list) or not events:
        errors["events"] = ["Give the game's events: a non-empty list starting with game_created."]
        raise _invalid(errors)
    for index, event in enumerate(events):
        where = f"events.{index}"
        if not isinstance(event, dict):
            errors[where] = ["Each event is an object."]
            continue
        seq = event.get("seq")
        if not _integer(seq) or seq != index + 1:
            errors[f"{where}.seq"] = [f"Events are numbered 1, 2, 3 … without gaps: this one should be {index + 1}."]
        if not isinstance(event.get("type"), str) or not event["type"]:
            errors[f"{where}.type"] = ["Give the event's type."]
        if not isinstance(event.get("data"), dict):
            errors[f"{where}.data"] = ["Give the event's data as an object."]
        if not _utc_time(event.get("recorded_at")):
            errors[f"{where}.recorded_at"] = ["Give the time it was recorded, UTC ISO 8601 with a Z."]
        if event.get("at") is not None and not isinstance(event["at"], str):
            errors[f"{where}.at"] = ["Give the client's time as a string, or null."]
        if "hash" in event and not (isinstance(event["hash"], str) and chain.HEX64.fullmatch(event["hash"])):
            errors[f"{where}.hash"] = ["Give the event's hash as 64 lowercase hex digits, or leave it out."]
        if "salt" in event and not (isinstance(event["salt"], str) and chain.SALT.fullmatch(event["salt"])):
            errors[f"{where}.salt"] = ["Give the event's salt as 32 lowercase hex digits, or leave it out."]
        if len(errors) >= 20:
            break
    if not errors and events[0]["type"] != streams.CREATED:
        errors["events.0.type"] = ["The first event is game_created."]
    if errors:
        raise _invalid(errors)
    return events


def _integer(value: Any) -> bool:
    """True for a JSON integer (not a boolean, not a number with a fraction part such as 3.0)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _utc_time(value: Any) -> bool:
    """True for a real UTC time written ISO 8601 with a ``Z`` (2026-13-45T99:99:99Z is not one)."""
    if not isinstance(value, str) or not UTC_TIME.match(value):
        return False
    try:
        datetime.fromisoformat(value[:-1])
    except ValueError:
        return False
    return True


def _four_digit_year(value: Any) -> str | None:
    """``value`` with its year written in four digits when it is a client time as an older
    Kibitz wrote it with a year below 1000 (:data:`SHORT_YEAR`), else None."""
    found = SHORT_YEAR.match(value) if isinstance(value, str) else None
    return f"{int(found.group(1)):04d}{found.group(2)}" if found else None


def _client_time(value: Any) -> str | None:
    """The ``at`` of ``game_created`` checked like any action's (``UtcDateTime``), or None
    (a short year as an older Kibitz wrote it is kept as exported: :data:`SHORT_YEAR`)."""
    if value is None:
        return None
    if _four_digit_year(value) is not None:
        return str(value)
    try:
        at: str = UtcDateTime().deserialize(value)
    except ValidationError as err:
        raise refused(1, "validation_failed", "The game_created event's time is not valid.",
                      {"at": [str(m) for m in err.messages]} if isinstance(err.messages, list) else None) from err
    return at


def _created(recorded: Mapping[str, Any]) -> tuple[Any, dict[str, Any], replay.Folded]:
    """The engine module, the ``game_created`` data to store and its fold (event 1).

    A game of an older supported rules version is checked through the module's ``upcast``
    and stored exactly as recorded (its own shape), so that it rebuilds as it always did.
    """
    raw = recorded
    name = raw.get("game")
    game = canonical_game(name)
    rules = engine.GAMES[game] if game is not None else None
    if rules is None:
        raise refused(1, "validation_failed", f"{str(raw.get('game'))[:40]!r} is not a game this service knows.")
    try:
        version = streams.rules_version_of(rules, raw)
    except streams.UnknownRulesVersion as err:
        raise refused(1, "unknown_rules_version", err.message) from err
    current = version == rules.RULES_VERSION
    if not current:  # checked in the current shape; stored as recorded, and upcast again on every rebuild
        raw = {k: v for k, v in rules.upcast(version, {"type": streams.CREATED, **raw}).items() if k != "type"}
    body = {k: raw[k] for k in ("game", "players", "visibility", *STARTER_FIELDS, "title", "play_again_of")
            if raw.get(k) is not None}
    try:
        loaded = CreateGameSchema().load({**body, "options": {}})
    except ValidationError as err:
        errors = flatten(err.messages)
        raise refused(1, "validation_failed", "The game_created event does not fit its schema.", errors) from err
    players = loaded["players"]
    options = raw.get("options")
    if not isinstance(options, dict):
        raise refused(1, "validation_failed", "The game_created event has no options object.")
    try:
        options = rules.resolve_options(schemas.GAMES[rules.GAME].OPTIONS().load(options), players)
        created = game_created(rules, loaded, options, version)
        fork = raw.get("forked_from")  # a what-if fork stays one (and out of match histories)
        if isinstance(fork, dict) and isinstance(fork.get("game"), str) and isinstance(fork.get("seq"), int):
            created["forked_from"] = {"game": fork["game"], "seq": fork["seq"]}
        if not current:
            created = {**recorded, "game": rules.GAME}  # the id always canonical
        folded = replay.fold(rules, [{"seq": 1, "type": streams.CREATED, "data": created}])
    except ValidationError as err:
        raise refused(1, "validation_failed", "The game's options are not valid.", flatten(err.messages, "options")) from err
    except OptionError as err:
        raise refused(1, "validation_failed", f"{err.field}: {err.message}") from err
    return rules, created, folded


def chained(events: list[dict[str, Any]]) -> bool:
    """True when the export carries a hash chain (any event has a ``hash`` or a ``salt``):
    then every event must carry both, and the chain is checked and kept; False for an export
    with neither on any event (an older one), which gets a fresh chain.

    Raises the 422 ``import_invalid`` (``rule_code`` ``hash_missing``) naming the first event
    that lacks its hash or its salt: a chain with a link left out would let an edited event
    in under a fresh chain."""
    if not any("hash" in event or "salt" in event for event in events):
        return False
    for event in events:
        lacking = [key for key in ("hash", "salt") if not isinstance(event.get(key), str)]
        if lacking:
            seq = int(event["seq"])
            raise refused(seq, "hash_missing", f"It has no {' and no '.join(lacking)} while the export carries a "
                                               "hash chain: every event of such an export carries both (a public "
                                               "export leaves out the salts of what it hides; import the full "
                                               "export, made with the game's token).")
    return True


def _hash_refused(seq: int) -> ApiError:
    return refused(seq, "hash_mismatch", f"Its hash does not follow the event before it: event {seq} (or one "
                                         "before it) is not what the exporting service recorded, so the record "
                                         "cannot be imported as it stood.")


def rebuild(doc: Any) -> tuple[list[dict[str, Any]], replay.Folded]:
    """Check an export document and fold it through the rules.

    Returns the events to store (canonical data, original times; each with its exported
    ``salt`` when the export's chain is kept, see :func:`chained`) and the folded game.
    Raises ``ApiError`` 422: ``validation_failed`` for a document that is not an export,
    ``import_invalid`` (``seq``, ``rule_code``) for the first event the rules refuse or the
    first whose hash does not follow the chain (``hash_mismatch``).
    """
    events = check_shape(doc)
    keep = chained(events)
    rules, created, folded = _created(events[0]["data"])
    version = folded.stream.rules_version
    current = version == rules.RULES_VERSION
    table = {"game": rules.GAME, "players": created["players"], "visibility": created["visibility"]}
    stored = [{"seq": 1, "type": streams.CREATED, "data": created, "recorded_at": events[0]["recorded_at"],
               "at": _client_time(events[0].get("at"))}]
    previous = chain.GENESIS
    if keep:
        previous = _follows(stored[0], events[0], previous)
    for event in events[1:]:
        seq, kind = event["seq"], event["type"]
        body = {**event["data"], "type": kind}
        short_year = _four_digit_year(event.get("at"))
        if event.get("at") is not None:
            body["at"] = short_year or event["at"]
        if kind in (streams.UNDO, streams.REDO):
            body.pop("type")
            parsed = parse_reason(kind, body)
        elif kind == streams.CORRECT:  # its action checked like any action, then refolded
            body.pop("type")
            inner = body.get("action")
            if not current and isinstance(inner, dict) and isinstance(inner.get("type"), str):
                body = {**body, "action": rules.upcast(version, inner)}
            parsed = parse_correct(table, body)
        else:
            parsed = parse_action(table, body if current else rules.upcast(version, body))
        if parsed.errors is not None or parsed.action is None:
            raise refused(seq, "validation_failed", f"The {kind[:40]} event does not fit its schema.",
                          parsed.errors or {})
        action = parsed.action if current else {"type": kind, **event["data"]}
        try:
            folded = replay.extend(folded, seq, action)
        except RulesError as err:
            raise refused(seq, err.code, err.message) from err
        data = {k: v for k, v in action.items() if k != "type"}
        stored.append({"seq": seq, "type": kind, "data": data, "recorded_at": event["recorded_at"],
                       "at": parsed.at if current and short_year is None else event.get("at")})
        if keep:
            previous = _follows(stored[-1], event, previous)
    return stored, folded


def _follows(entry: dict[str, Any], exported: Mapping[str, Any], previous: str) -> str:
    """Give ``entry`` (an event as it will be stored) the exported event's salt, after
    checking that the exported hash is that of ``entry`` after ``previous``; returns it.
    Raises the 422 ``import_invalid`` (``hash_mismatch``) naming the event otherwise."""
    entry["salt"] = exported["salt"]
    expected = chain.event_hash(previous, entry)
    if exported["hash"] != expected:
        raise _hash_refused(int(entry["seq"]))
    return expected


def source_of(doc: Mapping[str, Any]) -> str | None:
    """The id of the game an export document was made from (its ``game.id``), or None when
    it names none (a hand-written document)."""
    game = doc.get("game")
    source = game.get("id") if isinstance(game, Mapping) else None
    return source if isinstance(source, str) and 0 < len(source) <= 100 else None
