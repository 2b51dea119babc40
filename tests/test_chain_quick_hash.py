"""``replays.chain.first_break`` tries each link with ``orjson`` first (a rebuild re-hashes
every event): the quick text is the canonical one for every event Kibitz stores, and where it
could differ the exact one decides, so the verdict is always :func:`replays.chain.event_hash`'s."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from replays import chain

TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)  # any character but a lone surrogate
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)


def _event(seq: int, data: Any, at: str | None = None) -> dict[str, Any]:
    return {"seq": seq, "type": "note", "data": data, "recorded_at": "2026-01-01T00:00:00.000Z", "at": at,
            "salt": "0123456789abcdef0123456789abcdef"}


def _exact_first_break(events: list[dict[str, Any]], previous: str = chain.GENESIS) -> int | None:
    for event in events:
        expected = chain.event_hash(previous, event)
        if event["hash"] != expected:
            return int(event["seq"])
        previous = expected
    return None


@settings(max_examples=300, deadline=None)
@given(data=st.dictionaries(TEXT, JSON, max_size=5), at=st.none() | TEXT)
def test_the_quick_text_is_the_canonical_one(data: dict[str, Any], at: str | None) -> None:
    event = _event(3, data, at)
    assert chain._quick_hash("ab" * 32, event) == chain.event_hash("ab" * 32, event)


def test_what_orjson_writes_otherwise_is_decided_by_the_exact_text() -> None:
    odd = [{"float": 1e16}, {"big": 2**70}, {"surrogate": "\udc80"}, {"nan": float("nan")}, {"neg": -0.0}]
    previous, events = chain.GENESIS, []
    for seq, data in enumerate(odd, start=1):
        event = _event(seq, data)
        event["hash"] = previous = chain.event_hash(previous, event)
        events.append(event)
    assert chain.first_break(events) is None
    for broken in range(len(events)):
        tampered = [dict(event) for event in events]
        tampered[broken]["hash"] = "0" * 64
        assert chain.first_break(tampered) == _exact_first_break(tampered) == broken + 1


@settings(max_examples=100, deadline=None)
@given(datas=st.lists(st.dictionaries(TEXT, JSON, max_size=3), min_size=1, max_size=6), cut=st.integers(0, 5))
def test_a_broken_link_is_named_as_the_exact_check_names_it(datas: list[dict[str, Any]], cut: int) -> None:
    previous, events = chain.GENESIS, []
    for seq, data in enumerate(datas, start=1):
        event = _event(seq, data)
        event["hash"] = previous = chain.event_hash(previous, event)
        events.append(event)
    if cut < len(events):
        events[cut] = {**events[cut], "data": {**events[cut]["data"], "changed": True}}
    assert chain.first_break(events) == _exact_first_break(events)
