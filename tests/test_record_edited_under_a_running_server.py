"""A record edited with ``sqlite3`` while ``kibitz serve`` runs, after the server has read
(and cached) the game: api.md "A tamper-evident record" and the 503 ``record_damaged`` row.

Every kind of edit here is met by a real server that has already served the game: a deleted
or edited last event, a changed salt, hash, ``recorded_at`` or ``games.status``, a gap, an
unknown type, a chain recomputed after a forged note. What the server checks on every read
(the stored head of the log against its cached fold, the last event re-hashed) makes every route of the game answer
503 ``record_damaged`` naming the event; an edit in the middle of the log needs the triggers
lifted, which the server sees (the database's guard: SQLite's ``schema_version``), so every
route and every write checks the whole log again and answers 503 too; never a 500, never
the forged text served, and no write is stored onto a record found edited
(tests/test_tampered_under_a_running_server.py does the same on both backends).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
import requests

from tests.club_server import outside, serve
from tests.test_damaged_stored_data_server import DEAL, _assert_503
from tests.test_hash_chain import spec_hash

#: Every read route of a game, API and pages (the game has events 1 to 4: created, deal, two notes).
READS = ["", "/events", "/events?after=2", "/actions", "/states/2", "/states/3", "/states/4", "/hands/1",
         "/timeline", "/irregularities", "/export", "/export?format=text"]
PAGES = ["/watch/{id}", "/watch/{id}/board", "/watch/{id}/replay", "/watch/{id}/replay?step=3",
         "/watch/{id}/hands/1", "/watch/{id}/verify?fingerprint=0123456789ab", "/table/{id}"]
#: The routes that return or refold stored events: a 503 whatever event was edited.
EVENT_READS = ["/events", "/states/3", "/states/4", "/hands/1",
               "/timeline", "/export", "/export?format=text"]
EVENT_PAGES = ["/watch/{id}/replay", "/watch/{id}/replay?step=3", "/watch/{id}/hands/1",
               "/watch/{id}/verify?fingerprint=0123456789ab"]
WRITES = [("/events", {"type": "note", "text": "after the edit"}), ("/undo", {}), ("/redo", {}),
          ("/correct", {"target": 3, "action": {"type": "note", "text": "x"}})]

FORGED = '{"text":"forged note"}'
_FORGED = FORGED.replace("{", "{{").replace("}", "}}")  # as it stands in a str.format template
#: Edits found at once by every read and write of the game, and the event each is named by.
EVERY_ROUTE = {
    "last_note_forged": ([f"UPDATE events SET data = '{_FORGED}' WHERE game_id = '{{id}}' AND seq = 4"], 4),
    "last_recorded_at_changed": (["UPDATE events SET recorded_at = '2020-01-01T00:00:00.000Z' "
                                  "WHERE game_id = '{id}' AND seq = 4"], 4),
    "last_salt_changed": ([f"UPDATE events SET salt = '{'f' * 32}' WHERE game_id = '{{id}}' AND seq = 4"], 4),
    "last_hash_changed": ([f"UPDATE events SET hash = '{'0' * 64}' WHERE game_id = '{{id}}' AND seq = 4"], 4),
    "last_type_bogus": (["UPDATE events SET type = 'bogus' WHERE game_id = '{id}' AND seq = 4"], 4),
    "last_deleted_version_kept": (["DELETE FROM events WHERE game_id = '{id}' AND seq = 4"], 4),
    "status_finished": (["UPDATE games SET status = 'finished' WHERE id = '{id}'"], None),
    "record_hash_changed": ([f"UPDATE games SET record_hash = '{'1' * 64}' WHERE id = '{{id}}'"], 4),
    "chain_recomputed": ([], 4),  # a forged note with every hash after it recomputed (below)
}
#: Edits of an event before the last whose stored hash is left as it was: every route that
#: returns or refolds stored events finds them.
MIDDLE = {
    "middle_note_forged": ([f"UPDATE events SET data = '{_FORGED}' WHERE game_id = '{{id}}' AND seq = 3"], 3),
    "middle_type_bogus": (["UPDATE events SET type = 'bogus' WHERE game_id = '{id}' AND seq = 3"], 3),
    "middle_card_changed": (["UPDATE events SET data = json_set(data, '$.hands.Ann[0]', 'AS') "
                             "WHERE game_id = '{id}' AND seq = 2"], 2),
    "gap": (["DELETE FROM events WHERE game_id = '{id}' AND seq = 3"], 3),
}


def _recompute_from_3_with_a_forged_note(path: Path, game_id: str) -> None:
    """What someone who read api.md can do: forge note 3 and recompute the chain after it."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("UPDATE events SET data = ? WHERE game_id = ? AND seq = 3", [FORGED, game_id])
    rows = conn.execute("SELECT seq, type, data, recorded_at, at, salt, hash FROM events WHERE game_id = ? "
                        "ORDER BY seq", [game_id]).fetchall()
    previous = rows[1][6]
    for seq, kind, data, recorded_at, at, salt, _ in rows[2:]:
        previous = spec_hash(previous, {"seq": seq, "type": kind, "data": json.loads(data),
                                        "recorded_at": recorded_at, "at": at, "salt": salt})
        conn.execute("UPDATE events SET hash = ? WHERE game_id = ? AND seq = ?", [previous, game_id, seq])
    conn.execute("UPDATE games SET record_hash = ? WHERE id = ?", [previous, game_id])
    conn.close()


@pytest.fixture(scope="module")
def edited(tmp_path_factory):
    """One running server; one game per edit, each served in full before it is edited."""
    path = tmp_path_factory.mktemp("edited") / "kibitz.db"
    with serve(path) as served:
        made = {}
        for kind in [*EVERY_ROUTE, *MIDDLE, "sound"]:
            game_id, token = served.new_game()
            auth = {"Authorization": f"Bearer {token}"}
            assert requests.post(f"{served.base}/games/{game_id}/events", json=DEAL, headers=auth,
                                 timeout=30).status_code == 201
            for text in ("a note", "second note"):
                assert served.note(game_id, token, text).status_code == 201
            for suffix in READS:  # read (and cache) everything first
                for headers in ({}, auth):
                    answer = requests.get(f"{served.base}/games/{game_id}{suffix}", headers=headers, timeout=30)
                    assert answer.status_code == 200, (suffix, answer.text[:300])
            for page in PAGES:
                assert requests.get(served.base + page.format(id=game_id), timeout=30).status_code in (200, 422)
            made[kind] = (game_id, token)
        conn = sqlite3.connect(path, isolation_level=None)
        conn.execute("DROP TRIGGER events_no_update")
        conn.execute("DROP TRIGGER events_no_delete")
        for kind, (sqls, _) in {**EVERY_ROUTE, **MIDDLE}.items():
            for sql in sqls:
                conn.execute(sql.format(id=made[kind][0]))
        conn.close()
        _recompute_from_3_with_a_forged_note(path, made["chain_recomputed"][0])
        yield served, path, made


def _stored(path: Path, game_id: str) -> list[tuple[object, ...]]:
    return outside(path, "SELECT seq, type, data, salt, hash FROM events WHERE game_id = ? ORDER BY seq", [game_id]) \
        + outside(path, "SELECT version, status, record_hash FROM games WHERE id = ?", [game_id])


def _writes_refused(served, path: Path, game_id: str, token: str, seq: int | None) -> None:
    before = _stored(path, game_id)
    url = f"{served.base}/games/{game_id}"
    auth = {"Authorization": f"Bearer {token}"}
    for write, body in WRITES:
        _assert_503(requests.post(url + write, json=body, headers=auth, timeout=30), game_id, seq)
    assert _stored(path, game_id) == before  # nothing stored onto the edited record, nothing rewritten


@pytest.mark.parametrize("kind", list(EVERY_ROUTE))
def test_every_read_and_write_of_a_game_edited_under_the_running_server_is_a_503(edited, kind):
    served, path, made = edited
    game_id, token = made[kind]
    seq = EVERY_ROUTE[kind][1]
    auth = {"Authorization": f"Bearer {token}"}
    for suffix in READS:
        for headers in ({}, auth):
            _assert_503(requests.get(f"{served.base}/games/{game_id}{suffix}", headers=headers, timeout=30),
                        game_id, seq)
    for page in PAGES:
        answer = requests.get(served.base + page.format(id=game_id), timeout=30)
        assert answer.status_code == 503, (page, answer.text[:300])
        assert "kibitz check" in answer.text and "forged note" not in answer.text
    _writes_refused(served, path, game_id, token, seq)
    sound, sound_token = made["sound"]
    assert requests.get(f"{served.base}/games/{sound}/timeline", timeout=30).status_code == 200


@pytest.mark.parametrize("kind", list(MIDDLE))
def test_every_route_that_returns_or_refolds_stored_events_finds_an_edit_in_the_middle(edited, kind):
    served, path, made = edited
    game_id, token = made[kind]
    seq = MIDDLE[kind][1]
    auth = {"Authorization": f"Bearer {token}"}
    for suffix in EVENT_READS:
        for headers in ({}, auth):
            _assert_503(requests.get(f"{served.base}/games/{game_id}{suffix}", headers=headers, timeout=30),
                        game_id, seq)
    for page in EVENT_PAGES:
        answer = requests.get(served.base + page.format(id=game_id), timeout=30)
        assert answer.status_code == 503, (page, answer.text[:300])
    for suffix in READS:  # the triggers were lifted: every route checks the whole log again
        for headers in ({}, auth):
            _assert_503(requests.get(f"{served.base}/games/{game_id}{suffix}", headers=headers, timeout=30),
                        game_id, seq)
    for page in PAGES:
        answer = requests.get(served.base + page.format(id=game_id), timeout=30)
        assert answer.status_code == 503 and "forged note" not in answer.text, (page, answer.text[:300])
    _writes_refused(served, path, game_id, token, seq)


def test_the_sound_game_still_answers_and_records(edited):
    served, _, made = edited
    game_id, token = made["sound"]
    for suffix in READS:
        assert requests.get(f"{served.base}/games/{game_id}{suffix}", timeout=30).status_code == 200, suffix
    assert served.note(game_id, token, "still fine").status_code == 201
    assert requests.get(f"{served.base}/games/{game_id}/timeline", timeout=30).status_code == 200


def test_views_and_pages_read_stored_events_only_through_the_checked_read():
    """``service.record.games.events`` (``service.record.cache.checked_events``) is the one read of stored
    events for every route, so a new route cannot forget the checks."""
    root = Path(__file__).resolve().parent.parent / "service"
    files = [*root.glob("web/views/*.py"), *root.glob("web/pages/*.py"), root / "record" / "secrecy.py",
             root / "record" / "transfer.py", root / "record" / "writes.py"]
    unchecked = [str(path.relative_to(root)) for path in files if "store.events(" in path.read_text()]
    assert unchecked == []


def test_kibitz_export_names_an_edited_game_and_exports_the_sound_ones(tmp_path):
    from tests.club_server import kibitz
    from tests.test_check_database import tamper

    path = tmp_path / "kibitz.db"
    with serve(path) as served:
        edited, token = served.new_game()
        sound, _ = served.new_game()
        assert served.note(edited, token, "a note").status_code == 201
    tamper(path, f"UPDATE events SET data = '{FORGED}' WHERE game_id = '{edited}' AND seq = 2")
    one = kibitz("export", edited, "--db", str(path))
    assert one.returncode == 1 and f"game {edited}, event 2" in one.stderr and "forged note" not in one.stdout
    done = kibitz("export", "--all", str(tmp_path / "out"), "--db", str(path))
    assert done.returncode == 0, done.stderr
    assert f"game {edited}, event 2" in done.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [f"{sound}.json"]
