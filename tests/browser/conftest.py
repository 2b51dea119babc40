"""Browser tests: a real ``kibitz serve`` and Debian's Chromium driven by Playwright (sync API).

Fixtures
--------
``browser``      one headless Chromium for the whole session (``/usr/bin/chromium``; Playwright's
                 own browser download is never used). ``kibitz.test`` resolves to 127.0.0.1, so a
                 page can be loaded under a non-local name (not a secure context, like a club LAN).
``server``       one ``kibitz serve`` on a free port with a temporary database, shared by the session
``own_server``   a ``kibitz serve`` for one test; ``stop()`` / ``start()`` restart it on the same
                 port and database.
``page``         a new browser context and page at 1024×768 (landscape tablet).
``new_context``  a factory for more contexts (a second device, a phone viewport).

``KibitzServer.create(...)`` makes a game through the API; ``server.get(path)`` reads JSON.

Skipped with a clear reason when Playwright or ``/usr/bin/chromium`` is missing, unless
``KIBITZ_REQUIRE_BROWSER=1`` (``.ci/run`` sets it), where a missing browser is an error.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.conftest import free_port
from tests.serving import kibitz_command, stop, wait_until_up

CHROMIUM = os.environ.get("KIBITZ_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--host-resolver-rules=MAP kibitz.test 127.0.0.1",
]
TABLET = {"width": 1024, "height": 768}
PHONE = {"width": 390, "height": 844}
#: The non-local name mapped to 127.0.0.1 (plain HTTP under it is not a secure context).
LAN_NAME = "kibitz.test"
#: How long an assertion (``expect``), and an action or a navigation, waits on a page (ms).
EXPECT_MS, ACTION_MS = 20_000, 20_000


def _missing_browser() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install -e '.[test]')"
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} is missing (apt-get install chromium)"
    return None


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    reason = _missing_browser()
    if reason is None:
        return
    if os.environ.get("KIBITZ_REQUIRE_BROWSER") == "1":
        raise pytest.UsageError(f"Browser tests required but {reason}.")
    here = Path(__file__).resolve().parent
    for item in items:
        if here in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.skip(reason=reason))


class KibitzServer:
    """One ``kibitz serve`` subprocess on ``port`` with the database ``db``."""

    def __init__(self, folder: Path, args: tuple[str, ...] = (), command: list[str] | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.folder = folder
        self.args = args  # more options for ``kibitz serve`` (such as ``--club-key-file``)
        self.command = command  # the ``kibitz`` to start (this environment's by default)
        self.env = env  # its environment (this process's by default)
        self.db = folder / "kibitz.db"
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.lan_base = f"http://{LAN_NAME}:{self.port}"
        self.proc: subprocess.Popen[str] | None = None
        self._log: Any = None

    def start(self) -> None:
        """Start the server and wait until ``/health`` answers (fails the test after 90 s)."""
        self._log = (self.folder / "server.log").open("a")
        self.proc = subprocess.Popen(
            [*(self.command or kibitz_command()), "serve", "--port", str(self.port), "--db", str(self.db),
             "--threads", "4", "--allowed-host", LAN_NAME, *self.args],
            stdout=self._log, stderr=subprocess.STDOUT, text=True, cwd=self.folder if self.command else None,
            env=self.env)
        try:
            wait_until_up(self.base, self.proc, self.folder / "server.log", poll=0.05)
        except BaseException:
            self.stop()
            raise

    def __enter__(self) -> KibitzServer:
        """``with KibitzServer(...) as running``: started, and stopped when the block ends."""
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 10 s)."""
        if self.proc is not None:
            stop(self.proc)
            self.proc = None
        if self._log is not None:
            self._log.close()
            self._log = None

    def url(self, path: str) -> str:
        return self.base + path

    def get(self, path: str, token: str | None = None) -> Any:
        """``GET path`` as JSON (asserting 200), with the game's token when given."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = requests.get(self.base + path, headers=headers, timeout=30)
        assert response.status_code == 200, response.text
        return response.json()

    def create(self, **body: Any) -> dict[str, Any]:
        """``POST /games`` with ``body`` (asserting 201); returns the 201 body (with ``token``)."""
        response = requests.post(self.base + "/games", json=body, timeout=30)
        assert response.status_code == 201, response.text
        return dict(response.json())

    def post(self, game: dict[str, Any], action: dict[str, Any]) -> Any:
        """Record ``action`` in ``game`` (a :meth:`create` body) through the API; asserts 201."""
        response = requests.post(f"{self.base}/games/{game['id']}/events", json=action,
                                 headers={"Authorization": f"Bearer {game['token']}"}, timeout=30)
        assert response.status_code == 201, response.text
        return response.json()

    def events(self, game: dict[str, Any]) -> list[dict[str, Any]]:
        """Every stored event of ``game`` (full view)."""
        return list(self.get(f"/games/{game['id']}/events?limit=1000", game["token"])["events"])


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import expect, sync_playwright

    # Playwright's assertions wait 5 s by default, its actions and navigations (set per context
    # below) 30 s; here both wait 20 s: a page that answers in milliseconds on a quiet machine may take seconds on a
    # loaded 2-core one. What an assertion waits for either comes or never does; the room costs
    # time only when a test fails.
    expect.set_options(timeout=EXPECT_MS)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KibitzServer]:
    """One ``kibitz serve`` shared by the tests that never stop it (each test makes its own games)."""
    with KibitzServer(tmp_path_factory.mktemp("kibitz")) as running:
        yield running


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[KibitzServer]:
    """A ``kibitz serve`` of this test alone, which it may stop and start again."""
    with KibitzServer(tmp_path) as running:
        yield running


@pytest.fixture
def new_context(browser: Any) -> Iterator[Callable[..., Any]]:
    contexts: list[Any] = []
    errors: list[str] = []

    def make(viewport: dict[str, int] | None = None, **kwargs: Any) -> Any:
        context = browser.new_context(viewport=viewport or TABLET, **kwargs)
        context.set_default_timeout(ACTION_MS)
        context.on("page", lambda page: page.on("pageerror", lambda error: _page_error(page, error, errors)))
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()
    assert errors == [], f"JavaScript errors on the page: {errors}"


def _page_error(page: Any, error: Any, errors: list[str]) -> None:
    """Collect a JavaScript error of one of our pages (not of an init script on about:blank)."""
    if page.url.startswith("http"):
        errors.append(f"{page.url}: {error}")


@pytest.fixture
def page(new_context: Callable[..., Any]) -> Any:
    return new_context().new_page()
