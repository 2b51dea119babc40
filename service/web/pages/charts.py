"""Charts for the player page, drawn on the server as SVG by pygal (no script, no CDN).

Each function takes data the pages already read through the API's functions (a score sheet,
a player's games from ``service.storage.history``) and returns an SVG string to inline, with
``role="img"`` and a name for screen readers; the pages show the same numbers in a table.
"""

from __future__ import annotations

import html
import re
import sys
from collections import Counter
from typing import Any

import pygal
from pygal.style import Style

# pygal appends a legacy ``sys.meta_path`` finder for its map plugins (unused here) that makes
# every import no other finder resolves warn (ImportWarning: find_spec() not found); take it out.
sys.meta_path[:] = [finder for finder in sys.meta_path if type(finder).__module__ != "pygal"]

#: Distinct, print-safe colours (Okabe–Ito), readable on white.
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442", "#999999",
           "#882255")
STYLE = Style(
    background="#ffffff", plot_background="#ffffff", foreground="#111111", foreground_strong="#111111",
    foreground_subtle="#666666", opacity="1", opacity_hover="1", colors=COLOURS,
    font_family="system-ui, 'DejaVu Sans', sans-serif", label_font_size=19, major_label_font_size=19,
    legend_font_size=20, title_font_size=20, value_font_size=18, tooltip_font_size=18,
)


def _config(**extra: Any) -> dict[str, Any]:
    return {"style": STYLE, "js": [], "disable_xml_declaration": True, "width": 560, "height": 400,
            "show_legend": True, "legend_at_bottom": True, "legend_at_bottom_columns": 3, "legend_box_size": 16,
            "margin": 10, "print_values": False, "show_minor_x_labels": True, "show_y_guides": True,
            "stroke_style": {"width": 3}, **extra}


def _integer_labels(values: list[float | None]) -> list[int] | None:
    """Whole-number y labels for data of whole numbers (lives, points, chips, games)."""
    known = [v for v in values if v is not None]
    if not known or any(v != int(v) for v in known):
        return None
    low, high = int(min(known + [0])), int(max(known))
    step = max(1, (high - low) // 8 or 1)
    return list(range(low, high + step, step))


def _named(svg: str, label: str) -> str:
    """The SVG with ``role="img"`` and ``aria-label`` (its inner text is then not read out),
    without pygal's inline configuration script (its tooltips need a script we do not load)."""
    svg = re.sub(r"<script\b.*?</script>", "", svg, flags=re.S)
    return svg.replace("<svg ", f'<svg role="img" aria-label="{html.escape(label)}" focusable="false" ', 1)


#: How the lines of a score chart differ besides colour, so that lines with the same totals stay
#: visible: the player's own line is drawn first, widest and solid; each later one is narrower
#: and dashed differently (every one of them: the caption says so), so a line underneath shows
#: along the edges and through the gaps.
LINE_WIDTHS = (8.0, 5.5, 4.0, 2.5, 2.0)
DOT_SIZES = (7.0, 5.5, 4.0, 3.0, 2.5)
DASHES = ("", "16,5", "12,6", "4,5", "14,5,3,5", "2,4", "8,3", "1,3", "10,4,1,4", "5,5")
#: Legend entries per row under a chart.
LEGEND_COLUMNS = 3
#: Height of one legend row (pygal: 1.5 × the larger of the legend's font and box sizes).
LEGEND_ROW = 1.5 * max(STYLE.legend_font_size, 16)


def _legend_room(entries: int) -> dict[str, Any]:
    """Chart options that make room for every legend row: pygal reserves ``entries // columns``
    rows (floor), so a last, partly filled row falls outside the SVG; each row past two also
    makes the chart taller, so the plot keeps its height."""
    rows = -(-entries // LEGEND_COLUMNS)
    missing = rows - entries // LEGEND_COLUMNS
    return {"legend_at_bottom_columns": LEGEND_COLUMNS, "margin_bottom": 10 + round(missing * LEGEND_ROW),
            "height": 400 + round(max(0, rows - 2) * LEGEND_ROW)}


def coinciding_lines(sheet: dict[str, Any]) -> list[list[str]]:
    """Groups (two or more, in seat order) of players whose totals are the same after every row
    of ``sheet`` (as for :func:`scores_over_game`), so their lines lie on top of each other."""
    groups: dict[tuple[Any, ...], list[str]] = {}
    for entry in sheet["players"]:
        groups.setdefault(tuple(row.get(entry["total"]) for row in sheet["rows"]), []).append(entry["name"])
    return [names for names in groups.values() if len(names) > 1] if sheet["rows"] else []


def scores_over_game(sheet: dict[str, Any], player: str, game_name: str) -> str | None:
    """A line per player of their running total over the hands (rounds, turns) of one game.

    ``sheet`` is ``pages.review.score_columns`` of the engine's ``score_sheet`` (``rows``,
    ``players`` with their ``total`` column, ``unit``, ``label``). None for a sheet with no rows.
    Every player is in the legend; ``player``'s line is the thick one, drawn first (the legend
    lists them first); each player keeps the colour of their seat; later lines are narrower and
    dashed, so equal lines stay visible.
    """
    rows = sheet["rows"]
    if not rows:
        return None
    entries = sheet["players"]
    order = sorted(range(len(entries)), key=lambda i: (entries[i]["name"].casefold() != player.casefold(), i))
    style = Style(**{**STYLE.__dict__, "colors": tuple(COLOURS[i % len(COLOURS)] for i in order)})
    chart = pygal.Line(**_config(x_title=sheet["label"], y_title=f"total {sheet['unit']}", style=style,
                                 show_dots=len(rows) <= 40, x_labels_major_every=max(1, len(rows) // 12),
                                 show_minor_x_labels=len(rows) <= 12, **_legend_room(len(entries))))
    chart.x_labels = [str(row[sheet["key"]]) for row in rows]
    chart.y_labels = _integer_labels([row.get(entry["total"]) for row in rows for entry in entries])
    own = entries[order[0]]["name"].casefold() == player.casefold()
    for rank, i in enumerate(order):
        step = rank if own else rank + 1
        line = {"width": LINE_WIDTHS[min(step, len(LINE_WIDTHS) - 1)], "linecap": "butt"}
        if step:  # every line but the player's own is dashed, however many seats
            line["dasharray"] = DASHES[1 + (step - 1) % (len(DASHES) - 1)]
        # the name between FSI and PDI: isolated in the legend's SVG text (api.md, "Text people type")
        chart.add(f"\u2068{entries[i]['name']}\u2069", [row.get(entries[i]["total"]) for row in rows], stroke_style=line,
                  dots_size=DOT_SIZES[min(step, len(DOT_SIZES) - 1)])
    label = (f"Chart: each player's total {sheet['unit']} after every {sheet['label'].lower()} of this "
             f"{game_name} game; the table below gives the numbers.")
    return _named(chart.render(is_unicode=True), label)


def results_by_month(played: list[dict[str, Any]]) -> dict[str, Any]:
    """A player's games per month (oldest first): ``{"rows": [{"month", "won", "lost",
    "other"}], "svg": str | None}``; ``other`` counts games abandoned or still in play.

    ``played`` is ``service.storage.history.games`` (each with ``date`` and ``result``).
    """
    counts: dict[str, Counter[str]] = {}
    for game in played:
        month = str(game["date"])[:7]
        result = game["result"] if game["result"] in ("won", "lost") else "other"
        counts.setdefault(month, Counter())[result] += 1
    rows: list[dict[str, Any]] = [{"month": month, "won": c["won"], "lost": c["lost"], "other": c["other"]}
                                  for month, c in sorted(counts.items())]
    if not rows:
        return {"rows": rows, "svg": None}
    chart = pygal.StackedBar(**_config(y_title="games", x_title="month", style=Style(
        **{**STYLE.__dict__, "colors": ("#009E73", "#D55E00", "#999999")})))
    chart.x_labels = [row["month"] for row in rows]
    chart.y_labels = _integer_labels([float(row["won"] + row["lost"] + row["other"]) for row in rows])
    for field, words in (("won", "won"), ("lost", "lost"), ("other", "other")):
        chart.add(words, [row[field] for row in rows])
    label = "Chart: games won, lost and other per month; the table below gives the numbers."
    return {"rows": rows, "svg": _named(chart.render(is_unicode=True), label)}


def results_over_time(played: list[dict[str, Any]]) -> dict[str, Any]:
    """The share of decided games won so far, game by game (oldest first): ``{"rows":
    [{"date", "game", "result", "won", "decided", "rate"}], "svg": str | None}``."""
    rows, won, decided = [], 0, 0
    for game in sorted(played, key=lambda g: (g["date"], g["id"])):
        if game["result"] not in ("won", "lost"):
            continue
        decided += 1
        won += game["result"] == "won"
        rows.append({"date": str(game["date"])[:10], "game": game["game"], "result": game["result"], "won": won,
                     "decided": decided, "rate": round(100 * won / decided)})
    if not rows:
        return {"rows": rows, "svg": None}
    chart = pygal.Line(**_config(y_title="% of games won so far", x_title="game", range=(0, 100),
                                 show_dots=len(rows) <= 40, x_labels_major_every=max(1, len(rows) // 10),
                                 show_minor_x_labels=len(rows) <= 10, show_legend=False))
    chart.x_labels = [str(n) for n in range(1, len(rows) + 1)]
    chart.add("won so far (%)", [row["rate"] for row in rows], stroke_style={"width": 4})
    label = "Chart: the share of games won so far, after each finished game; the table below gives the numbers."
    return {"rows": rows, "svg": _named(chart.render(is_unicode=True), label)}
