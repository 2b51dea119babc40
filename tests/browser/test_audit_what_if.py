"""Trick and turn audits in a real browser: plays, the winner and the reason in words, the
irregularity with the event that proves it; **What if…** (only with the token) opens the what-if
page, whose confirmation forks the game through ``POST …/fork`` and opens the new game's table
page with its token on this device."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.pages_checks import keep_token
from tests.browser.recorded import fool_game


def test_trick_audit_and_what_if(server, page, new_context):
    game = fool_game(server.base)
    page.goto(server.url(f"/watch/{game.id}/hands/1/tricks/1"))
    expect(page.get_by_role("heading", level=1)).to_contain_text("Trick 1 of round 1")
    expect(page.get_by_role("row", name=re.compile(r"^4th Ilja Fool Red 7"))).to_be_visible()  # no event number
    expect(page.locator(".verdict")).to_have_text("Won by Anja; lead green.")
    expect(page.locator(".reasons")).to_contain_text("Green 20 (Anja) is the highest green card")
    irregular = page.locator(".irregularities")
    expect(irregular).to_contain_text("Ilja did not follow green in trick 1 but later played Green 6 in trick 3: a revoke.")
    expect(irregular.get_by_role("link", name="the move that proves it", exact=True)).to_have_attribute(
        "href", f"/watch/{game.id}/replay?step=11")
    assert "event" not in page.locator("#view").inner_text().lower()  # issue 25: no event numbers where people read
    expect(page.get_by_role("link", name="What if…", exact=True)).to_have_count(0)  # no token on this device

    scorekeeper = new_context()
    keep_token(scorekeeper, game.id, game.token)
    mine = scorekeeper.new_page()
    mine.goto(server.url(f"/watch/{game.id}/hands/1/tricks/1"))
    expect(mine.locator("#view")).to_have_attribute("data-view", "full")  # read again with the token
    # the name stands between FSI and PDI: isolated where an <option> can hold no <bdi> (api.md, "Text people type")
    mine.get_by_label("Branch off", exact=True).select_option(label="After \u2068Uwe\u2069's Green 11")
    mine.get_by_role("link", name="What if…", exact=True).click()
    mine.wait_for_url(re.compile(rf".*/watch/{game.id}/fork\?seq=5$"))  # it asks first (issue 25)
    mine.get_by_role("button", name="Start the what-if game", exact=True).click()
    mine.wait_for_url(re.compile(r".*/table/[A-Za-z0-9]+$"))
    fork_id = mine.url.rsplit("/", 1)[1]
    fork_token = mine.evaluate(f"window.localStorage.getItem('kibitz.token.{fork_id}')")
    forked = server.get(f"/games/{fork_id}", fork_token)
    assert forked["forked_from"] == {"game": game.id, "seq": 5}
    assert forked["version"] == 5 and forked["state"]["to_act"] == ["Ilja"]


def test_turn_audit_explains_the_turn(server, page):
    from tests.browser.recorded import fuji_game

    game = fuji_game(server.base)
    page.goto(server.url(f"/watch/{game.id}/hands/1"))
    page.get_by_role("link", name=re.compile(r"^Turn 4: Gahee played 7")).click()
    expect(page.locator(".verdict")).to_have_text("Gahee played 7, joining Nami's 7 (strength 14): Jisu is flushed "
                                                  "and draws.")
    page.get_by_role("link", name="Turn 5 →", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Turn 5 of round 1")


def test_the_what_if_page_asks_before_it_forks(server, page, new_context):
    game = fool_game(server.base)
    page.goto(server.url(f"/watch/{game.id}/fork?seq=4"))
    expect(page.get_by_role("button", name="Start the what-if game", exact=True)).to_be_disabled()
    expect(page.locator("#fork-no-token")).to_be_visible()

    scorekeeper = new_context()
    keep_token(scorekeeper, game.id, game.token)
    mine = scorekeeper.new_page()
    mine.goto(server.url(f"/watch/{game.id}/fork?seq=4"))
    expect(mine.locator("#fork-page")).to_contain_text("as it stood in round 1, trick 1, just after “Bettina played Green 4.”")
    assert server.get("/games?fork=true")["games"][0]["id"] == game.id  # loading the page forked nothing
    mine.get_by_role("button", name="Start the what-if game", exact=True).click()
    mine.wait_for_url(re.compile(r".*/table/[A-Za-z0-9]+$"))
    fork_id = mine.url.rsplit("/", 1)[1]
    assert server.get(f"/games/{fork_id}")["forked_from"] == {"game": game.id, "seq": 4}
