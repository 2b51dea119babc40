"""The whole-text scan of ``tests/test_words_for_card_players.py`` over the recorded club
evening of ``tests/browser/recorded.py`` (all four games, a correction, a proven revoke,
finished games) through a real ``kibitz serve``: every page reachable from each game page,
public and with the token, and the API's sentences (timeline, hands, tricks, irregularities)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urljoin, urlsplit

import requests

from tests.browser import recorded
from tests.page_text import PageText
from tests.test_words_for_card_players import PHRASES, SENTENCES, _problems, _strings


def _lines(url: str, token: str | None) -> tuple[list[str], list[str]]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = requests.get(url, headers=headers, timeout=20)
    assert response.status_code == 200, (url, response.status_code)
    parsed = PageText()
    parsed.feed(response.text)
    return parsed.text(), parsed.links


def test_the_recorded_club_evening_is_written_for_card_players(server: Any) -> None:
    games = recorded.club_evening(server.base)
    problems: list[str] = []
    for name, game in games.items():
        # what people typed (notes, reasons) is theirs, not the service's words
        typed = [str(e["data"].get(k)) for e in game.read("/events?limit=1000")["events"]
                 for k in ("text", "reason") if e["data"].get(k)]

        def check(where: str, text: str, sentence: bool, typed: list[str] = typed) -> list[str]:
            stripped = text
            for words in typed:
                stripped = stripped.replace(words, "")
            ending = [] if not sentence or text.rstrip()[-1:] in (".", "!", "?") else [f"{where}: no full stop: {text!r}"]
            return _problems(where, stripped, False) + ending

        for token in (None, game.token):
            start = f"/watch/{game.id}"
            todo, seen = [start, "/", "/club", "/people", f"{start}/replay"], set()
            while todo:
                path = todo.pop()
                if path in seen:
                    continue
                seen.add(path)
                lines, links = _lines(server.base + path, token)
                problems += [p for line in lines for p in check(f"{name} page {path}", line, False)]
                for href in links:
                    target = urlsplit(urljoin(server.base + path, href))
                    if target.path.startswith(f"{start}/hands/") or target.path.startswith("/people/"):
                        todo.append(target.path)
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            for path in ("/timeline", "/irregularities", *(f"/hands/{n}" for n in range(1, 4))):
                answer = requests.get(f"{server.base}/games/{game.id}{path}", headers=headers, timeout=20)
                if answer.status_code != 200:
                    continue
                for key, text in _strings(answer.json()):
                    if key in SENTENCES | PHRASES:
                        problems += check(f"{name} {path}.{key}", text, key in SENTENCES)
    assert problems == [], "\n".join(problems[:40])
