"""docs/league.md "Moving a club's history": after ``kibitz copy SRC DST`` the game's tokens
work on DST through the API, but a tablet keeps its tokens per server address, so the table
page opened at DST's server says the device does not hold the token; ``kibitz token GAME --db
DST --url <DST's address>`` gives a link that records there, and so does the old device's
token under the new address."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.conftest import KibitzServer
from tests.browser.table import act, open_table, settle
from tests.club_server import kibitz


def test_a_tablet_at_the_new_address_needs_a_new_link(own_server, new_context, tmp_path):
    game = own_server.create(game="toepen", players=["Ann", "Bob", "Cas"])
    page = new_context().new_page()
    open_table(page, own_server, game)  # the tablet holds the token at SRC's address
    expect(page.get_by_role("button", name="Deal", exact=True)).to_be_enabled()

    (tmp_path / "moved").mkdir()
    moved = KibitzServer(tmp_path / "moved")
    copied = kibitz("copy", str(own_server.db), str(moved.db))
    assert copied.returncode == 0, copied.stdout + copied.stderr
    moved.start()
    try:
        assert moved.get(f"/games/{game['id']}", game["token"])["version"] == 1  # the API takes the old token

        page.goto(f"{moved.base}/table/{game['id']}")  # the same tablet, DST's server at another address
        settle(page)
        expect(page.locator("#no-token")).to_be_visible()
        expect(page.locator("#no-token")).to_contain_text(
            "This device does not hold the scorekeeper's token for this game")

        done = kibitz("token", game["id"], "--db", str(moved.db), "--url", moved.base, "--no-qr")
        assert done.returncode == 0, done.stderr
        [link] = [line.split(": ", 1)[1] for line in done.stdout.splitlines() if line.startswith("Share link")]
        assert link.startswith(f"{moved.base}/table/{game['id']}#token=")
        page.goto(f"{moved.base}/")
        page.goto(link)
        settle(page)
        expect(page.locator("#no-token")).to_be_hidden()
        act(page, "Deal")
        assert moved.get(f"/games/{game['id']}")["version"] == 2

        other = new_context().new_page()  # another device, with the old token under the new address
        other.goto(f"{moved.base}/table/{game['id']}#token={game['token']}")
        settle(other)
        expect(other.locator("#no-token")).to_be_hidden()
    finally:
        moved.stop()
