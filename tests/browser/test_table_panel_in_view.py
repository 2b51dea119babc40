"""A multi-card action's panel stays readable (issue 25): a fresh user, Stop the Bus on a 390×844
phone with five seats, opened Ann's swap, took Q♠ from the Centre and scrolled down to the clubs to
give one: the panel's heading ("Ann swaps: tap the card taken from the centre, then the card given",
and what was chosen) scrolled under the sticky status bar. Now, scrolled past, the panel stays just
under the bar (docs/table-page.md, "Nothing moves under a finger"): its heading and Confirm are in
view, the card tapped is the card recorded.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.browser.conftest import PHONE
from tests.browser.table import open_table, settle, version

#: the sticky bar's foot, the panel's heading and Confirm (viewport coordinates), the page's scroll
PLACES = """() => { const box = id => document.getElementById(id).getBoundingClientRect();
  return {bar: document.querySelector('.topbar').getBoundingClientRect().bottom, title: box('compose-title').top,
          titleBottom: box('compose-title').bottom, confirm: box('compose-confirm').bottom,
          height: window.innerHeight, scrolled: window.scrollY}; }"""


def middle(locator: Any) -> tuple[float, float]:
    found = locator.bounding_box()
    assert found is not None
    return found["x"] + found["width"] / 2, found["y"] + found["height"] / 2


def test_a_swap_panels_heading_stays_under_the_bar_when_the_deck_is_scrolled_to(server, new_context):
    game = server.create(game="stop_the_bus", players=["Ann", "Bob", "Cas", "Dee", "Eve"], dealer="Eve")
    server.post(game, {"type": "deal", "centre": ["QS", "4H", "9D"]})
    page = new_context(viewport=PHONE).new_page()
    open_table(page, server, game, base=server.lan_base)
    page.get_by_role("button", name="Swap: Ann", exact=True).click()
    page.get_by_role("group", name="Centre", exact=True).get_by_role("button", name="Q♠", exact=True).click()
    expect(page.locator("#compose")).to_contain_text("Take from the centre (1/1)")
    # a finger scrolls the page down to the clubs, the deck's last rows, and the score sheet's top
    page.mouse.move(200, 600)
    page.mouse.wheel(0, 300)
    page.wait_for_function("() => window.scrollY > 250")
    page.wait_for_timeout(200)
    seen = page.evaluate(PLACES)
    assert seen["scrolled"] > 0, seen
    assert seen["title"] >= seen["bar"] - 1, seen  # the heading is not under the sticky bar
    assert seen["confirm"] <= seen["height"], seen
    expect(page.locator("#compose-title")).to_be_in_viewport(ratio=1)
    card = page.locator('#deck button[data-card="2C"]')
    where = middle(card)
    assert page.evaluate("([x, y]) => document.elementFromPoint(x, y).closest('button')?.dataset.card", list(where)) == "2C"
    page.mouse.click(*where)
    expect(page.locator("#compose")).to_contain_text("Give (1/1)")
    shown = version(page)
    page.mouse.click(*middle(page.get_by_role("button", name="Confirm", exact=True)))
    settle(page, shown + 1)
    swap = server.events(game)[-1]
    assert swap["type"] == "swap" and swap["data"] == {"player": "Ann", "take": "QS", "give": "2C"}, swap
