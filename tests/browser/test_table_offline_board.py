"""The guessed board offline is the confirmed board plus the waiting taps, never less (issue 25).

A scorekeeper's report: Toepen hand 2 after trick 1, the device offline, one card tapped: the
board dropped "Hand 2 · stake 1" and the finished trick, and A♠ K♠ Q♠, already played, became
tappable again (31 cards enabled); a stray glyph sat at the corner of the queued J♠."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, TABLET
from tests.browser.table import deck, open_table, settle

PLAYERS = ["Ann", "Bob", "Cas"]
#: Hand 1 (Ann deals, Bob leads): Ann knocks and Bob and Cas fold, so hand 2 is dealt at once.
HAND_1 = [{"type": "deal"}, {"type": "knock", "player": "Ann"}, {"type": "fold", "player": "Bob"},
          {"type": "fold", "player": "Cas"}]


def _hand_two_after_trick_one(server: Any) -> dict[str, Any]:
    game = server.create(game="toepen", players=PLAYERS, dealer="Ann", options={"limit": 10})
    for action in HAND_1:
        server.post(game, action)
    state = server.get(f"/games/{game['id']}")["state"]
    assert state["phase"] == "deal", state
    server.post(game, {"type": "deal"})
    state = server.get(f"/games/{game['id']}")["state"]
    first = state["to_act"][0]
    order = [PLAYERS[(PLAYERS.index(first) + i) % 3] for i in range(3)]
    for player, card in zip(order, ("AS", "KS", "QS"), strict=True):
        server.post(game, {"type": "play", "player": player, "card": card})
    return game


def _board(page: Any) -> dict[str, Any]:
    return page.evaluate("""() => ({
        facts: (document.querySelector('#board .facts') || {}).textContent || '',
        board: document.getElementById('board').innerText,
        enabled: [...document.querySelectorAll('#deck button[data-card]')]
            .filter(b => !b.disabled && b.getAttribute('aria-disabled') !== 'true').map(b => b.getAttribute('aria-label') || b.textContent.trim()),
    })""")


#: The lines of the board, the seats' names and the deck's first row that something else lies over
#: (each probed at five points along its middle).
COVERED = """() => {
  const probes = [...document.querySelectorAll('#board .facts, #board .trick, #seats .seat-name, #deck .deck-row')];
  const out = [];
  for (const node of probes) {
    const r = node.getBoundingClientRect();
    if (!r.width || !r.height || r.top > innerHeight) { continue; }
    for (const f of [0.1, 0.3, 0.5, 0.7, 0.9]) {
      const x = r.left + r.width * f, y = r.top + r.height / 2;
      const hit = document.elementFromPoint(x, y);
      if (hit && !node.contains(hit) && !hit.contains(node) && hit.closest('#queue, #notices')) {
        out.push([node.className || node.id, node.textContent.trim().slice(0, 30), Math.round(x), Math.round(y)]);
        break;
      }
    }
  }
  return out;
}"""


#: Every ::before and ::after of an element and of what it holds that writes text (computed
#: ``content`` other than none, normal or ""): [pseudo-element, content].
PSEUDO_TEXT = """el => {
  const out = [];
  for (const node of [el, ...el.querySelectorAll('*')]) {
    for (const pseudo of ['::before', '::after']) {
      const content = getComputedStyle(node, pseudo).content;
      if (!['none', 'normal', '""', "''"].includes(content)) { out.push([node.tagName + pseudo, content]); }
    }
  }
  return out;
}"""


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_offline_the_board_keeps_what_was_confirmed(server: Any, new_context: Any, viewport: dict[str, int]) -> None:
    game = _hand_two_after_trick_one(server)
    context = new_context(viewport=viewport)
    page = context.new_page()
    open_table(page, server, game)
    online = _board(page)
    assert online["facts"].startswith("Hand 2 · stake 1"), online
    assert "Trick 1" in online["board"] and "A♠" in online["board"], online
    context.set_offline(True)
    deck(page, "J♠").click()
    expect(page.locator("#table")).to_have_attribute("data-offline", "true")
    expect(page.locator("#table")).to_have_attribute("data-pending", "1")
    offline = _board(page)
    # the confirmed board stays: the hand, its stake, the finished trick with its cards
    assert offline["facts"].startswith("Hand 2 · stake 1"), offline
    assert "Trick 1" in offline["board"] and "A♠" in offline["board"] and "Q♠" in offline["board"], offline
    # the waiting tap is added to it, in the next trick
    expect(page.locator("#board .trick.current .play.waiting")).to_contain_text("J♠")
    # and all of it can be seen: nothing lies over the facts or a trick (the waiting taps' box keeps
    # to the seats' foot, under their names), nor over a seat's name or the deck
    page.evaluate("() => window.scrollTo(0, 0)")
    covered = page.evaluate(COVERED)
    assert covered == [], covered
    expect(page.locator("#queue-list")).to_contain_text("J♠")
    # cards played in this hand and the card waiting are not offered again
    for card in ("A♠", "K♠", "Q♠", "J♠"):
        assert card not in offline["enabled"], (card, offline["enabled"])
    assert len(offline["enabled"]) <= 32 - 4, offline["enabled"]
    # the waiting card is marked by its clock alone: no stray glyph drawn at its corner
    queued = deck(page, "J♠")
    expect(queued).to_have_class(re.compile(r"\bqueued\b"))
    assert queued.inner_text().strip() == "J♠", repr(queued.inner_text())
    # inner_text cannot see what CSS draws: no ::before or ::after of the card (or inside it) writes a
    # character either (a ⏳ there drew as an empty box where the browser had no emoji font); its
    # clock is a picture (an inline SVG background), which needs no font
    assert queued.evaluate(PSEUDO_TEXT) == [], queued.evaluate(PSEUDO_TEXT)
    assert "svg" in queued.evaluate("b => getComputedStyle(b, '::after').backgroundImage")
    context.set_offline(False)
    settle(page)
    plays = [(e["data"]["player"], e["data"]["card"]) for e in server.events(game) if e["type"] == "play"]
    assert plays[-1][1] == "JS"


#: The seats' own buttons the service offers (Knock, Reveal, …) that the waiting taps' box lies
#: over, probed at five points across each.
ACTIONS_COVERED = """() => {
  const out = [];
  for (const b of document.querySelectorAll('#seats button[data-action]')) {
    const r = b.getBoundingClientRect();
    if (!r.width || !r.height || b.disabled) { continue; }
    for (const [fx, fy] of [[0.5, 0.5], [0.2, 0.2], [0.8, 0.2], [0.2, 0.8], [0.8, 0.8]]) {
      const hit = document.elementFromPoint(r.left + r.width * fx, r.top + r.height * fy);
      if (hit && hit.closest('#queue')) { out.push(b.getAttribute('aria-label') || b.textContent.trim()); break; }
    }
  }
  return out;
}"""


@pytest.mark.parametrize("waiting", [1, 3])
@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_offline_the_waiting_taps_leave_the_seats_buttons_free(server: Any, new_context: Any,
                                                               viewport: dict[str, int], waiting: int) -> None:
    """A knock made while the Wi-Fi is down must be tappable where it always is: the waiting taps'
    box lies in the room kept under the board, not over a seat's Knock or Reveal (a finger
    aiming at Knock: Cas hit the box's "Cas" and changed a waiting card's player instead)."""
    game = _hand_two_after_trick_one(server)
    context = new_context(viewport=viewport)
    page = context.new_page()
    open_table(page, server, game)
    offered = page.locator("#seats button[data-action]:not([disabled])").count()
    assert offered >= 3, offered  # Knock and Reveal for the three seats
    context.set_offline(True)
    for card in ("J♠", "10♠", "9♠")[:waiting]:
        deck(page, card).click()
    expect(page.locator("#table")).to_have_attribute("data-pending", str(waiting))
    page.evaluate("() => window.scrollTo(0, 0)")
    expect(page.locator("#queue-list li")).to_have_count(waiting)
    assert page.evaluate(ACTIONS_COVERED) == []
    assert page.evaluate(COVERED) == []  # nor the board, the seats' names or the deck
    expect(page.locator("#queue-list")).to_contain_text("J♠")
    if waiting == 1:  # the first tap went out once: it can no longer be changed, only waited for
        return
    # the box's buttons are whole, in view and tappable: the guessed player of the newest tap
    chooser = page.get_by_role("group", name="Who played 9♠", exact=True)
    expect(chooser.get_by_role("button")).to_have_count(3)
    for button in chooser.get_by_role("button").all():
        box = button.bounding_box()
        assert box is not None and box["height"] >= 40 and box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"], box


#: Every control on screen (the seats' buttons, the action row's, the deck's cards, Undo and Menu)
#: that the waiting taps' box lies over, probed at five points across each.
CONTROLS_COVERED = """() => {
  const out = [];
  for (const b of document.querySelectorAll('#seats button, #actions button, #deck button, #undo, #redo, #menu-button, button')) {
    const r = b.getBoundingClientRect();
    if (!r.width || !r.height || b.closest('#queue') || r.bottom < 0 || r.top > innerHeight) { continue; }
    for (const [fx, fy] of [[0.5, 0.5], [0.2, 0.2], [0.8, 0.2], [0.2, 0.8], [0.8, 0.8]]) {
      const hit = document.elementFromPoint(r.left + r.width * fx, r.top + r.height * fy);
      if (hit && hit.closest('#queue')) { out.push(b.getAttribute('aria-label') || b.textContent.trim()); break; }
    }
  }
  return out;
}"""


@pytest.mark.parametrize("waiting", [1, 2])
@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_offline_during_a_knock_the_waiting_taps_cover_no_control(server: Any, new_context: Any,
                                                                 viewport: dict[str, int], waiting: int) -> None:
    """Bob knocked, so the folds of Ann, Cas and Dee fill the band's foot; the device goes offline
    and the scorekeeper taps cards: the waiting taps' box must not fall back over the seats'
    Knock, Laundry and Reveal (it did: every seat's buttons of the first row), nor over a fold,
    a card of the deck, Undo or Menu (issue 25)."""
    players = ["Ann", "Bob", "Cas", "Dee"]
    game = server.create(game="toepen", players=players, dealer="Ann")
    server.post(game, {"type": "deal"})
    server.post(game, {"type": "knock", "player": "Bob"})
    context = new_context(viewport=viewport)
    page = context.new_page()
    open_table(page, server, game)
    expect(page.get_by_role("button", name="Fold: Dee", exact=True)).to_be_visible()
    context.set_offline(True)
    for card in ("J♠", "10♠")[:waiting]:
        deck(page, card).click()
    expect(page.locator("#table")).to_have_attribute("data-pending", str(waiting))
    expect(page.locator("#queue-list li")).to_have_count(waiting)
    page.evaluate("() => window.scrollTo(0, 0)")
    page.wait_for_timeout(300)  # the box placed after the tap's render
    assert page.evaluate(CONTROLS_COVERED) == []
    expect(page.locator("#queue")).to_be_in_viewport()
    expect(page.locator("#queue-list")).to_contain_text("J♠")
