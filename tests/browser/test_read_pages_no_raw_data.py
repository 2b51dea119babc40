"""No read-only page shows raw Python data (a dict or list printed as ``{'player': 'Bob'}`` or
``[{...}]``): every page reachable from the game page of a recorded game of each of the four
games, public and with the token, over real HTTP from ``kibitz serve``; and the trick audit says
who folded during (or before) the trick, with the event."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urljoin, urlsplit

import pytest
import requests

from tests.browser import recorded
from tests.page_text import PageText

#: What a printed dict or list looks like in a page's text.
RAW = ("{'", "[{", "': ", "['")


def _read(url: str, token: str | None) -> PageText:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = requests.get(url, headers=headers, timeout=20)
    assert response.status_code == 200, (url, response.status_code)
    parsed = PageText()
    parsed.feed(response.text)
    return parsed


def _crawl(base: str, game: recorded.Recorder, token: str | None) -> dict[str, str]:
    """Every page under ``/watch/<id>`` linked from the game page (replay steps, hand, trick
    and turn audits, what-if pages) and the players' pages: ``{path: visible text}``."""
    start = f"/watch/{game.id}"
    seen: dict[str, str] = {}
    todo = [start, f"{start}/replay/timeline", *(f"{start}/replay?step={n}" for n in range(1, game.read()["version"] + 1))]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        page = _read(base + path, token)
        seen[path] = page.whole
        for href in page.links:
            target = urlsplit(urljoin(base + path, href))
            local = target.path + (f"?{target.query}" if target.query else "")
            if target.path.startswith(start) or target.path.startswith("/people/") or target.path == "/club":
                todo.append(local)
    return seen


@pytest.mark.parametrize("make", [recorded.toepen_table_game, recorded.fool_game, recorded.bus_game,
                                  recorded.fuji_game])
def test_no_page_of_a_recorded_game_prints_raw_data(server: Any, make: Any) -> None:
    game = make(server.base)
    for token in (None, game.token):
        pages = _crawl(server.base, game, token)
        assert any("/hands/1" in path for path in pages) and len(pages) > 10
        raw = {path: [m for m in RAW if m in text] for path, text in pages.items() if any(m in text for m in RAW)}
        assert raw == {}, raw


def test_trick_audit_says_who_folded_during_the_trick_and_when(server: Any) -> None:
    game = recorded.toepen_table_game(server.base)  # Bob folds in trick 2, after its lead
    events = game.read("/events?limit=100")["events"]
    fold = next(e for e in events if e["type"] == "fold")
    text = _read(f"{server.base}/watch/{game.id}/hands/1/tricks/2", None).whole
    text = re.sub(r"\s+", " ", text)
    assert "Bob folded during this trick (in the replay)." in text  # a link to the moment, no event number
    assert f"event {fold['seq']}" not in text
    assert "Folded before this trick" not in text
