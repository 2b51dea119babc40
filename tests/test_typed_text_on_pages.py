"""Pages show every typed text isolated (``<bdi>``) and every stored name has a player page
(api.md, "Text people type"; docs/text-and-headers.md): a right-to-left name, or an override
stored before the text rules, never reorders the words around it; names with ``/``, ``..``,
``.`` or ``~`` have addresses that the service reads back as the same name, over the test
client and over real HTTP (whose clients fold ``..`` path steps away)."""

from __future__ import annotations

import html as htmllib
import json
import re
from urllib.parse import quote

import pytest
import requests

from service.storage import sqlite as store
from tests.conftest import create, rechain
from tests.serving import serving

RTL = "\u05d0\u05d1\u05d9"  # Avi, in Hebrew
ODD = ["A/B", "..", ".", "~x", "a/../b", "%2F", "Ann"]


def _body(page: str) -> str:
    """The page without its <title> and scripts (where markup cannot go)."""
    page = re.sub(r"<title>.*?</title>", "", page, flags=re.S)
    return re.sub(r"<script.*?</script>", "", page, flags=re.S)


def _all_isolated(page: str, text: str) -> int:
    """How often ``text`` is on the page; fails if once outside a ``<bdi>``."""
    body = _body(page)
    escaped = htmllib.escape(text, quote=False)
    outside = re.sub("<bdi>.*?</bdi>|\u2068.*?\u2069", "", body, flags=re.S)  # FSI … PDI in an <option>
    assert escaped not in outside, (text, [outside[max(0, m.start() - 80):m.end() + 20]
                                           for m in re.finditer(re.escape(escaped), outside)])
    return body.count(escaped)


def test_names_titles_and_notes_are_isolated_on_every_page(client):
    game = create(client, players=["Ann", RTL, "Cas"], title="Shabbat " + RTL, visibility="open")
    deal = {"type": "deal", "dealer": "Ann", "hands": {"Ann": ["TH", "9C", "JD", "QS"], RTL: ["7H", "8C", "AD", "KS"],
                                                        "Cas": ["JH", "8H", "TC", "9S"]}}
    assert game.post(deal).status_code == 201
    assert game.post({"type": "play", "player": RTL, "card": "7H"}).status_code == 201
    assert game.post({"type": "note", "text": "noted " + RTL, "player": RTL}).status_code == 201
    assert game.post({"type": "play", "player": "Cas", "card": "JH"}).status_code == 201
    assert game.post({"type": "play", "player": "Ann", "card": "TH"}).status_code == 201
    pages = [f"/watch/{game.id}", f"/watch/{game.id}/board", f"/watch/{game.id}/replay",
             f"/watch/{game.id}/replay?step=3", f"/watch/{game.id}/replay/timeline", f"/watch/{game.id}/hands/1",
             f"/watch/{game.id}/hands/1/tricks/1", f"/watch/{game.id}/fork?seq=3", "/", "/people", "/club",
             f"/table/{game.id}", f"/people/{quote(RTL)}"]
    for path in pages:
        for headers in ({}, game.auth):
            response = client.get(path, headers=headers)
            assert response.status_code == 200, path
            page = response.get_data(as_text=True)
            found = _all_isolated(page, RTL) + _all_isolated(page, "Shabbat " + RTL)
            assert found, path


def test_an_override_stored_before_the_rules_stays_inside_its_isolate(client, db_path):
    game = create(client, players=["Ann", "Bob", "Cas"])
    stored = ["Ann", "Bob\u202e", "Cas"]
    db = store.connect(str(db_path))
    with db.conn:
        db.execute("DROP TRIGGER events_no_update")
        db.execute("UPDATE games SET players = ?, title = ? WHERE id = ?", [json.dumps(stored), "Old\u202e", game.id])
        db.execute("UPDATE events SET data = json_set(data, '$.players', json(?), '$.title', ?) "
                   "WHERE game_id = ? AND seq = 1", [json.dumps(stored), "Old\u202e", game.id])
        rechain(db, game.id)  # stored so by an older Kibitz: its chain computed from what it stored
    client.application.extensions["kibitz_cache"].clear()
    assert game.post({"type": "deal"}).status_code == 201
    assert game.post({"type": "play", "player": "Bob\u202e", "card": "TH"}).status_code == 201
    for path in (f"/watch/{game.id}", f"/watch/{game.id}/replay", f"/watch/{game.id}/hands/1", f"/table/{game.id}"):
        page = client.get(path).get_data(as_text=True)
        assert _all_isolated(page, "Bob\u202e") + _all_isolated(page, "Old\u202e"), path


def _games_with(client, names):
    for name in names:
        create(client, players=[name, "Zed", "Yan"])


def test_every_name_has_a_player_page_and_a_record(client):
    _games_with(client, ODD)
    people = client.get("/people").get_data(as_text=True)
    links = dict((htmllib.unescape(name), href) for href, name in
                 re.findall(r'href="(/people/[^"]*)"><bdi>(.*?)</bdi>', people))
    assert set(ODD) <= set(links), links
    for name in ODD:
        href = links[name]
        assert "/." not in href.replace("/~d.", "") and href.count("/") == 2, href  # one segment, no dot step
        page = client.get(href)
        assert page.status_code == 200, (name, href)
        assert f"<h1><bdi>{htmllib.escape(name, quote=False)}</bdi></h1>" in page.get_data(as_text=True)
        api = client.get(href.replace("/people/", "/players/", 1))
        assert api.status_code == 200 and api.get_json()["name"] == name, (name, href)
        csv = client.get(href.replace("/people/", "/players/", 1) + "/games?format=csv")
        assert csv.status_code == 200, href
    assert links["A/B"] == "/people/A~sB" and links[".."] == "/people/~d.." and links["~x"] == "/people/~~x"
    assert links["Ann"] == "/people/Ann"


@pytest.mark.parametrize("path", ["/people/~q", "/people/~d", "/people/~dx", "/players/~", "/players/x~"])
def test_a_broken_escape_is_no_page(client, path):
    assert client.get(path).status_code == 404


def test_odd_names_over_real_http(tmp_path):
    with serving(tmp_path) as base:
        for name in ("..", "A/B"):
            assert requests.post(f"{base}/games", json={"game": "toepen", "players": [name, "Zed", "Yan"]},
                                 timeout=30).status_code == 201
        people = requests.get(f"{base}/people", timeout=30).text
        for name, href in (("..", "/people/~d.."), ("A/B", "/people/A~sB")):
            assert f'href="{href}"' in people
            assert requests.get(base + href, timeout=30).status_code == 200
            record = requests.get(base + href.replace("/people/", "/players/"), timeout=30)
            assert record.status_code == 200 and record.json()["name"] == name
