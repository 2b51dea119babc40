"""Latency on writes for the table page's browser tests: a Playwright route holds each POST to the
write routes (events, undo, redo, correct) for ``delay_ms`` before it goes on to the service, while
the test keeps tapping (``wait`` releases the held writes when they are due)."""

from __future__ import annotations

import re
import time
from typing import Any

WRITES = re.compile(r"/games/[^/?#]+/(events|undo|redo|correct)(\?[^#]*)?$")


class Latency:
    """Hold every write of ``page`` for ``delay_ms`` milliseconds (0: none)."""

    def __init__(self, page: Any, delay_ms: int) -> None:
        self.page = page
        self.delay = delay_ms / 1000
        self.held: list[tuple[float, Any]] = []
        self.sent = 0
        page.route(WRITES, self._hold)

    def _hold(self, route: Any) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        self.sent += 1
        if self.delay <= 0:
            route.continue_()
            return
        self.held.append((time.monotonic() + self.delay, route))

    def release_due(self) -> None:
        now = time.monotonic()
        for due, route in list(self.held):
            if due <= now:
                self.held.remove((due, route))
                route.continue_()

    def wait(self, ms: float) -> None:
        """Let ``ms`` milliseconds pass on the page, releasing held writes when they are due."""
        end = time.monotonic() + ms / 1000
        while True:
            self.release_due()
            left = end - time.monotonic()
            if left <= 0:
                return
            self.page.wait_for_timeout(min(5, left * 1000))

    def wait_until(self, script: str, timeout_ms: float = 30_000) -> None:
        """Release held writes until ``script`` (a JS expression) is true on the page."""
        end = time.monotonic() + timeout_ms / 1000
        while not self.page.evaluate(script):
            if time.monotonic() > end:
                state = self.page.evaluate("(() => { const t = document.getElementById('table'); return [t.dataset.version,"
                                           " t.dataset.pending, t.dataset.fresh, document.getElementById('alert').textContent,"
                                           " document.getElementById('turn').textContent]; })()")
                raise AssertionError(f"timed out waiting for {script}: version, pending, fresh, alert, status = {state}")
            self.wait(10)

    def settled(self, version: int) -> None:
        """Wait (releasing writes) until nothing is pending and the page shows ``version`` with its actions."""
        self.wait_until("(() => { const t = document.getElementById('table'); return t.dataset.pending === '0'"
                        f" && t.dataset.fresh === 'true' && t.dataset.version === '{version}'; }})()")
