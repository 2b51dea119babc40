"""Payload pieces every game shares: cards, player names, client times, action schemas.

An action schema is built for one game instance: it knows the seats (``players``) and the
``visibility``, so a body that names an unknown player, or carries a card field that only
``open`` games allow, fails here with a 422 before any rule is checked
(``../shared/spec/api.md``, "Order of checks").
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import regex
from marshmallow import RAISE, Schema, ValidationError, fields, pre_load, validate, validates_schema

from engine.core import name_list

#: Fields every action may carry besides its own: ``type`` and the client's time ``at``.
ENVELOPE = ("type", "at")

NOT_UNICODE = "The text is not valid Unicode (it holds a lone surrogate such as \\ud83d): send UTF-8 text."
NOT_UNICODE_NAME = "This field name is not valid Unicode (it holds a lone surrogate): send UTF-8 text."


def is_unicode(text: str) -> bool:
    """True when ``text`` can be written as UTF-8: it holds no lone surrogate code point
    (JSON lets a body spell one, ``"\\ud83d"``, but it is not a character)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def unicode_errors(value: Any, path: str = "") -> dict[str, list[str]]:
    """``{"players.1": ["…"], "text": ["…"]}`` for every string in the JSON ``value``
    (object keys included) that is not valid Unicode (:func:`is_unicode`); ``{}`` if none.

    ``path`` names ``value`` itself (dotted, list items by index), as 422 ``errors`` do.
    """
    errors: dict[str, list[str]] = {}
    stack: list[tuple[str, Any]] = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            if not is_unicode(item):
                errors[where or "_schema"] = [NOT_UNICODE]
        elif isinstance(item, Mapping):
            for key, child in item.items():
                name = str(key)
                if not is_unicode(name):
                    name = name.encode("utf-8", "backslashreplace").decode("utf-8")
                    errors[f"{where}.{name}" if where else name] = [NOT_UNICODE_NAME]
                    continue
                stack.append((f"{where}.{name}" if where else name, child))
        elif isinstance(item, list | tuple):
            stack.extend((f"{where}.{index}" if where else str(index), child) for index, child in enumerate(item))
    return errors


def scrub(value: Any) -> Any:
    """``value`` (decoded JSON) with every lone surrogate in its strings (keys included)
    replaced by U+FFFD; the same object when there is none.

    For readers of text stored before such text was refused: whatever a database holds,
    every read and export can be written as UTF-8.
    """
    if isinstance(value, str):
        return value if is_unicode(value) else value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, Mapping):
        return {scrub(key): scrub(child) for key, child in value.items()}
    if isinstance(value, list):
        return [scrub(child) for child in value]
    return value


class UnicodeSchema(Schema):
    """A schema that refuses, before any field is loaded, a body holding text that is not
    valid Unicode anywhere (a field, a list item, a nested option, a field name): a
    ``ValidationError`` naming each such field (:func:`unicode_errors`).

    Every request schema derives from it, so each text field of each route (and each action
    added later) is covered without a check of its own.
    """

    @pre_load
    def _valid_unicode(self, data: Any, **kwargs: Any) -> Any:
        errors = unicode_errors(data)
        if errors:
            raise ValidationError(errors)
        return data


# --------------------------------------------------------------------------- numbers

#: A whole number as paths, queries and headers spell it: ASCII digits only, at most 30.
_WHOLE_NUMBER = re.compile(r"[0-9]{1,30}")


def whole_number(text: Any) -> int | None:
    """``text`` as a whole number when it is 1 to 30 ASCII digits (``"0"``, ``"17"``,
    ``"007"``), else None: a sign, spaces, ``"²"``, ``"٣"`` or ``"１"`` are not numbers here.

    The one parser of numbers read from a request's path, query or headers (the ``int``
    converter of the routes, ``If-Match``, every view's query numbers): ``str.isdigit`` says
    True for ``"²"``, which ``int`` refuses, and ``int`` takes other scripts' digits
    (``int("٣") == 3``), so neither is asked directly. Never raises.
    """
    if not isinstance(text, str) or not _WHOLE_NUMBER.fullmatch(text):
        return None
    return int(text)


class WholeNumber(fields.Integer):
    """An integer query parameter: a JSON integer, or a string of ASCII digits only
    (:func:`whole_number`); anything else is the field's "Not a valid integer." (422)."""

    def _validated(self, value: Any) -> int:
        if isinstance(value, str):
            number = whole_number(value)
            if number is None:
                raise self.make_error("invalid", input=value)
            return number
        return int(super()._validated(value))


# --------------------------------------------------------------------------- text people type

#: Joiners kept in text (emoji sequences, Persian): ignored when names are compared.
JOINERS = "\u200c\u200d"
#: Invisible and direction-changing characters refused in every typed text (api.md, "Text
#: people type"): zero-width space, word joiner, BOM, the direction marks, the bidirectional
#: embeddings and overrides (U+202A–U+202E) and isolates (U+2066–U+2069), and the Arabic
#: letter mark U+061C, a direction mark like U+200E and U+200F.
REFUSED_CHARACTERS = frozenset("\u200b\u2060\ufeff\u200e\u200f\u061c" + "".join(map(chr, range(0x202A, 0x202F)))
                               + "".join(map(chr, range(0x2066, 0x206A))))
#: Refused categories: control, private use, unassigned (in this Python's Unicode database), surrogate.
REFUSED_CATEGORIES = frozenset(("Cc", "Co", "Cn", "Cs"))


def _refusal(char: str) -> str:
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X}{f' ({name})' if name else ''}"


def typed_text(text: str, *, free: bool) -> str:
    """``text`` as stored: Unicode NFC; in free text (``free``: titles, notes, reasons) a CR
    or CRLF becomes a line feed, which free text keeps.

    Raises ``ValidationError`` (the field's 422) naming the first refused character: a
    control character (Cc; a line feed only outside free text), U+200B, U+2060, U+FEFF,
    U+200E, U+200F, U+202A–U+202E, U+2066–U+2069, or a private-use, unassigned or surrogate
    code point (Co, Cn, Cs). U+200C and U+200D are kept. docs/text-and-headers.md.
    """
    if free:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = unicodedata.normalize("NFC", text)
    for char in text:
        if char == "\n" and free:
            continue
        if char in REFUSED_CHARACTERS or unicodedata.category(char) in REFUSED_CATEGORIES:
            kind = ("a control character" if unicodedata.category(char) == "Cc"
                    else "a private-use, unassigned or surrogate code point"
                    if unicodedata.category(char) in REFUSED_CATEGORIES else "an invisible or direction-changing character")
            where = "Names and free text" if not free else "Free text"
            raise ValidationError(f"{where} may not hold {kind}: {_refusal(char)}. Type it without it.")
    return text


#: Unicode's Default_Ignorable_Code_Point: characters that show nothing (the Hangul fillers
#: U+115F, U+1160, U+3164, U+FFA0 among the letters, the combining grapheme joiner …), from
#: the ``regex`` library's Unicode data.
IGNORABLE = regex.compile(r"\p{Default_Ignorable_Code_Point}")
#: Default-ignorable characters a name keeps: the joiners and the variation selectors
#: (an emoji's U+FE0F, a Han variant, Mongolian's free variation selectors).
KEPT_IGNORABLE = regex.compile(r"[\u200c\u200d\p{Variation_Selector}]")
#: A symbol that prints nothing and is no Default_Ignorable_Code_Point: U+2800 BRAILLE
#: PATTERN BLANK (an outside tester's name of one U+2800 was taken as visible).
BLANK_SYMBOLS = frozenset("\u2800")
#: Scripts that are no script of their own (punctuation, digits, spaces, combining marks).
NOT_A_SCRIPT = frozenset(("COMMON", "INHERITED", "Unknown"))
#: The mixes of scripts that are one way of writing (UTS #39, "Highly Restrictive"): Latin
#: with Han, Hiragana and Katakana (Japanese), with Han and Bopomofo, with Han and Hangul
#: (Korean). Any other mix in one word (a Cyrillic А in "Аnn") is refused.
ONE_WRITING = (frozenset(("LATIN", "HAN", "HIRAGANA", "KATAKANA")), frozenset(("LATIN", "HAN", "BOPOMOFO")),
               frozenset(("LATIN", "HAN", "HANGUL")))


def _mixed_word(text: str) -> str | None:
    """The first word of ``text`` (a run of letters and marks between spaces, punctuation or
    digits) that mixes scripts beyond :data:`ONE_WRITING`, scripts as the
    ``confusable_homoglyphs`` library's Unicode data gives them; None when there is none."""
    from confusable_homoglyphs import categories  # its data is read on first use: names only

    word: list[str] = []
    scripts: set[str] = set()
    for char in (*text, " "):
        script = categories.alias(char)
        if script in ("COMMON", "Unknown"):  # a word ends
            if len(scripts) > 1 and not any(scripts <= writing for writing in ONE_WRITING):
                return "".join(word)
            word, scripts = [], set()
            continue
        word.append(char)
        if script not in NOT_A_SCRIPT:
            scripts.add(script)
    return None


def _mixed_word_refusal(word: str) -> str:
    """The sentence refusing a name whose ``word`` mixes scripts, naming a look-alike when the
    library knows one ("U+0410 (CYRILLIC CAPITAL LETTER A) looks like Latin A")."""
    from confusable_homoglyphs import categories, confusables

    counted = Counter(script for script in map(categories.alias, word) if script not in NOT_A_SCRIPT)
    scripts = sorted(script.capitalize() for script in counted)
    most = counted.most_common(1)[0][0]  # the word's main script: a letter of another one looks like one of it
    found = confusables.is_confusable(word, greedy=False, preferred_aliases=[most.lower()]) or []
    alike = next((f"; {_refusal(entry['character'])} looks like {most.capitalize()} {glyph['c']}"
                  for entry in found for glyph in entry.get("homoglyphs") or []
                  if len(glyph["c"]) == 1 and categories.alias(glyph["c"]) == most), "")
    return (f"A player name may not mix {' and '.join(scripts)} letters in one word (“{word}”{alike}): "
            "type each word in one script.")


def typed_name(text: str) -> str:
    """A player name as stored (:func:`typed_text`, no line feed).

    Raises ``ValidationError`` (docs/text-and-headers.md) for a name that holds an invisible
    formatting character (Cf but the joiners), a character that shows nothing (Unicode's
    Default_Ignorable_Code_Point but the joiners and variation selectors: U+115F, U+3164 …;
    and U+2800), no visible character (a letter, digit, punctuation or symbol: L, N, P, S),
    or a word that mixes scripts (a Cyrillic А in "Аnn": :func:`_mixed_word`)."""
    text = typed_text(text, free=False)
    for char in text:  # recording.md, "Identity and players": no format characters in a name
        if unicodedata.category(char) == "Cf" and char not in JOINERS:
            raise ValidationError(f"A player name may not hold an invisible formatting character: {_refusal(char)}. "
                                  "Type it without it.")
        if char in BLANK_SYMBOLS or (IGNORABLE.match(char) and not KEPT_IGNORABLE.match(char)):
            raise ValidationError(f"A player name may not hold a character that shows nothing: {_refusal(char)}. "
                                  "Type it without it.")
    if not any(unicodedata.category(char)[0] in "LNPS" for char in text):
        raise ValidationError("A player name needs a visible character (a letter, digit, punctuation mark or symbol).")
    mixed = _mixed_word(text)
    if mixed is not None:
        raise ValidationError(_mixed_word_refusal(mixed))
    return text


def name_key(name: str) -> str:
    """The name two seats (and match histories) compare: trimmed, NFC, case-folded (NFC
    again, as case folding may decompose), without the joiners U+200C and U+200D.
    ``"Ann"``, ``" ANN "``, ``"An\u200dn"`` and NFD ``"José"`` vs NFC ``"José"`` each share one key."""
    folded = unicodedata.normalize("NFC", unicodedata.normalize("NFC", name.strip()).casefold())
    return folded.translate({ord(joiner): None for joiner in JOINERS})


class FreeText(fields.String):
    """Free text people type (a title, a note, a reason, a ruling): :func:`typed_text` with
    line feeds kept (CR and CRLF stored as LF), then the field's own validators."""

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> str:
        return typed_text(super()._deserialize(value, attr, data, **kwargs), free=True)


#: The characters Python's ``str.strip()`` removes, as a regular-expression class body
#: (ECMA-262's ``\\s`` differs: it lacks U+001C..U+001F and U+0085, and has U+FEFF).
SPACE = "\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"


def any_case(text: str) -> str:
    """``text`` as a pattern that matches it in any letter case (``"th"`` → ``"[Tt][Hh]"``)."""
    return "".join(f"[{char.upper()}{char.lower()}]" if char.isalpha() else char for char in text)


def card_pattern(codes: Sequence[str]) -> str:
    """A pattern for the strings a card parser accepts: one of ``codes`` in any case, with
    surrounding spaces (``str.strip``); for the OpenAPI document's card schemas."""
    alternatives = "|".join(any_case(code) for code in codes)
    return f"^[{SPACE}]*(?:{alternatives})[{SPACE}]*$"


class CardField(fields.Field[Any]):
    """A card code, parsed by the game's ``parse`` function into its canonical string.

    ``parse(value) -> code`` raises ``ValueError`` for anything that is not a card of the
    game; that becomes the field's 422 message. Output is the canonical code.
    """

    def __init__(self, parse: Callable[[Any], Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.parse = parse

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> Any:
        if isinstance(value, bool):
            raise ValidationError(f"{value!r} is not a card code.")
        try:
            return self.parse(value)
        except (ValueError, TypeError) as err:
            raise ValidationError(str(err)) from err


class StrictBoolean(fields.Boolean):
    """A JSON ``true`` or ``false`` and nothing else.

    marshmallow's ``Boolean(truthy={True}, falsy={False})`` still lets ``1``, ``0`` and
    ``1.0`` through (they are equal to ``True``/``False`` in Python); a number is a wrong
    type here, a 422 like a string or a null.
    """

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


#: The most cards any list of cards in an action may hold (a payload error beyond).
MAX_CARDS = 100


def cards(parse: Callable[[Any], Any], **kwargs: Any) -> fields.List[Any]:
    """A list of 1 to :data:`MAX_CARDS` card codes. How many cards a dealt hand, a reveal or a
    show holds, and a card listed more times than the deck holds it, are the rules' refusals
    (``wrong_card_count``, ``card_not_available``: recording.md, the same in every game), never
    the schema's."""
    return fields.List(CardField(parse), validate=validate.Length(min=1, max=MAX_CARDS), **kwargs)


class UtcDateTime(fields.Field[Any]):
    """An ISO 8601 time with a zone; stored and shown in UTC with a ``Z``."""

    #: How the OpenAPI document describes it (``service/web/openapi.py``).
    json_schema: dict[str, Any] = {"type": "string", "format": "date-time", "maxLength": 64}

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> str:
        if not isinstance(value, str) or len(value) > 64:
            raise ValidationError("Give the time as an ISO 8601 string, e.g. 2026-11-29T20:15:00Z.")
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError as err:
            raise ValidationError("Not an ISO 8601 time, e.g. 2026-11-29T20:15:00Z.") from err
        if moment.tzinfo is None:
            raise ValidationError("The time needs a zone, e.g. 2026-11-29T20:15:00Z.")
        try:
            return utc_text(moment)
        except OverflowError as err:  # e.g. 9999-12-31T23:59:59-23:59 is past year 9999 in UTC
            raise ValidationError("The time is out of range.") from err


def utc_text(moment: datetime) -> str:
    """Format ``moment`` as UTC ISO 8601 with a ``Z`` and millisecond precision, the year in
    four digits (``0001-01-01T00:00:00.000Z``: the form every reader of a time accepts, the
    import's included; ``strftime("%Y")`` writes year 1 as ``1``).

    Raises ``OverflowError`` when ``moment`` in UTC falls outside years 1 to 9999."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


#: The longest player name an action may give, surrounding spaces included.
PLAYER_NAME_LENGTH = 100


class PlayerName(fields.String):
    """A seat's name, matched case-insensitively and trimmed (at most 100 characters with the
    spaces); output is the name as seated."""

    json_schema: dict[str, Any] = {"type": "string", "minLength": 1, "maxLength": PLAYER_NAME_LENGTH,
                                   "pattern": r"\S"}

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        if len(text) > PLAYER_NAME_LENGTH:
            raise ValidationError(f"A player name has at most {PLAYER_NAME_LENGTH} characters.")
        schema = self.parent
        while schema is not None and not isinstance(schema, ActionSchema):
            schema = getattr(schema, "parent", None)
        seats: Sequence[str] = schema.players if isinstance(schema, ActionSchema) else ()
        wanted = text.strip()
        for name in seats:  # a name stored before the text rules matches as stored
            if name.casefold() == wanted.casefold():
                return name
        key = name_key(wanted)
        for name in seats:
            if name_key(name) == key:
                return name
        raise ValidationError(f"{text!r} is not a player in this game ({', '.join(seats)}).")


class NamesAcceptedFields(UnicodeSchema):
    """A strict schema whose "Unknown field" message names the fields it does take.

    marshmallow says only ``Unknown field.``; a scorekeeper who sent ``card`` to a Stop the
    Bus ``swap`` needs to hear that a swap takes ``player``, ``take`` and ``give``
    (issue 10). Every action schema (and the undo/redo body) gets this one rewrite from
    :meth:`handle_error`; :meth:`accepted` says which fields to name and :meth:`what` how to
    call the body (``"a 'swap'"``).
    """

    class Meta:
        unknown = RAISE

    def accepted(self) -> tuple[list[str], list[str]]:
        """``(required, optional)`` field names this body takes, in declaration order, without
        the envelope's ``type``; the envelope's ``at`` comes last."""
        required: list[str] = []
        optional: list[str] = []
        for name, field in self.load_fields.items():
            key = field.data_key or name
            if key not in ENVELOPE:
                (required if field.required else optional).append(key)
        if "at" in self.load_fields:
            optional.append("at")
        return required, optional

    def what(self, data: Any) -> str:
        """How the message names the body: ``"a 'swap'"`` from its ``type``."""
        kind = data.get("type") if isinstance(data, Mapping) else None
        if not isinstance(kind, str) or not kind:
            return "this action"
        article = "an" if kind[:1].lower() in "aeiou" else "a"
        return f"{article} {kind[:40]!r}"

    def unknown_message(self, data: Any) -> str:
        """``Unknown field: a 'swap' takes player and give (required), take, take_all and at (optional).``"""
        required, optional = self.accepted()
        parts = [f"{name_list(names)} ({label})" for names, label in ((required, "required"), (optional, "optional"))
                 if names]
        return f"Unknown field: {self.what(data)} takes {', '.join(parts) or 'no fields'}."

    def handle_error(self, error: ValidationError, data: Any, *, many: bool, **kwargs: Any) -> None:
        """Rewrite marshmallow's bare ``Unknown field.`` (in place, on the error about to be raised)."""
        messages = error.messages
        if not isinstance(messages, dict):
            return
        bare = self.error_messages["unknown"]
        text: str | None = None
        for key, value in messages.items():
            if value == [bare]:
                text = text or self.unknown_message(data)
                messages[key] = [text]


class ActionSchema(NamesAcceptedFields):
    """Base of every action schema: unknown fields are refused, and the refusal names the
    fields the action takes; ``at`` is optional.

    Build it with the game's ``players`` (seat order) and ``visibility``; subclasses list the
    fields that only ``open`` games allow in ``open_only`` (not named as accepted in a
    ``table`` game).
    """

    open_only: tuple[str, ...] = ()

    type = fields.String(required=True)
    at = UtcDateTime()

    def __init__(self, *args: Any, players: Sequence[str] = (), visibility: str = "table", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.players = tuple(players)
        self.visibility = visibility

    def accepted(self) -> tuple[list[str], list[str]]:
        """The fields this table's action takes: ``open_only`` ones only in an open game."""
        required, optional = super().accepted()
        if self.visibility == "open":
            return required, optional
        return ([n for n in required if n not in self.open_only], [n for n in optional if n not in self.open_only])

    @validates_schema
    def _visibility(self, data: Mapping[str, Any], **kwargs: Any) -> None:
        if self.visibility == "open":
            return
        errors = {
            name: [f"'{name}' names cards only an open game may record; this game has table visibility."]
            for name in self.open_only
            if data.get(name) is not None
        }
        if errors:
            raise ValidationError(errors)


class NoteSchema(ActionSchema):
    """``note``: ``text`` (1–2000 characters), optional ``player`` (recording.md)."""

    text = FreeText(required=True, validate=validate.Length(min=1, max=2000))
    player = PlayerName()


class AdjustSchema(ActionSchema):
    """``adjust``: ``player``, integer ``amount`` in the game's scoring unit, ``reason``."""

    player = PlayerName(required=True)
    amount = fields.Integer(required=True, strict=True, validate=validate.Range(min=-1000, max=1000))
    reason = FreeText(required=True, validate=validate.Length(min=1, max=2000))


class AbandonSchema(ActionSchema):
    """``abandon``: ``reason`` (required, 1–500 characters): the table stops the game
    (recording.md, "Bookkeeping actions"; every game)."""

    reason = FreeText(required=True, validate=validate.Length(min=1, max=500))


class PlayerActionSchema(ActionSchema):
    """An action with just a ``player`` (knock, fold, stay, stop …)."""

    player = PlayerName(required=True)


class ReasonSchema(NamesAcceptedFields):
    """The optional body of ``undo`` and ``redo``: ``{"reason": "…"}``."""

    def what(self, data: Any) -> str:
        return "an undo or redo"

    reason = FreeText(validate=validate.Length(max=2000))
    at = UtcDateTime()


class CorrectSchema(NamesAcceptedFields):
    """The body of ``POST /games/<id>/correct`` (api.md): ``target`` (the seq the entry was
    first recorded with), ``action`` (one game action, an object loaded afterwards by that
    game's action schema, as for ``POST …/events``), optional ``reason`` (1–500 characters)
    and ``at``."""

    def what(self, data: Any) -> str:
        return "a correction"

    target = fields.Integer(required=True, strict=True,  # a seq outside the log is the rules' nothing_to_correct
                            metadata={"description": "the seq of the entry to correct"})
    action = fields.Dict(required=True, metadata={"description": "the action that should have been recorded "
                                                                 "there: one game action, as for POST …/events"})
    reason = FreeText(validate=validate.Length(min=1, max=500))
    at = UtcDateTime()
