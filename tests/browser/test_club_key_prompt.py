"""The pages' club-key prompt in a real browser (ui.md: a password input labelled **Club key**).

A ``kibitz serve --club-key-file`` of the test's own: the new-game page asks for the key once
per device, keeps it, sends it as the bearer token of ``POST /games``, and when the service
refuses it (401 ``club_key_required`` / 403 ``club_key_invalid``) shows the service's sentence
and asks again. Loaded under a non-local name (plain HTTP, not a secure context, like a club LAN).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from playwright.sync_api import expect

from tests.browser.conftest import KibitzServer

KEY = "Friday-night-club-2026"
NEW_KEY = "Saturday-night-club-2027"
NO_KEY = ("This server needs the club key to create or import a game: nothing was created. "
          "Ask whoever runs the club's server for it.")
WRONG_KEY = "That is not this server's club key: nothing was created. Check it with whoever runs the club's server."


@pytest.fixture
def keyed_server(tmp_path: Path) -> Iterator[KibitzServer]:
    key_file = tmp_path / "club.key"
    key_file.write_text(KEY + "\n")
    running = KibitzServer(tmp_path, args=("--club-key-file", str(key_file)))
    running.key_file = key_file  # type: ignore[attr-defined]
    with running:
        yield running


def fill_seats(page) -> None:
    page.get_by_label("Game", exact=True).select_option(label="Stop the Bus")
    # Every seat the form shows gets a name: an empty seat is an error the form names
    # ("Seat 3 needs a name.").
    for index, name in enumerate(["Ann", "Bob", "Cas", "Dee", "Eve", "Fay", "Gus", "Hal"], start=1):
        seat = page.get_by_label(f"Seat {index}", exact=True)
        if seat.count() == 0:
            break
        seat.fill(name)


def start_game(page) -> None:
    page.get_by_role("button", name="Start game", exact=True).click()


def games(server: KibitzServer) -> list[dict]:
    return list(requests.get(server.url("/games"), timeout=30).json()["games"])


def stored_key(page) -> str | None:
    return page.evaluate("window.localStorage.getItem('kibitz.club_key')")


def test_the_new_game_page_asks_once_and_keeps_the_key(keyed_server, page):
    page.goto(f"{keyed_server.lan_base}/")
    page.get_by_role("link", name="New game", exact=True).first.click()
    club_key = page.get_by_label("Club key", exact=True)
    expect(club_key).to_be_visible()
    assert club_key.get_attribute("type") == "password"
    fill_seats(page)

    start_game(page)  # no key typed: the service's 401 sentence, and the input asks again
    expect(page.get_by_role("alert")).to_have_text(NO_KEY)
    expect(club_key).to_be_focused()

    club_key.fill("not-the-club-key")
    start_game(page)
    expect(page.get_by_role("alert")).to_have_text(WRONG_KEY)
    expect(club_key).to_be_visible()
    expect(club_key).to_have_value("")
    assert stored_key(page) is None and page.url.endswith("/new")
    assert games(keyed_server) == []  # nothing was created

    club_key.fill(KEY)
    start_game(page)
    page.wait_for_url("**/table/*")
    assert stored_key(page) == KEY  # kept on this device
    first = page.url.rsplit("/", 1)[1]
    assert [game["id"] for game in games(keyed_server)] == [first]
    assert page.evaluate(f"window.localStorage.getItem('kibitz.token.{first}')")

    # the same device later: not asked again, the kept key is sent
    page.goto(f"{keyed_server.lan_base}/new")
    expect(page.get_by_label("Club key", exact=True)).to_be_hidden()
    fill_seats(page)
    start_game(page)
    page.wait_for_url("**/table/*")
    assert len(games(keyed_server)) == 2


def test_a_kept_key_the_server_no_longer_takes_is_asked_for_again(keyed_server, new_context):
    page = new_context().new_page()
    page.goto(f"{keyed_server.lan_base}/new")
    page.evaluate(f"window.localStorage.setItem('kibitz.club_key', {KEY!r})")
    keyed_server.stop()  # the club changes its key
    keyed_server.key_file.write_text(NEW_KEY)  # type: ignore[attr-defined]
    keyed_server.start()

    page.goto(f"{keyed_server.lan_base}/new")
    club_key = page.get_by_label("Club key", exact=True)
    expect(club_key).to_be_hidden()  # this device holds a key
    fill_seats(page)
    start_game(page)
    expect(page.get_by_role("alert")).to_have_text(WRONG_KEY)
    expect(club_key).to_be_visible()
    expect(club_key).to_be_focused()
    assert stored_key(page) is None  # the old key is forgotten
    club_key.fill(NEW_KEY)
    start_game(page)
    page.wait_for_url("**/table/*")
    assert stored_key(page) == NEW_KEY
    assert len(games(keyed_server)) == 1


def test_without_a_club_key_the_page_never_asks(server, page):
    page.goto(f"{server.lan_base}/new")
    expect(page.get_by_label("Club key", exact=True)).to_be_hidden()
    fill_seats(page)
    start_game(page)
    page.wait_for_url("**/table/*")
    assert stored_key(page) is None
