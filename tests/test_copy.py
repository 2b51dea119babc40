"""``kibitz copy SRC DST`` (issue 19, docs/league.md "Moving a club's history"): a club's whole
history made through the API (every game of the shared scenarios, a what-if fork, undos, a
correction, an Idempotency-Key, an abandoned game, an imported game, a revoked token) moved
SQLite → PostgreSQL → SQLite, and PostgreSQL → PostgreSQL, by the real command (click's
runner over ``service.cli.main``), against a real PostgreSQL server (``tests/postgres.py``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from click.testing import CliRunner

from service.cli.main import main
from service.record import copying
from service.storage import backend as store
from service.web.app import create_app
from tests.conftest import EXAMPLES, OPEN_DEAL, Game, create, needs_examples, play_scenario
from tests.postgres import fresh_schema, postgres_url  # noqa: F401  (the fixture)

TRICKS = [("Bob", "7H"), ("Cas", "JH"), ("Dee", "AH"), ("Ann", "TH"),
          ("Ann", "9C"), ("Bob", "8C"), ("Cas", "TC"), ("Dee", "7C")]


def play(player: str, card: str) -> dict[str, Any]:
    return {"type": "play", "player": player, "card": card}


def ok(response: Any) -> dict[str, Any]:
    assert response.status_code in (200, 201), response.get_data(as_text=True)
    body: dict[str, Any] = response.get_json()
    return body


def club_history(path: Path, tmp_path: Path) -> dict[str, Any]:
    """A club's SQLite file made through the API and the CLI: returns the ids and tokens that
    the tests need (``played``: a Toepen game with undos, a correction and an idempotent
    retry; ``fork``; ``abandoned``; ``imported``; ``revoked``: a game whose first token was
    revoked, with ``old`` and ``new`` tokens)."""
    client = create_app({"TESTING": True, "DATABASE": str(path)}).test_client()
    for example in EXAMPLES:  # every game of the shared scenarios: all four games
        play_scenario(client, example)
    played = create(client, visibility="open")
    ok(played.post(OPEN_DEAL))
    for player, card in TRICKS[:4]:
        ok(played.post(play(player, card), **{"Idempotency-Key": f"k-{card}"}))
    ok(played.post(play("Ann", "9C"), **{"Idempotency-Key": "k-9C"}))
    ok(played.post(play("Ann", "9C"), **{"Idempotency-Key": "k-9C"}))  # a retry: answered from the record
    ok(played.post({"reason": "wrong card"}, "undo"))
    ok(played.post({}, "redo"))
    ok(played.post({"target": 4, "action": play("Cas", "8H"), "reason": "it was the 8"}, "correct"))
    fork = Game(client, ok(played.post({"seq": 5}, "fork")))
    ok(fork.post(play("Ann", "TH")))
    abandoned = create(client)
    ok(abandoned.post({"type": "abandon", "reason": "the club closes"}))
    elsewhere = create_app({"TESTING": True, "DATABASE": str(tmp_path / "elsewhere.db")}).test_client()
    there = create(elsewhere, visibility="open")
    ok(there.post(OPEN_DEAL))
    exported = ok(there.get("/export?format=json"))
    imported = ok(client.post("/games/import", json=exported))
    revoked = create(client, game="fool", players=["Ann", "Bob", "Cas", "Dee"])
    result = CliRunner().invoke(main, ["token", revoked.id, "--db", str(path), "--revoke", "--no-qr"])
    assert result.exit_code == 0, result.output
    new = next(line.strip() for line in result.output.splitlines() if line.startswith("  "))
    return {"played": played.id, "played_token": played.token, "fork": fork.id, "abandoned": abandoned.id, "imported": imported["id"],
            "revoked": revoked.id, "old": revoked.token, "new": new}


@pytest.fixture
def club(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    path = tmp_path / "club.db"
    return path, club_history(path, tmp_path)


@pytest.fixture
def second_schema() -> Iterator[str]:
    """A second fresh schema on the test PostgreSQL server (as ``postgres_url``)."""
    with fresh_schema() as url:
        yield url


def run_copy(src: str, dst: str) -> Any:
    return CliRunner().invoke(main, ["copy", src, dst])


def everything(target: str) -> dict[str, tuple[Any, ...]]:
    """Every game of ``target``: its stored rows, its event hashes and its export document."""
    db = store.connect(target)
    try:
        found = {}
        for game_id in store.game_ids(db):
            game = copying.read_game(db, game_id)
            assert game is not None
            found[game_id] = (game, store.event_hashes(db, game_id), copying.export_text(db, game_id))
        return found
    finally:
        db.close()


def same(a: dict[str, tuple[Any, ...]], b: dict[str, tuple[Any, ...]]) -> None:
    assert sorted(a) == sorted(b)
    for game_id, (game, hashes, exported) in a.items():
        other, other_hashes, other_export = b[game_id]
        assert copying.differences(game, other) == [], game_id
        assert hashes == other_hashes and exported == other_export, game_id


@needs_examples
def test_sqlite_to_postgresql_and_back_keeps_every_game_exactly(club, postgres_url, tmp_path):  # noqa: F811
    path, ids = club
    first = run_copy(str(path), postgres_url)
    assert first.exit_code == 0, first.output
    games = len(EXAMPLES) + 5
    assert f"{games} games copied, 0 skipped (already there), 0 refused, 0 differing" in first.output
    back = tmp_path / "back.db"
    second = run_copy(postgres_url, f"sqlite:{back}")
    assert second.exit_code == 0, second.output
    assert f"{games} games copied" in second.output
    original, on_postgres, returned = everything(str(path)), everything(postgres_url), everything(str(back))
    same(original, on_postgres)
    same(original, returned)
    played, _, _ = on_postgres[ids["played"]]
    assert any(event["idempotency_key"] == "k-9C" for event in played.events) and played.idempotency
    fork, _, _ = on_postgres[ids["fork"]]
    assert fork.row["forked_from_game"] == ids["played"] and fork.row["fork_lineage"]
    assert on_postgres[ids["abandoned"]][0].row["status"] == "abandoned"
    imported, _, _ = on_postgres[ids["imported"]]
    assert imported.row["imported_at"] and imported.row["source_game"]
    revoked, _, _ = on_postgres[ids["revoked"]]
    assert [token["revoked_at"] is not None for token in revoked.tokens].count(True) == 1
    assert len(revoked.tokens) == 2
    assert original[ids["played"]][0].results  # the match-history rows, rebuilt equal


@needs_examples
def test_a_copied_game_is_served_from_postgresql_as_from_sqlite_and_its_tokens_work(club, postgres_url):  # noqa: F811
    path, ids = club
    assert run_copy(str(path), postgres_url).exit_code == 0
    sqlite_app = create_app({"TESTING": True, "DATABASE": str(path)}).test_client()
    postgres_app = create_app({"TESTING": True, "DATABASE": postgres_url}).test_client()
    reads = [(game_id, {}) for game_id in (ids["played"], ids["fork"], ids["imported"], ids["abandoned"])]
    reads += [(ids["played"], {"Authorization": f"Bearer {ids['played_token']}"}),
              (ids["revoked"], {"Authorization": f"Bearer {ids['new']}"})]
    for game_id, headers in reads:
        here = sqlite_app.get(f"/games/{game_id}", headers=headers)
        there = postgres_app.get(f"/games/{game_id}", headers=headers)
        assert here.status_code == 200 or not headers
        assert (there.status_code, there.get_json()) == (here.status_code, here.get_json())
        assert there.headers.get("ETag") == here.headers.get("ETag")
    url = f"/games/{ids['revoked']}/events"
    deal = {"type": "deal", "dealer": "Ann"}
    refused = postgres_app.post(url, json=deal, headers={"Authorization": f"Bearer {ids['old']}"})
    assert refused.status_code in (401, 403)
    written = postgres_app.post(url, json=deal, headers={"Authorization": f"Bearer {ids['new']}"})
    assert written.status_code == 201, written.get_json()


@needs_examples
def test_an_interrupted_copy_resumes_and_a_game_that_differs_is_reported_not_overwritten(club, postgres_url):  # noqa: F811
    path, ids = club
    source = copying.open_source(str(path))
    target = copying.open_destination(postgres_url)
    every = copying.game_ids(source)
    try:  # the first three games copied before the copy was stopped
        assert [copying.copy_game(source, target, game_id).kind for game_id in every[:3]] == ["copied"] * 3
    finally:
        source.close()
        target.close()
    resumed = run_copy(str(path), postgres_url)
    assert resumed.exit_code == 0, resumed.output
    assert f"{len(every) - 3} games copied, 3 skipped (already there), 0 refused, 0 differing" in resumed.output
    same(everything(str(path)), everything(postgres_url))
    again = run_copy(str(path), postgres_url)
    assert f"0 games copied, {len(every)} skipped (already there)" in again.output and again.exit_code == 0
    # a game recorded on in DST since is not SRC's any more: reported, left as DST has it
    postgres_app = create_app({"TESTING": True, "DATABASE": postgres_url}).test_client()
    deal = {"type": "deal", "dealer": "Ann"}
    assert postgres_app.post(f"/games/{ids['revoked']}/events", json=deal,
                             headers={"Authorization": f"Bearer {ids['new']}"}).status_code == 201
    differing = run_copy(str(path), postgres_url)
    assert differing.exit_code == 1
    assert f"differs {ids['revoked']}: already in DST, not the same (" in differing.output
    assert "1 differing" in differing.output
    assert postgres_app.get(f"/games/{ids['revoked']}").get_json()["version"] == 2


@needs_examples
def test_a_game_whose_chain_is_damaged_is_refused_by_name_and_the_rest_copied(club, tmp_path):
    path, ids = club
    conn = sqlite3.connect(path, isolation_level=None)  # changed the way no Kibitz code can
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute("UPDATE events SET data = replace(data, '7H', '8H') WHERE game_id = ? AND seq = 3", [ids["played"]])
    conn.close()
    dst = tmp_path / "copy.db"
    result = run_copy(str(path), str(dst))
    assert result.exit_code == 1
    refused = [line for line in result.output.splitlines() if line.startswith("refused ")]
    assert refused == [f"refused {ids['played']}: its hash does not follow the chain: the event was changed, or one "
                       "before it deleted, after it was recorded (event 3)"]
    games = len(EXAMPLES) + 4
    assert f"{games} games copied, 0 skipped (already there), 1 refused, 0 differing" in result.output
    copied = everything(str(dst))
    assert ids["played"] not in copied and ids["fork"] in copied


@needs_examples
def test_a_game_the_rules_no_longer_rebuild_is_refused(club, tmp_path):
    path, ids = club
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DROP TRIGGER events_no_delete")  # the abandon gone, the row still says abandoned
    conn.execute("DELETE FROM events WHERE game_id = ? AND seq = 2", [ids["abandoned"]])
    conn.close()
    result = run_copy(str(path), str(tmp_path / "copy.db"))
    assert result.exit_code == 1
    assert f"refused {ids['abandoned']}: " in result.output and "1 refused" in result.output


@needs_examples
def test_postgresql_to_postgresql(club, postgres_url, second_schema):  # noqa: F811
    path, _ = club
    assert run_copy(str(path), postgres_url).exit_code == 0
    result = run_copy(postgres_url, second_schema)
    assert result.exit_code == 0, result.output
    same(everything(postgres_url), everything(second_schema))


def test_a_source_that_is_not_a_kibitz_database_is_refused_in_a_sentence(tmp_path):
    missing = run_copy(str(tmp_path / "nothing.db"), str(tmp_path / "dst.db"))
    assert missing.exit_code == 1 and "Cannot open" in missing.output and "Traceback" not in missing.output
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE x (y)").connection.commit()
    result = run_copy(str(other), str(tmp_path / "dst.db"))
    assert result.exit_code == 1 and "is not a Kibitz database" in result.output
    assert run_copy(str(other), str(other)).exit_code == 2


def test_the_source_is_opened_read_only(tmp_path):
    path = tmp_path / "club.db"
    client = create_app({"TESTING": True, "DATABASE": str(path)}).test_client()
    create(client)
    source = copying.open_source(str(path))
    try:
        with pytest.raises(sqlite3.OperationalError, match="readonly"), store.immediate(source):
            store.set_imported_at(source, store.game_ids(source)[0], "2026-01-01T00:00:00Z")
    finally:
        source.close()


@needs_examples
def test_a_game_dst_would_not_hold_as_src_does_is_rolled_back_whole(club, postgres_url):  # noqa: F811
    path, ids = club
    conn = sqlite3.connect(path, isolation_level=None)  # SRC's match-history rows no longer what its events say
    conn.execute("UPDATE player_results SET name = 'Zed' WHERE game_id = ?", [ids["abandoned"]])
    conn.close()
    result = run_copy(str(path), postgres_url)
    assert result.exit_code == 1
    assert (f"refused {ids['abandoned']}: DST does not hold it as SRC does (its match-history rows): nothing of it "
            "was stored") in result.output
    db = store.connect(postgres_url)
    try:
        assert store.get_game(db, ids["abandoned"]) is None
        assert store.events(db, ids["abandoned"]) == [] and store.tokens(db, ids["abandoned"]) == []
        assert store.player_results_of(db, ids["abandoned"]) == []
        assert store.get_game(db, ids["played"]) is not None  # the others copied
    finally:
        db.close()


def test_a_postgresql_source_is_opened_read_only(postgres_url):  # noqa: F811
    create(create_app({"TESTING": True, "DATABASE": postgres_url}).test_client())
    source = copying.open_source(postgres_url)
    try:
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction), store.immediate(source):
            store.set_imported_at(source, store.game_ids(source)[0], "2026-01-01T00:00:00Z")
    finally:
        source.close()


def test_a_source_at_an_older_schema_is_refused_in_a_sentence(tmp_path):
    from sqlite_utils import Database

    from service.storage import migrations

    older = tmp_path / "older.db"
    db = Database(older)
    migrations.MIGRATIONS.apply(db, stop_before="0009_stored_events")
    db.close()
    result = run_copy(str(older), str(tmp_path / "dst.db"))
    assert result.exit_code == 1
    assert "is not at this version's schema (migrations 0009_stored_events, 0010_sealed_events, 0011_results_seal " \
           "not applied)" in result.output


def test_the_progress_bar_shows_on_a_terminal(tmp_path):
    import os
    import pty
    import subprocess
    import sys

    path = tmp_path / "club.db"
    client = create_app({"TESTING": True, "DATABASE": str(path)}).test_client()
    for _ in range(3):
        create(client)
    leader, follower = pty.openpty()
    done = subprocess.run([sys.executable, "-c", "from service.cli.main import main; main()", "copy", str(path),
                           str(tmp_path / "copy.db")], stdout=follower, stderr=follower, check=False, timeout=120)
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    assert done.returncode == 0, shown
    text = shown.decode()
    assert "Copying  [####################################]  3/3" in text
    assert "3 games copied" in text


@needs_examples
def test_a_copy_stopped_by_a_storage_fault_says_so_and_a_second_run_finishes(club, tmp_path):
    path, _ = club
    dst = tmp_path / "copy.db"
    copying.open_destination(str(dst)).close()
    holder = sqlite3.connect(dst, isolation_level=None)  # another program holds DST's write lock
    holder.execute("BEGIN IMMEDIATE")
    try:
        stopped = run_copy(str(path), str(dst))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert stopped.exit_code == 1
    assert "Stopped at game " in stopped.output and "run the same command again to finish" in stopped.output
    assert "Traceback" not in stopped.output
    finished = run_copy(str(path), str(dst))
    assert finished.exit_code == 0, finished.output
    same(everything(str(path)), everything(str(dst)))


def test_a_database_that_cannot_be_reached_is_named_without_its_password(tmp_path):
    url = "postgresql://kibitz:s3cret@127.0.0.1:1/league"
    result = run_copy(url, str(tmp_path / "dst.db"))
    assert result.exit_code == 1 and "Cannot open postgresql://…@127.0.0.1:1/league to read it" in result.output
    assert "s3cret" not in result.output and "Traceback" not in result.output


def refused_as_the_same(src: str, dst: str) -> None:
    from tests.club_server import kibitz

    done = kibitz("copy", src, dst)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.splitlines()[-1] == "Error: SRC and DST are the same database.", done.stderr
    assert "Copying" not in done.stdout + done.stderr


def test_copy_refuses_one_sqlite_file_however_it_is_written(club, tmp_path):
    path, _ = club
    before = everything(str(path))
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.db").symlink_to(path)
    (tmp_path / "hard.db").hardlink_to(path)
    for dst in (f"sqlite:{path}", f"sqlite://{path}", str(tmp_path / "sub" / ".." / path.name),
                str(tmp_path / "link.db"), str(tmp_path / "hard.db")):
        refused_as_the_same(str(path), dst)
    same(before, everything(str(path)))


def test_copy_refuses_one_postgresql_schema_however_it_is_written(club, postgres_url, second_schema):  # noqa: F811
    path, _ = club
    assert run_copy(str(path), postgres_url).exit_code == 0
    before = everything(postgres_url)
    assert "@127.0.0.1:" in postgres_url
    other_host = postgres_url.replace("@127.0.0.1:", "@localhost:").replace("application_name=", "application_name=x")
    refused_as_the_same(postgres_url, other_host)
    refused_as_the_same(other_host, postgres_url)
    same(before, everything(postgres_url))
    # another schema of the same database on the same server is another database
    assert run_copy(postgres_url, second_schema.replace("@127.0.0.1:", "@localhost:")).exit_code == 0
    same(before, everything(second_schema))


def test_a_sqlite_srcs_wal_files_are_empty_and_the_next_writer_removes_them(tmp_path):
    from tests.club_server import kibitz

    path = tmp_path / "club.db"
    assert kibitz("init-db", "--db", str(path)).returncode == 0  # in WAL mode, closed by its writer
    wal, shm = Path(f"{path}-wal"), Path(f"{path}-shm")
    assert not wal.exists() and not shm.exists()
    done = kibitz("copy", str(path), str(tmp_path / "copy.db"))
    assert done.returncode == 0, done.stderr
    assert wal.exists() and wal.stat().st_size == 0 and shm.exists()  # as docs/league.md says
    assert kibitz("init-db", "--db", str(path)).returncode == 0
    assert not wal.exists() and not shm.exists()
