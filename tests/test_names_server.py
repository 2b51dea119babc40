"""Player names an outside tester sent over HTTP (issue 27), against a real ``kibitz serve``:
a name with no visible character (U+115F HANGUL CHOSEONG FILLER, U+2800 BRAILLE PATTERN
BLANK) was seated, and so was ``Аnn`` with a Cyrillic А beside the seat ``Ann``. Each is a 422
``validation_failed`` naming the seat now (docs/text-and-headers.md), while names of every
script are seated as typed."""

from __future__ import annotations

import pytest
import requests

from tests.postgres import empty_database
from tests.serving import serving

WRITTEN = ["José", "Zoë", "Nguyễn", "Ольга", "Σοφία", "محمد", "O'Brien", "李小龍", "田中はるか", "김철수", "ラーメン",
           "Ann ❤️", "👨‍👩‍👧", "Ann-Мария", "Ann Ольга", "ΑΝΝ", "Jean-Luc", "ᠮᠣᠩᠭᠣᠯ"]

REFUSED = [
    ("\u115f", "shows nothing: U+115F (HANGUL CHOSEONG FILLER)"),
    ("\u2800", "shows nothing: U+2800 (BRAILLE PATTERN BLANK)"),
    ("\u3164", "shows nothing: U+3164 (HANGUL FILLER)"),
    ("\uffa0", "shows nothing: U+FFA0 (HALFWIDTH HANGUL FILLER)"),
    ("Ann\u3164", "shows nothing: U+3164 (HANGUL FILLER)"),
    ("A\u034fnn", "shows nothing: U+034F (COMBINING GRAPHEME JOINER)"),
    ("\u0410nn", "may not mix Cyrillic and Latin letters in one word (“\u0410nn”; U+0410 (CYRILLIC CAPITAL LETTER A) "
                 "looks like Latin A)"),
    ("P\u0430ul Smith", "may not mix Cyrillic and Latin letters in one word (“P\u0430ul”; U+0430 (CYRILLIC SMALL LETTER A) "
                        "looks like Latin a)"),
    ("Bob\u03b2", "may not mix Greek and Latin letters in one word"),
]


#: Each server of this module runs on either backend (issue 27's findings hold on both).
@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def backend(request):
    return request.param


@pytest.fixture(scope="module")
def base(tmp_path_factory, backend):
    folder = tmp_path_factory.mktemp("names")
    with empty_database(backend, folder) as database, serving(folder, database=database) as url:
        yield url


def test_names_of_every_script_are_seated_as_typed(base):
    for first in range(0, len(WRITTEN), 6):
        seats = WRITTEN[first:first + 6]
        made = requests.post(f"{base}/games", json={"game": "toepen", "players": seats}, timeout=30)
        assert made.status_code == 201, made.text
        assert made.json()["players"] == seats


@pytest.mark.parametrize("name, said", REFUSED, ids=[f"{n}:U+{ord(name[-1]):04X}" for n, (name, _) in enumerate(REFUSED)])
def test_an_invisible_or_mixed_script_name_is_refused_naming_the_seat(base, name, said):
    before = requests.get(f"{base}/games", timeout=30).json()["games"]
    refused = requests.post(f"{base}/games", json={"game": "toepen", "players": ["Ann", "Bob", name]}, timeout=30)
    assert refused.status_code == 422, refused.text
    assert refused.headers["Content-Type"].startswith("application/problem+json")
    assert refused.json()["code"] == "validation_failed"
    assert any(said in message for message in refused.json()["errors"]["players.2"]), refused.json()
    assert requests.get(f"{base}/games", timeout=30).json()["games"] == before
