"""``kibitz backup`` of a live database and the WAL checkpoint at a clean shutdown, through
the CLI and a real ``kibitz serve``."""

from __future__ import annotations

import shutil
import signal
import sqlite3
import time

import pytest
import requests

from tests.club_server import burst, kibitz, serve


def immutable_counts(path) -> dict[str, int]:
    """Events per game, read as Datasette reads a file it is told will not change."""
    conn = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    try:
        return {str(game): int(n) for game, n in conn.execute("SELECT game_id, count(*) FROM events GROUP BY game_id")}
    finally:
        conn.close()


def test_a_backup_during_four_writers_holds_every_event_acknowledged_before_it(tmp_path):
    db = tmp_path / "kibitz.db"
    dest = tmp_path / "copies" / "friday.db"
    dest.parent.mkdir()
    with serve(db) as served:
        with burst(served) as noting:
            before = noting.wait_for(200)  # acknowledged before the backup starts
            done = kibitz("backup", str(dest), "--db", str(db))
            during = noting.count() - sum(len(seqs) for seqs in before.values())
            time.sleep(0.3)
        assert not noting.failures
        assert during > 0  # the server kept recording while the copy was made
        assert done.returncode == 0, done.stderr
        copied = immutable_counts(dest)
        assert done.stdout.strip() == (f"Backed up {db} to {dest}: 4 games, {sum(copied.values())} events, "
                                       f"{dest.stat().st_size:,} bytes.")
        for game_id, seqs in before.items():
            conn = sqlite3.connect(f"file:{dest}?mode=ro", uri=True)
            stored = {row[0] for row in conn.execute("SELECT seq FROM events WHERE game_id = ?", [game_id])}
            conn.close()
            assert set(seqs) <= stored
            assert stored == set(range(1, len(stored) + 1))  # a consistent snapshot: no event after a gap
        assert sorted(path.name for path in dest.parent.iterdir()) == ["friday.db"]  # no -wal, no -shm, no temp

        again = kibitz("backup", str(dest), "--db", str(db))
        assert again.returncode == 1
        assert again.stderr.strip() == f"Error: {dest} exists already: choose another name, or add --force to replace it."
        assert immutable_counts(dest) == copied  # left as it was
        forced = kibitz("backup", str(dest), "--db", str(db), "--force")
        assert forced.returncode == 0 and forced.stdout.startswith(f"Backed up {db} to {dest}: 4 games,")

    # the copy alone, in a folder of its own: kibitz check passes and kibitz serve serves it
    alone = tmp_path / "restored"
    alone.mkdir()
    shutil.copy(dest, alone / "kibitz.db")
    checked = kibitz("check", "--db", str(alone / "kibitz.db"))
    assert checked.returncode == 0, checked.stdout
    assert "no problems (4 games," in checked.stdout
    with serve(alone / "kibitz.db") as restored:
        for game_id, seqs in before.items():
            read = requests.get(f"{restored.base}/games/{game_id}/events?limit=500", timeout=30)
            assert read.status_code == 200
            assert read.json()["version"] >= len(seqs) + 1
        assert restored.new_game()  # and records on


def test_backup_refuses_what_is_not_a_kibitz_database(tmp_path):
    missing = kibitz("backup", str(tmp_path / "out.db"), "--db", str(tmp_path / "none.db"))
    assert missing.returncode == 1 and f"There is no database file {tmp_path / 'none.db'}." in missing.stderr
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    refused = kibitz("backup", str(tmp_path / "out.db"), "--db", str(other))
    assert refused.returncode == 1 and "is not a Kibitz database" in refused.stderr
    assert not (tmp_path / "out.db").exists()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_clean_shutdown_checkpoints_the_log_into_the_database_file(tmp_path, sig):
    db = tmp_path / "kibitz.db"
    with serve(db) as served:
        game_id, token = served.new_game()
        for n in range(30):
            assert served.note(game_id, token, f"note {n}").status_code == 201
        assert (tmp_path / "kibitz.db-wal").stat().st_size > 0  # the events are in the log so far
        served.proc.send_signal(sig)
        assert served.proc.wait(timeout=20) == 0
    assert "Stopped; every event is in" in served.log.read_text()
    wal = tmp_path / "kibitz.db-wal"
    assert not wal.exists() or wal.stat().st_size == 0
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(db, alone / "kibitz.db")  # a plain copy of the file alone now holds every event
    assert immutable_counts(alone / "kibitz.db") == {game_id: 31}
