"""The table page at a glance (ui.md, "The table page", "Nothing moves under a finger", "Words for
card players"), as a fresh user tried it at a real table:

- every seat's own actions (Toepen's Knock, Laundry and Reveal: up to twelve buttons) sit in that
  seat, on screen without scrolling on a landscape tablet and tappable whole on a portrait phone;
- no empty band is kept under the status line: a message (a refusal, "Sending…") shares the
  status line's own room, and the deck does not move when one appears;
- the markers of a hand that is over (folded, knocked, stopped, Fool, a greyed seat) are gone
  between hands, as the state says (``phase`` "deal"), while a player out of the game stays out;
- Stop the Bus's swap enables only the cards the swap may use: the centre for the take, the
  swapper's own possible cards for the give, never another player's known card (which the
  service refuses too, checked over HTTP);
- the board's facts speak of the hand, never of an "event" number.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import requests
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, TABLET
from tests.browser.latency import Latency
from tests.browser.table import act, open_table, pick, settle, version
from tests.conftest import OPEN_DEAL
from tests.test_api_state_between_hands import TOEPEN_HAND

FOUR = ["Ann", "Bob", "Cas", "Dee"]
SEAT_WORDS = {"knock": "Knock", "laundry": "Laundry", "reveal": "Reveal"}

BOX = "e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }"
#: the control a tap at the middle of ``e`` reaches (nothing laid over it)
HIT = "e => { const r = e.getBoundingClientRect(); const at = document.elementFromPoint((r.left + r.right) / 2," \
      " (r.top + r.bottom) / 2); return !!at && (at === e || e.contains(at)); }"


def seat_actions(server: Any, game: dict[str, Any]) -> list[tuple[str, str]]:
    """(word, player) of every Knock, Laundry and Reveal the service offers now."""
    offered = server.get(f"/games/{game['id']}/actions", game["token"])["actions"]
    return [(SEAT_WORDS[a["type"]], a["player"]) for a in offered if a["type"] in SEAT_WORDS]


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_each_seats_actions_are_in_its_seat_on_screen_and_tappable(server, new_context, viewport):
    game = server.create(game="toepen", players=FOUR)
    server.post(game, {"type": "deal"})
    offered = seat_actions(server, game)
    assert len(offered) == 12  # Knock, Laundry and Reveal for each of the four seats
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, game)
    assert page.evaluate("() => window.scrollY") == 0
    for word, player in offered:
        button = page.get_by_role("button", name=f"{word}: {player}", exact=True)
        expect(button).to_be_enabled()
        left, top, right, bottom = button.evaluate(BOX)
        s_left, s_top, s_right, s_bottom = page.locator(f'.seat[data-player="{player}"]').evaluate(BOX)
        assert s_left <= left and right <= s_right and s_top <= top and bottom <= s_bottom, (word, player)
        assert right - left >= 44 and bottom - top >= 44, (word, player)  # a finger's tap target
        assert left >= 0 and right <= viewport["width"], (word, player)  # no sideways scrolling
        if viewport is TABLET:  # on a tablet the next action is found without scrolling
            assert bottom <= viewport["height"], (word, player, bottom)
        else:
            button.scroll_into_view_if_needed()
        assert button.evaluate(HIT), (word, player)
    if viewport is TABLET:  # the whole deck too, and the card to play, above the fold
        deck_bottom = page.locator("#deck").evaluate(BOX)[3]
        assert deck_bottom <= viewport["height"], deck_bottom
    # a tap on a seat's action records that action for that seat
    act(page, "Knock: Cas")
    assert server.events(game)[-1]["type"] == "knock" and server.events(game)[-1]["data"] == {"player": "Cas"}
    expect(page.locator('.seat[data-player="Cas"]')).to_contain_text("knocked")


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["1024x768", "390x844"])
def test_no_empty_band_under_the_status_line_and_a_message_moves_nothing(server, new_context, viewport):
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas"])
    server.post(game, {"type": "deal"})
    page = new_context(viewport=viewport).new_page()
    open_table(page, server, game, base=server.lan_base)
    top = page.evaluate("""() => Math.max(...['turn', 'toolbar'].map(
        id => document.getElementById(id).getBoundingClientRect().bottom))""")
    seats_top = page.locator("#seats").evaluate(BOX)[1]
    assert seats_top - top <= 24, f"an empty band of {seats_top - top:.0f} px under the status line"
    where = "() => ['seats', 'deck'].map(id => document.getElementById(id).getBoundingClientRect().top + window.scrollY)"
    before = page.evaluate(where)
    server.post(game, {"type": "play", "player": "Bob", "card": "7C"})  # recorded elsewhere: the page does not know
    card = page.get_by_role("group", name="Deck", exact=True).get_by_role("button", name="8♣", exact=True)
    card.click()  # refused: the game moved on
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("moved on")
    settle(page)
    after = page.evaluate(where)
    assert after == before
    # the message is shown whole on screen, under the status line (which stays in view), over the board
    page.evaluate("() => window.scrollTo(0, 0)")
    turn_bottom = page.get_by_role("status").evaluate(BOX)[3]
    left, a_top, right, a_bottom = page.locator("#alert").evaluate(BOX)
    assert left >= 0 and right <= viewport["width"] and a_top >= turn_bottom and a_bottom <= viewport["height"]
    assert a_bottom - a_top >= 20
    # a tap on the message puts it away and shows the status line again
    page.locator("#alert").click()
    expect(page.locator("#alert")).to_have_text("")
    expect(page.get_by_role("status")).to_be_visible()


def test_the_markers_of_a_hand_that_is_over_are_gone_between_hands(server, new_context):
    game = server.create(game="toepen", players=FOUR, visibility="open")
    server.post(game, OPEN_DEAL)
    for action in TOEPEN_HAND:
        server.post(game, action)
    state = server.get(f"/games/{game['id']}", game["token"])["state"]
    # the state keeps the ended hand's fields between hands (api.md, "Which hand is current")
    assert state["phase"] == "deal" and state["last_knocker"] == "Dee"
    assert {p["name"]: p["in_hand"] for p in state["players"]}["Bob"] is False
    page = new_context(viewport=TABLET).new_page()
    open_table(page, server, game)
    expect(page.locator("#hand-result")).to_contain_text("Hand 1")
    badges = page.locator(".seat .seat-badges")
    expect(badges).to_have_count(4)
    for text in badges.all_inner_texts():
        assert "folded" not in text and "knocked" not in text, text
    expect(page.locator(".seat.sitting-out")).to_have_count(0)
    # the board speaks of the hand in words: no "event N"
    expect(page.locator("#board .facts")).not_to_contain_text(re.compile(r"event", re.I))


def play_out(server: Any, game: dict[str, Any]) -> dict[str, Any]:
    """Play the hand in progress to its end through the API: each answer to a knock a stay, each
    play the player's first possible card."""
    for _ in range(60):
        state = server.get(f"/games/{game['id']}", game["token"])["state"]
        if state["phase"] == "deal" or state["status"] != "in_progress":
            return dict(state)
        offered = server.get(f"/games/{game['id']}/actions", game["token"])["actions"]
        move = next(a for a in offered if a["type"] in ("play", "stay"))
        if move["type"] == "stay":
            server.post(game, {"type": "stay", "player": move["player"]})
        else:
            server.post(game, {"type": "play", "player": move["player"], "card": (move.get("cards") or move["possible"])[0]})
    raise AssertionError("the hand did not end")


def test_a_player_out_of_the_game_stays_marked_out_between_hands(server, new_context):
    game = server.create(game="toepen", players=FOUR, options={"limit": 2, "game_end": "elimination"})
    server.post(game, {"type": "deal"})
    server.post(game, {"type": "knock", "player": "Bob"})  # the stake is 2: the hand's loser is out
    server.post(game, {"type": "fold", "player": "Cas"})  # Cas and Dee lose one life each
    server.post(game, {"type": "fold", "player": "Dee"})
    state = play_out(server, game)
    assert state["phase"] == "deal" and state["status"] == "in_progress"
    out = [p["name"] for p in state["players"] if p["eliminated"]]
    assert len(out) == 1
    page = new_context(viewport=TABLET).new_page()
    open_table(page, server, game)
    for name in out:
        expect(page.locator(f'.seat[data-player="{name}"] .seat-badges')).to_have_text(re.compile(r"\bout\b"))
    expect(page.locator(".seat .seat-badges", has_text="folded")).to_have_count(0)


def test_the_facts_line_during_a_hand_has_no_event_number(server, new_context):
    game = server.create(game="toepen", players=FOUR)
    server.post(game, {"type": "deal"})
    page = new_context(viewport=PHONE).new_page()
    open_table(page, server, game)
    act(page, "Knock: Bob")
    facts = page.locator("#board .facts")
    expect(facts).to_have_text(re.compile(r"^Hand 1 · stake 2"))
    expect(facts).not_to_contain_text(re.compile(r"event", re.I))


ENABLED_DECK = """() => Array.from(document.querySelectorAll('#deck button[data-card]'))
  .filter(b => b.offsetParent !== null && !b.disabled).map(b => b.dataset.card).sort()"""
#: every card button outside the deck and the centre (a hand's cards) that can be tapped
ENABLED_HANDS = """() => Array.from(document.querySelectorAll('#seats .hand button[data-card]'))
  .filter(b => !b.disabled).map(b => b.dataset.owner + ':' + b.dataset.card).sort()"""


def test_a_swap_enables_only_the_centre_then_the_swappers_own_cards(server, new_context):
    game = server.create(game="stop_the_bus", players=["Ann", "Bob", "Cas"], dealer="Cas", visibility="open")
    server.post(game, {"type": "deal", "centre": ["QS", "4H", "9D"],
                       "hands": {"Ann": ["AS", "AD", "AC"], "Bob": ["KS", "KD", "KC"], "Cas": ["2S", "2D", "2C"]}})
    # the service refuses a give from another player's known cards (rules/stop_the_bus.md, "Turns":
    # one card "from their hand"), over HTTP
    refused = requests.post(f"{server.base}/games/{game['id']}/events",
                            json={"type": "swap", "player": "Ann", "take": "QS", "give": "KS"},
                            headers={"Authorization": f"Bearer {game['token']}"}, timeout=30)
    assert refused.status_code == 409 and refused.json()["code"] == "card_not_available"
    assert "known to be in Bob's hand" in refused.json()["detail"]
    page = new_context(viewport=TABLET).new_page()
    open_table(page, server, game)
    page.get_by_role("button", name="Swap: Ann", exact=True).click()
    # first the take: only the centre's cards can be tapped
    assert page.evaluate(ENABLED_DECK) == []
    assert page.evaluate(ENABLED_HANDS) == []
    centre = page.get_by_role("group", name="Centre", exact=True)
    for name in ("Q♠", "4♥", "9♦"):
        expect(centre.get_by_role("button", name=name, exact=True)).to_be_enabled()
    pick(page, "Q♠", group="Centre")
    # then the give: only Ann's own cards, in the deck and in her hand; never Bob's or Cas's
    assert page.evaluate(ENABLED_DECK) == ["AC", "AD", "AS"]
    assert page.evaluate(ENABLED_HANDS) == ["Ann:AC", "Ann:AD", "Ann:AS"]
    pick(page, "A♦")
    shown = version(page)
    page.get_by_role("button", name="Confirm", exact=True).click()
    settle(page, shown + 1)
    assert server.events(game)[-1]["data"] == {"player": "Ann", "take": "QS", "give": "AD"}


def test_a_table_swap_gives_only_a_card_the_swapper_may_hold(server, new_context):
    game = server.create(game="stop_the_bus", players=["Ann", "Bob", "Cas"], dealer="Cas")
    server.post(game, {"type": "deal", "centre": ["QS", "4H", "9D"]})
    server.post(game, {"type": "swap", "player": "Ann", "take": "QS", "give": "KS"})  # Q♠ is known to be Ann's
    refused = requests.post(f"{server.base}/games/{game['id']}/events",
                            json={"type": "swap", "player": "Bob", "take": "KS", "give": "QS"},
                            headers={"Authorization": f"Bearer {game['token']}"}, timeout=30)
    assert refused.status_code == 409 and refused.json()["code"] == "card_not_available"
    possible = next(a for a in server.get(f"/games/{game['id']}/actions", game["token"])["actions"]
                    if a["type"] == "swap")["possible"]
    page = new_context(viewport=TABLET).new_page()
    open_table(page, server, game)
    page.get_by_role("button", name="Swap: Bob", exact=True).click()
    assert page.evaluate(ENABLED_DECK) == []  # the take comes from the centre
    assert page.evaluate(ENABLED_HANDS) == []  # Ann's Q♠ is hers, not Bob's to give
    pick(page, "K♠", group="Centre")
    assert page.evaluate(ENABLED_DECK) == sorted(possible)
    assert "QS" not in possible and page.evaluate(ENABLED_HANDS) == []


def test_sending_shows_over_the_status_line_only_once_an_answer_takes_a_moment(server, new_context):
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas"])
    server.post(game, {"type": "deal"})
    page = new_context(viewport=TABLET).new_page()
    open_table(page, server, game, base=server.lan_base)
    latency = Latency(page, 900)
    opacity = "() => getComputedStyle(document.getElementById('sending')).opacity"
    # when the tap is made (before the page's own handler runs) and when the line is put on screen
    page.evaluate("""() => { const s = document.getElementById('sending'); window.seen = {};
      window.addEventListener('click', () => { window.seen.tap = performance.now(); }, true);
      new MutationObserver(() => {
        if (s.classList.contains('shown') && window.seen.shown === undefined) { window.seen.shown = performance.now(); }
      }).observe(s, {attributes: true}); }""")
    page.get_by_role("group", name="Deck", exact=True).get_by_role("button", name="7♣", exact=True).click()
    latency.wait_until("window.seen.shown !== undefined")
    seen = page.evaluate("window.seen")
    assert "Sending" in page.locator("#sending").inner_text()  # read out at once (aria-live)
    # not flashed on screen for a quick answer: shown only once it has waited 300 ms
    assert seen["shown"] - seen["tap"] >= 299, seen
    assert page.evaluate(opacity) == "1"  # the answer takes a while: shown, under the status line, not over it
    left, top, right, bottom = page.locator("#sending").evaluate(BOX)
    r_left, r_top, r_right, r_bottom = page.get_by_role("status").evaluate(BOX)
    assert r_left <= left and right <= TABLET["width"] and r_bottom <= top
    latency.settled(3)
    assert page.evaluate(opacity) == "0" and page.locator("#sending").inner_text() == ""
