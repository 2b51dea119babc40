"""``replays.replay.fold`` pauses the cyclic garbage collector while it folds and always
leaves it as it found it: on after a fold, on after a fold that failed, still off when it was
off before (another thread's fold, or a program that keeps it off)."""

from __future__ import annotations

import gc
import types
from typing import Any

import pytest

from engine import toepen
from engine.core import RulesError
from replays import replay
from tests.conftest import OPEN_DEAL, PLAYERS


def _log(*actions: dict[str, Any]) -> list[dict[str, Any]]:
    created = {"game": "toepen", "players": PLAYERS, "visibility": "open", "dealer": "Ann",
               "options": toepen.resolve_options({}, PLAYERS), "rules_version": toepen.RULES_VERSION}
    events = [{"seq": 1, "type": "game_created", "data": created}]
    for seq, action in enumerate(actions, start=2):
        events.append({"seq": seq, "type": action["type"], "data": {k: v for k, v in action.items() if k != "type"}})
    return events


def _watched() -> tuple[types.SimpleNamespace, list[bool]]:
    """Toepen's rules with an ``apply`` that notes whether the collector runs."""
    seen: list[bool] = []
    rules = types.SimpleNamespace(**{name: getattr(toepen, name) for name in dir(toepen) if not name.startswith("__")})

    def apply(state: Any, action: Any) -> Any:
        seen.append(gc.isenabled())
        return toepen.apply(state, action)

    rules.apply = apply
    return rules, seen


def test_paused_during_the_fold_and_on_after_it() -> None:
    assert gc.isenabled()
    rules, seen = _watched()
    folded = replay.fold(rules, _log(OPEN_DEAL, {"type": "play", "player": "Bob", "card": "7H"}))  # type: ignore[arg-type]
    assert folded.version == 3
    assert seen == [False, False]
    assert gc.isenabled()


def test_on_again_after_a_fold_that_fails() -> None:
    rules, seen = _watched()
    with pytest.raises(RulesError):
        replay.fold(rules, _log(OPEN_DEAL, {"type": "play", "player": "Ann", "card": "7H"}))  # type: ignore[arg-type]
    assert seen and not any(seen)
    assert gc.isenabled()


def test_left_off_when_it_was_off() -> None:
    gc.disable()
    try:
        replay.fold(toepen, _log(OPEN_DEAL))  # type: ignore[arg-type]
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_paused_while_a_cache_miss_reads_the_log_and_on_after_it(tmp_path, monkeypatch) -> None:
    """``service.record.cache.FoldCache.get`` of a game it has not folded reads the rows with
    the collector paused too (``_rebuilt``), and leaves it on, as after a record that fails."""
    from service.record.cache import FoldCache
    from service.storage import backend as store
    from service.storage import migrations

    db = store.connect(tmp_path / "k.db", "FULL")
    migrations.migrate(db)
    events = _log(OPEN_DEAL, {"type": "play", "player": "Bob", "card": "7H"})
    with store.of(db).immediate(db):
        store.of(db).insert_game(db, "g", events[0]["data"], "0" * 64, "2026-01-01T00:00:00.000Z", "in_progress")
        for event in events:
            store.of(db).append(db, "g", event["seq"], event["type"], event["data"], "2026-01-01T00:00:00.000Z")
        store.of(db).set_version(db, "g", len(events), "in_progress", secret_from_hand=1)
    seen: list[bool] = []
    read = store.events

    def watched(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return read(*args, **kwargs)

    monkeypatch.setattr(store, "events", watched)
    assert FoldCache().get(db, toepen, "g", len(events)).version == 3  # type: ignore[arg-type]
    assert seen == [False] and gc.isenabled()
    with pytest.raises(store.RecordDamaged):  # a version beyond the log: damaged, and the collector on again
        FoldCache().get(db, toepen, "g", len(events) + 1)  # type: ignore[arg-type]
    assert gc.isenabled()
    db.close()
