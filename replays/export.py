"""Exports of one folded game: the ``json`` document (what import takes), ``jsonl``, ``csv``
and the ``text`` record (docs/export.md).

Built on the engine alone, never branching on the game: the document is the stored log
(each event as the event log shows it to this reader), the CSV is the engine's
``score_sheet``, and the text is laid out from the engine's ``hand_view`` and
``trick_view`` by their field names. A reader without the token (``full`` False) gets
what the public view shows: deal hands and other hidden cards stay out while their hand is
in play.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from engine import stream as streams
from engine.core import SheetColumns
from engine.interface import GameRules
from replays.replay import Folded, event_log
from replays.timeline import one_line, timeline

#: ``kibitz_export`` of the documents written here (docs/export.schema.json).
FORMAT_VERSION = 1
FORMATS = ("json", "jsonl", "csv", "text")
MEDIA_TYPES = {
    "json": "application/json",
    "jsonl": "application/x-ndjson",
    "csv": "text/csv; charset=utf-8",
    "text": "text/plain; charset=utf-8",
}
EXTENSIONS = {"json": "json", "jsonl": "jsonl", "csv": "csv", "text": "txt"}

#: The game fields of a document (``game``), in order.
GAME_FIELDS = ("id", "game", "title", "players", "visibility", "options", "rules_version", "created_at",
               "imported_at", "status", "version")


def document(game: Mapping[str, Any], folded: Folded, events: Sequence[Mapping[str, Any]],
             full: bool) -> dict[str, Any]:
    """The ``json`` export: ``{"kibitz_export", "view", "game", "events", "results"}``.

    ``game`` is the stored game row (``id``, ``title``, ``created_at``, ``imported_at`` …);
    ``events`` the whole stored log. The events are shown as ``GET events`` shows them to
    this reader; ``results`` is the engine's ``results`` (derived, ignored by import).
    """
    rules = folded.stream.rules
    created = events[0]["data"] if events else {}
    header = {
        "id": game["id"],
        "game": rules.GAME,
        "title": game.get("title"),
        "players": list(game["players"]),
        "visibility": game["visibility"],
        "options": game["options"],
        "rules_version": created.get("rules_version", rules.RULES_VERSION),
        "created_at": game["created_at"],
        "imported_at": game.get("imported_at"),
        "status": streams.status(folded.stream),
        "version": folded.version,
    }
    return {
        "kibitz_export": FORMAT_VERSION,
        "view": "full" if full else "public",
        "game": header,
        "events": event_log(folded, events, full),
        "results": streams.results(folded.stream),
    }


def jsonl(folded: Folded, events: Sequence[Mapping[str, Any]], full: bool) -> str:
    """The ``jsonl`` export: one stored event per line, as the event log shows it."""
    return "".join(json.dumps(event, ensure_ascii=False, separators=(",", ":")) + "\n"
                   for event in event_log(folded, events, full))


#: What a spreadsheet reads as the start of a formula (OWASP, "CSV Injection"), and a line feed.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")


def spreadsheet_safe(value: Any) -> Any:
    """A CSV cell that no spreadsheet runs as a formula: in a text cell every carriage return
    (alone or before a line feed) becomes a line feed, so the writer quotes the cell and no
    reader starts a new row inside it; a text cell starting with ``=``, ``+``, ``-``, ``@``, a
    tab, a carriage return or a line feed gets a single quote in front (OWASP); numbers and
    other text stay as they are (docs/export.md)."""
    if not isinstance(value, str):
        return value
    value = value.replace("\r\n", "\n").replace("\r", "\n")
    return "'" + value if value.startswith(FORMULA_STARTS) else value


def csv_table(header: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> str:
    """CSV text: the ``header`` line, then each row's values in header order (missing ones
    empty), every cell made :func:`spreadsheet_safe`. The one CSV writer of both CSV routes."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([spreadsheet_safe(name) for name in header])
    writer.writerows([spreadsheet_safe(row.get(name, "")) for name in header] for row in rows)
    return out.getvalue()


def csv_text(folded: Folded) -> str:
    """The ``csv`` export: the engine's ``score_sheet``, a header line (the game's
    ``SHEET.header``, also before the first deal) and one row per hand or round (per turn
    in Fuji Flush). Hidden cards never appear in it."""
    rules, state = folded.stream.rules, folded.stream.state
    return csv_table(rules.SHEET.header(state.names), rules.score_sheet(state))


# --------------------------------------------------------------------------- text


#: A game's ``card_text``: a card for people (``TH`` → ``10♥``; ``G12``, ``1``, ``14`` as they are).
CardText = Callable[[Any], str]


def _cards(card: CardText, cards: Iterable[Any]) -> str:
    return " ".join(card(each) for each in cards)


def _tag(name: str, value: Any) -> str:
    return f'[{name} "{str(value).replace(chr(34), chr(39))}"]'


def _option(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def text(game: Mapping[str, Any], folded: Folded, events: Sequence[Mapping[str, Any]], full: bool,
         options_words: str | None = None) -> str:
    """The ``text`` export: a header of tags, then each hand (round) with its deal, every
    numbered trick or turn and the other actions in recorded order, and its result (a hand
    still in play has no ``Result`` line).

    ``options_words`` is the ``Options`` tag in people's words ("Lives to lose: 10 · …", the
    new-game form's labels, which the service layer holds); without it, ``name=value``.

    The notation is documented in docs/export.md. Cards in hands are shown only where the
    engine's ``hand_view`` shows them to this reader.
    """
    rules, state = folded.stream.rules, folded.stream.state
    created = events[0]["data"] if events else {}
    view = streams.view(folded.stream, full)
    status = streams.status(folded.stream)
    lines = [
        _tag("Game", rules.GAME),
        _tag("Title", game.get("title") or ""),
        _tag("Date", game["created_at"]),
        _tag("Players", ", ".join(game["players"])),
        _tag("Visibility", game["visibility"]),
    ]
    if created.get(rules.STARTER):
        lines.append(_tag("FirstPlayer" if rules.STARTER == "first_player" else "Dealer", created[rules.STARTER]))
    options = options_words if options_words is not None else " ".join(
        f"{key}={_option(value)}" for key, value in sorted(game["options"].items()))
    lines += [
        _tag("Options", options),
        _tag("RulesVersion", created.get("rules_version", rules.RULES_VERSION)),
        _tag("Status", status),
    ]
    abandon = folded.stream.done.head if status == streams.ABANDONED else None
    if abandon is not None:
        lines.append(_tag("Abandoned", abandon.action.get("reason", "")))
    if view.get("winners") is not None and status == "finished":
        lines.append(_tag("Winners", ", ".join(view["winners"])))
    if view.get("losers"):
        lines.append(_tag("Losers", ", ".join(view["losers"])))
    lines += [_tag("Events", folded.version), _tag("View", "full" if full else "public"), ""]
    sheet = rules.score_sheet(state)
    shown = {event["seq"]: event for event in event_log(folded, events, full)}
    for number in range(1, rules.hand_number(state) + 1):
        hand = rules.hand_view(state, number, full)
        if hand is None:
            continue
        lines += _hand_lines(rules, state, hand, number, full, shown, game["visibility"])
        over = rules.hand_over(state, number)  # a hand still in play has no result yet
        row = sheet[number - 1] if len(sheet) >= number and not rules.SHEET.per_turn and over else None
        if row is not None:
            lines.append("  Result: " + _result(rules.SHEET, row, game["players"]))
        result = hand.get("result")
        if isinstance(result, Mapping) and result.get("reason"):  # a hand cut short says so: "Not finished: …"
            lines.append(f"  {'Not finished' if result.get('abandoned') else 'Reason'}: {result['reason']}")
        lines.append("")
    notes = [event for event in events if event["type"] in NOTES]
    if notes:
        lines.append("Notes and corrections")
        steps = {step["seq"]: step for step in timeline(rules, events, full)}
        lines += [f"  {_note(steps[event['seq']])} · step {event['seq']} of the replay" for event in notes]
        lines.append("")
    return "\n".join(one_line(line) for line in lines).rstrip("\n") + "\n"


#: The events listed under "Notes and corrections", after the hands.
NOTES = (streams.NOTE, streams.UNDO, streams.REDO, streams.ABANDON, streams.CORRECT)


def _note(step: Mapping[str, Any]) -> str:
    """A line of "Notes and corrections" as card players say it, from the timeline's ``step``
    (its summary, redacted as this reader's timeline is): "Undone: Bob played K♠ (hand 2, trick
    1)", "Corrected in hand 2, trick 1: Ann played A♥, not A♠", "Note by Ann: … (hand 2)", "The
    game was abandoned: …"; the event's number only after it, as small print: "step 7 of the replay" (issue 25)."""
    said = str(step["summary"]).rstrip(".")
    place = step.get("place") or ""
    if place and step["type"] != streams.CORRECT:  # a correction's summary names its place already
        said += f" ({place})"
    return said


def _result(sheet: SheetColumns, row: Mapping[str, Any], players: Sequence[str]) -> str:
    """``(lives lost) Ann +0 = 0, Bob +2 = 2`` from a score sheet row: each player's change
    and total columns as the game's ``SHEET`` (``engine.core.SheetColumns``) names them."""
    parts = []
    for name in players:
        change, total = sheet.of(name)
        parts.append(f"{name} {row[change]:+d} = {row[total]}")
    return f"({sheet.unit}) " + ", ".join(parts)


#: Lists of a ``hand_view`` whose items are actions placed in recorded order, with the
#: word the text uses for each.
ACTIONS = {"knocks": "Knock", "folds": "Fold", "laundries": "Laundry", "reveals": "Reveal", "shows": "Show",
           "draws": "Draw", "adjustments": "Ruling"}


def _hand_lines(rules: GameRules, state: Any, hand: Mapping[str, Any], number: int, full: bool,
                shown: Mapping[int, Mapping[str, Any]], visibility: str) -> list[str]:
    """The lines of one hand: its title, deal, centre, then the game's tricks or turns
    (its ``PLAY_UNIT``) and the other actions in recorded order, cards in its ``card_text``."""
    card = rules.card_text
    title = f"{rules.HAND_WORD.capitalize()} {number}"
    if hand.get(rules.STARTER):
        title += f" · {rules.STARTER.replace('_', ' ')} {hand[rules.STARTER]}"
    lines = [title]
    deal = shown.get(hand.get("deal_seq") or 0)
    if deal is not None:
        dealt = deal["data"].get("hands")
        if isinstance(dealt, Mapping) and dealt:
            cards = "; ".join(f"{name} {_cards(card, held)}" for name, held in dealt.items())
        else:
            hidden = f"cards hidden until the {rules.HAND_WORD} is over"
            cards = hidden if visibility == "open" else "cards not recorded"
        lines.append(f"  Deal: {cards}")
    if hand.get("centre_dealt"):
        lines.append("  Centre: " + _cards(card, hand["centre_dealt"]))
    items: list[tuple[int, str]] = []
    for key, word in ACTIONS.items():
        for item in hand.get(key) or []:
            if isinstance(item, Mapping) and item.get("seq") is not None:
                items.append((item["seq"], f"  {word}: {_item(card, item)}".rstrip()))
    if rules.PLAY_UNIT == "trick":
        for trick in hand["tricks"]:
            view = rules.trick_view(state, number, trick["number"], full) or trick
            plays = view.get("plays") or []
            seq = plays[0]["seq"] if plays else 0
            line = f"  {trick['number']}. " + ", ".join(f"{p['player']} {card(p['card'])}" for p in plays)
            if view.get("winner"):
                line += f" → {view['winner']}"
            if "fools" in rules.COUNTERS and view["fools"]:
                line += f"; Fool {', '.join(view['fools'])}"
            if view.get("sitting_out"):
                line += f" (sitting out: {', '.join(view['sitting_out'])})"
            items.append((seq, line))
    else:
        for index, turn in enumerate(hand["turns"], start=1):
            items.append((turn["seq"], f"  {turn.get('number', index)}. {_turn(card, turn)}"))
    items.sort(key=lambda item: item[0])
    lines += [line for _seq, line in items]
    return lines


def _item(card: CardText, item: Mapping[str, Any]) -> str:
    parts = [str(item.get("player", ""))]
    if item.get("cards"):
        parts.append(_cards(card, item["cards"]))
    if item.get("card") is not None:
        parts.append(card(item["card"]))
    if item.get("shown"):
        parts.append("showed " + _cards(card, item["shown"]))
    if item.get("challenger"):
        parts.append(f"challenged by {item['challenger']}")
    if item.get("stake") is not None:
        parts.append(f"(stake {item['stake']})")
    if item.get("lost"):
        parts.append(f"(loses {item['lost']})")
    if item.get("amount") is not None:
        parts.append(f"{item['amount']:+d}: {item.get('reason', '')}")
    rank = item.get("rank")
    if isinstance(rank, Mapping) and rank.get("words"):
        parts.append(f"({rank['words']})")
    return " ".join(part for part in parts if part)


def _turn(card: CardText, turn: Mapping[str, Any]) -> str:
    if turn.get("explanation"):
        return str(turn["explanation"])
    player = turn.get("player", "")
    if turn.get("card") is not None:
        return f"{player} {card(turn['card'])}"
    kind = turn.get("type", "turn")
    take, give = turn.get("take"), turn.get("give")
    if isinstance(take, list):
        take, give = _cards(card, take), _cards(card, give or [])
    elif take is not None:
        take, give = card(take), card(give)
    final = " (final turn)" if turn.get("final") else ""
    if take is not None:
        return f"{player} takes {take}, gives {give}{final}"
    return f"{player} {'stops the bus' if kind == 'stop' else kind}{final}"
