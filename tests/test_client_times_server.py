"""The client's time of an action (``at``) over real HTTP (a real ``kibitz serve`` on a real
SQLite file, and on a PostgreSQL schema), as an outside tester sent it (issue 27).

- Times are written as the same ISO 8601 they are read as, the year in four digits: year 1
  was stored as ``1-01-01T…`` and the game's own export was then refused on import (422).
  An export always imports, years 1 and 9999 included.
- A correction's action is read exactly as ``POST …/events`` reads it (api.md): an ``at``
  that is not a time was dropped with a 201; it is the same 422 ``validation_failed`` as on
  ``/events``, dry runs too.
"""

from __future__ import annotations

import pytest
import requests

from tests.conftest import OPEN_DEAL, PLAYERS
from tests.postgres import empty_database
from tests.serving import serving

YEAR_1 = "0001-01-01T00:00:00Z"
YEAR_9999 = "9999-12-31T23:59:59.999Z"


#: Each server of this module runs on either backend (issue 27's findings hold on both).
@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def backend(request):
    return request.param


@pytest.fixture(scope="module")
def base(tmp_path_factory, backend):
    folder = tmp_path_factory.mktemp("times")
    with empty_database(backend, folder) as database, serving(folder, database=database) as url:
        yield url


@pytest.fixture(scope="module")
def elsewhere(tmp_path_factory, backend):
    """A second club's server, where the export is imported."""
    folder = tmp_path_factory.mktemp("elsewhere")
    with empty_database(backend, folder) as database, serving(folder, database=database) as url:
        yield url


def _game(base: str) -> tuple[str, dict[str, str]]:
    made = requests.post(f"{base}/games", json={"game": "toepen", "players": PLAYERS, "visibility": "open"},
                         timeout=30).json()
    auth = {"Authorization": f"Bearer {made['token']}"}
    url = f"{base}/games/{made['id']}"
    assert requests.post(f"{url}/events", json=OPEN_DEAL, headers=auth, timeout=30).status_code == 201
    return url, auth


@pytest.mark.parametrize("given, stored", [(YEAR_1, "0001-01-01T00:00:00.000Z"),
                                           (YEAR_9999, "9999-12-31T23:59:59.999Z"),
                                           ("0001-01-01T05:30:00+05:30", "0001-01-01T00:00:00.000Z")])
def test_a_time_is_stored_as_it_is_read_and_the_export_imports(base, elsewhere, given, stored):
    url, auth = _game(base)
    played = requests.post(f"{url}/events", json={"type": "play", "player": "Bob", "card": "7H", "at": given},
                           headers=auth, timeout=30)
    assert played.status_code == 201, played.text
    assert played.json()["event"]["at"] == stored
    fixed = requests.post(f"{url}/correct", json={"target": 3, "action": {"type": "play", "player": "Bob", "card": "8C"},
                                                  "at": given}, headers=auth, timeout=30)
    assert fixed.status_code == 201, fixed.text
    note = requests.post(f"{url}/events", json={"type": "note", "text": "late", "at": given}, headers=auth, timeout=30)
    assert note.status_code == 201
    log = requests.get(f"{url}/events", headers=auth, timeout=30).json()["events"]
    assert [event["at"] for event in log[2:]] == [stored, stored, stored]
    exported = requests.get(f"{url}/export", headers=auth, timeout=30)
    assert exported.status_code == 200
    imported = requests.post(f"{elsewhere}/games/import", json=exported.json(), timeout=30)
    assert imported.status_code == 201, imported.text
    again = requests.get(f"{elsewhere}/games/{imported.json()['id']}/events",
                         headers={"Authorization": f"Bearer {imported.json()['token']}"}, timeout=30).json()["events"]
    assert [event["at"] for event in again] == [event["at"] for event in log]
    assert [event["hash"] for event in again] == [event["hash"] for event in log]
    assert requests.get(f"{elsewhere}/games/{imported.json()['id']}/export", timeout=30).status_code == 200


@pytest.mark.parametrize("at", ["not a time", "2026-13-45T99:99:99Z", "2026-11-29T20:15:00", 12, "9999-12-31T23:59:59-01:00"])
@pytest.mark.parametrize("dry_run", [False, True])
def test_a_correction_reads_its_action_as_events_does(base, at, dry_run):
    url, auth = _game(base)
    assert requests.post(f"{url}/events", json={"type": "play", "player": "Bob", "card": "7H"}, headers=auth,
                         timeout=30).status_code == 201
    query = "?dry_run=true" if dry_run else ""
    action = {"type": "play", "player": "Bob", "card": "8C", "at": at}
    on_events = requests.post(f"{url}/events{query}", json={**action, "card": "8C"}, headers=auth, timeout=30)
    assert on_events.status_code == 422 and on_events.json()["code"] == "validation_failed"
    assert "at" in on_events.json()["errors"]
    corrected = requests.post(f"{url}/correct{query}", json={"target": 3, "action": action}, headers=auth, timeout=30)
    assert corrected.status_code == 422, corrected.text
    assert corrected.headers["Content-Type"].startswith("application/problem+json")
    assert corrected.json()["code"] == "validation_failed"
    assert corrected.json()["errors"]["action.at"] == on_events.json()["errors"]["at"]
    assert requests.get(url, timeout=30).json()["version"] == 3


@pytest.mark.parametrize("given, stored", [(YEAR_1, "0001-01-01T00:00:00.000Z"), (YEAR_9999, "9999-12-31T23:59:59.999Z")])
@pytest.mark.parametrize("dry_run", [False, True])
def test_a_corrections_action_time_is_the_corrections_time(base, given, stored, dry_run):
    """The action's ``at`` is the correction's own time when the body gives none
    (docs/decisions.md); a dry run answers as the write would."""
    url, auth = _game(base)
    assert requests.post(f"{url}/events", json={"type": "play", "player": "Bob", "card": "7H"}, headers=auth,
                         timeout=30).status_code == 201
    query = "?dry_run=true" if dry_run else ""
    corrected = requests.post(f"{url}/correct{query}", json={
        "target": 3, "action": {"type": "play", "player": "Bob", "card": "8C", "at": given}}, headers=auth, timeout=30)
    assert corrected.status_code == (200 if dry_run else 201), corrected.text
    if not dry_run:
        assert corrected.json()["event"]["at"] == stored
        assert "at" not in corrected.json()["event"]["data"]["action"]


def test_an_export_with_a_short_year_from_an_older_kibitz_imports(base, elsewhere):
    """Before times kept four-digit years, year 1 was stored as ``1-01-01T…``; the stored
    record keeps it (the chain covers it), and its export imports with it unchanged."""
    from replays import chain

    url, auth = _game(base)
    assert requests.post(f"{url}/events", json={"type": "play", "player": "Bob", "card": "7H", "at": "2026-01-01T00:00:00Z"},
                         headers=auth, timeout=30).status_code == 201
    doc = requests.get(f"{url}/export", headers=auth, timeout=30).json()
    doc["game"]["id"] = "A" * len(doc["game"]["id"])  # another game of the older server
    doc["events"][2]["at"] = "1-01-01T00:00:00.000Z"  # as the older Kibitz stored it
    previous = chain.GENESIS
    for event in doc["events"]:
        event["hash"] = previous = chain.event_hash(previous, {key: event[key] for key in (
            "seq", "type", "data", "recorded_at", "at", "salt")})
    imported = requests.post(f"{elsewhere}/games/import", json=doc, timeout=30)
    assert imported.status_code == 201, imported.text
    log = requests.get(f"{elsewhere}/games/{imported.json()['id']}/events",
                       headers={"Authorization": f"Bearer {imported.json()['token']}"}, timeout=30).json()["events"]
    assert log[2]["at"] == "1-01-01T00:00:00.000Z" and log[2]["hash"] == doc["events"][2]["hash"]
