"""Club time (issue 25): the pages show times in the club's zone, not in UTC.

A real ``kibitz serve --timezone Pacific/Auckland`` and Chromium with Playwright's
``timezone_id``: without script a page shows the club's time (the server's rendering), with
script the device's own zone (``static/kibitz.js``); the API and every export keep UTC; a zone
that is not one is refused in one sentence, by ``kibitz serve`` and by ``wsgi.py``'s
``$KIBITZ_TIMEZONE`` alike.
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import requests
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, KibitzServer
from tests.browser.recorded import fool_game, toepen_open_game
from tests.serving import kibitz_command

CLUB = "Pacific/Auckland"
DEVICE = "America/New_York"
ROOT = Path(__file__).resolve().parents[2]


def shown(iso: str, zone: str, fmt: str = "%Y-%m-%d %H:%M %Z") -> str:
    """``iso`` as the pages write it in ``zone``: a start time with the zone's name after it
    ("2026-12-05 19:42 NZDT": club time says which zone it is in, issue 25)."""
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone(ZoneInfo(zone)).strftime(fmt)


@pytest.fixture(scope="module")
def club_server(tmp_path_factory: pytest.TempPathFactory):
    with KibitzServer(tmp_path_factory.mktemp("clubtime"), args=("--timezone", CLUB)) as running:
        yield running


@pytest.fixture(scope="module")
def games(club_server):
    return {"fool": fool_game(club_server.base),
            "toepen": toepen_open_game(club_server.base, ["Ann", "Bob", "Cas"], seed=3, title="Late night")}


def texts(page, selector: str) -> list[str]:
    return [text.strip() for text in page.locator(selector).all_inner_texts()]


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["tablet", "phone"])
def test_without_script_the_pages_show_club_time(club_server, games, new_context, viewport):
    fool = games["fool"].read()
    # the device is in New York, but without script only the server's club time can be shown
    page = new_context(viewport, timezone_id=DEVICE, java_script_enabled=False).new_page()
    page.goto(club_server.url("/"))
    item = page.locator(f"li[data-game-id='{fool['id']}'] time")
    expect(item).to_have_text(shown(fool["created_at"], CLUB))
    expect(item).to_have_attribute("datetime", fool["created_at"])  # the machine-readable time stays UTC
    expect(item).to_have_attribute("title", f"{CLUB}, UTC+{shown(fool['created_at'], CLUB, '%z')[1:3]}:00")
    assert item.inner_text().endswith((" NZDT", " NZST")), item.inner_text()  # the zone is named
    assert "UTC" not in page.locator("main").inner_text()
    log = (club_server.folder / "server.log").read_text()
    assert "Times on the pages in club time, Pacific/Auckland, UTC+1" in log

    page.goto(club_server.url(f"/watch/{fool['id']}"))
    expect(page.locator(".meta time")).to_have_text(shown(fool["created_at"], CLUB))
    assert "UTC" not in page.locator("main").inner_text()

    plays = games["fool"].read("/hands/1/tricks/1")["plays"]
    page.goto(club_server.url(f"/watch/{fool['id']}/hands/1/tricks/1"))
    expect(page.get_by_role("columnheader", name="Time", exact=True)).to_be_visible()
    # each play's time names its zone, as every other time on the pages does ("08:42:05 NZDT", issue 25)
    assert texts(page, ".plays-table tbody time") == [shown(p["recorded_at"], CLUB, "%H:%M:%S %Z") for p in plays]
    assert all(text.endswith((" NZDT", " NZST")) for text in texts(page, ".plays-table tbody time"))
    assert "UTC" not in page.locator("main").inner_text()

    ann = club_server.get("/players/Ann")["games"][0]
    page.goto(club_server.url("/people/Ann"))
    expect(page.locator(".recent time").first).to_have_text(shown(ann["date"], CLUB))
    option = page.locator("#chart-game option").first
    expect(option).to_have_text(f"{shown(ann['date'], CLUB, '%Y-%m-%d %H:%M')} · Toepen · \u2068Late night\u2069 · "
                                f"{ann['result']} ({ann['score']} {'life lost' if ann['score'] == 1 else 'lives lost'})")


def test_with_script_the_pages_show_the_devices_zone(club_server, games, new_context):
    fool = games["fool"].read()
    page = new_context(timezone_id=DEVICE).new_page()
    page.goto(club_server.url("/"))
    item = page.locator(f"li[data-game-id='{fool['id']}'] time")
    expect(item).to_have_text(shown(fool["created_at"], DEVICE))  # "… EST": the device's zone named
    expect(item).to_have_attribute("data-zone", DEVICE)
    assert shown(fool["created_at"], DEVICE) != shown(fool["created_at"], CLUB)

    plays = games["fool"].read("/hands/1/tricks/1")["plays"]
    page.goto(club_server.url(f"/watch/{fool['id']}/hands/1/tricks/1"))
    expect(page.locator(".plays-table tbody time").first).to_have_text(shown(plays[0]["recorded_at"], DEVICE, "%H:%M:%S %Z"))
    assert texts(page, ".plays-table tbody time") == [shown(p["recorded_at"], DEVICE, "%H:%M:%S %Z") for p in plays]

    # the game page's live board is swapped in by script: its times follow the device too
    page.goto(club_server.url(f"/watch/{fool['id']}"))
    expect(page.locator(".meta time")).to_have_text(shown(fool["created_at"], DEVICE))

    # "Scores over a game" names each game by its time in the device's zone and its result (issue 25:
    # "2026-12-05 · Fuji Flush" three times), the script's rewrite of the time keeping the result
    recorded = club_server.get("/players/Ann")["games"]
    page.goto(club_server.url("/people/Ann"))
    options = page.locator("#chart-game option")
    expect(options.first).to_contain_text(shown(recorded[0]["date"], DEVICE, "%Y-%m-%d %H:%M") + " · Toepen")
    words = {"won": "won", "lost": "lost", "in_progress": "in progress"}
    assert recorded and options.count() == len(recorded)
    for option, ann in zip(options.all(), recorded, strict=True):
        text = option.inner_text()
        assert text.startswith(shown(ann["date"], DEVICE, "%Y-%m-%d %H:%M") + " · "), text
        assert f" · {words[ann['result']]}" in text, (text, ann)
    assert len(set(options.all_inner_texts())) == len(recorded)  # no two options read alike

    # a device in the club's own zone reads what the server wrote
    same = new_context(timezone_id=CLUB).new_page()
    same.goto(club_server.url(f"/watch/{fool['id']}"))
    expect(same.locator(".meta time")).to_have_text(shown(fool["created_at"], CLUB))


def test_without_a_timezone_option_club_time_is_the_servers_own_zone(tmp_path, new_context):
    """No ``--timezone`` and no ``$KIBITZ_TIMEZONE``: the pages show the zone of the computer
    ``kibitz serve`` runs on (``$TZ`` here, as a club's machine set to Tokyo would have it)."""
    env = {key: value for key, value in os.environ.items() if key != "KIBITZ_TIMEZONE"}
    env["TZ"] = "Asia/Tokyo"  # never UTC+0 and no summer time: a UTC page cannot pass for it
    with KibitzServer(tmp_path, env=env) as tokyo:
        made = requests.post(f"{tokyo.base}/games", json={"game": "toepen", "players": ["Ann", "Bob", "Cas"]},
                             timeout=10).json()
        created = requests.get(f"{tokyo.base}/games/{made['id']}", timeout=10).json()["created_at"]
        assert created.endswith("Z")  # the API keeps UTC
        assert "Times on the pages in club time, Asia/Tokyo, UTC+09:00" in (tmp_path / "server.log").read_text()
        page = new_context(timezone_id=DEVICE, java_script_enabled=False).new_page()  # the server's rendering
        for path, where in (("/", f"li[data-game-id='{made['id']}'] time"), (f"/watch/{made['id']}", ".meta time")):
            page.goto(tokyo.url(path))
            expect(page.locator(where)).to_have_text(shown(created, "Asia/Tokyo"))  # "… JST"
            assert page.locator(where).inner_text().endswith(" JST")
            assert "UTC" not in page.locator("main").inner_text()


def test_the_api_and_exports_keep_utc(club_server, games):
    fool = games["fool"]
    body = fool.read()
    assert body["created_at"].endswith("Z")
    doc = requests.get(f"{club_server.base}/games/{fool.id}/export?format=json", timeout=30).json()
    assert doc["game"]["created_at"] == body["created_at"]
    assert all(event["recorded_at"].endswith("Z") for event in doc["events"])
    text = requests.get(f"{club_server.base}/games/{fool.id}/export?format=text", timeout=30).text
    assert f'[Date "{body["created_at"]}"]' in text


def test_a_zone_that_is_not_one_is_refused_in_one_sentence(tmp_path):
    done = subprocess.run([*kibitz_command(), "serve", "--timezone", "Europe/Londn", "--db", str(tmp_path / "k.db"),
                           "--port", "0"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert lines == ["Error: The time zone 'Europe/Londn' is unknown: give an IANA name such as Europe/London, "
                     "America/New_York or UTC (timedatectl list-timezones lists them)."]
    assert not (tmp_path / "k.db").exists()  # refused before anything was created


def test_wsgi_takes_the_zone_from_the_environment(tmp_path):
    code = "import wsgi; print(wsgi.app.config['TIMEZONE'].key)"
    env = {**os.environ, "KIBITZ_DB": str(tmp_path / "w.db"), "KIBITZ_TIMEZONE": "Europe/London"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Europe/London"
    env["KIBITZ_TIMEZONE"] = "Nowhere/Atall"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "The time zone 'Nowhere/Atall' is unknown: give an IANA name such as Europe/London" in done.stderr
