"""The record's fingerprint on the game page in a real browser (docs/tamper-evidence.md): it
follows the game live, and the page's form checks a noted fingerprint and says in words
whether the record still matches, or matched as it stood at an earlier moment, named as card
players name it ("after Ann dealt in hand 1"), the event number only as small print."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.recorded import create


def test_the_fingerprint_follows_the_game_and_a_noted_one_is_checked(server, page):
    game = create(server.base, game="toepen", players=["Ann", "Bob", "Cas", "Dee"], dealer="Ann", title="Proof")
    game.post({"type": "deal"})
    page.goto(server.url(f"/watch/{game.id}"))
    noted = server.get(f"/games/{game.id}")["record_hash"][:16]
    expect(page.locator("#fingerprint .fingerprint-code")).to_have_text(_grouped(noted))
    # the moment named as card players name it; its number only as small print, the replay's step
    # (a link into it), never "event 2" (issue 25)
    expect(page.locator("#fingerprint")).to_contain_text("(after Ann dealt in hand 1 · step 2 of the replay)")
    expect(page.locator("#fingerprint small.step-number")).to_have_text("step 2 of the replay")

    game.post({"type": "play", "player": "Bob", "card": "7H"})
    now = server.get(f"/games/{game.id}")["record_hash"][:16]
    expect(page.locator("#fingerprint .fingerprint-code")).to_have_text(_grouped(now))  # live, no reload

    page.get_by_label("Check a fingerprint you noted").fill(noted.upper())
    page.get_by_role("button", name="Check").click()
    # the moment named as card players name it, its number only as small print: the replay's step (issue 25)
    expect(page.locator("#verdict")).to_have_text(
        f"The fingerprint {_grouped(noted)} matches the record as it stood after Ann dealt in hand 1: everything "
        "recorded up to then is unchanged, and 1 more entry was recorded after it was noted (the record now stands "
        "after Bob played 7♥ in hand 1, trick 1). (step 2 of the replay)")
    expect(page.locator("#verdict small.step-number")).to_have_text("(step 2 of the replay)")
    page.get_by_label("Check a fingerprint you noted").fill("0123 4567 89ab")
    page.get_by_role("button", name="Check").click()
    expect(page.locator("#verdict")).to_contain_text("matches no moment of this game's record")
    page.get_by_role("link", name="Check it").click()
    expect(page.locator("#verdict")).to_have_text(
        f"The fingerprint {_grouped(now)} matches the record as it stands now, after Bob played 7♥ in hand 1, trick 1: "
        "nothing recorded up to the moment it was noted has changed. (step 3 of the replay)")
    longer = noted[:12] + ("00" if noted[12:14] != "00" else "11")  # a noted 12 and two wrong digits more
    page.get_by_label("Check a fingerprint you noted").fill(longer)
    page.get_by_role("button", name="Check").click()
    expect(page.locator("#verdict")).to_have_text(
        f"The fingerprint {_grouped(longer)} matches no moment of this game's record: the record is not the one "
        "it was noted from (or the fingerprint was copied wrongly).")
    page.get_by_label("Check a fingerprint you noted").fill(noted[:12])  # noted before fingerprints had 16 digits
    page.get_by_role("button", name="Check").click()
    expect(page.locator("#verdict")).to_contain_text(
        f"The fingerprint {_grouped(noted[:12])} matches the record as it stood after Ann dealt in hand 1: ")


def _grouped(digits: str) -> str:
    return " ".join(digits[i:i + 4] for i in range(0, len(digits), 4))
