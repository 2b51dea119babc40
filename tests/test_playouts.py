"""Random complete games of the four games, one parametrized test over all of them.

Every game is played by the one driver ``bench.playouts.play`` (the benchmarks use it too)
through ``tests.conftest.checked_playout``, from a seed that hypothesis draws: the number of
players, the dealer and every choice come from it, so a failure names a seed that replays
it exactly. What is checked:

- by the driver, on every game: ``legal_actions`` is never empty while the game runs and
  empty once it is over; the table's proposals are accepted; undos and redos (recorded now
  and then, and one of each folded off the log after every action) give the states back;
- by ``checked_playout``: rebuilding the stored log twice gives the live state;
- by the game's ``tests/test_playouts_<game>.py``: its ``check`` on every state (cards
  conserved, the engine agreeing with the real table, offers accepted, views built) and its
  ``check_end`` on the finished game.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import test_playouts_fool, test_playouts_fuji_flush, test_playouts_stop_the_bus, test_playouts_toepen
from tests.conftest import checked_playout

CHECKS = {
    "toepen": test_playouts_toepen,
    "fool": test_playouts_fool,
    "fuji_flush": test_playouts_fuji_flush,
    "stop_the_bus": test_playouts_stop_the_bus,
}
CASES = [
    pytest.param(game, players, options, visibility, id=f"{game}-{name}")
    for game, checks in CHECKS.items()
    for name, players, options, visibility in checks.SETUPS
]


@pytest.mark.parametrize(("game", "players", "options", "visibility"), CASES)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_random_games(seed: int, game: str, players: tuple[int, int], options: dict[str, Any], visibility: str) -> None:
    checked_playout(CHECKS[game], game, seed, players, options, visibility)
