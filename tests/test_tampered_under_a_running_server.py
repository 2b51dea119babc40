"""What the outside tester did (issue 27), on SQLite and on PostgreSQL, through a real
``kibitz serve`` and real HTTP: create a Toepen game and read it (every route, so the server
holds it folded in memory and answers its board poll from memory); with the database's own
tools lift the triggers that refuse to change an event, change the record, put the triggers
back; then read and write. Each kind of change:

- a middle event's payload (event 4's note text),
- two events' payloads swapped (4 and 5),
- a changed ``recorded_at`` (event 4),
- a games row field (players, title, created_at, options; no trigger stands in the way),
- on SQLite, a value stored as another type than Kibitz writes (event 4's data or salt as a
  BLOB, ``games.stored_events`` as a real),

makes every read route of that game, API and pages, with the token and without, answer 503
``record_damaged`` naming the game (and the event) while the server runs, and refuses every
write with the same 503, storing nothing (docs/tamper-evidence.md, "An edit made while the
server runs"). The sound game beside it answers and records as before; ``kibitz check``
names each changed game.

The one route answered from memory (``GET /watch/<id>/board``, service.web.boards) finds the
change at once on SQLite (``PRAGMA data_version``); on PostgreSQL when the process's listener
hears of it (the games row's notification, or its look at the triggers after each wait of
at most 0.25 s), so the test waits for that one with a deadline before it asks the others.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from service.storage import backend
from tests.club_server import Served, kibitz, serve
from tests.postgres import empty_database
from tests.tampering import lifted
from tests.test_damaged_stored_data_server import DEAL, _assert_503

FORGED = {"text": "forged note"}
#: Every read route of a game (the game has events 1 to 6: created, deal, Bob's 7H, three notes).
READS = ["/games/{id}", "/games/{id}/events", "/games/{id}/events?after=2", "/games/{id}/actions",
         "/games/{id}/states/2", "/games/{id}/states/4", "/games/{id}/states/6", "/games/{id}/hands/1",
         "/games/{id}/hands/1/tricks/1", "/games/{id}/timeline", "/games/{id}/irregularities", "/games/{id}/export",
         "/games/{id}/export?format=text", "/games/{id}/export?format=csv"]
PAGES = ["/watch/{id}", "/watch/{id}/board", "/watch/{id}/replay", "/watch/{id}/replay?step=3",
         "/watch/{id}/replay/board?step=3", "/watch/{id}/replay/timeline", "/watch/{id}/hands/1",
         "/watch/{id}/hands/1/tricks/1", "/watch/{id}/fork?seq=3", "/watch/{id}/verify?fingerprint=0123456789ab",
         "/table/{id}"]
#: Every write route: (path, body).
WRITES = [("/games/{id}/events", {"type": "note", "text": "after the change"}), ("/games/{id}/undo", {}),
          ("/games/{id}/redo", {}), ("/games/{id}/correct", {"target": 4, "action": {"type": "note", "text": "x"}}),
          ("/games/{id}/fork", {"seq": 3}), ("/table/{id}/share", None)]

#: Each kind of change and the event the 503 names (None: the games row).
KINDS = {"middle_note": 4, "swapped_payloads": 4, "recorded_at": 4, "row_players": None, "row_title": None,
         "row_created_at": None, "row_options": None, "data_blob": 4, "salt_blob": 4, "row_stored_events_real": None}
#: Changes only SQLite can store (a value of another storage type than the column's; PostgreSQL's
#: columns are typed): tests/test_stored_types_under_a_running_server.py has more of them.
SQLITE_ONLY = {"data_blob", "salt_blob", "row_stored_events_real"}


def _change(database: str, kind: str, game_id: str) -> None:
    """Make change ``kind`` to game ``game_id`` as the tester did (``tests.tampering.lifted``)."""
    p = "%s" if backend.is_postgres(database) else "?"
    with lifted(database) as run:
        data = {seq: text for seq, text in run(f"SELECT seq, data FROM events WHERE game_id = {p} AND seq IN (4, 5)",
                                               [game_id])}
        if kind == "middle_note":
            run(f"UPDATE events SET data = {p} WHERE game_id = {p} AND seq = 4", [json.dumps(FORGED), game_id])
        elif kind == "swapped_payloads":
            for seq, other in ((4, 5), (5, 4)):
                run(f"UPDATE events SET data = {p} WHERE game_id = {p} AND seq = {p}", [data[other], game_id, seq])
        elif kind == "recorded_at":
            run(f"UPDATE events SET recorded_at = {p} WHERE game_id = {p} AND seq = 4",
                ["2020-01-01T00:00:00.000Z", game_id])
        elif kind == "row_players":
            run(f"UPDATE games SET players = {p} WHERE id = {p}", [json.dumps(["Ann", "Bob", "Cas", "Zed"]), game_id])
        elif kind == "row_title":
            run(f"UPDATE games SET title = {p} WHERE id = {p}", ["Forged night", game_id])
        elif kind == "row_created_at":
            run(f"UPDATE games SET created_at = {p} WHERE id = {p}", ["2020-01-01T00:00:00.000Z", game_id])
        elif kind == "row_options":
            row = run(f"SELECT options FROM games WHERE id = {p}", [game_id])
            options = {**json.loads(row[0][0]), "lives": 3}
            run(f"UPDATE games SET options = {p} WHERE id = {p}", [json.dumps(options), game_id])
        elif kind == "data_blob":  # the bytes of {"text": "fourth"} as a BLOB, not text
            run("UPDATE events SET data = CAST(data AS BLOB) WHERE game_id = ? AND seq = 4", [game_id])
        elif kind == "salt_blob":
            run("UPDATE events SET salt = CAST(salt AS BLOB) WHERE game_id = ? AND seq = 4", [game_id])
        elif kind == "row_stored_events_real":
            run("UPDATE games SET stored_events = stored_events + 0.5 WHERE id = ?", [game_id])
        else:  # pragma: no cover - a kind without its change
            raise AssertionError(kind)


def _stored(database: str, game_id: str) -> list[Any]:
    """Every stored row of ``game_id`` but its tokens (events, games row, idempotency, results)."""
    p = "%s" if backend.is_postgres(database) else "?"
    with lifted(database) as run:  # a plain read; the triggers are put back as they were
        return [run(f"SELECT * FROM {table} WHERE {column} = {p} ORDER BY 1, 2", [game_id])
                for table, column in (("events", "game_id"), ("games", "id"), ("idempotency", "game_id"),
                                      ("player_results", "game_id"))] + [
            run("SELECT count(*) FROM games")]


def _made(served: Served) -> tuple[str, str]:
    """An open Toepen game of six events, every route of it read (with and without its token)."""
    game_id, token = served.new_game(title="Friday night")
    auth = {"Authorization": f"Bearer {token}"}
    url = f"{served.base}/games/{game_id}/events"
    for body in (DEAL, {"type": "play", "player": "Bob", "card": "7H"}, {"type": "note", "text": "fourth"},
                 {"type": "note", "text": "fifth"}, {"type": "note", "text": "sixth"}):
        assert requests.post(url, json=body, headers=auth, timeout=30).status_code == 201
    for route in [*READS, *PAGES, "/watch/{id}/board"]:  # the board twice: the second from memory
        for headers in ({}, auth):
            answer = requests.get(served.base + route.format(id=game_id), headers=headers, timeout=30)
            assert answer.status_code == 200, (route, answer.text[:300])
    return game_id, token


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def changed(request, tmp_path_factory) -> Iterator[tuple[str, Served, dict[str, tuple[str, str]], tuple[str, str]]]:
    """One running server per backend; one game per kind of change, read in full, then changed
    behind the server's back; and one sound game."""
    folder = tmp_path_factory.mktemp(f"changed-{request.param}")
    with empty_database(request.param, folder) as database, serve(database, log_dir=folder) as served:
        made = {kind: _made(served) for kind in KINDS if request.param == "sqlite" or kind not in SQLITE_ONLY}
        sound = _made(served)
        for kind, (game_id, _) in made.items():
            _change(database, kind, game_id)
        yield database, served, made, sound


def _page_503(answer: requests.Response, route: str, game_id: str) -> None:
    assert answer.status_code == 503, (route, answer.status_code, answer.text[:300])
    assert "Retry-After" not in answer.headers
    if answer.headers["Content-Type"].startswith("application/problem+json"):
        problem = answer.json()
        assert problem["code"] == "record_damaged" and problem["game_id"] == game_id, problem
    else:
        assert answer.headers["Content-Type"].startswith("text/html"), route
        assert "kibitz check" in answer.text and f"game {game_id}" in answer.text, route
    assert "forged note" not in answer.text  # a changed event's text is never shown (a changed row is named)


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_read_and_write_of_a_game_changed_behind_the_running_server_is_a_503(changed, kind):
    database, served, made, (sound, sound_token) = changed
    if kind not in made:
        pytest.skip(f"{kind}: PostgreSQL's columns are typed, so this change cannot be stored there")
    game_id, token = made[kind]
    seq = KINDS[kind]
    auth = {"Authorization": f"Bearer {token}"}
    board = f"{served.base}/watch/{game_id}/board"
    if backend.is_postgres(database):  # answered from memory until the listener hears of the change
        deadline = time.monotonic() + 30  # heard in milliseconds; the room is for a loaded machine
        while requests.get(board, timeout=30).status_code == 200 and time.monotonic() < deadline:
            time.sleep(0.05)
    for headers in ({}, auth):
        _page_503(requests.get(board, headers=headers, timeout=30), "/watch/{id}/board", game_id)
    for route in READS:
        for headers in ({}, auth):
            _assert_503(requests.get(served.base + route.format(id=game_id), headers=headers, timeout=30),
                        game_id, seq)
    for route in PAGES:
        for headers in ({}, auth):
            _page_503(requests.get(served.base + route.format(id=game_id), headers=headers, timeout=30), route,
                      game_id)
    before = _stored(database, game_id)
    for route, body in WRITES:
        answer = requests.post(served.base + route.format(id=game_id), json=body, headers=auth, timeout=30)
        _assert_503(answer, game_id, seq)
    assert _stored(database, game_id) == before  # nothing stored onto the changed record, nothing rewritten
    # the sound game beside it answers and records as before
    assert requests.get(f"{served.base}/games/{sound}/timeline", timeout=30).status_code == 200
    assert served.note(sound, sound_token, f"still fine after {kind}").status_code == 201
    assert requests.get(f"{served.base}/watch/{sound}/board", timeout=30).status_code == 200


def test_kibitz_check_names_every_changed_game_and_only_those(changed):
    database, _, made, (sound, _) = changed
    done = kibitz("check", "--db", database)
    assert done.returncode == 1, done.stdout + done.stderr
    named = {line.split(",")[0].split(":")[0].removeprefix("game ") for line in done.stdout.splitlines()}
    assert named == {game_id for game_id, _ in made.values()}, done.stdout
    assert sound not in done.stdout


def test_a_second_server_on_the_same_database_writing_is_no_damage(tmp_path):
    """Several Kibitz servers may share one database: another's writes (and its start, which
    finds every migration applied) are no change behind this one's back."""
    database = str(tmp_path / "kibitz.db")
    with serve(database) as first:
        game_id, token = _made(first)
        with serve(database) as second:
            for n in range(3):
                assert second.note(game_id, token, f"from the second server {n}").status_code == 201
                for route in [*READS, *PAGES]:
                    answer = requests.get(first.base + route.format(id=game_id), timeout=30)
                    assert answer.status_code == 200, (route, answer.text[:300])
                assert first.note(game_id, token, f"from the first server {n}").status_code == 201
    assert kibitz("check", "--db", database).returncode == 0


#: Game routes a Toepen game has no page for: the turns of Stop the Bus and Fuji Flush (a
#: trick's audit page, listed, is the same view of a game played in tricks).
NOT_TOEPEN = {"/watch/{id}/hands/<n>/turns/<n>"}


def _shape(route: str) -> str:
    """A route as a pattern: the query left out, every number or ``<int:…>`` as ``<n>``."""
    route = re.sub(r"<(?:\w+:)?game_id>", "{id}", route.split("?")[0])
    return re.sub(r"/(?:\d+|<int:\w+>)(?=/|$)", "/<n>", route)


def test_the_route_lists_cover_every_route_of_a_game(tmp_path):
    """Every route of the app that names a game is in the lists above (so a new one is
    tested here too): its GETs in READS or PAGES, its POSTs in WRITES."""
    from service.web.app import create_app

    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "kibitz.db")})
    reads = {_shape(route) for route in [*READS, *PAGES]}
    writes = {_shape(route) for route, _ in WRITES}
    for rule in app.url_map.iter_rules():
        if "game_id" not in rule.arguments or _shape(rule.rule) in NOT_TOEPEN:
            continue
        if "GET" in (rule.methods or ()):
            assert _shape(rule.rule) in reads, rule.rule
        if "POST" in (rule.methods or ()):
            assert _shape(rule.rule) in writes, rule.rule
