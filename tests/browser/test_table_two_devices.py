"""Two devices record one game: If-Match on every write, a 412 reloads the board and says what changed."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.table import act, deck, expect_status, open_table, settle, tap


def test_a_stale_device_gets_the_new_board_and_what_changed(server, new_context):
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas"], options={"limit": 3})
    first = new_context().new_page()
    second = new_context().new_page()
    second.clock.install()  # the second device's periodic check stays still until the test moves it
    open_table(first, server, game)
    act(first, "Deal")
    # the second device opens the share link (the token travels in the fragment)
    open_table(second, server, game)
    expect_status(second, "Bob to play")
    tap(first, "7♥")
    deck(second, "8♥").click()  # meant for Bob by a page that has not seen 7♥ yet
    alert = second.get_by_role("alert")
    expect(alert).to_contain_text("was not recorded")
    expect(alert).to_contain_text("Bob led 7♥")
    settle(second, 3)
    expect_status(second, "Cas to play")
    tap(second, "8♥")
    plays = [(e["data"]["player"], e["data"]["card"]) for e in server.events(game) if e["type"] == "play"]
    assert plays == [("Bob", "7H"), ("Cas", "8H")]
    # the first device sees the move made elsewhere on its next check
    first.wait_for_function("document.getElementById('table').dataset.version === '4'", timeout=30_000)
    expect(first.locator("#changes")).to_contain_text("Cas played 8♥")
