"""Every page of Kibitz installed as a user installs it, in Chromium (issue 24).

``installed_kibitz`` (tests/installed.py) builds the wheel and installs it with pipx into a fresh
virtual environment outside the checkout; this test starts THAT environment's ``kibitz serve``
from a folder outside the checkout (nothing is imported from the checkout: checked), records a
game of each kind through the API, and loads every page as a person does: home, the new-game
page, each game's table page (its token in the share link's fragment, as **Share scorekeeping**
hands it over), the game page, its replay, the hand, trick and turn audits, the what-if and the
verify pages, the live fragments, the players, a player and the club table. Any answer that is
not 2xx or 304, any failed request, any console error and any JavaScript error fails it; each
table page must get past "Loading…" and show its deck. Every GET route of the pages must be
among those loaded, so a new page cannot be left out.

With ``package_data = static/*`` (before issue 24) the table page stayed on "Loading…": its
nine modules under /static/table/ and /static/vendor/nosleep/NoSleep.min.js answered 404.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from service.web.app import create_app
from tests.browser.conftest import KibitzServer
from tests.browser.pages_checks import keep_token
from tests.browser.recorded import Recorder, bus_game, fool_game, fuji_game, toepen_open_game, toepen_table_game
from tests.browser.table import settle
from tests.installed import ROOT, Installed, clean_env

pytestmark = pytest.mark.timeout(900)  # the build and the two installs, once per run, on a loaded machine


@pytest.fixture(scope="module")
def installed_server(installed_kibitz: Installed) -> Iterator[KibitzServer]:
    """The installed ``kibitz serve``, run from a folder outside the checkout."""
    folder = Path(installed_kibitz.outside) / "pages"
    folder.mkdir()
    with KibitzServer(folder, command=[installed_kibitz.kibitz], env=clean_env()) as running:
        yield running


def _pages(games: dict[str, Recorder]) -> list[tuple[str, Recorder | None, str | None]]:
    """(path, the game whose token the device holds for it or None, the path of a fragment the
    page's script fetches that the test waits for, or None) for every page."""
    out: list[tuple[str, Recorder | None, str | None]] = [
        ("/", None, None), ("/new", None, None), ("/people", None, None), ("/people/Ann", None, None),
        ("/club", None, None)]
    for kind, game in games.items():
        unit, number = {"toepen": ("tricks", 1), "toepen_open": ("tricks", 1), "fool": ("tricks", 1),
                        "bus": ("turns", 1), "fuji": ("turns", 4)}[kind]
        watch = f"/watch/{game.id}"
        out += [(f"/table/{game.id}#token={game.token}", game, None),
                (watch, None, f"{watch}/board"),  # polled every second
                (f"{watch}/replay?step=2", None, f"{watch}/replay/board"),  # the next step, fetched ahead
                (f"{watch}/replay?step=3", game, f"{watch}/replay/timeline"),  # the full view's steps and board
                (f"{watch}/hands/1", None, None), (f"{watch}/hands/1/{unit}/{number}", game, None),
                (f"{watch}/fork?seq=2", game, None), (f"{watch}/verify", None, None)]
    return out


def _page_routes(folder: Path) -> set[str]:
    """The endpoints of every GET route of the pages (not their static files)."""
    app = create_app({"DATABASE": str(folder / "routes.db")})
    return {rule.endpoint for rule in app.url_map.iter_rules()
            if rule.endpoint.startswith("pages.") and rule.endpoint != "pages.static" and "GET" in (rule.methods or ())}


def _endpoint(folder: Path, urls: set[str]) -> set[str]:
    app = create_app({"DATABASE": str(folder / "match.db")})
    adapter = app.url_map.bind("kibitz.test")
    found = set()
    for url in urls:
        try:
            endpoint, _ = adapter.match(urlsplit(url).path, method="GET")
        except Exception:  # an API route's method or a 404: not a page
            continue
        found.add(endpoint)
    return found


class Watched:
    """One page of a browser context, every answer, failure and error on it collected."""

    def __init__(self, context: Any) -> None:
        self.page = context.new_page()
        self.problems: list[str] = []
        self.urls: set[str] = set()
        self.closing = False
        #: requests answered 304: Chromium then reports a fetch made with ``cache: "no-store"``
        #: (the game page's poll) as failed with net::ERR_ABORTED, though its script got the 304
        self.not_modified: list[Any] = []
        self.page.on("response", self._response)
        self.page.on("requestfailed", self._failed)
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.problems.append(f"{self.page.url}: JavaScript error {error}"))

    def _response(self, response: Any) -> None:
        self.urls.add(response.url)
        if response.status == 304:
            self.not_modified.append(response.request)
        if not (200 <= response.status < 300 or response.status == 304):
            self.problems.append(f"{self.page.url}: {response.status} for {response.request.method} {response.url}")

    def _failed(self, request: Any) -> None:
        if not self.closing and not (request.failure == "net::ERR_ABORTED"
                                     and any(request is answered for answered in self.not_modified)):
            self.problems.append(f"{self.page.url}: {request.method} {request.url} failed: {request.failure}")

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self.problems.append(f"{self.page.url}: console error {message.text} at {message.location}")

    def wait_for_fetch(self, path: str, seconds: float = 20) -> None:
        """Wait until the page's script has had an answer from ``path`` (fails after ``seconds``)."""
        deadline = time.monotonic() + seconds
        while not any(urlsplit(url).path == path for url in self.urls):
            assert time.monotonic() < deadline, f"{self.page.url} never fetched {path}"
            self.page.wait_for_timeout(100)  # Playwright hands the page's events over meanwhile

    def close(self) -> None:
        self.closing = True
        self.page.close()


def _table_page_ready(page: Any, game: Any, shows_deck: bool, swap_first: bool) -> None:
    """The table page got past "Loading…" with the game's state, kept the token from its link,
    and (a game in progress) shows its deck, each card a button; Stop the Bus shows it for a
    swap's card given, after **Swap** is tapped (no write yet)."""
    expect(page.locator("#turn")).not_to_have_text("Loading…", timeout=30_000)
    settle(page)
    if swap_first:
        page.get_by_role("button", name="Swap: Cas", exact=True).click()
    if shows_deck:
        expect(page.get_by_role("group", name="Deck", exact=True).get_by_role("button").first).to_be_visible(
            timeout=30_000)
    assert page.evaluate(f"localStorage.getItem('kibitz.token.{game.id}')") == game.token, "the token was not kept"


def test_every_page_of_the_installed_kibitz_loads_in_chromium(browser, installed_kibitz, installed_server, tmp_path):
    server = installed_server
    # the server is the pipx environment's own Python running its kibitz script, from outside the checkout
    with open(f"/proc/{server.proc.pid}/cmdline", "rb") as cmdline:
        argv = cmdline.read().decode().split("\0")
    script = Path(argv[argv.index("serve") - 1])
    assert argv[0] == installed_kibitz.python and script.resolve() == Path(installed_kibitz.kibitz).resolve()
    assert Path(f"/proc/{server.proc.pid}/cwd").resolve() == server.folder.resolve()
    assert not server.folder.resolve().is_relative_to(ROOT)

    base = server.base
    games = {"toepen": toepen_table_game(base), "fool": fool_game(base), "bus": bus_game(base),
             "fuji": fuji_game(base),
             "toepen_open": toepen_open_game(base, ["Ann", "Bob", "Cas"], seed=1, title="Finished")}
    assert games["toepen_open"].read()["state"]["status"] == "finished"

    problems: list[str] = []
    loaded: set[str] = set()
    for path, holder, fetched in _pages(games):
        context = browser.new_context(viewport={"width": 1024, "height": 768})
        context.set_default_timeout(30_000)
        if holder is not None and not path.startswith("/table/"):  # the scorekeeper's device: the full view
            keep_token(context, holder.id, holder.token)
        watched = Watched(context)
        watched.page.goto(base + path)
        watched.page.wait_for_load_state("networkidle")
        if fetched is not None:
            watched.wait_for_fetch(fetched)
        if path.startswith("/table/"):
            try:
                _table_page_ready(watched.page, holder, shows_deck=holder is not games["toepen_open"],
                                  swap_first=holder is games["bus"])
            except AssertionError as error:  # say what the page met on the way (a 404 for a module…)
                raise AssertionError(f"{path}: {error}\nmet on the way: {watched.problems}") from None
        problems += watched.problems
        loaded |= watched.urls
        watched.close()
        context.close()

    assert problems == []
    assert any("/static/table/" in url for url in loaded) and any("/static/vendor/" in url for url in loaded)
    assert sorted(_page_routes(tmp_path) - _endpoint(tmp_path, loaded)) == [], "pages this test never loaded"
