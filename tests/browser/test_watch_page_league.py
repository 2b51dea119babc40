"""The public game page in a real browser with two ``kibitz serve`` processes on one PostgreSQL
database (docs/league.md): the page open on process A shows, without a reload, a move
recorded through process B."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import KibitzServer
from tests.browser.recorded import Recorder, create
from tests.postgres import postgres_url  # noqa: F401  (the fixture)


@pytest.fixture
def league(tmp_path: Path, postgres_url: str) -> Iterator[tuple[KibitzServer, KibitzServer]]:  # noqa: F811
    """Two ``kibitz serve`` processes on one fresh PostgreSQL schema."""
    servers = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        server = KibitzServer(tmp_path / name)
        server.db = postgres_url  # type: ignore[assignment]
        servers.append(server)
    try:
        for server in servers:
            server.start()
        yield servers[0], servers[1]
    finally:
        for server in servers:
            server.stop()


def test_a_move_recorded_through_another_process_appears_without_reload(league: Any, page: Any) -> None:
    first, second = league
    game = create(first.base, game="toepen", players=["Ann", "Bob", "Cas", "Dee"], dealer="Ann", title="League")
    game.post({"type": "deal"})
    page.goto(first.url(f"/watch/{game.id}"))
    expect(page.locator("#headline")).to_have_text("Bob to play")
    page.evaluate("window.notReloaded = true")

    through_b = Recorder(second.base, game.game)
    through_b.post({"type": "play", "player": "Bob", "card": "7H"})
    board = page.locator("#live-board")
    expect(board.locator(".plays")).to_contain_text("Bob 7♥")
    expect(page.locator("#headline")).to_have_text("Cas to play")

    through_b.post({"type": "play", "player": "Cas", "card": "8H"})
    expect(board.locator(".plays")).to_contain_text("Cas 8♥")
    expect(page.locator("#headline")).to_have_text("Dee to play")
    assert page.evaluate("window.notReloaded") is True
