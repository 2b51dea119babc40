"""The replay page in a real browser: Previous step / Next step, the Step slider and the
arrow keys show the state as it was after each event (the API's ``states/<seq>``); an undone
move is shown as such; the public view hides an open game's hands, the token shows them."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.pages_checks import keep_token
from tests.browser.recorded import create, toepen_table_game

OPEN_DEAL = {"type": "deal", "hands": {"Ann": ["TH", "9C", "JD", "QS"], "Bob": ["7H", "8C", "AD", "KS"],
                                       "Cas": ["JH", "8H", "TC", "9S"], "Dee": ["AH", "7C", "8D", "TS"]}}


def test_stepping_forwards_and_back(server, page):
    game = toepen_table_game(server.base)  # events: 1 created, 2 deal, 3-6 trick 1, 7 TC, 8 undo, 9 TD, 10 knock, 11 fold
    page.goto(server.url(f"/watch/{game.id}/replay"))
    step = page.get_by_label("Step", exact=True)
    title = page.locator("#replay-board .step-title")
    expect(step).to_have_value("11")
    expect(title).to_contain_text("Step 11")
    expect(page.get_by_role("button", name="Next step", exact=True)).to_be_disabled()

    page.get_by_role("button", name="Previous step", exact=True).click()
    expect(title).to_contain_text("Step 10")
    expect(step).to_have_value("10")
    page.get_by_role("button", name="Previous step", exact=True).click()
    page.get_by_role("button", name="Previous step", exact=True).click()
    page.get_by_role("button", name="Previous step", exact=True).click()
    expect(title).to_contain_text("Step 7")
    # the mistaken card (undone at step 8) is shown as undone, and the board as it was then
    expect(page.locator("#replay-board .undone-note")).to_have_text(
        "This play was undone later: it does not count, but the record keeps it.")
    expect(page.locator("#replay-board .plays")).to_contain_text("Cas 10♣")
    expect(page.locator("#steps-list li.undone .undone-tag")).to_have_text("undone")
    expect(page.locator("#steps-list")).to_contain_text("Undone (it was the ten of diamonds): Cas played 10♣.")
    assert "event" not in page.locator("#replay").inner_text().lower()  # issue 25: steps, not event numbers

    page.get_by_role("button", name="Next step", exact=True).click()
    expect(title).to_contain_text("Step 8")
    on_table = page.locator("#replay-board .on-table")
    expect(on_table).to_contain_text("Last trick: trick 1")  # the undo took 10♣ back: trick 2 not begun
    expect(on_table).not_to_contain_text("10♣")

    step.fill("3")
    expect(title).to_contain_text("Step 3 · Hand 1, trick 1: Bob led 7♥ to trick 1.")
    expect(page.locator("#replay-board #headline, #replay-board .headline")).to_have_text("Cas to play")
    page.locator("body").press("ArrowRight")
    expect(title).to_contain_text("Step 4")
    expect(page).to_have_url(server.url(f"/watch/{game.id}/replay?step=4"))
    page.reload()
    expect(title).to_contain_text("Step 4")

    page.get_by_role("link", name="1 Toepen for Ann, Bob, Cas and Dee", exact=False).click()
    expect(title).to_contain_text("Step 1")
    expect(page.get_by_role("button", name="Previous step", exact=True)).to_be_disabled()


def test_the_public_view_hides_open_hands_and_the_token_shows_them(server, page, new_context):
    game = create(server.base, game="toepen", players=["Ann", "Bob", "Cas", "Dee"], visibility="open", dealer="Ann")
    game.post(OPEN_DEAL)
    game.post({"type": "play", "player": "Bob", "card": "7H"})
    page.goto(server.url(f"/watch/{game.id}/replay?step=2"))
    seats = page.locator("#replay-board .seats-table")
    expect(seats).to_contain_text("4 in hand")
    expect(seats).not_to_contain_text("10♥")

    scorekeeper = new_context()
    keep_token(scorekeeper, game.id, game.token)
    full = scorekeeper.new_page()
    full.goto(server.url(f"/watch/{game.id}/replay?step=2"))
    expect(full.locator("#replay-board .seats-table")).to_contain_text("10♥")
    expect(full.locator("#view-note")).to_contain_text("full view")
    full.get_by_role("button", name="Next step", exact=True).click()
    expect(full.locator("#replay-board .step-title")).to_contain_text("Step 3 · Hand 1, trick 1: Bob led 7♥")
    expect(full.locator("#replay-board .seats-table")).to_contain_text("10♥")
