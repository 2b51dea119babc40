"""Where the pages live (ui.md): a landscape tablet and a portrait phone, no sideways scrolling,
every tap target at least 44×44 CSS pixels."""

from __future__ import annotations

import pytest

from tests.browser.conftest import PHONE, TABLET
from tests.browser.table import act, open_table

MEASURE = """() => {
  const small = [];
  for (const el of document.querySelectorAll('button, a[href], input, select, textarea, summary')) {
    let target = el;
    if (el.type === 'radio' || el.type === 'checkbox') {
      target = el.closest('label') || document.querySelector('label[for="' + el.id + '"]') || el;
    }
    const box = target.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) { continue; }   // not shown
    if (box.width < 44 || box.height < 44) {
      const name = (el.getAttribute('aria-label') || el.innerText || el.value || el.id || '').trim();
      small.push(el.tagName + ' "' + name + '" ' + Math.round(box.width) + 'x' + Math.round(box.height));
    }
  }
  return {small: small, scroll: document.documentElement.scrollWidth, width: window.innerWidth};
}"""

GAMES = {
    "toepen": {"players": ["Ann", "Bob", "Cas", "Dee"], "options": {"limit": 10}},
    "fool": {"players": ["Ann", "Bob", "Cas", "Dee", "Eve"]},
    "fuji_flush": {"players": ["Ann", "Bob", "Cas", "Dee"]},
    "stop_the_bus": {"players": ["Ann", "Bob", "Cas", "Dee"], "options": {"swap_all": True}},
}


def check(page, where: str) -> None:
    measured = page.evaluate(MEASURE)
    assert measured["scroll"] <= measured["width"], f"{where}: sideways scrolling ({measured})"
    assert measured["small"] == [], f"{where}: tap targets under 44x44: {measured['small']}"


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["tablet", "phone"])
def test_home_and_new_game(server, new_context, viewport):
    page = new_context(viewport).new_page()
    server.create(game="toepen", players=["Ann", "Bob", "Cas"], title="Friday club")
    page.goto(server.url("/"))
    check(page, "home")
    page.goto(server.url("/new"))
    for name in ("Toepen", "Fool!", "Fuji Flush", "Stop the Bus"):
        page.get_by_label("Game", exact=True).select_option(label=name)
        check(page, f"new game: {name}")


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["tablet", "phone"])
@pytest.mark.parametrize("kind", list(GAMES))
def test_table_page(server, new_context, viewport, kind):
    page = new_context(viewport).new_page()
    game = server.create(game=kind, **GAMES[kind])
    open_table(page, server, game)
    check(page, f"{kind} before the deal")
    if kind == "stop_the_bus":
        page.get_by_role("button", name="Deal", exact=True).click()
        check(page, f"{kind} choosing the centre")
        deck = page.get_by_role("group", name="Deck", exact=True)
        for card in ("2♥", "3♥", "4♥"):
            deck.get_by_role("button", name=card, exact=True).click()
        before = page.locator("#table").get_attribute("data-version")
        page.get_by_role("button", name="Confirm", exact=True).click()
        page.wait_for_function(f"document.getElementById('table').dataset.version !== '{before}'")
        page.get_by_role("button", name="Swap: Bob", exact=True).click()
        check(page, f"{kind} swapping")
    else:
        act(page, "Deal")
    check(page, f"{kind} in play")
    page.get_by_role("button", name="Menu", exact=True).click()
    check(page, f"{kind} menu")
    page.get_by_role("button", name="Share scorekeeping", exact=True).click()
    page.locator("#share-qr svg").wait_for()
    check(page, f"{kind} share")
