"""A stored record that is not what Kibitz writes (a ``games`` column or an event's data that
is not JSON, not of its shape, or not UTF-8; an event deleted from the middle of the log or
the end of it; an event edited into an illegal move or an unknown type; a ``games.version``
past the log) gets 503 ``record_damaged`` from a real ``kibitz serve`` on every read and
write of that game, API and pages, naming the game, the event and ``kibitz check``, with no
``Retry-After``, never a 500; other games answer as usual; a ``games.version`` that
disagrees with the log is refused on the next write, never stored as a gap; and
``kibitz check`` names each of these faults."""

from __future__ import annotations

import pytest
import requests

from tests.club_server import kibitz, outside, serve
from tests.test_check_database import tamper

READS = ["", "/events", "/actions", "/states/2", "/hands/1", "/timeline", "/irregularities", "/export"]
PAGES = ["/watch/{id}", "/watch/{id}/board", "/watch/{id}/replay", "/watch/{id}/hands/1"]
DEAL = {"type": "deal", "hands": {"Ann": ["TH", "9C", "JD", "QS"], "Bob": ["7H", "8C", "AD", "KS"],
                                  "Cas": ["JH", "8H", "TC", "9S"], "Dee": ["AH", "7C", "8D", "TS"]}}


def _assert_503(response: requests.Response, game_id: str | None = None, seq: int | None = None) -> None:
    assert response.status_code == 503, (response.request.method, response.request.url, response.text[:300])
    assert response.headers["Content-Type"].startswith("application/problem+json")
    assert "Retry-After" not in response.headers  # waiting will not mend it
    problem = response.json()
    assert problem["code"] == "record_damaged", problem
    assert "kibitz check" in problem["detail"]
    if game_id is not None:
        assert problem["game_id"] == game_id and f"game {game_id}" in problem["detail"], problem
        assert problem["seq"] == seq, problem
        assert (f"at event {seq} " if seq is not None else "in its games row") in problem["detail"], problem


DAMAGE = {
    "players_not_json": ["UPDATE games SET players = 'nope' WHERE id = '{id}'"],
    "players_not_a_list": ["UPDATE games SET players = '{{\"a\": 1}}' WHERE id = '{id}'"],
    "options_not_json": ["UPDATE games SET options = '{{oops' WHERE id = '{id}'"],
    "event_not_json": ["UPDATE events SET data = '{{not json' WHERE game_id = '{id}' AND seq = 2"],
    "event_an_array": ["UPDATE events SET data = '[1,2]' WHERE game_id = '{id}' AND seq = 2"],
    "event_not_utf8": ["UPDATE events SET data = CAST(x'00ff' AS TEXT) WHERE game_id = '{id}' AND seq = 2"],
    "event_deleted_from_the_middle": ["DELETE FROM events WHERE game_id = '{id}' AND seq = 2"],
    # Bob leads; 9S is Cas's card: the note becomes a play the rules refuse
    "event_edited_into_an_illegal_move": ["UPDATE events SET type = 'play', data = '{{\"player\":\"Bob\","
                                          "\"card\":\"9S\"}}' WHERE game_id = '{id}' AND seq = 3"],
    "event_of_an_unknown_type": ["UPDATE events SET type = 'teleport' WHERE game_id = '{id}' AND seq = 3"],
    "version_past_the_log": ["UPDATE games SET version = version + 3 WHERE id = '{id}'"],
    "last_event_deleted_and_version_lowered": ["DELETE FROM events WHERE game_id = '{id}' AND seq = 3",
                                               "UPDATE games SET version = 2 WHERE id = '{id}'"],
    "note_changed": ["UPDATE events SET data = '{{\"text\":\"another note\"}}' WHERE game_id = '{id}' AND seq = 3"],
    "recorded_at_changed": ["UPDATE events SET recorded_at = '2020-01-01T00:00:00.000Z' "
                            "WHERE game_id = '{id}' AND seq = 2"],
}
#: The event each damage is named by (None: the games row itself).
NAMED = {"players_not_json": None, "players_not_a_list": None, "options_not_json": None, "event_not_json": 2,
         "event_an_array": 2, "event_not_utf8": 2, "event_deleted_from_the_middle": 2,
         "event_edited_into_an_illegal_move": 3, "event_of_an_unknown_type": 3, "version_past_the_log": 4,
         "last_event_deleted_and_version_lowered": 2, "note_changed": 3, "recorded_at_changed": 2}


@pytest.fixture(scope="module")
def damaged(tmp_path_factory):
    """One database, one damaged game per kind of damage (and one sound game), served."""
    path = tmp_path_factory.mktemp("damaged") / "kibitz.db"
    made = []
    with serve(path) as served:
        for _ in range(len(DAMAGE) + 1):
            game_id, token = served.new_game()
            dealt = requests.post(f"{served.base}/games/{game_id}/events", json=DEAL,
                                  headers={"Authorization": f"Bearer {token}"}, timeout=30)
            assert dealt.status_code == 201, dealt.text
            assert served.note(game_id, token, "a note").status_code == 201
            made.append((game_id, token))
    games = dict(zip(DAMAGE, made[:-1], strict=True))  # the last game stays sound
    tamper(path, *[sql.format(id=games[name][0]) for name, sqls in DAMAGE.items() for sql in sqls])
    with serve(path) as served:
        yield served, games, made[-1][0]


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_every_read_and_write_of_a_damaged_game_is_a_503_record_damaged_naming_game_event_and_kibitz_check(
        damaged, kind):
    served, games, sound = damaged
    game_id, token = games[kind]
    seq = NAMED[kind]
    url = f"{served.base}/games/{game_id}"
    auth = {"Authorization": f"Bearer {token}"}
    for suffix in READS:
        _assert_503(requests.get(url + suffix, timeout=30), game_id, seq)
        _assert_503(requests.get(url + suffix, headers=auth, timeout=30), game_id, seq)
    for page in [*PAGES, "/table/{id}", "/watch/{id}/verify?fingerprint=0123456789ab"]:
        answer = requests.get(served.base + page.format(id=game_id), timeout=30)
        assert answer.status_code == 503, (page, answer.text[:300])
        assert answer.headers["Content-Type"].startswith("text/html"), page
        assert "Retry-After" not in answer.headers
        assert "kibitz check" in answer.text and f"game {game_id}" in answer.text, page
    for write, body in [("/events", {"type": "note", "text": "x"}), ("/undo", {}), ("/redo", {}),
                        ("/fork", {"seq": 2})]:
        _assert_503(requests.post(url + write, json=body, headers=auth, timeout=30), game_id, seq)
    _assert_503(requests.post(f"{served.base}/table/{game_id}/share", headers=auth, timeout=30), game_id, seq)
    assert requests.get(f"{served.base}/games/{sound}/events", timeout=30).status_code == 200
    assert requests.get(f"{served.base}/watch/{sound}", timeout=30).status_code == 200


def test_lists_and_the_sound_game_still_answer(damaged):
    served, games, sound = damaged
    assert requests.get(f"{served.base}/health", timeout=30).status_code == 200
    listed = requests.get(f"{served.base}/games", timeout=30)
    assert listed.status_code in (200, 503), listed.text
    if listed.status_code == 503:  # a games row that cannot be read is met by the list
        _assert_503(listed)
    # the histories count every game's player_results, checked against its log first: one from a damaged
    # record is not served (docs/tamper-evidence.md)
    damaged_ids = {game_id for game_id, _ in games.values()}
    answer = requests.get(f"{served.base}/players", timeout=30)
    _assert_503(answer)
    assert answer.json()["game_id"] in damaged_ids
    club = requests.get(f"{served.base}/club", timeout=30)
    assert club.status_code == 503 and "kibitz check" in club.text


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_kibitz_check_names_each_damaged_game(damaged, kind):
    served, games, _ = damaged
    done = kibitz("check", "--db", str(served.log.parent / "kibitz.db"))
    assert done.returncode == 1
    assert f"game {games[kind][0]}" in done.stdout, done.stdout


def test_a_version_ahead_of_the_log_is_refused_never_stored_as_a_gap(tmp_path):
    path = tmp_path / "kibitz.db"
    with serve(path) as served:
        game_id, token = served.new_game()
        for n in range(3):
            assert served.note(game_id, token, f"note {n}").status_code == 201
        outside(path, "UPDATE games SET version = version + 5 WHERE id = ?", [game_id])
        _assert_503(served.note(game_id, token, "after"), game_id, 5)
        outside(path, "UPDATE games SET version = version - 7 WHERE id = ?", [game_id])  # behind the log
        _assert_503(served.note(game_id, token, "after"), game_id, 2)
        assert served.note(*served.new_game(), "a sound game").status_code == 201
    assert outside(path, "SELECT max(seq), count(*) FROM events WHERE game_id = ?", [game_id])[0] == (4, 4)
    done = kibitz("check", "--db", str(path))
    assert done.returncode == 1 and f"game {game_id}: games.version is 2 but the last stored event is 4" \
        in done.stdout, done.stdout
