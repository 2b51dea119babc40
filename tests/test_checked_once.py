"""What checking histories and lists against the logs costs while nothing changes, on SQLite
and PostgreSQL (docs/tamper-evidence.md, "What is derived from a game, beyond its own
routes": "Once per change, not on every request", and the lists' fold cache).

- A history compared at one ``results_seal`` sum and guard is answered again without reading
  the ``player_results`` rows it counts (``store.results_in_scope``) until a game's results
  are written again; then it reads and compares them once more.
- A list of games folds each game it checks once per record version: a game in progress is
  kept in the fold cache, a finished one is not (a long list does not push out the games
  being played), and the next list folds neither again.

The storage functions are counted, not replaced: each call goes through to the real database.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from service.record.cache import FoldCache
from service.storage import backend
from service.web.app import create_app
from tests.conftest import create


@pytest.fixture
def counted(monkeypatch) -> Counter[str]:
    """How often ``store.results_in_scope`` ran, and ``store.events`` per game id."""
    calls: Counter[str] = Counter()
    in_scope, events = backend.results_in_scope, backend.events

    def results_in_scope(*args: Any, **kwargs: Any) -> Any:
        calls["results_in_scope"] += 1
        return in_scope(*args, **kwargs)

    def read_events(db: Any, game_id: str, *args: Any, **kwargs: Any) -> Any:
        calls[game_id] += 1
        return events(db, game_id, *args, **kwargs)

    monkeypatch.setattr(backend, "results_in_scope", results_in_scope)
    monkeypatch.setattr(backend, "events", read_events)
    return calls


def _finished(client: Any, players: list[str]) -> str:
    game = create(client, players=players, options={"limit": 2})
    assert game.post({"type": "adjust", "player": players[1], "amount": 2, "reason": "ruling"}).status_code == 201
    assert client.get(f"/games/{game.id}").get_json()["status"] == "finished"
    return game.id


def test_a_history_reads_its_rows_again_only_after_results_change(client, counted):
    _finished(client, ["Ann", "Eve", "Fay"])

    def reads(route: str, times: int = 1) -> int:
        before = counted["results_in_scope"]
        for _ in range(times):
            assert client.get(route).status_code == 200
        return counted["results_in_scope"] - before

    assert reads("/players/Ann") == 1  # its rows compared with the logs
    assert reads("/players/Ann", 3) == 0  # nothing changed: one small query, no row read
    assert reads("/club") == 1  # every row compared
    assert reads("/club", 3) + reads("/players", 3) + reads("/players/Eve", 3) + reads("/people", 3) == 0
    _finished(client, ["Ann", "Gus", "Hal"])  # a game's results written: every history checks again, once
    assert reads("/players/Ann", 3) == 1
    assert reads("/club", 3) == 1
    assert reads("/players", 3) + reads("/players/Gus", 3) == 0


def test_a_list_folds_each_game_once_and_keeps_only_the_games_in_progress(database, counted):
    writer = create_app({"TESTING": True, "DATABASE": database}).test_client()
    finished = _finished(writer, ["Ann", "Eve", "Fay"])
    playing = create(writer, players=["Ann", "Bob", "Cas"]).id
    app = create_app({"TESTING": True, "DATABASE": database})  # a server just started: nothing cached
    client, cache = app.test_client(), app.extensions["kibitz_cache"]
    assert isinstance(cache, FoldCache)
    assert cache.fixed(finished) is None and cache.fixed(playing) is None
    counted.clear()
    listed = client.get("/games?limit=500")
    assert listed.status_code == 200 and {finished, playing} <= {g["id"] for g in listed.get_json()["games"]}
    assert counted[finished] == 1 and counted[playing] == 1, counted  # each folded (and its chain checked) once
    assert cache.fixed(playing) is not None, "the game in progress was not kept in the fold cache"
    assert cache.fixed(finished) is None, "the finished game was kept in the fold cache"
    for _ in range(3):
        assert client.get("/games?limit=500").status_code == 200
        assert client.get("/games").status_code == 200
    assert counted[finished] == 1 and counted[playing] == 1, counted  # not folded again: same record versions
