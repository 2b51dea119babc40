"""The screen kept awake on a plain-HTTP LAN address (ui.md): under the non-local name
``kibitz.test`` the page is not a secure context, so ``navigator.wakeLock`` is missing and the
vendored NoSleep.js fallback (a silent looping video) starts with the scorekeeper's first tap.
Headless Chromium shows what it can: the API is missing, the video is playing."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.table import act, open_table


def test_without_wake_lock_the_first_tap_starts_the_video_fallback(server, new_context):
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas"])
    page = new_context().new_page()
    open_table(page, server, game, base=server.lan_base)
    assert page.evaluate("() => window.isSecureContext") is False
    assert page.evaluate("() => 'wakeLock' in navigator") is False
    table = page.locator("#table")
    expect(table).to_have_attribute("data-awake", "no")
    act(page, "Deal")
    expect(table).to_have_attribute("data-awake", "video")  # NoSleep's video.play() resolved: it is playing


def test_with_wake_lock_the_video_is_not_used(server, new_context):
    game = server.create(game="toepen", players=["Ann", "Bob", "Cas"])
    page = new_context().new_page()
    open_table(page, server, game)  # 127.0.0.1: a secure context, the Wake Lock API is there
    assert page.evaluate("() => 'wakeLock' in navigator") is True
    act(page, "Deal")
    page.wait_for_timeout(300)
    assert page.locator("#table").get_attribute("data-awake") in ("wake-lock", "no")  # headless may refuse the lock
