"""Storage faults through a real ``kibitz serve``: a disk that is full, a database file that is
read-only, a database locked by another program. Each write the storage cannot take is a 503
``storage_unavailable`` with ``Retry-After`` that stores nothing (no event, no idempotency
record, no projection row); reads still answer; and once the cause is gone the same server
process records again, without a restart (api.md, status codes)."""

from __future__ import annotations

import sqlite3
import subprocess
import threading
import uuid
from pathlib import Path

import pytest
import requests

from service.web.app import create_app
from tests.club_server import PLAYERS, kibitz, outside, serve, unprivileged


def assert_unavailable(response: requests.Response, retry_after: str) -> dict[str, object]:
    assert response.status_code == 503, response.text
    assert response.headers["Content-Type"].startswith("application/problem+json")
    body = response.json()
    assert body["code"] == "storage_unavailable" and body["type"] == "urn:kibitz:problem:storage_unavailable"
    assert body["detail"] and "Traceback" not in body["detail"]
    assert response.headers["Retry-After"] == retry_after
    return body


def stored_events(db: Path, game_id: str) -> list[int]:
    return [int(row[0]) for row in outside(db, "SELECT seq FROM events WHERE game_id = ? ORDER BY seq", [game_id])]


def remembered_keys(db: Path) -> set[str]:
    return {str(row[0]) for row in outside(db, "SELECT key FROM idempotency")}


def counts(db: Path) -> tuple[int, int, int, int]:
    [row] = outside(db, "SELECT (SELECT count(*) FROM games), (SELECT count(*) FROM events), "
                        "(SELECT count(*) FROM idempotency), (SELECT count(*) FROM player_results)")
    return (int(row[0]), int(row[1]), int(row[2]), int(row[3]))


def test_a_full_disk_is_503_stores_nothing_half_and_recovers_when_space_is_freed(tmp_path):
    db = tmp_path / "kibitz.db"
    assert kibitz("init-db", "--db", str(db)).returncode == 0
    # space the club can free later: a table of filler the test drops while the server runs
    outside(db, "CREATE TABLE filler (b BLOB)")
    outside(db, "INSERT INTO filler VALUES (zeroblob(600000))")
    [(pages,)] = outside(db, "PRAGMA page_count")
    text = "x" * 2000  # half a page per note
    with serve(db, env={"KIBITZ_MAX_PAGE_COUNT": str(pages)}) as served:
        games = [served.new_game() for _ in range(4)]  # fits in the pages the file has
        acknowledged: dict[str, list[int]] = {game_id: [] for game_id, _ in games}
        refused: list[tuple[str, str, str, requests.Response]] = []

        def record(game_id: str, token: str) -> None:  # 4 writers at once: batches of several writes
            for _ in range(200):
                key = str(uuid.uuid4())
                response = served.note(game_id, token, text, key)
                if response.status_code != 201:
                    refused.append((game_id, token, key, response))
                    return
                acknowledged[game_id].append(response.json()["seq"])

        writers = [threading.Thread(target=record, args=game) for game in games]
        for writer in writers:
            writer.start()
        for writer in writers:
            writer.join()
        assert len(refused) == 4
        for _game_id, _token, _key, response in refused:
            assert_unavailable(response, "5")
            assert "disk is full" in response.json()["detail"]
        # nothing half: exactly the acknowledged events, no idempotency record of a refused write
        for game_id, seqs in acknowledged.items():
            assert stored_events(db, game_id) == [1, *seqs] == list(range(1, len(seqs) + 2))
        assert not {key for _g, _t, key, _r in refused} & remembered_keys(db)
        # new games fill what little room is left, then cannot be stored either, and a
        # refused one leaves no games row nor projection rows
        for _ in range(100):
            before = counts(db)
            created = requests.post(f"{served.base}/games", json={"game": "toepen", "players": PLAYERS}, timeout=30)
            if created.status_code != 201:
                break
        assert_unavailable(created, "5")
        assert counts(db) == before
        # reads still answer
        for game_id, seqs in acknowledged.items():
            read = requests.get(f"{served.base}/games/{game_id}", timeout=30)
            assert read.status_code == 200 and read.json()["version"] == len(seqs) + 1
        assert requests.get(f"{served.base}/games", timeout=30).status_code == 200

        outside(db, "DROP TABLE filler")  # space freed: the file keeps its size, its pages are free again

        for game_id, token, key, _response in refused:  # the tablets' retries, same keys
            retry = served.note(game_id, token, text, key)
            assert retry.status_code == 201, retry.text
            assert retry.json()["seq"] == len(acknowledged[game_id]) + 2
        assert served.new_game()
        assert served.proc.poll() is None  # the same process
    for game_id, seqs in acknowledged.items():
        assert stored_events(db, game_id) == list(range(1, len(seqs) + 3))


def test_a_read_only_database_file_is_503_reads_answer_and_writes_resume_when_it_is_writable(tmp_path):
    prefix = unprivileged()
    db = tmp_path / "kibitz.db"
    client = create_app({"TESTING": True, "DATABASE": str(db)}).test_client()
    created = client.post("/games", json={"game": "toepen", "players": PLAYERS, "visibility": "open"}).get_json()
    game_id, token = created["id"], created["token"]
    # the file turns read-only while its -wal and -shm stay as they were (a chmod, an owner
    # changed); a connection of the test keeps them in place
    keeper = sqlite3.connect(db)
    keeper.execute("SELECT count(*) FROM games").fetchall()
    try:
        db.chmod(0o444)
        with serve(db, prefix=prefix) as served:
            key = str(uuid.uuid4())
            body = assert_unavailable(served.note(game_id, token, "read-only", key), "5")
            assert "read-only" in str(body["detail"])
            assert_unavailable(requests.post(f"{served.base}/games", json={"game": "toepen", "players": PLAYERS},
                                             timeout=30), "5")
            read = requests.get(f"{served.base}/games/{game_id}", timeout=30)
            assert read.status_code == 200 and read.json()["version"] == 1
            assert stored_events(db, game_id) == [1] and counts(db)[0] == 1

            db.chmod(0o644)

            retry = served.note(game_id, token, "read-only", key)
            assert retry.status_code == 201, retry.text
            assert retry.json()["seq"] == 2
            assert served.note(game_id, token, "and on").json()["seq"] == 3
            assert requests.get(f"{served.base}/games/{game_id}", timeout=30).json()["version"] == 3
            assert served.new_game()
            assert served.proc.poll() is None
    finally:
        keeper.close()
    assert stored_events(db, game_id) == [1, 2, 3]


def test_a_database_locked_too_long_is_503_and_writes_resume_when_the_lock_is_released(tmp_path):
    db = tmp_path / "kibitz.db"
    with serve(db, env={"KIBITZ_BUSY_TIMEOUT_MS": "300"}) as served:
        game_id, token = served.new_game()
        assert served.note(game_id, token, "before").status_code == 201
        blocker = sqlite3.connect(db, isolation_level=None)
        blocker.execute("BEGIN EXCLUSIVE")
        try:
            key = str(uuid.uuid4())
            body = assert_unavailable(served.note(game_id, token, "locked", key), "1")
            assert "locked" in str(body["detail"])
            read = requests.get(f"{served.base}/games/{game_id}/events", timeout=30)
            assert read.status_code == 200 and read.json()["version"] == 2
        finally:
            blocker.rollback()
            blocker.close()
        retry = served.note(game_id, token, "locked", key)
        assert retry.status_code == 201 and retry.json()["seq"] == 3
        assert served.proc.poll() is None
    assert stored_events(db, game_id) == [1, 2, 3]
    assert key in remembered_keys(db)


def test_a_real_full_disk_is_503_and_recovers_when_a_file_is_deleted(tmp_path):
    """The same on a real filesystem that fills up: a 4 MiB tmpfs mounted for the test."""
    mount = tmp_path / "disk"
    mount.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.strip()}")
    try:
        db = mount / "kibitz.db"
        with serve(db) as served:
            game_id, token = served.new_game()
            assert served.note(game_id, token, "before").status_code == 201
            filler = mount / "holiday-photos.bin"
            with filler.open("wb", buffering=0) as out:  # fill the disk to the last block (unbuffered: close has nothing left to write)
                try:
                    while True:
                        out.write(b"\0" * 65536)
                        out.flush()
                except OSError:
                    pass
            seqs = [1, 2]
            for _ in range(500):
                response = served.note(game_id, token, "y" * 2000)
                if response.status_code != 201:
                    break
                seqs.append(response.json()["seq"])
            assert_unavailable(response, "5")
            read = requests.get(f"{served.base}/games/{game_id}", timeout=30)
            assert read.status_code == 200 and read.json()["version"] == seqs[-1]

            filler.unlink()  # space freed

            again = served.note(game_id, token, "after")
            assert again.status_code == 201, again.text
            assert again.json()["seq"] == seqs[-1] + 1
            assert served.proc.poll() is None
        assert stored_events(db, game_id) == [*seqs, seqs[-1] + 1]
    finally:
        subprocess.run(["umount", str(mount)], capture_output=True)


def test_imports_and_forks_meet_a_lock_with_503_store_nothing_and_work_once_it_is_released(tmp_path):
    """The writes that run in their own transaction (``POST /games/import``, ``POST …/fork``)."""
    db = tmp_path / "kibitz.db"
    with serve(db, env={"KIBITZ_BUSY_TIMEOUT_MS": "300"}) as served:
        game_id, token = served.new_game()
        auth = {"Authorization": f"Bearer {token}"}
        assert served.note(game_id, token, "a note").status_code == 201
        export = requests.get(f"{served.base}/games/{game_id}/export?format=json", headers=auth, timeout=30).json()
        export["game"].pop("id", None)  # a hand-written document: imported however often it is sent
        before = counts(db)
        blocker = sqlite3.connect(db, isolation_level=None)
        blocker.execute("BEGIN EXCLUSIVE")
        try:
            assert_unavailable(requests.post(f"{served.base}/games/import", json=export, timeout=30), "1")
            assert_unavailable(requests.post(f"{served.base}/games/{game_id}/fork", json={"seq": 1}, headers=auth,
                                             timeout=30), "1")
        finally:
            blocker.rollback()
            blocker.close()
        assert counts(db) == before
        imported = requests.post(f"{served.base}/games/import", json=export, timeout=30)
        assert imported.status_code == 201, imported.text
        forked = requests.post(f"{served.base}/games/{game_id}/fork", json={"seq": 1}, headers=auth, timeout=30)
        assert forked.status_code == 201, forked.text
        assert counts(db)[0] == before[0] + 2
