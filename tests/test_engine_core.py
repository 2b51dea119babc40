"""engine.core.evolve: a faster dataclasses.replace for the reducers' frozen state."""

from __future__ import annotations

import dataclasses

import pytest

from engine.core import evolve


@dataclasses.dataclass(frozen=True, slots=True)
class Slotted:
    a: int
    b: tuple[int, ...] = ()


@dataclasses.dataclass(frozen=True)
class Plain:
    a: int
    b: tuple[int, ...] = ()


@pytest.mark.parametrize("cls", [Slotted, Plain], ids=["slots", "dict"])
def test_evolve_is_replace(cls) -> None:
    before = cls(1, (2,))
    after = evolve(before, b=(3,))
    assert after == dataclasses.replace(before, b=(3,)) == cls(1, (3,))
    assert before == cls(1, (2,))  # the original is untouched
    assert evolve(before) == before and evolve(before) is not before
    with pytest.raises(dataclasses.FrozenInstanceError):
        after.a = 5  # type: ignore[misc]


@pytest.mark.parametrize("cls", [Slotted, Plain], ids=["slots", "dict"])
def test_evolve_refuses_a_field_the_class_does_not_have(cls) -> None:
    with pytest.raises(TypeError, match="has no field"):
        evolve(cls(1), c=2)


def test_redact_fields_drops_only_what_the_type_hides() -> None:
    from engine.core import redact_fields

    hidden = {"deal": ("hands",), "draw": ("card",)}
    assert redact_fields({"type": "deal", "dealer": "Ann", "hands": {}}, hidden) == {"type": "deal", "dealer": "Ann"}
    assert redact_fields({"type": "play", "card": "TH"}, hidden) == {"type": "play", "card": "TH"}


def test_player_result_has_every_key_and_refuses_unknown_counters() -> None:
    from engine.core import player_result

    assert player_result(0, None, 3, "chips", 2, stops=1) == {
        "seat": 1, "result": "in_progress", "score": 3, "unit": "chips", "hands": 2,
        "tricks_won": None, "fools": None, "knocks": None, "stops": 1,
    }
    assert player_result(1, False, None, None, 1)["result"] == "lost"
    with pytest.raises(TypeError):
        player_result(0, True, 0, "points", 1, laundries=2)
