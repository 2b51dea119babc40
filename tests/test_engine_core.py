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
