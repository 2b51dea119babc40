"""Pages benchmark in a real browser: tap to updated board on the table page, and the table
page's first load in bytes (issue 12: p95 under 100 ms on localhost, under 200 KB).

    python bench/pages_bench.py [--limit 5] [--seed 1] [--lan]

Starts ``kibitz serve`` on a temporary database (4 threads, ``synchronous=FULL``) and headless
Chromium (``/usr/bin/chromium``), creates a table-visibility Toepen game for four, opens its
table page as the scorekeeper and records the whole game by tapping, as at a real table: this
script holds the four players' (seeded, shuffled) hands and taps the card the player to act
puts down (following suit when they can), and **Deal** between hands. For each tap it times,
inside the page, from the click to the moment the page shows the service's answer (the
table's ``data-version`` one higher with nothing pending) and the next frame is drawn, and
counts the page's own main-thread work per tap from Chromium's counters (script, layout, style:
CPU time, which the machine's load stretches far less than the wall-clock times).

First load: a fresh browser context (empty cache) opens the table page; the bytes are the sum
of ``transferSize`` over the navigation and every resource and API read it made (Resource
Timing), headers included. ``--lan`` loads the page under the non-local name ``kibitz.test``
(plain HTTP, not a secure context), as a tablet on a club's Wi-Fi would.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, TABLET, KibitzServer  # noqa: E402
from tests.browser.recorded import TOEPEN_DECK, create  # noqa: E402

PLAYERS = ["Ann", "Bob", "Cas", "Dee"]
SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}

#: Click a button, then resolve with the milliseconds until the table shows the next version
#: (``total``), and the requests the page made meanwhile (``calls``, their summed ``network`` time).
TAP_JS = """([selector, name]) => new Promise((resolve, reject) => {
    const table = document.getElementById('table');
    const before = Number(table.dataset.version);
    const scope = selector ? document.querySelector(selector) : document;
    const button = [...scope.querySelectorAll('button')].find(b => b.textContent.trim() === name && !b.disabled);
    if (!button) { reject(new Error('no enabled button ' + name)); return; }
    const done = () => Number(table.dataset.version) === before + 1 && table.dataset.pending === '0';
    const started = performance.now();
    const observer = new MutationObserver(() => {
        if (!done()) { return; }
        observer.disconnect();
        requestAnimationFrame(() => {
            const ended = performance.now();
            const calls = performance.getEntriesByType('resource').filter(e => e.startTime >= started);
            performance.clearResourceTimings();
            resolve({total: ended - started, calls: calls.length,
                     network: calls.reduce((sum, e) => sum + e.duration, 0)});
        });
    });
    observer.observe(table, {attributes: true, attributeFilter: ['data-version', 'data-pending']});
    setTimeout(() => { observer.disconnect(); reject(new Error('no answer within 10 s')); }, 10000);
    button.click();
})"""

FIRST_LOAD_JS = """() => {
    const entries = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')];
    return entries.map(e => ({name: e.name, bytes: e.transferSize, type: e.initiatorType || 'navigation'}));
}"""


def french(card: str) -> str:
    """The card's button name on the table page (ui.md): ``TH`` → ``10♥``."""
    return ("10" if card[0] == "T" else card[0]) + SUIT_SYMBOLS[card[1]]


def choose(hand: list[str], state: dict[str, Any]) -> str:
    """The card a player puts down: follow the suit led when they can, else any."""
    tricks = state["tricks"]
    open_trick = tricks[-1] if tricks and not tricks[-1]["complete"] else None
    lead = open_trick["lead_suit"] if open_trick and open_trick["plays"] else None
    same = [card for card in hand if lead and card[1] == lead]
    return (same or hand)[0]


READY_JS = """([selector, name]) => {
    const scope = selector ? document.querySelector(selector) : document;
    return scope !== null && [...scope.querySelectorAll('button')].some(b => b.textContent.trim() === name && !b.disabled);
}"""


def tap(page: Any, selector: str, name: str) -> dict[str, float]:
    """Wait (untimed) until the button can be tapped, as a person would, then time the tap."""
    page.wait_for_function(READY_JS, arg=[selector, name], timeout=10_000)
    result: dict[str, float] = page.evaluate(TAP_JS, [selector, name])
    return result


def record_game(page: Any, game: Any, rng: random.Random) -> list[dict[str, float]]:
    """Tap the whole game; per tap ``{"total", "calls", "network"}`` (milliseconds)."""
    times: list[dict[str, float]] = []
    hands: dict[str, list[str]] = {}
    while True:
        state = game.read()["state"]
        if state["status"] != "in_progress":
            return times
        if state["phase"] == "deal":
            deck = TOEPEN_DECK[:]
            rng.shuffle(deck)
            hands = {name: deck[4 * i:4 * i + 4] for i, name in enumerate(PLAYERS)}
            times.append(tap(page, "#actions", "Deal"))
            continue
        player = state["to_act"][0]
        card = choose(hands[player], state)
        hands[player].remove(card)
        times.append(tap(page, "#deck", french(card)))


#: Chromium's own counters of the page's main-thread work (DevTools ``Performance.getMetrics``): CPU
#: time the renderer spent, which the machine's load stretches far less than wall-clock times.
RENDERER_METRICS = ("ScriptDuration", "LayoutDuration", "RecalcStyleDuration", "TaskDuration", "LayoutCount")


def renderer_metrics(cdp: Any) -> dict[str, float]:
    """The renderer's cumulative counters now (seconds, or a count for ``LayoutCount``)."""
    metrics = {m["name"]: float(m["value"]) for m in cdp.send("Performance.getMetrics")["metrics"]}
    return {name: metrics[name] for name in RENDERER_METRICS}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=5, help="Toepen lives (the game's length)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--lan", action="store_true", help="load the pages under kibitz.test (not a secure context)")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        server = KibitzServer(Path(folder))
        server.start()
        base = server.lan_base if args.lan else server.base
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
                game = create(server.base, game="toepen", players=PLAYERS, dealer="Ann",
                              options={"limit": args.limit}, title="Benchmark")

                first = browser.new_context(viewport=TABLET)
                page = first.new_page()
                page.goto(f"{base}/table/{game.id}#token={game.token}")
                page.wait_for_load_state("networkidle")
                loaded = page.evaluate(FIRST_LOAD_JS)
                first.close()

                context = browser.new_context(viewport=TABLET)
                page = context.new_page()
                page.goto(f"{base}/table/{game.id}#token={game.token}")
                page.wait_for_function("() => document.getElementById('table').dataset.version !== undefined")
                page.evaluate("performance.setResourceTimingBufferSize(10000)")
                cdp = context.new_cdp_session(page)
                cdp.send("Performance.enable")
                before = renderer_metrics(cdp)
                taps = record_game(page, game, random.Random(args.seed))
                work = {name: value - before[name] for name, value in renderer_metrics(cdp).items()}
                context.close()
                browser.close()
                version = game.read()["version"]
        finally:
            server.stop()

    total = sum(entry["bytes"] for entry in loaded)
    print(f"machine: {platform.node()} · {os.cpu_count()} cores · {platform.platform()} · Python "
          f"{platform.python_version()} · Chromium {CHROMIUM}")
    print(f"first load of the table page ({'kibitz.test' if args.lan else '127.0.0.1'}): {total:,} bytes "
          f"transferred in {len(loaded)} requests")
    for entry in sorted(loaded, key=lambda e: -e["bytes"]):
        print(f"  {entry['bytes']:>8,}  {entry['type']:<10} {entry['name'].split('#')[0].split('/', 3)[-1]}")
    times = [tap["total"] for tap in taps]
    network = [tap["network"] for tap in taps]
    print(f"tap to updated board over a whole Toepen game (limit {args.limit}, {len(times)} taps, "
          f"{version} events): p50 {statistics.median(times):.1f} ms, p95 {percentile(times, 95):.1f} ms, "
          f"max {max(times):.1f} ms")
    print(f"  of which waiting for the service ({statistics.median([t['calls'] for t in taps]):.0f} requests per "
          f"tap, summed): p50 {statistics.median(network):.1f} ms, p95 {percentile(network, 95):.1f} ms; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    per_tap = {name: value / len(taps) for name, value in work.items()}
    print(f"  the page's main-thread work per tap (Chromium's counters): script {per_tap['ScriptDuration'] * 1000:.2f} ms, "
          f"layout {per_tap['LayoutDuration'] * 1000:.2f} ms ({per_tap['LayoutCount']:.1f} layouts), "
          f"style {per_tap['RecalcStyleDuration'] * 1000:.2f} ms, all tasks {per_tap['TaskDuration'] * 1000:.2f} ms")


if __name__ == "__main__":
    main()
