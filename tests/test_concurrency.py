"""Two writers at once: exactly one wins an If-Match race, and seqs never repeat."""

from __future__ import annotations

import threading

from service.storage import backend as store
from tests.conftest import assert_problem


def _race(app, game, bodies, headers):
    barrier = threading.Barrier(len(bodies))
    results = [None] * len(bodies)

    def post(i):
        client = app.test_client()
        barrier.wait()
        results[i] = client.post(f"{game.url}/events", json=bodies[i], headers={**game.auth, **headers})

    threads = [threading.Thread(target=post, args=(i,)) for i in range(len(bodies))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return results


def test_same_if_match_one_201_one_412(app, open_game, database):
    notes = [{"type": "note", "text": "first"}, {"type": "note", "text": "second"}]
    results = _race(app, open_game, notes, {"If-Match": '"2"'})
    assert sorted(r.status_code for r in results) == [201, 412]
    assert_problem(next(r for r in results if r.status_code == 412), 412, "version_mismatch")
    seqs = [e["seq"] for e in store.events(store.connect(database), open_game.id)]
    assert seqs == [1, 2, 3]


def test_many_writers_without_if_match_get_distinct_seqs(app, open_game, database):
    results = _race(app, open_game, [{"type": "note", "text": str(i)} for i in range(8)], {})
    assert [r.status_code for r in results] == [201] * 8
    assert sorted(r.get_json()["seq"] for r in results) == list(range(3, 11))
    assert open_game.get().get_json()["version"] == 10


def test_same_idempotency_key_at_once_stores_one_event(app, open_game, database):
    play = {"type": "play", "player": "Bob", "card": "7H"}
    results = _race(app, open_game, [play] * 4, {"Idempotency-Key": "same"})
    assert [r.status_code for r in results] == [201] * 4
    assert len({r.get_data() for r in results}) == 1
    assert len(store.events(store.connect(database), open_game.id)) == 3
