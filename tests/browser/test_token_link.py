"""A lost or revoked token replaced with ``kibitz token``, in a real browser: the printed share
link opens the table page with the new token, which records; a revoked token stops working."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.table import act, open_table, settle, status, version
from tests.club_server import kibitz


def new_link(server, game_id: str, *args: str) -> str:
    done = kibitz("token", game_id, "--db", str(server.db), "--url", server.lan_base, "--no-qr", *args)
    assert done.returncode == 0, done.stderr
    found = re.search(r"^Share link \(opens the table page with the token\): (\S+)$", done.stdout, re.M)
    assert found, done.stdout
    return found.group(1)


def test_a_revoked_device_is_told_and_the_new_link_records(server, new_context):
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas"])
    old_device = new_context().new_page()
    open_table(old_device, server, game, base=server.lan_base)
    expect(old_device.get_by_role("button", name="Deal", exact=True)).to_be_enabled()

    link = new_link(server, game["id"], "--revoke")
    assert link.startswith(f"{server.lan_base}/table/{game['id']}#token=")

    old_device.reload()  # the old token is refused: the page says so and forgets it
    expect(status(old_device)).to_have_text(re.compile("or it was revoked: whoever runs the club's server can issue "
                                                       r"a new one \(kibitz token\)"))
    assert old_device.evaluate(f"window.localStorage.getItem('kibitz.token.{game['id']}')") is None

    new_device = new_context().new_page()
    new_device.goto(link)
    settle(new_device)
    assert "#token" not in new_device.url
    act(new_device, "Deal")
    assert version(new_device) == 2
    assert server.get(f"/games/{game['id']}")["version"] == 2


def test_a_second_token_records_beside_the_first(server, new_context):
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas"])
    first = new_context().new_page()
    open_table(first, server, game, base=server.lan_base)
    second = new_context().new_page()
    second.goto(new_link(server, game["id"]))
    settle(second)
    act(second, "Deal")
    first.reload()
    settle(first, 2)
    expect(first.get_by_role("button", name="Undo: Ann dealt", exact=False)).to_be_enabled()
