"""The stores read a stored JSON column (an event's ``data``) with ``service.storage.sqlite.loads``:
``orjson`` where it reads as ``json`` does, ``json`` where it may not. Whatever the text, the
value is ``json.loads``'s: an integer beyond 64 bits stays whole (``orjson`` alone gives a
float), a lone surrogate escape, ``NaN`` and a number beyond a float are read, and text that
is not JSON is the same ``ValueError``."""

from __future__ import annotations

import json
import math

import pytest

from service.storage.sqlite import loads

TEXTS = [
    '{"amount":123456789012345678901234567890}',
    '{"amount":-9223372036854775809}',
    '{"amount":18446744073709551615}',
    '{"amount":1e400}',
    '{"text":"\\ud83d"}',
    '{"text":"\\ud83d\\ude00 caf\\u00e9"}',
    '{"a":1,"a":2}',
    '{"x":0.1,"y":-0.0,"z":1E5,"w":-0}',
    ' {"cards":["TH","7C"],"player":"Ann"} ',
    '{"note":"1234567890123456789 in words"}',
    "[1, 2]",
]


@pytest.mark.parametrize("text", TEXTS)
def test_loads_reads_as_json_does(text: str) -> None:
    ours, theirs = loads(text), json.loads(text)
    assert json.dumps(ours, sort_keys=True) == json.dumps(theirs, sort_keys=True)
    assert type(ours) is type(theirs)
    if isinstance(theirs, dict):
        for key, value in theirs.items():
            assert type(ours[key]) is type(value)


def test_nan_is_read() -> None:
    assert math.isnan(loads('{"a":NaN}')["a"])


@pytest.mark.parametrize("text", ["", "{", '{"a":1} x', "nul", '{"a":"\x00"}'])
def test_not_json_is_a_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        loads(text)


def test_not_text_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        loads(None)  # type: ignore[arg-type]
