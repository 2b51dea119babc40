"""Writes whose answer never reaches the tablet: each is retried with its own Idempotency-Key
and stored once. The service is real; only the answer on its way back is lost or replaced."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.table import act, deck, expect_status, open_table, settle


def test_a_stored_tap_whose_answer_is_lost_is_retried_and_not_doubled(server, page):
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas"], options={"limit": 3})
    open_table(page, server, game)
    act(page, "Deal")
    seen: list[dict[str, str]] = []

    def lose_the_first_answer(route):
        seen.append(dict(route.request.headers))
        if len(seen) == 1:
            route.fetch()          # the service stores the play …
            route.abort("failed")  # … and the tablet never hears of it
        else:
            route.continue_()

    page.route("**/events", lose_the_first_answer)
    deck(page, "7♥").click()
    settle(page, 3)
    expect_status(page, "Cas to play")
    assert len(seen) == 2
    assert seen[0]["idempotency-key"] == seen[1]["idempotency-key"]
    assert seen[0]["if-match"] == seen[1]["if-match"] == '"2"'
    assert [e["type"] for e in server.events(game)] == ["game_created", "deal", "play"]


def test_a_5xx_counts_as_unreachable_and_the_tap_waits(server, page):
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas"], options={"limit": 3})
    open_table(page, server, game)
    act(page, "Deal")
    answers = []

    def busy_once(route):
        answers.append(route.request.headers["idempotency-key"])
        if len(answers) == 1:
            route.fulfill(status=503, content_type="application/problem+json", headers={"Retry-After": "1"},
                          body='{"type": "urn:kibitz:problem:storage_unavailable", "title": "Service Unavailable",'
                               ' "status": 503, "detail": "The database cannot take the write now.",'
                               ' "code": "storage_unavailable"}')
        else:
            route.continue_()

    page.route("**/events", busy_once)
    deck(page, "7♥").click()
    expect(page.locator("#table")).to_have_attribute("data-offline", "true")
    expect(page.locator("#alert")).to_have_text("")  # unreachable is not a refusal
    settle(page, 3)
    assert len(answers) == 2 and answers[0] == answers[1]
    assert [e["type"] for e in server.events(game)][-1] == "play"
