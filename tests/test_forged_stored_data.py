"""Stored data outside the hash chain, forged behind a running ``kibitz serve`` with plain SQL
(issue 27, "Stored data outside the chain"), on SQLite and on PostgreSQL: the loser shown as
the winner in ``player_results``, a forged ``games.title``, ``created_at``, ``options``,
``secret_from_hand``, ``player_keys``, a fork's ``fork_lineage``. None needs a trigger lifted.

Each is named by ``kibitz check`` and by ``kibitz verify`` of its game (exit 3), and is never
served: every route of the game answers 503 ``record_damaged``, and so does whatever is
derived from it (a list of games showing its row, the histories and the club table counting
its results, the game's verify page); the other games answer as usual
(docs/tamper-evidence.md). Each game has players of its own, so each list and history here
shows one game.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from service.storage import backend
from tests.club_server import Served, kibitz, serve
from tests.conftest import OPEN_DEAL
from tests.test_damaged_stored_data_server import _assert_503

#: Each forged field: the players of its game.
SEATS = {"results": ["Rita", "Rex", "Roy"], "title": ["Tina", "Ted", "Tara", "Tobi"],
         "created_at": ["Cara", "Cole", "Cyd", "Cato"], "options": ["Olga", "Otto", "Ozzy", "Ola"],
         "secret_from_hand": ["Sara", "Seth", "Sol", "Sue"], "player_keys": ["Kim", "Kai", "Ken", "Kay"],
         "fork_lineage": ["Pia", "Pat", "Pam", "Pip"]}
SOUND = ["Vic", "Val", "Vin", "Viv"]


def _deal(names: list[str]) -> dict[str, Any]:
    return {**OPEN_DEAL, "dealer": names[0], "hands": dict(zip(names, OPEN_DEAL["hands"].values(), strict=True))}


def _post(served: Served, path: str, body: Any, token: str) -> dict[str, Any]:
    answer = requests.post(f"{served.base}{path}", json=body, headers={"Authorization": f"Bearer {token}"},
                           timeout=30)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def _made(served: Served) -> dict[str, tuple[str, str]]:
    """One game per forged field (the fork's: the fork), and a sound one, each read once."""
    made = {}
    for field, names in {**SEATS, "sound": SOUND}.items():
        options = {"limit": 2} if field == "results" else {}
        game_id, token = served.new_game(players=names, title="Friday night", options=options)
        if field == "results":  # Roy loses all his lives by a ruling: the game is over, Roy lost
            _post(served, f"/games/{game_id}/events",
                  {"type": "adjust", "player": "Roy", "amount": 2, "reason": "left"}, token)
        else:
            _post(served, f"/games/{game_id}/events", _deal(names), token)
        if field == "fork_lineage":  # a what-if fork of hand 1 while it is played
            made["fork_parent"] = (game_id, token)
            fork = _post(served, f"/games/{game_id}/fork", {"seq": 2}, token)
            game_id, token = fork["id"], fork["token"]
        made[field] = (game_id, token)
        for route in ("/games/{id}", "/watch/{id}", "/watch/{id}/verify"):
            assert requests.get(served.base + route.format(id=game_id), timeout=30,
                                headers={"Authorization": f"Bearer {token}"}).status_code == 200, (field, route)
    for names in [*SEATS.values(), SOUND]:  # the histories read once too
        assert requests.get(f"{served.base}/players/{names[-1]}", timeout=30).status_code == 200
    assert requests.get(f"{served.base}/club", timeout=30).status_code == 200
    return made


def _forge(database: str, made: dict[str, tuple[str, str]]) -> None:
    """Forge each field with plain SQL on a connection of the test's own (no trigger is lifted)."""
    p = "%s" if backend.is_postgres(database) else "?"
    statements = [
        (f"UPDATE player_results SET result = CASE result WHEN 'lost' THEN 'won' ELSE 'lost' END WHERE game_id = {p}",
         [made["results"][0]]),
        (f"UPDATE games SET title = {p} WHERE id = {p}", ["Forged night", made["title"][0]]),
        (f"UPDATE games SET created_at = {p} WHERE id = {p}", ["2020-01-01T00:00:00.000Z", made["created_at"][0]]),
        (f"UPDATE games SET options = {p} WHERE id = {p}", [json.dumps({"limit": 3}), made["options"][0]]),
        (f"UPDATE games SET secret_from_hand = NULL WHERE id = {p}", [made["secret_from_hand"][0]]),
        (f"UPDATE games SET player_keys = {p} WHERE id = {p}", [json.dumps(["kim", "kai", "ken", "zed"]),
                                                               made["player_keys"][0]]),
        (f"UPDATE games SET fork_lineage = NULL WHERE id = {p}", [made["fork_lineage"][0]]),
    ]
    if backend.is_postgres(database):
        import psycopg

        with psycopg.connect(database, autocommit=True) as conn:
            for sql, params in statements:
                assert conn.execute(sql, params).rowcount >= 1, sql
        return
    import sqlite3

    conn = sqlite3.connect(database, isolation_level=None, timeout=30)
    try:
        for sql, params in statements:
            assert conn.execute(sql, params).rowcount >= 1, sql
    finally:
        conn.close()


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def forged(request, tmp_path_factory) -> Iterator[tuple[str, Served, dict[str, tuple[str, str]], list[str]]]:
    """A running server per backend, its games read, then each field forged; the lines of
    ``kibitz check`` afterwards."""
    folder = tmp_path_factory.mktemp(f"forged-{request.param}")
    schema = None
    if request.param == "postgresql":
        from tests.postgres import fresh_schema

        schema = fresh_schema()
        database = schema.__enter__()
    else:
        database = str(folder / "kibitz.db")
    try:
        with serve(database, log_dir=folder) as served:
            made = _made(served)
            _forge(database, made)
            done = kibitz("check", "--db", database)
            assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
            yield database, served, made, done.stdout.splitlines()
    finally:
        if schema is not None:
            schema.__exit__(None, None, None)


def _named(made: dict[str, tuple[str, str]], field: str) -> str:
    """What ``kibitz check`` says of the forged ``field``, from its start."""
    game_id = made[field][0]
    return {
        "results": f"game {game_id}: player_results of 'Roy' (seat 3) says result 'won' (its events make it 'lost')",
        "title": f"game {game_id}: games.title is 'Forged night' but the log's game_created says 'Friday night'",
        "created_at": f"game {game_id}: games.created_at is '2020-01-01T00:00:00.000Z' but the log's game_created "
                      "was recorded at '",
        "options": f"game {game_id}: games.options is {{'limit': 3}} but the log's game_created says {{",
        "secret_from_hand": f"game {game_id}: games.secret_from_hand is None but its events make it 1",
        "player_keys": f"game {game_id}: games.player_keys is ['kim', 'kai', 'ken', 'zed'] but the players of the "
                       "log's game_created give ['kim', 'kai', 'ken', 'kay']",
        "fork_lineage": f"game {game_id}: games.fork_lineage is [] but the games it was forked from give "
                        f"[['{made['fork_parent'][0]}', 1]]",
    }[field]


@pytest.mark.parametrize("field", list(SEATS))
def test_kibitz_check_names_each_forged_field(forged, field):
    _, _, made, lines = forged
    want = _named(made, field)
    assert any(line.startswith(want) for line in lines), (want, lines)
    sound = made["sound"][0]
    assert not any(sound in line for line in lines), lines


@pytest.mark.parametrize("field", list(SEATS))
def test_kibitz_verify_of_its_game_names_it(forged, field):
    database, _, made, _ = forged
    game_id = made[field][0]
    done = kibitz("verify", game_id, "0123456789ab", "--db", database)
    assert done.returncode == 3, done.stdout + done.stderr
    assert any(line.startswith(_named(made, field)) for line in done.stdout.splitlines()), done.stdout


@pytest.mark.parametrize("field", ["title", "created_at", "options", "secret_from_hand"])
def test_every_route_of_a_game_whose_row_was_forged_is_a_503(forged, field):
    _, served, made, _ = forged
    game_id, token = made[field]
    for headers in ({}, {"Authorization": f"Bearer {token}"}):
        for route in ("/games/{id}", "/games/{id}/events", "/games/{id}/export", "/games/{id}/actions"):
            _assert_503(requests.get(served.base + route.format(id=game_id), headers=headers, timeout=30), game_id)
        for page in ("/watch/{id}", "/watch/{id}/board", "/watch/{id}/verify", "/table/{id}"):
            answer = requests.get(served.base + page.format(id=game_id), headers=headers, timeout=30)
            assert answer.status_code == 503 and "kibitz check" in answer.text, (page, answer.text[:300])
    _assert_503(requests.post(f"{served.base}/games/{game_id}/events", json={"type": "note", "text": "x"},
                              headers={"Authorization": f"Bearer {token}"}, timeout=30), game_id)


@pytest.mark.parametrize("field", ["title", "created_at", "options"])
def test_a_list_showing_a_forged_row_is_a_503(forged, field):
    _, served, made, _ = forged
    game_id = made[field][0]
    _assert_503(requests.get(f"{served.base}/games", params={"player": SEATS[field][0]}, timeout=30), game_id)
    answer = requests.get(f"{served.base}/", timeout=30)  # the home page lists every game
    assert answer.status_code == 503 and "kibitz check" in answer.text


def test_forged_results_are_never_served_in_histories_or_the_club_table(forged):
    _, served, made, _ = forged
    game_id = made["results"][0]
    for route in ("/players", "/players/Roy", "/players/Roy/games", "/players/Roy/games?format=csv",
                  "/players?since=2000-01-01"):
        _assert_503(requests.get(served.base + route, timeout=30), game_id)
    for page in ("/people", "/people/Roy", "/club", "/club?period=all", f"/watch/{game_id}/verify"):
        answer = requests.get(served.base + page, timeout=30)
        assert answer.status_code == 503 and "kibitz check" in answer.text, (page, answer.text[:300])
    # a history the forged game is not part of still answers
    sound = requests.get(f"{served.base}/players/{SOUND[0]}", timeout=30)
    assert sound.status_code == 200 and sound.json()["total_games"] == 1


def test_a_forks_forged_lineage_is_found_by_its_verify_page(forged):
    _, served, made, _ = forged
    fork_id, _ = made["fork_lineage"]
    answer = requests.get(f"{served.base}/watch/{fork_id}/verify", params={"fingerprint": "0123456789ab"},
                          timeout=30)
    assert answer.status_code == 503 and "fork_lineage" in answer.text, answer.text[:500]


def test_the_sound_game_answers_and_records(forged):
    _, served, made, _ = forged
    game_id, token = made["sound"]
    for route in ("/games/{id}", "/games/{id}/events", "/watch/{id}", "/watch/{id}/verify"):
        assert requests.get(served.base + route.format(id=game_id), timeout=30).status_code == 200, route
    assert served.note(game_id, token, "still fine").status_code == 201
