"""``GET /players?since=&until=``: the club table's chosen period (games created from ``since``
to ``until``, both days inclusive, UTC), with games won, lost and abandoned per game type."""

from __future__ import annotations

import pytest
from freezegun import freeze_time

from tests.conftest import assert_problem, create


@pytest.fixture
def season(client):
    """Ann loses a Toepen game on 31 January, wins one on 1 February, and plays an
    unfinished Toepen game on 28 February (23:59 UTC)."""
    with freeze_time("2026-01-31 21:00:00"):
        lost = create(client, players=["Ann", "Bob", "Cas"], options={"limit": 2})
        assert lost.post({"type": "adjust", "player": "Ann", "amount": 2, "reason": "ruling"}).status_code == 201
    with freeze_time("2026-02-01 00:00:00"):
        won = create(client, players=["Ann", "Bob", "Cas"], options={"limit": 2})
        assert won.post({"type": "adjust", "player": "Bob", "amount": 2, "reason": "ruling"}).status_code == 201
    with freeze_time("2026-02-28 23:59:59.999"):
        create(client, players=["Ann", "Dee", "Cas"])


def by_name(response):
    assert response.status_code == 200, response.get_json()
    return {entry["name"]: entry for entry in response.get_json()["players"]}


def test_the_whole_history_by_default(client, season):
    body = client.get("/players").get_json()
    assert body["since"] is None and body["until"] is None
    ann = by_name(client.get("/players"))["Ann"]
    assert (ann["games"], ann["finished"], ann["wins"], ann["losses"], ann["abandoned"]) == (3, 2, 1, 1, 0)
    assert ann["by_game"]["toepen"] == {"games": 3, "finished": 2, "wins": 1, "losses": 1, "abandoned": 0,
                                        "average_lives_lost": 1.0}


def test_a_period_keeps_the_games_created_in_it_both_days_inclusive(client, season):
    february = by_name(client.get("/players?since=2026-02-01&until=2026-02-28"))
    ann = february["Ann"]
    assert (ann["games"], ann["finished"], ann["wins"], ann["losses"]) == (3 - 1, 1, 1, 0)
    assert ann["by_game"]["toepen"]["average_lives_lost"] == 0.0
    assert "Dee" in february
    january = by_name(client.get("/players?until=2026-01-31"))
    assert set(january) == {"Ann", "Bob", "Cas"}
    assert january["Ann"]["losses"] == 1 and january["Ann"]["wins"] == 0
    assert by_name(client.get("/players?since=2026-03-01")) == {}


@pytest.mark.parametrize("query, field", [
    ("since=yesterday", "since"),
    ("until=2026-02-30", "until"),
    ("since=2026-2-1", "since"),
    ("since=2026-02-01T00:00", "since"),
    ("since=2026-03-01&until=2026-02-01", "since"),
])
def test_a_bad_period_is_a_422_naming_the_field(client, season, query, field):
    body = assert_problem(client.get(f"/players?{query}"), 422, "validation_failed")
    assert list(body["errors"]) == [field]
