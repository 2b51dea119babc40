"""Screenshots of every page at both of ui.md's sizes, from a real ``kibitz serve`` and Chromium.

    python -m tests.browser.screenshots [--out docs/screenshots] [--only game,replay]

Starts a server on a temporary database, records a club evening through the API
(``tests/browser/recorded.py``), opens each page as a person would (the scorekeeper's pages
with the token on the device) and writes ``<out>/<page>-1024x768.png`` and
``<out>/<page>-390x844.png`` (whole pages). docs/pages.md shows them all, the README a few.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, PHONE, TABLET, KibitzServer
from tests.browser.pages_checks import keep_token
from tests.browser.recorded import Recorder, club_evening

ROOT = Path(__file__).resolve().parents[2]
SIZES = {"1024x768": TABLET, "390x844": PHONE}


def pages(games: dict[str, Recorder]) -> dict[str, tuple[str, Recorder | None]]:
    """Page name -> (path, the game whose token the device holds, or None)."""
    toepen, fool, bus, fuji = games["toepen"], games["fool"], games["bus"], games["fuji"]
    return {
        "home": ("/", None),
        "new-game": ("/new", None),
        "table": (f"/table/{toepen.id}", toepen),
        "table-fool": (f"/table/{fool.id}", fool),
        "table-stop-the-bus": (f"/table/{bus.id}", bus),
        "table-fuji-flush": (f"/table/{fuji.id}", fuji),
        "game": (f"/watch/{toepen.id}", None),
        "game-stop-the-bus": (f"/watch/{bus.id}", None),
        "replay": (f"/watch/{fool.id}/replay?step=6", None),
        "audit-hand": (f"/watch/{toepen.id}/hands/1", None),
        "audit-trick": (f"/watch/{fool.id}/hands/1/tricks/1", fool),
        "audit-turn": (f"/watch/{fuji.id}/hands/1/turns/4", fuji),
        "players": ("/people", None),
        "player": ("/people/Ann", None),
        "club": ("/club", None),
    }


def shoot(out: Path, only: set[str] | None = None, log: Callable[[str], Any] = print) -> list[Path]:
    """Record the evening, take every screenshot; returns the files written."""
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tempfile.TemporaryDirectory() as folder:
        server = KibitzServer(Path(folder))
        server.start()
        try:
            games = club_evening(server.base)
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
                for name, (path, holder) in pages(games).items():
                    if only and name not in only:
                        continue
                    for size, viewport in SIZES.items():
                        context = browser.new_context(viewport=viewport)
                        if holder is not None:
                            keep_token(context, holder.id, holder.token)
                        page = context.new_page()
                        page.goto(server.url(path))
                        page.wait_for_load_state("networkidle")
                        page.wait_for_timeout(300)
                        target = out / f"{name}-{size}.png"
                        page.screenshot(path=str(target), full_page=True)
                        written.append(target)
                        log(f"wrote {target.relative_to(ROOT) if target.is_relative_to(ROOT) else target}")
                        context.close()
                browser.close()
        finally:
            server.stop()
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--only", help="comma-separated page names")
    args = parser.parse_args()
    shoot(args.out, set(args.only.split(",")) if args.only else None)


if __name__ == "__main__":
    main()
