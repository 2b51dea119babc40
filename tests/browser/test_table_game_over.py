"""When a game ends (ui.md): the table page says who won, offers the review (replay, each hand's
audit) and **Play again**: a new game through POST /games with the same seats, options and
visibility and the next dealer clockwise, its token kept on this device; on a server with a club
key the key is asked for in a password input labelled **Club key**, as the new-game page does.
The menu links to the game page, replay and the current hand's audit."""

from __future__ import annotations

import re
from pathlib import Path

import requests
from playwright.sync_api import expect

from tests.browser.conftest import KibitzServer
from tests.browser.recorded import toepen_open_game
from tests.browser.table import open_table, settle

PLAYERS = ["Ann", "Bob", "Cas"]
KEY = "Friday-night-club-2026"


def finished(server: KibitzServer) -> dict:
    """An open Toepen game played to its end through the API (its 201 body, with the token)."""
    recorder = toepen_open_game(server.base, PLAYERS, seed=7, limit=1)
    assert recorder.read()["status"] == "finished"
    return recorder.game


def created_with_key(server: KibitzServer) -> dict:
    """A Toepen game created with the club key, dealt first by Bob."""
    response = requests.post(f"{server.base}/games", json={"game": "toepen", "players": PLAYERS, "dealer": "Bob",
                                                          "options": {"limit": 1}},
                             headers={"Authorization": f"Bearer {KEY}"}, timeout=30)
    assert response.status_code == 201, response.text
    return dict(response.json())


def test_a_finished_game_offers_review_and_play_again(server, new_context):
    game = finished(server)
    final = server.get(f"/games/{game['id']}", game["token"])
    page = new_context().new_page()
    open_table(page, server, game, base=server.lan_base)
    panel = page.locator("#game-over")
    expect(panel).to_be_visible()
    winners = final["state"]["winners"]
    expect(page.locator("#game-over-result")).to_have_text(re.compile("^Winners?: " + re.escape(winners[0])))
    digits = final["record_hash"][:16]  # api.md: 16 hex digits, in four groups of four
    expect(page.locator("#game-over-fingerprint")).to_contain_text(
        "Fingerprint of the record: " + " ".join(digits[i:i + 4] for i in range(0, 16, 4)) + " (note it down")
    expect(panel.get_by_role("link", name="Replay", exact=True)).to_have_attribute("href", f"/watch/{game['id']}/replay")
    hands = final["state"]["hand_number"]
    expect(panel.get_by_role("link", name=f"Hand {hands} audit", exact=True)).to_have_attribute(
        "href", f"/watch/{game['id']}/hands/{hands}")
    page.get_by_role("button", name="Menu", exact=True).click()
    menu = page.locator("#menu")
    expect(menu.get_by_role("link", name="Game page", exact=True)).to_have_attribute("href", f"/watch/{game['id']}")
    expect(menu.get_by_role("link", name="Replay", exact=True)).to_be_visible()
    expect(menu.get_by_role("link", name=f"Audit of hand {hands}", exact=True)).to_be_visible()

    page.get_by_role("button", name="Play again", exact=True).click()
    page.wait_for_url(re.compile(r"/table/(?!" + re.escape(game["id"]) + r")[^/#]+$"))
    settle(page)
    new_id = page.url.rsplit("/", 1)[1]
    new_token = page.evaluate(f"window.localStorage.getItem('kibitz.token.{new_id}')")
    again = server.get(f"/games/{new_id}", new_token)  # the token kept on this device is this game's
    assert again["players"] == PLAYERS
    assert again["visibility"] == "open"
    assert again["options"] == final["options"]
    first = server.get(f"/games/{new_id}/events?limit=1", new_token)["events"][0]["data"]
    assert first["dealer"] == "Bob"  # the first game was dealt first by Ann: the next seat clockwise
    expect(page.get_by_role("status")).to_have_text("Deal hand 1 — dealer Bob")


def test_play_again_asks_for_the_club_key_where_the_server_has_one(tmp_path: Path, new_context):
    key_file = tmp_path / "club.key"
    key_file.write_text(KEY + "\n")
    server = KibitzServer(tmp_path, args=("--club-key-file", str(key_file)))
    server.start()
    try:
        game = created_with_key(server)
        token = {"Authorization": f"Bearer {game['token']}"}
        requests.post(f"{server.base}/games/{game['id']}/events", json={"type": "abandon", "reason": "closing time"},
                      headers=token, timeout=30)
        page = new_context().new_page()
        open_table(page, server, game, base=server.lan_base)
        expect(page.locator("#game-over-result")).to_have_text("Game abandoned: no winners, no losers.")
        page.get_by_role("button", name="Play again", exact=True).click()
        key = page.get_by_label("Club key", exact=True)
        expect(key).to_be_visible()
        assert key.get_attribute("type") == "password"
        key.fill(KEY)
        page.get_by_role("button", name="Play again", exact=True).click()
        page.wait_for_url(re.compile(r"/table/(?!" + re.escape(game["id"]) + r")[^/#]+$"))
        settle(page)
        assert page.evaluate("window.localStorage.getItem('kibitz.club_key')") == KEY
        new_id = page.url.rsplit("/", 1)[1]
        first = server.get(f"/games/{new_id}/events?limit=1")["events"][0]["data"]
        assert first["dealer"] == "Cas"  # Bob dealt first: the next seat clockwise
    finally:
        server.stop()


def test_a_name_the_service_refuses_can_be_edited_before_playing_again(server, new_context):
    """A 422 on a name (one stored before today's rules for names): the seats become fields to edit.
    The refusal is the service's answer shape (api.md); it is given by a Playwright route for the
    first POST /games only, since every name stored in this fresh database is still accepted."""
    game = finished(server)
    page = new_context().new_page()
    open_table(page, server, game, base=server.lan_base)
    refused = {"done": False}

    def first_refused(route):
        if route.request.method != "POST" or refused["done"]:
            route.continue_()
            return
        refused["done"] = True
        route.fulfill(status=422, content_type="application/problem+json", body=(
            '{"type": "about:blank", "title": "Unprocessable Content", "status": 422, "code": "validation_failed",'
            ' "detail": "The game cannot be created as sent.", "errors": {"players": ["Bob is not a name Kibitz takes'
            ' any more: it holds an invisible character."]}}'))

    page.route("**/games", first_refused)
    page.get_by_role("button", name="Play again", exact=True).click()
    note = page.locator("#again-note")
    expect(note).to_contain_text("Bob is not a name Kibitz takes any more")
    expect(note).to_contain_text("Change the names below, then Play again.")
    seat = page.get_by_label("Seat 2", exact=True)
    expect(seat).to_have_value("Bob")
    seat.fill("Bobby")
    page.get_by_role("button", name="Play again", exact=True).click()
    page.wait_for_url(re.compile(r"/table/(?!" + re.escape(game["id"]) + r")[^/#]+$"))
    settle(page)
    new_id = page.url.rsplit("/", 1)[1]
    again = server.get(f"/games/{new_id}")
    assert again["players"] == ["Ann", "Bobby", "Cas"]
    first = server.get(f"/games/{new_id}/events?limit=1")["events"][0]["data"]
    assert first["dealer"] == "Bobby"  # the seat after Ann's, under its new name
