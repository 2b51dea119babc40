"""A hand (round) still in play when the game ends is kept, "not finished", in card players'
words (issue 25): "the game ended when Ann had lost 3 lives", never
"abandoned: Ann reached 3 lives lost" (the game was not abandoned: the game's end cut the hand
short). Over real HTTP: the hand's ``result`` (``GET /games/<id>/hands/<n>``: ``reason`` "the
game ended when Ann had lost 3 lives", ``abandoned`` true), the text export's ``Not finished:``
line and the hand audit page.

The clause is the engine's (``Result.reason``); where it is shown, the machine's mark
``abandoned: true`` is read as "not finished". No write answers it (a write's ``state`` holds no
hand's reason), so the answers stored for ``Idempotency-Key`` retries are the same before and
after the change of words: :func:`test_what_the_writes_answered_is_unchanged` pins the digest of
every answer of these games as they were before it (docs/decisions.md, "A hand cut short by the
game's end").
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
import requests

from replays import replay
from schemas.games import CreateGameSchema
from service.parsing import created_data
from service.record import writes
from tests.test_disputes_over_real_http import Table
from tests.test_server import server  # noqa: F401 - the module-scoped real server fixture

FIRST_TO_LIMIT = {"game": "toepen", "players": ["Ann", "Bob", "Cas"], "options": {"limit": 3}}
ELIMINATION = {"game": "toepen", "players": ["Ann", "Bob", "Cas"],
               "options": {"limit": 3, "game_end": "elimination"}}
#: Each game: its new-game body, its moves after the deal, and the reason its hand 1 ends with.
GAMES = {
    "first_to_limit": (FIRST_TO_LIMIT, [{"type": "play", "player": "Bob", "card": "7H"},
                                        {"type": "adjust", "player": "Ann", "amount": 3, "reason": "left early"}],
                       "the game ended when Ann had lost 3 lives"),
    "elimination": (ELIMINATION, [{"type": "adjust", "player": "Bob", "amount": 3, "reason": "left early"},
                                  {"type": "adjust", "player": "Cas", "amount": 3, "reason": "left too"}],
                    "the game ended when everyone but Ann was out"),
}


@pytest.mark.parametrize("kind", list(GAMES))
def test_a_hand_cut_short_by_the_games_end_says_so_in_words(server, kind):  # noqa: F811
    body, moves, reason = GAMES[kind]
    game = Table(server, body)
    game.post({"type": "deal"})
    for move in moves:
        game.post(move)
    assert game.get()["status"] == "finished"
    result = game.get("/hands/1")["result"]
    assert result["abandoned"] is True  # the machine's mark stays
    assert result["reason"] == reason
    assert game.get("/hands/1", token=False)["result"]["reason"] == reason

    text = requests.get(f"{server}/games/{game.id}/export?format=text", timeout=30,
                        headers={"Authorization": f"Bearer {game.token}"}).text
    assert f"  Not finished: {reason}\n" in text
    page = requests.get(f"{server}/watch/{game.id}/hands/1", timeout=30).text
    assert "<p>Not finished: the game ended when " in page
    for said in (text, page, json.dumps(result)):
        assert "abandoned:" not in said and "reached" not in said, said


def _answers(body: dict[str, Any], moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
    created = created_data(CreateGameSchema().load(body))
    actions = [{"type": "game_created", **created}, {"type": "deal"}, *moves]
    stored = [{"seq": seq, "type": action["type"], "data": {k: v for k, v in action.items() if k != "type"},
               "recorded_at": "2026-12-05T19:42:00.000000Z", "at": None, "salt": f"{seq:032x}", "hash": f"{seq:064x}"}
              for seq, action in enumerate(actions, start=1)]
    rules = __import__("engine").GAMES[body["game"]]
    before = replay.fold(rules, stored[:1])
    out = []
    for event in stored[1:]:
        after = replay.extend(before, int(event["seq"]), replay.action(event))
        out.append(writes.answer_of(before, after, event))
        before = after
    return out


#: The digest of every answer of each game above, taken before the words changed.
PINNED = {"first_to_limit": "1fb7cfa59b6c7f9d", "elimination": "0458e6c0715966e7"}


@pytest.mark.parametrize("kind", list(GAMES))
def test_what_the_writes_answered_is_unchanged(kind):
    body, moves, _reason = GAMES[kind]
    text = json.dumps(_answers(body, moves), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    assert "not finished" not in text and "abandoned:" not in text  # no answer holds the hand's reason
    assert hashlib.sha256(text.encode("utf-8")).hexdigest()[:16] == PINNED[kind]
