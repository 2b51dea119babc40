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

from service.storage import backend, history
from tests.club_server import Served, kibitz, serve
from tests.conftest import OPEN_DEAL
from tests.postgres import empty_database

#: Each forged field: the players of its game.
SEATS = {"results": ["Rita", "Rex", "Roy"], "title": ["Tina", "Ted", "Tara", "Tobi"],
         "created_at": ["Cara", "Cole", "Cyd", "Cato"], "options": ["Olga", "Otto", "Ozzy", "Ola"],
         "secret_from_hand": ["Sara", "Seth", "Sol", "Sue"], "player_keys": ["Kim", "Kai", "Ken", "Kay"],
         "fork_lineage": ["Pia", "Pat", "Pam", "Pip"], "game": ["Gina", "Gert", "Guus", "Gwen"],
         "players": ["Nina", "Nico", "Noah", "Nora"], "visibility": ["Wes", "Wil", "Wout", "Wendy"],
         "forked_from": ["Fenna", "Fleur", "Floor", "Fred"], "status": ["Uma", "Ugo", "Ulla", "Urs"],
         "version": ["Hana", "Hein", "Hugo", "Huub"], "record_hash": ["Iris", "Ivo", "Ida", "Ilse"],
         "stored_events": ["Jet", "Jip", "Joy", "Jop"], "results_extra": ["Mia", "Max", "Moe", "Mel"],
         "results_missing": ["Lana", "Lex", "Lot", "Luc"]}
SOUND = ["Vic", "Val", "Vin", "Viv"]
#: Rows forged in ``player_results`` for a game that is not stored (the player ``Olaf``).
ORPHAN = "NoSuchGame01"
#: The games-row fields whose game's every route (and write) answers 503.
ROUTED = ["title", "created_at", "options", "secret_from_hand", "game", "players", "visibility", "forked_from",
          "status", "version", "record_hash"]
#: Every stored column, by table, and how this file forges it (the kinds above), or why it is
#: not derived from the logs. The events are under the hash chain and their triggers
#: (tests/test_tampered_under_a_running_server.py); ``results_seal`` counts the changes of
#: ``player_results`` (test_the_results_seal_cannot_be_set_back).
COVERED = {
    "games": {"id": "the key", "game": "game", "title": "title", "players": "players", "player_keys": "player_keys",
              "visibility": "visibility", "options": "options", "created_at": "created_at", "version": "version",
              "status": "status", "imported_at": "not derived: when an import was stored",
              "forked_from_game": "forked_from", "forked_from_seq": "forked_from",
              "secret_from_hand": "secret_from_hand", "fork_lineage": "fork_lineage",
              "source_game": "not derived: the game an import came from", "record_hash": "record_hash",
              "stored_events": "stored_events"},
    "events": "under the hash chain",
    "idempotency": "the stored first answers, checked against the log (tests/test_stored_answers_checked.py)",
    "tokens": "not derived: the write tokens' hashes",
    "player_results": "results, results_extra, results_missing, orphan, and every column on its own "
                      "(test_every_column_of_player_results_forged_is_found)",
    "results_seal": "the count of player_results changes (test_the_results_seal_cannot_be_set_back)",
}


def _damaged(response: requests.Response, game_id: str) -> None:
    """A 503 ``record_damaged`` naming game ``game_id`` (whatever event it names)."""
    assert response.status_code == 503, (response.request.url, response.status_code, response.text[:300])
    problem = response.json()
    assert problem["code"] == "record_damaged" and problem["game_id"] == game_id, problem
    assert "kibitz check" in problem["detail"] and "Retry-After" not in response.headers


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
    columns = ", ".join(history.COLUMNS)
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
        (f"UPDATE games SET game = 'fool' WHERE id = {p}", [made["game"][0]]),
        (f"UPDATE games SET players = {p} WHERE id = {p}", [json.dumps(["Nina", "Nico", "Noah", "Zed"]),
                                                           made["players"][0]]),
        (f"UPDATE games SET visibility = 'table' WHERE id = {p}", [made["visibility"][0]]),
        (f"UPDATE games SET forked_from_game = {p}, forked_from_seq = 1 WHERE id = {p}",
         [made["fork_parent"][0], made["forked_from"][0]]),
        (f"UPDATE games SET status = 'finished' WHERE id = {p}", [made["status"][0]]),
        (f"UPDATE games SET version = version + 1 WHERE id = {p}", [made["version"][0]]),
        (f"UPDATE games SET record_hash = {p} WHERE id = {p}", ["0" * 64, made["record_hash"][0]]),
        (f"UPDATE games SET stored_events = stored_events + 1 WHERE id = {p}", [made["stored_events"][0]]),
        (f"INSERT INTO player_results ({columns}) SELECT game_id, 'zorro', 'Zorro', 5, game, created_at, status, "
         f"result, score, unit, hands, tricks_won, fools, knocks, stops FROM player_results WHERE game_id = {p} "
         "AND seat = 1", [made["results_extra"][0]]),
        (f"DELETE FROM player_results WHERE game_id = {p} AND seat = 1", [made["results_missing"][0]]),
        (f"INSERT INTO player_results ({columns}) VALUES ({', '.join([p] * len(history.COLUMNS))})",
         [ORPHAN, "olaf", "Olaf", 1, "toepen", "2026-01-01T00:00:00.000Z", "in_progress", "in_progress", None,
          "lives", None, None, None, None, None]),
    ]
    _run(database, statements)


def _run(database: str, statements: list[tuple[str, list[Any]]]) -> None:
    """Run each statement on a connection of the test's own, each changing at least one row."""
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
    with empty_database(request.param, folder) as database, serve(database, log_dir=folder) as served:
        made = _made(served)
        _forge(database, made)
        done = kibitz("check", "--db", database)
        assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
        yield database, served, made, done.stdout.splitlines()


def _named(made: dict[str, tuple[str, str]], field: str) -> str:
    """What ``kibitz check`` says of the forged ``field``, from its start."""
    game_id = made[field][0] if field != "orphan" else ORPHAN
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
        "game": f"game {game_id}: games.game is 'fool' but the log's game_created says 'toepen'",
        "players": f"game {game_id}: games.players is ['Nina', 'Nico', 'Noah', 'Zed'] but the log's game_created "
                   "says ['Nina', 'Nico', 'Noah', 'Nora']",
        "visibility": f"game {game_id}: games.visibility is 'table' but the log's game_created says 'open'",
        "forked_from": f"game {game_id}: games.forked_from_game is '{made['fork_parent'][0]}' but the log's game_created "
                       "says None",
        "status": f"game {game_id}: games.status is 'finished' but its events make it 'in_progress'",
        "version": f"game {game_id}: games.version is 3 but the last stored event is 2",
        "record_hash": f"game {game_id}: games.record_hash is not the hash of the last stored event",
        "stored_events": f"game {game_id}: games.stored_events is 3 but 2 events are stored",
        "results_extra": f"game {game_id}: player_results has a row for 'Zorro' that its events do not give",
        "results_missing": f"game {game_id}: player_results has no row for 'Mia' (seat 1)".replace("Mia", "Lana"),
        "orphan": f"game {ORPHAN}: player_results has 1 row(s) for this game, which is not stored",
    }[field]


FIELDS = [*SEATS, "orphan"]


@pytest.mark.parametrize("field", FIELDS)
def test_kibitz_check_names_each_forged_field(forged, field):
    _, _, made, lines = forged
    want = _named(made, field)
    assert any(line.startswith(want) for line in lines), (want, lines)
    sound = made["sound"][0]
    assert not any(line.startswith(f"game {sound}") for line in lines), lines


@pytest.mark.parametrize("field", list(SEATS))
def test_kibitz_verify_of_its_game_names_it(forged, field):
    database, _, made, _ = forged
    game_id = made[field][0]
    done = kibitz("verify", game_id, "0123456789ab", "--db", database)
    assert done.returncode == 3, done.stdout + done.stderr
    assert any(line.startswith(_named(made, field)) for line in done.stdout.splitlines()), done.stdout


@pytest.mark.parametrize("field", [field for field in SEATS if field != "player_keys"])
def test_the_verify_page_of_its_game_is_a_503(forged, field):
    """The page that checks a game afresh over HTTP (``/watch/<id>/verify``) finds each, as
    ``kibitz verify`` does (``player_keys`` alone: by a list filtered by a player, below)."""
    _, served, made, _ = forged
    game_id = made[field][0]
    answer = requests.get(f"{served.base}/watch/{game_id}/verify", params={"fingerprint": "0123456789ab"},
                          timeout=30)
    assert answer.status_code == 503 and "kibitz check" in answer.text and f"game {game_id}" in answer.text, \
        answer.text[:500]


@pytest.mark.parametrize("field", ROUTED)
def test_every_route_of_a_game_whose_row_was_forged_is_a_503(forged, field):
    _, served, made, _ = forged
    game_id, token = made[field]
    for headers in ({}, {"Authorization": f"Bearer {token}"}):
        for route in ("/games/{id}", "/games/{id}/events", "/games/{id}/export", "/games/{id}/actions"):
            _damaged(requests.get(served.base + route.format(id=game_id), headers=headers, timeout=30), game_id)
        for page in ("/watch/{id}", "/watch/{id}/board", "/watch/{id}/verify", "/table/{id}"):
            answer = requests.get(served.base + page.format(id=game_id), headers=headers, timeout=30)
            assert answer.status_code == 503 and "kibitz check" in answer.text, (page, answer.text[:300])
    _damaged(requests.post(f"{served.base}/games/{game_id}/events", json={"type": "note", "text": "x"},
                           headers={"Authorization": f"Bearer {token}"}, timeout=30), game_id)


def test_a_forged_event_count_refuses_every_write(forged):
    """``games.stored_events`` is shown nowhere; a write counts the events with it, and refuses."""
    _, served, made, _ = forged
    game_id, token = made["stored_events"]
    _damaged(served.note(game_id, token, "x"), game_id)


@pytest.mark.parametrize("field", [field for field in ROUTED if field not in ("players", "game")])
def test_a_list_showing_a_forged_row_is_a_503(forged, field):
    """``GET /games?player=`` (and the home page, which lists every game) compare each row
    they show with its log: once per record version, the row's fields each request."""
    _, served, made, _ = forged
    game_id = made[field][0]
    _damaged(requests.get(f"{served.base}/games", params={"player": SEATS[field][0], "fork": "true"}, timeout=30),
             game_id)
    answer = requests.get(f"{served.base}/", timeout=30)  # the home page lists every game
    assert answer.status_code == 503 and "kibitz check" in answer.text


def test_a_nights_export_and_a_games_forks_showing_a_forged_row_are_a_503(forged):
    """The other lists docs/tamper-evidence.md names: a night's export (``GET /games/export``,
    every game of the period) and the forks listed on the page of the game they branched off
    (the row whose ``forked_from_game`` was forged to name it)."""
    _, served, made, _ = forged
    answer = requests.get(f"{served.base}/games/export", timeout=30)
    assert answer.status_code == 503 and answer.json()["code"] == "record_damaged", answer.text[:300]
    parent, forged_fork = made["fork_parent"][0], made["forked_from"][0]
    answer = requests.get(f"{served.base}/watch/{parent}", timeout=30)
    assert answer.status_code == 503 and f"game {forged_fork}" in answer.text, answer.text[:500]


def test_a_game_listed_under_a_player_it_does_not_seat_is_a_503(forged):
    _, served, made, _ = forged
    game_id = made["player_keys"][0]
    _damaged(requests.get(f"{served.base}/games", params={"player": "Zed"}, timeout=30), game_id)
    assert requests.get(f"{served.base}/games", params={"player": "Kim"}, timeout=30).status_code == 200


def _history_503(served: Served, routes: tuple[str, ...], pages: tuple[str, ...], games: set[str]) -> None:
    for route in routes:
        answer = requests.get(served.base + route, timeout=30)
        assert answer.status_code == 503 and answer.json()["game_id"] in games, (route, answer.text[:300])
        assert answer.json()["code"] == "record_damaged"
    for page in pages:
        answer = requests.get(served.base + page, timeout=30)
        assert answer.status_code == 503 and "kibitz check" in answer.text, (page, answer.text[:300])
        assert any(f"game {game_id}" in answer.text for game_id in games), (page, answer.text[:500])


def test_forged_results_are_never_served_in_histories_or_the_club_table(forged):
    _, served, made, _ = forged
    # a history over every player names the first forged game it counts (a forged version or
    # record_hash is a damaged log, which no history counts either)
    every = {game_id for field, (game_id, _) in made.items() if field != "sound"} | {ORPHAN}
    _history_503(served, ("/players", "/players?since=2000-01-01"), ("/people", "/club", "/club?period=all"), every)
    game_id = made["results"][0]
    _history_503(served, ("/players/Roy", "/players/Roy/games", "/players/Roy/games?format=csv"),
                 ("/people/Roy", f"/watch/{game_id}/verify"), {game_id})
    # a row for someone the game does not seat; a row for a game that is not stored
    _history_503(served, ("/players/Zorro",), ("/people/Zorro",), {made["results_extra"][0]})
    _history_503(served, ("/players/Olaf", "/players/Olaf/games"), ("/people/Olaf",), {ORPHAN})
    # a history the forged game is not part of still answers
    sound = requests.get(f"{served.base}/players/{SOUND[0]}", timeout=30)
    assert sound.status_code == 200 and sound.json()["total_games"] == 1


@pytest.mark.parametrize("field", ["title", "players"])
def test_a_history_showing_a_forged_games_row_is_a_503(forged, field):
    """A player's games list the title and the seats from the games row: compared with the log
    (its date is the ``player_results`` row's, compared with the log's too)."""
    _, served, made, _ = forged
    name, game_id = SEATS[field][0], made[field][0]
    _history_503(served, (f"/players/{name}", f"/players/{name}/games?format=csv"), (f"/people/{name}",), {game_id})


def test_a_forks_forged_lineage_is_found_by_its_verify_page(forged):
    _, served, made, _ = forged
    fork_id, _ = made["fork_lineage"]
    answer = requests.get(f"{served.base}/watch/{fork_id}/verify", params={"fingerprint": "0123456789ab"},
                          timeout=30)
    assert answer.status_code == 503 and "fork_lineage" in answer.text, answer.text[:500]


def test_the_sound_game_answers_and_records(forged):
    _, served, made, _ = forged
    game_id, token = made["sound"]
    for route in ("/games/{id}", "/games/{id}/events", "/watch/{id}", "/watch/{id}/verify",
                  f"/players/{SOUND[0]}", f"/people/{SOUND[0]}"):
        assert requests.get(served.base + route.format(id=game_id), timeout=30).status_code == 200, route
    assert served.note(game_id, token, "still fine").status_code == 201


def test_every_stored_column_is_forged_here_or_not_derived():
    """A claim of docs/tamper-evidence.md: everything stored about a game beyond its log is
    compared with the log, by ``kibitz check`` and before it is served. A new column fails
    here until it is forged above (or said not to be derived)."""
    from service.storage import admin

    assert set(COVERED) == set(admin.SCHEMA)
    for table, how in COVERED.items():
        if isinstance(how, dict):
            assert set(how) == set(admin.SCHEMA[table]), table
            for column, kind in how.items():
                assert kind in SEATS or kind.startswith(("not derived", "the key")), (table, column, kind)
