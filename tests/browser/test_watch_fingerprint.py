"""The record's fingerprint on the game page in a real browser (docs/tamper-evidence.md): it
follows the game live, and the page's form checks a noted fingerprint and says in words
whether the record still matches, or matched as it stood after an earlier event."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.recorded import create


def test_the_fingerprint_follows_the_game_and_a_noted_one_is_checked(server, page):
    game = create(server.base, game="toepen", players=["Ann", "Bob", "Cas", "Dee"], dealer="Ann", title="Proof")
    game.post({"type": "deal"})
    page.goto(server.url(f"/watch/{game.id}"))
    noted = server.get(f"/games/{game.id}")["record_hash"][:12]
    expect(page.locator("#fingerprint .fingerprint-code")).to_have_text(noted)
    expect(page.locator("#fingerprint")).to_contain_text("(after event 2)")

    game.post({"type": "play", "player": "Bob", "card": "7H"})
    now = server.get(f"/games/{game.id}")["record_hash"][:12]
    expect(page.locator("#fingerprint .fingerprint-code")).to_have_text(now, timeout=5000)  # live, no reload

    page.get_by_label("Check a fingerprint you noted").fill(noted.upper())
    page.get_by_role("button", name="Check").click()
    expect(page.locator("#verdict")).to_have_text(
        f"The fingerprint {noted} matches the record as it stood after event 2: events 1 to 2 are unchanged, "
        "and event 3 was recorded after it was noted.")
    page.get_by_label("Check a fingerprint you noted").fill("0123 4567 89ab")
    page.get_by_role("button", name="Check").click()
    expect(page.locator("#verdict")).to_contain_text("matches no moment of this game's record")
    page.get_by_role("link", name="Check it").click()
    expect(page.locator("#verdict")).to_contain_text(f"The fingerprint {now} matches the record as it stands now")
