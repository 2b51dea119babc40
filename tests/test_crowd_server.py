"""A crowd of watchers does not break the scorekeeper's writes (api.md, "What a crowd must not
break"), checked for correctness only against a real ``kibitz serve``: 100 game pages polling
the board once a second and 100 idle or slow connections held open for 30 s while the
scorekeeper records a move every 0.5–2 s. Every write is answered 201 and stored once, and
every poll started after a write's 201 sees that version or a later one. The timings are the
benchmark's (``bench/crowd_bench.py``), never asserted here."""

from __future__ import annotations

import asyncio
import threading
import time

from bench import crowd_bench
from tests.serving import serving

SECONDS = 30.0


def _in_thread(coroutine_factory, results: dict, name: str) -> threading.Thread:
    def run() -> None:
        results[name] = asyncio.run(coroutine_factory())
    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    return thread


def test_pollers_and_idle_connections_never_cost_a_write_nor_show_an_old_version(tmp_path):
    crowd_bench.raise_open_files(1024)
    with serving(tmp_path) as base:
        port = int(base.rsplit(":", 1)[1])
        game_id, token, version = crowd_bench.new_game(port)
        results: dict = {}
        crowd_seconds = SECONDS + 4
        threads = [
            _in_thread(lambda: crowd_bench.watchers(port, game_id, 100, crowd_seconds, version), results, "watchers"),
            _in_thread(lambda: crowd_bench.holders(port, game_id, 100, crowd_seconds), results, "holders"),
        ]
        time.sleep(2)  # the crowd's connections are open
        kept = crowd_bench.scorekeeper(port, game_id, token, SECONDS, "ci")
        for thread in threads:
            thread.join(timeout=crowd_seconds + 2 * crowd_bench.REQUEST_TIMEOUT)
            assert not thread.is_alive()
        writes, polls = kept["writes"], results["watchers"]["polls"]

        # enough happened to test anything: a write every 1.25 s and 100 polls a second on a quiet
        # machine; a loaded one gets fewer of each (its answers and the test's clients slower), so
        # the counts asked are a fraction of those. What the crowd must not break is checked below.
        assert len(writes) >= SECONDS / 5
        assert [w for w in writes if w["status"] != 201] == []
        assert [h for h in kept["health"] if h["status"] != 200] == []
        assert [w["version"] for w in writes] == list(range(version + 1, version + 1 + len(writes)))
        assert crowd_bench.stored_twice(port, game_id) == 0
        assert len(polls) >= 100 * SECONDS / 6
        assert [p for p in polls if p[2] not in (200, 304)] == []
        assert crowd_bench.violations(writes, polls) == 0
        # the pages did follow the game: the last polls show the last write
        last = max(w["version"] for w in writes)
        assert max(p[3] for p in polls) == last


def test_the_violation_count_counts_an_old_version_seen_after_a_201():
    writes = [{"started": 0.0, "ended": 1.0, "status": 201, "version": 2},
              {"started": 2.0, "ended": 3.0, "status": 201, "version": 3}]
    polls = [[0.5, 0.6, 304, 1],   # before the first 201: fine
             [1.5, 1.6, 304, 1],   # after it, still version 1: a violation
             [2.5, 2.6, 200, 2],   # after the first 201 only: fine
             [3.5, 3.6, 304, 2],   # after the second: a violation
             [3.6, 3.7, 0, -1]]    # no answer: not a version seen
    assert crowd_bench.violations(writes, polls) == 2
