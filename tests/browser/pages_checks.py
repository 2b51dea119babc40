"""In-browser checks shared by the page tests: an axe-core scan, sideways scrolling, tap targets.

axe-core is vendored (``tests/browser/vendor/axe-core``, see ``service/web/static/VENDORED.md``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
#: Tap targets smaller than this (CSS pixels, both ways) fail ui.md's rule.
TAP = 44


def axe_violations(page: Any, impacts: tuple[str, ...] = ("serious", "critical")) -> list[dict[str, Any]]:
    """Run axe-core (WCAG 2 A/AA rules and best practices) on the page; the violations of
    the given impacts, each ``{"id", "impact", "help", "nodes": [html…]}``."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    result = page.evaluate("""async () => {
        const r = await window.axe.run(document, {resultTypes: ['violations']});
        return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                                       nodes: v.nodes.slice(0, 5).map(n => n.html)}));
    }""")
    return [v for v in result if v["impact"] in impacts]


def sideways_overflow(page: Any) -> int:
    """How many CSS pixels the page scrolls sideways (0 when it fits its viewport)."""
    return int(page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth"))


def small_tap_targets(page: Any, within: str = "main") -> list[str]:
    """Visible links, buttons, inputs, selects and summaries inside ``within`` smaller than
    44×44 CSS pixels, described as ``"<tag> 'text' WxH"``."""
    return list(page.evaluate("""([within, tap]) => {
        const out = [];
        for (const el of document.querySelectorAll(within + ' :is(a[href], button, input, select, textarea, summary)')) {
            if (el.type === 'hidden') continue;
            const r = el.getBoundingClientRect();
            const style = getComputedStyle(el);
            if (r.width === 0 || r.height === 0 || style.visibility === 'hidden') continue;
            if (el.closest('.visually-hidden')) continue;
            if (r.width < tap - 0.5 || r.height < tap - 0.5) {
                out.push(el.tagName.toLowerCase() + " '" + (el.textContent || el.value || '').trim().slice(0, 30) +
                         "' " + Math.round(r.width) + 'x' + Math.round(r.height));
            }
        }
        return out;
    }""", [within, TAP]))


def keep_token(context: Any, game_id: str, token: str) -> None:
    """Make ``context`` a device that keeps ``game_id``'s token (``kibitz.token.<id>`` in
    localStorage, as the new-game and table pages store it) on every page it opens."""
    context.add_init_script(
        "try { if (location.protocol.indexOf('http') === 0) { "
        f"window.localStorage.setItem('kibitz.token.{game_id}', '{token}'); }} }} catch (e) {{}}")
