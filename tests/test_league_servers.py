"""Two ``kibitz serve`` processes on one PostgreSQL database (docs/league.md): a move
recorded through one is read through the other, and two tablets racing through different
processes with the same ``If-Match`` get one 201 and one 412, with no gap or duplicate in seq."""

from __future__ import annotations

import threading
from pathlib import Path

import requests

from service.storage import postgres
from tests.conftest import OPEN_DEAL, PLAYERS
from tests.postgres import postgres_url  # noqa: F401  (the fixture)
from tests.serving import serving


def test_two_servers_on_one_postgresql_race_the_same_if_match(tmp_path: Path, postgres_url: str) -> None:  # noqa: F811
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with serving(tmp_path / "a", database=postgres_url) as first, serving(tmp_path / "b", database=postgres_url) as second:  # type: ignore[arg-type]
        created = requests.post(f"{first}/games", json={"game": "toepen", "players": PLAYERS, "visibility": "open"},
                                timeout=30)
        assert created.status_code == 201, created.text
        game = created.json()
        auth = {"Authorization": f"Bearer {game['token']}"}
        dealt = requests.post(f"{second}/games/{game['id']}/events", json=OPEN_DEAL, headers=auth, timeout=30)
        assert dealt.status_code == 201, dealt.text  # the game created through one process, recorded through the other
        assert requests.get(f"{first}/games/{game['id']}", timeout=30).json()["version"] == 2

        barrier = threading.Barrier(2)
        answers: dict[str, requests.Response] = {}

        def post(base: str, text: str) -> None:
            barrier.wait()
            answers[text] = requests.post(f"{base}/games/{game['id']}/events", json={"type": "note", "text": text},
                                          headers={**auth, "If-Match": '"2"'}, timeout=30)

        tablets = [threading.Thread(target=post, args=(base, text)) for base, text in ((first, "a"), (second, "b"))]
        for tablet in tablets:
            tablet.start()
        for tablet in tablets:
            tablet.join(60)
        assert sorted(answer.status_code for answer in answers.values()) == [201, 412]
        loser = next(answer for answer in answers.values() if answer.status_code == 412)
        assert loser.json()["code"] == "version_mismatch"
        for base in (first, second):
            assert requests.get(f"{base}/games/{game['id']}", timeout=30).json()["version"] == 3

    db = postgres.connect(postgres_url)
    seqs = [event["seq"] for event in postgres.events(db, game["id"])]
    db.close()
    assert seqs == [1, 2, 3]


def _race(calls: list[tuple[str, str, dict[str, str], object]]) -> list[requests.Response]:
    """POST every ``(base, path, headers, json)`` at once, one thread each; the answers in order."""
    barrier = threading.Barrier(len(calls))
    answers: list[requests.Response | None] = [None] * len(calls)

    def post(n: int) -> None:
        base, path, headers, body = calls[n]
        barrier.wait()
        answers[n] = requests.post(f"{base}{path}", json=body, headers=headers, timeout=30)

    threads = [threading.Thread(target=post, args=(n,)) for n in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert all(answer is not None for answer in answers)
    return [answer for answer in answers if answer is not None]


def test_an_idempotent_retry_through_both_servers_at_once_is_stored_once(tmp_path: Path, postgres_url: str) -> None:  # noqa: F811
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with serving(tmp_path / "a", database=postgres_url) as first, serving(tmp_path / "b", database=postgres_url) as second:  # type: ignore[arg-type]
        game = requests.post(f"{first}/games", json={"game": "toepen", "players": PLAYERS, "visibility": "open"},
                             timeout=30).json()
        path = f"/games/{game['id']}/events"
        for round_ in range(5):  # the same key sent through both processes at the same moment
            headers = {"Authorization": f"Bearer {game['token']}", "Idempotency-Key": f"retry-{round_}"}
            answers = _race([(base, path, headers, {"type": "note", "text": f"once {round_}"})
                             for base in (first, second, first, second)])
            assert [answer.status_code for answer in answers] == [201] * 4, [a.text for a in answers]
            assert len({answer.json()["event"]["hash"] for answer in answers}) == 1
    db = postgres.connect(postgres_url)
    texts = [event["data"].get("text") for event in postgres.events(db, game["id"])][1:]
    db.close()
    assert texts == [f"once {round_}" for round_ in range(5)]


def test_one_export_imported_through_both_servers_at_once_is_stored_once(tmp_path: Path, postgres_url: str) -> None:  # noqa: F811
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "c").mkdir()
    with serving(tmp_path / "c") as elsewhere:
        game = requests.post(f"{elsewhere}/games", json={"game": "toepen", "players": PLAYERS, "visibility": "open"},
                             timeout=30).json()
        auth = {"Authorization": f"Bearer {game['token']}"}
        assert requests.post(f"{elsewhere}/games/{game['id']}/events", json=OPEN_DEAL, headers=auth,
                             timeout=30).status_code == 201
        exported = requests.get(f"{elsewhere}/games/{game['id']}/export", headers=auth, timeout=30).json()
    with serving(tmp_path / "a", database=postgres_url) as first, serving(tmp_path / "b", database=postgres_url) as second:  # type: ignore[arg-type]
        answers = _race([(base, "/games/import", {}, exported) for base in (first, second, first, second)])
        assert sorted(answer.status_code for answer in answers) == [201, 409, 409, 409], [a.text for a in answers]
        stored = next(answer.json()["id"] for answer in answers if answer.status_code == 201)
        assert {answer.json()["game_id"] for answer in answers if answer.status_code == 409} == {stored}
    db = postgres.connect(postgres_url)
    ids = postgres.game_ids(db)
    db.close()
    assert ids == [stored]
