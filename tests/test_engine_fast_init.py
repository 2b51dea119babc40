"""engine.core.fast_init: the reducers' small frozen records built by an ``__init__`` compiled
once per class, taking and giving exactly what the one ``dataclasses`` writes does."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

import engine
from engine.core import fast_init


@dataclasses.dataclass(frozen=True, slots=True)
class Written:
    seat: int
    card: str
    seq: int = 0
    cards: tuple[str, ...] = ()


@fast_init
@dataclasses.dataclass(frozen=True, slots=True)
class Compiled:
    seat: int
    card: str
    seq: int = 0
    cards: tuple[str, ...] = ()


def _both(*args: object, **kwargs: object) -> tuple[object, object]:
    return Written(*args, **kwargs), Compiled(*args, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(("args", "kwargs"), [((1, "TH"), {}), ((1, "TH", 5), {}), ((1,), {"card": "7C", "cards": ("7C",)}),
                                              ((), {"seat": 2, "card": "AS", "seq": 9})])
def test_same_fields_as_the_dataclass_init(args: tuple[object, ...], kwargs: dict[str, object]) -> None:
    written, compiled = _both(*args, **kwargs)
    assert dataclasses.astuple(written) == dataclasses.astuple(compiled)  # type: ignore[call-overload]
    assert repr(written).replace("Written", "Compiled") == repr(compiled)


@pytest.mark.parametrize(("args", "kwargs"), [((1,), {}), ((1, "TH"), {"colour": "red"}), ((1, "TH", 2, (), 3), {}),
                                              ((1, "TH"), {"seat": 1})])
def test_same_refusals(args: tuple[object, ...], kwargs: dict[str, object]) -> None:
    with pytest.raises(TypeError):
        Written(*args, **kwargs)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Compiled(*args, **kwargs)  # type: ignore[arg-type]


def test_still_frozen_equal_and_hashable() -> None:
    record = Compiled(1, "TH", 3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.seat = 2  # type: ignore[misc]
    assert record == Compiled(1, "TH", 3) != Compiled(1, "TH", 4)
    assert hash(record) == hash(Compiled(1, "TH", 3))
    assert inspect.signature(Compiled) == inspect.signature(Written)


def test_a_post_init_keeps_the_dataclass_init() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        seat: int

        def __post_init__(self) -> None:
            if self.seat < 0:
                raise ValueError("no such seat")

    written = Checked.__init__
    assert fast_init(Checked).__init__ is written
    with pytest.raises(ValueError):
        Checked(-1)


def test_every_engine_record_has_it() -> None:
    """Each frozen, slotted record of the game engines is built by the compiled ``__init__``."""
    records = [cls for rules in engine.GAMES.values() for cls in vars(rules).values()
               if isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == rules.__name__
               and cls.__dataclass_params__.frozen and hasattr(cls, "__slots__")  # type: ignore[attr-defined]
               and cls.__dataclass_params__.eq]  # type: ignore[attr-defined]
    assert len(records) >= 25
    for cls in records:
        assert "_store_" in " ".join(cls.__init__.__code__.co_names), cls
