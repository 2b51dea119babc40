"""A damaged record (api.md: 503 ``record_damaged``) stops the queue and shows the service's
sentence; the taps stay on the device and are not retried. Only 503 ``storage_unavailable``, other
5xx and no answer are "cannot be reached" (the taps wait and are retried).

The service in this build answers a damaged record with 503 ``storage_unavailable``; the
``record_damaged`` answer is given here by a Playwright route with api.md's body, on the write
only (the reads come from the real ``kibitz serve``)."""

from __future__ import annotations

import json
import time

from playwright.sync_api import expect

from tests.browser.table import deck, open_table

DAMAGED = ("The stored record of game {id} is damaged at event 3 (it does not follow the event before it); "
           "run kibitz check to find out more.")


def _answer_503(page, code: str, detail: str) -> list[str]:
    seen: list[str] = []

    def handle(route):
        if route.request.method != "POST":
            route.continue_()
            return
        seen.append(route.request.url)
        route.fulfill(status=503, content_type="application/problem+json",
                      body=json.dumps({"type": "about:blank", "title": "Service Unavailable", "status": 503,
                                       "code": code, "detail": detail}))

    page.route("**/games/*/events*", handle)
    return seen


def test_a_damaged_record_stops_the_queue_and_keeps_the_tap(server, new_context):
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas"])
    server.post(game, {"type": "deal"})
    page = new_context().new_page()
    open_table(page, server, game, base=server.lan_base)
    seen = _answer_503(page, "record_damaged", DAMAGED.format(id=game["id"]))
    deck(page, "7♣").click()
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text(DAMAGED.format(id=game["id"]))
    expect(alert).to_contain_text("1 tap waits on this device.")
    table = page.locator("#table")
    expect(table).to_have_attribute("data-pending", "1")
    assert table.get_attribute("data-offline") == "false"
    expect(page.get_by_role("status")).not_to_contain_text("Offline")
    page.wait_for_timeout(3500)  # an unreachable service would have been asked again by now
    assert len(seen) == 1
    saved = page.evaluate(f"JSON.parse(localStorage.getItem('kibitz.queue.{game['id']}'))")
    assert [item["body"]["card"] for item in saved["items"]] == ["7C"]
    assert saved["stopped"]["code"] == "record_damaged"
    assert server.get(f"/games/{game['id']}")["version"] == 2


def test_storage_unavailable_is_cannot_be_reached_and_retried(server, new_context):
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas"])
    server.post(game, {"type": "deal"})
    page = new_context().new_page()
    open_table(page, server, game, base=server.lan_base)
    seen = _answer_503(page, "storage_unavailable", "The database cannot take the write now.")
    deck(page, "7♣").click()
    expect(page.locator("#table")).to_have_attribute("data-offline", "true")
    deadline = time.monotonic() + 30  # the retry timer asks again within seconds; room for a loaded machine
    while len(seen) < 2:  # asked again: the tap waits for the service
        assert time.monotonic() < deadline, f"the tap was not sent again within 30 s ({len(seen)} sent)"
        page.wait_for_timeout(100)  # Playwright runs the route's handler meanwhile
    page.unroute("**/games/*/events*")
    page.wait_for_function("() => document.getElementById('table').dataset.pending === '0'", timeout=30_000)
    plays = [e["data"]["card"] for e in server.events(game) if e["type"] == "play"]
    assert plays == ["7C"]
