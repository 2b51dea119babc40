"""Exports from the pages (issue 25): the game page's **Export** menu and the home page's
download of a night's games (``GET /games/export``), in Chromium against a real
``kibitz serve``; every file downloaded imports back (``POST /games/import`` on another server,
``kibitz import`` on another database), and a game still in play shows only the public view.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import zipfile
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
import requests
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, TABLET, KibitzServer
from tests.browser.pages_checks import keep_token, small_tap_targets
from tests.browser.recorded import create, fuji_game, toepen_open_game
from tests.postgres import empty_database
from tests.serving import kibitz_command

CLUB = "Pacific/Auckland"


@pytest.fixture(scope="module")
def club_server(tmp_path_factory: pytest.TempPathFactory):
    with KibitzServer(tmp_path_factory.mktemp("exports"), args=("--timezone", CLUB)) as running:
        yield running


@pytest.fixture(scope="module")
def other_server(tmp_path_factory: pytest.TempPathFactory):
    """The club's other server, which takes what was downloaded."""
    with KibitzServer(tmp_path_factory.mktemp("other")) as running:
        yield running


def download(page, link, names: list[str] | None = None) -> bytes:
    """What clicking ``link`` downloads; the name the browser suggests is added to ``names``."""
    with page.expect_download() as info:
        link.click()
    path = info.value.path()
    assert path is not None
    if names is not None:
        names.append(info.value.suggested_filename)
    with open(path, "rb") as saved:
        return saved.read()


def import_into(server: KibitzServer, doc: dict) -> requests.Response:
    return requests.post(f"{server.base}/games/import", json=doc, timeout=30)


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["tablet", "phone"])
def test_the_game_page_exports_what_the_api_offers(club_server, other_server, new_context, viewport):
    # seed 40: nobody folds, so once the game is over its public view hides no card (a folder's
    # dead cards stay hidden for good, and a public export hiding any cannot be imported)
    finished = toepen_open_game(club_server.base, ["Ann", "Bob", "Cas"], seed=40, title="Export night")
    assert finished.read()["status"] == "finished"
    page = new_context(viewport).new_page()
    page.goto(club_server.url(f"/watch/{finished.id}"))
    menu = page.locator("#export-menu")
    menu.get_by_text("Export", exact=True).click()
    names = ["Record for import (JSON)", "Score sheet (CSV)", "Printable record (text)", "Event log (JSON lines)"]
    for name in names:
        expect(menu.get_by_role("link", name=name, exact=True)).to_be_visible()
    assert small_tap_targets(page, "#export-menu") == []

    saved: list[str] = []
    doc = json.loads(download(page, menu.get_by_role("link", name=names[0], exact=True), saved))
    assert doc["kibitz_export"] == 1 and doc["view"] == "public" and doc["game"]["id"] == finished.id
    sheet = download(page, menu.get_by_role("link", name=names[1], exact=True), saved).decode("utf-8")
    assert sheet.splitlines()[0].startswith("hand,dealer,Ann lives lost this hand")
    text = download(page, menu.get_by_role("link", name=names[2], exact=True), saved).decode("utf-8")
    assert text.startswith('[Game "toepen"]\n[Title "Export night"]')
    lines = download(page, menu.get_by_role("link", name=names[3], exact=True), saved).decode("utf-8").splitlines()
    assert json.loads(lines[0])["type"] == "game_created" and len(lines) == finished.read()["version"]
    # each file named as in a night's zip, by its start in club time, its game and its id
    started = datetime.fromisoformat(finished.read()["created_at"].replace("Z", "+00:00")).astimezone(ZoneInfo(CLUB))
    stem = f"{started:%Y-%m-%d-%H%M}-toepen-{finished.id}"
    assert saved == [f"{stem}.json", f"{stem}.csv", f"{stem}.txt", f"{stem}.jsonl"]

    # what was downloaded imports back: a finished game's public view shows every card
    imported = import_into(other_server, doc)
    assert imported.status_code == 201, imported.text
    assert imported.json()["status"] == "finished" and imported.json()["record_hash"] == finished.read()["record_hash"]


def test_with_the_token_the_game_page_exports_the_full_view(club_server, other_server, new_context):
    playing = create(club_server.base, game="toepen", players=["Ann", "Bob", "Cas"], dealer="Ann", visibility="open")
    playing.post({"type": "deal", "hands": {"Ann": ["7H", "8H", "9H", "TH"], "Bob": ["7S", "8S", "9S", "TS"],
                                            "Cas": ["7D", "8D", "9D", "TD"]}})
    playing.post({"type": "play", "player": "Bob", "card": "7S"})
    # anyone: the public view, the hands still held stay out
    page = new_context().new_page()
    page.goto(club_server.url(f"/watch/{playing.id}"))
    page.locator("#export-menu summary").click()
    expect(page.locator("#export-view")).to_be_visible()
    public = json.loads(download(page, page.get_by_role("link", name="Record for import (JSON)", exact=True)))
    assert public["view"] == "public"
    assert "hands" not in public["events"][1]["data"]
    assert "TH" not in json.dumps(public).replace(playing.id, "")  # its id may hold "TH"
    refused = import_into(other_server, public)  # a hand in play cannot be rebuilt from the public view
    assert refused.status_code == 422 and refused.json()["code"] == "import_invalid"

    # the scorekeeper's device: the same link gives every card, and that copy imports
    context = new_context()
    keep_token(context, playing.id, playing.token)
    mine = context.new_page()
    mine.goto(club_server.url(f"/watch/{playing.id}"))
    mine.locator("#export-menu summary").click()
    expect(mine.locator("#export-view-full")).to_be_visible()
    expect(mine.locator("#export-view")).to_be_hidden()
    full = json.loads(download(mine, mine.get_by_role("link", name="Record for import (JSON)", exact=True)))
    assert full["view"] == "full" and full["events"][1]["data"]["hands"]["Ann"] == ["7H", "8H", "9H", "TH"]
    copied = import_into(other_server, full)
    assert copied.status_code == 201, copied.text
    assert copied.json()["status"] == "in_progress" and copied.json()["version"] == 3


def club_day(iso: str) -> str:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone(ZoneInfo(CLUB)).date().isoformat()


def test_the_home_page_downloads_a_nights_games_that_import_back(new_context, tmp_path):
    (tmp_path / "night").mkdir()
    (tmp_path / "other").mkdir()
    with KibitzServer(tmp_path / "night", args=("--timezone", CLUB)) as server, KibitzServer(tmp_path / "other") as other:
        games = [toepen_open_game(server.base, ["Dee", "Eve", "Fay"], seed=seed, title=f"Night {seed}")
                 for seed in (41, 42)]  # finished, each with a fold: dead cards stay hidden from the public
        games.append(fuji_game(server.base))  # a table game still in play
        playing = create(server.base, game="toepen", players=["Dee", "Eve", "Fay"], dealer="Dee", visibility="open")
        playing.post({"type": "deal", "hands": {"Dee": ["7H", "8H", "9H", "TH"], "Eve": ["7S", "8S", "9S", "TS"],
                                                "Fay": ["7D", "8D", "9D", "TD"]}})
        games.append(playing)  # an open game mid-hand
        today = club_day(games[0].read()["created_at"])
        ids = {g.id for g in games}

        # anyone's device: the public view of every game
        page = new_context(PHONE).new_page()
        page.goto(server.url("/"))
        section = page.get_by_role("region", name="Download a night's games")
        expect(section.get_by_label("From", exact=True)).to_have_value(today)  # today in club time
        expect(section.get_by_label("To", exact=True)).to_have_value(today)
        assert small_tap_targets(page, "section[aria-labelledby=h-export]") == []
        bundle = zipfile.ZipFile(io.BytesIO(download(page, section.get_by_role("button", name="Download games",
                                                                               exact=True))))
        names = bundle.namelist()
        assert len(names) == 3 * len(games)
        assert {re.sub(r"\.\w+$", "", n).rsplit("-", 1)[1] for n in names} == ids
        assert all(any(n.endswith(f"-{g.id}.{ext}") for n in names) for g in games for ext in ("json", "csv", "txt"))
        public = {g.id: json.loads(bundle.read(next(n for n in names if n.endswith(f"-{g.id}.json")))) for g in games}
        assert all(doc["view"] == "public" for doc in public.values())
        assert "hands" not in public[playing.id]["events"][1]["data"] and "TH" not in json.dumps(public[playing.id]).replace(playing.id, "")

        # the scorekeeper's device, which keeps the night's tokens: every game with every card
        context = new_context()
        for game in games:
            keep_token(context, game.id, game.token)
        mine = context.new_page()
        mine.goto(server.url("/"))
        data = download(mine, mine.get_by_role("button", name="Download games", exact=True))
        bundle = zipfile.ZipFile(io.BytesIO(data))
        assert sorted(bundle.namelist()) == sorted(names)
        full = {g.id: json.loads(bundle.read(next(n for n in names if n.endswith(f"-{g.id}.json")))) for g in games}
        assert all(doc["view"] == "full" for doc in full.values())
        assert full[playing.id]["events"][1]["data"]["hands"]["Dee"] == ["7H", "8H", "9H", "TH"]

        # kibitz import takes the zip as it was downloaded, into another database
        saved = tmp_path / "night.zip"
        saved.write_bytes(data)
        done = subprocess.run([*kibitz_command(), "import", str(saved), "--db", str(tmp_path / "copy.db")],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"{len(games)} imported, 0 refused." in done.stdout
        for game in games:
            assert re.search(rf"imported {re.escape(str(saved))}:\S+-{game.id}\.json: game \S+ token \S+", done.stdout)
        # and the club's other server takes each game of it
        for game in games:
            answer = requests.post(f"{other.base}/games/import", json=full[game.id], timeout=30)
            assert answer.status_code == 201, answer.text
            assert answer.json()["record_hash"] == game.read()["record_hash"]


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_night_is_a_day_in_club_time(backend, tmp_path):
    """A night's export by its days in club time (``since``/``until``), on either backend: the
    bounds of a club's day are compared with the stored UTC times by the database's own SQL."""
    with empty_database(backend, tmp_path) as url, \
            KibitzServer(tmp_path, args=("--timezone", CLUB, "--db", url)) as club_server:
        _a_night_is_a_day_in_club_time(club_server)
        started = (tmp_path / "server.log").read_text().splitlines()[0]  # "Kibitz on … (database …)"
        assert (f"(database {tmp_path / 'kibitz.db'})" in started) == (backend == "sqlite"), started


def _a_night_is_a_day_in_club_time(club_server: KibitzServer) -> None:
    source = toepen_open_game(club_server.base, ["Gus", "Hal", "Ivy"], seed=31)
    doc = requests.get(f"{club_server.base}/games/{source.id}/export", timeout=30,
                       headers={"Authorization": f"Bearer {source.token}"}).json()
    # the same game as recorded on 4 December 2020 at 12:30 UTC: 5 December, 01:30 in Auckland (NZDT)
    del doc["game"]["id"]
    for n, event in enumerate(doc["events"]):
        event.pop("hash"), event.pop("salt")
        event["recorded_at"] = f"2020-12-04T12:30:{n % 60:02d}.000Z"
    imported = requests.post(f"{club_server.base}/games/import", json=doc, timeout=30)
    assert imported.status_code == 201, imported.text
    night = imported.json()["id"]

    def zipped(since: str, until: str) -> list[str]:
        answer = requests.get(f"{club_server.base}/games/export?since={since}&until={until}", timeout=30)
        assert answer.status_code == 200, answer.text
        assert answer.headers["Content-Type"] == "application/zip"
        assert answer.headers["Content-Disposition"].startswith('attachment; filename="kibitz-games-')
        return zipfile.ZipFile(io.BytesIO(answer.content)).namelist()

    assert zipped("2020-12-05", "2020-12-05") == [f"2020-12-05-0130-toepen-{night}.{ext}" for ext in ("json", "csv", "txt")]
    assert zipped("2020-12-04", "2020-12-04") == []  # its UTC day is not the club's
    assert zipped("2020-12-01", "2020-12-06") == zipped("2020-12-05", "2020-12-05")

    for query, field in (("since=2026-12-32", "since"), ("until=yesterday", "until"),
                         ("since=2026-12-06&until=2026-12-05", "since")):
        answer = requests.get(f"{club_server.base}/games/export?{query}", timeout=30)
        assert answer.status_code == 422 and answer.json()["code"] == "validation_failed", answer.text
        assert field in answer.json()["errors"]
    for body in ({"since": "2026-12-32"}, {"until": 5}, {"tokens": "abc"}, {"tokens": [""]}, {"colour": "red"},
                 {"since": "2026-12-06", "until": "2026-12-05"}, [1]):
        answer = requests.post(f"{club_server.base}/games/export", json=body, timeout=30)
        assert answer.status_code == 422 and answer.json()["code"] == "validation_failed", (body, answer.text)
    # a token opens its own game only; a stranger's token, or one of no game, is no error
    answer = requests.post(f"{club_server.base}/games/export", timeout=30,
                           json={"since": "2020-12-05", "until": "2020-12-05", "tokens": [source.token, "x" * 40]})
    assert answer.status_code == 200, answer.text
    bundle = zipfile.ZipFile(io.BytesIO(answer.content))
    assert json.loads(bundle.read(f"2020-12-05-0130-toepen-{night}.json"))["view"] == "public"
    answer = requests.post(f"{club_server.base}/games/export", timeout=30,
                           json={"since": "2020-12-05", "until": "2020-12-05", "tokens": [imported.json()["token"]]})
    bundle = zipfile.ZipFile(io.BytesIO(answer.content))
    assert json.loads(bundle.read(f"2020-12-05-0130-toepen-{night}.json"))["view"] == "full"
