"""The record's fingerprint has 16 hex digits (api.md, "A tamper-evident record": 64 bits; a
forged record matching 6 digits took an outside tester 22 s, and 12 digits are 48 bits), and a
check names the fingerprint it was given (issue 27): ``kibitz verify G a1820958a33500`` (a
noted 12-digit fingerprint and two digits more) said "The fingerprint a1820958a335 matches no
moment" while the 12-digit form matched. A real ``kibitz serve`` on a real SQLite file, the
game page and its verify form over HTTP, and ``kibitz verify`` on the same file."""

from __future__ import annotations

import html
import re
import subprocess

import pytest
import requests

from tests.serving import kibitz_command, serving


def _grouped(digits: str) -> str:
    return " ".join(digits[i:i + 4] for i in range(0, len(digits), 4))


def _verify(db, game_id: str, fingerprint: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*kibitz_command(), "verify", game_id, fingerprint, "--db", str(db)], capture_output=True,
                          text=True, timeout=60)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A game of a deal, a lead and a note on a running server: (base URL, database file, game id, hashes)."""
    folder = tmp_path_factory.mktemp("fingerprint")
    with serving(folder) as base:
        made = requests.post(f"{base}/games", json={"game": "toepen", "players": ["Ann", "Bob", "Cas"], "dealer": "Ann"},
                             timeout=30).json()
        auth = {"Authorization": f"Bearer {made['token']}"}
        for body in ({"type": "deal"}, {"type": "play", "player": "Bob", "card": "7H"}, {"type": "note", "text": "three"}):
            assert requests.post(f"{base}/games/{made['id']}/events", json=body, headers=auth,
                                 timeout=30).status_code == 201
        hashes = [event["hash"] for event in requests.get(f"{base}/games/{made['id']}/events", timeout=30).json()["events"]]
        yield base, folder / "kibitz.db", made["id"], hashes


def test_the_game_page_shows_sixteen_digits_in_four_groups(recorded):
    base, _db, game_id, hashes = recorded
    page = requests.get(f"{base}/watch/{game_id}", timeout=30).text
    assert f'<code class="fingerprint-code">{_grouped(hashes[-1][:16])}</code>' in page
    assert f'data-fingerprint="{hashes[-1][:16]}"' in page
    board = requests.get(f"{base}/watch/{game_id}/board", timeout=30).text
    assert _grouped(hashes[-1][:16]) in board


def _wrong_two(digits: str) -> str:
    return "00" if digits != "00" else "11"


@pytest.mark.parametrize("length", [12, 14, 16, 64])
def test_a_check_names_every_digit_it_was_given(recorded, length):
    base, db, game_id, hashes = recorded
    now = hashes[-1][:length]
    said = requests.get(f"{base}/watch/{game_id}/verify", params={"fingerprint": now.upper()}, timeout=30)
    # the moment in card players' words, the event number only as small print at the end (issue 25)
    words = (f"The fingerprint {_grouped(now)} matches the record as it stands now, after a note in hand 1, trick 1: "
             "nothing recorded up to the moment it was noted has changed.")
    shown = re.sub(r"<[^>]+>", "", html.unescape(said.text))  # the page: its number the replay's step, a link
    assert said.status_code == 200 and f"{words} (step 4 of the replay)" in shown, shown
    done = _verify(db, game_id, now)
    assert done.returncode == 0 and done.stdout == f"{words} (event 4)\n", done.stdout
    earlier = hashes[1][:length]  # noted after the deal, event 2
    done = _verify(db, game_id, _grouped(earlier))
    assert done.returncode == 0 and done.stdout == (
        f"The fingerprint {_grouped(earlier)} matches the record as it stood after Ann dealt in hand 1: everything "
        "recorded up to then is unchanged, and 2 more entries were recorded after it was noted (the record now stands "
        "after a note in hand 1, trick 1). (event 2 of 4)\n"), done.stdout
    assert not re.search(r"\bevents? \d", done.stdout.rpartition("(event")[0]), done.stdout  # no number in the sentence
    if length < 64:
        longer = now + _wrong_two(hashes[-1][length:length + 2])  # a noted fingerprint and two digits more
        done = _verify(db, game_id, longer)
        assert done.returncode == 1, done.stdout
        assert done.stdout.startswith(f"The fingerprint {_grouped(longer)} matches no moment of this game's record"), done.stdout
        said = requests.get(f"{base}/watch/{game_id}/verify", params={"fingerprint": longer}, timeout=30)
        assert f"The fingerprint {_grouped(longer)} matches no moment" in html.unescape(said.text)


@pytest.mark.parametrize("typed", ["a1820958a33", "", "g1820958a335", "a1820958a335" + "0" * 53])
def test_fewer_than_twelve_digits_or_more_than_sixty_four_is_not_a_fingerprint(recorded, typed):
    base, db, game_id, _hashes = recorded
    done = _verify(db, game_id, typed)
    assert done.returncode == 2 and "is not a fingerprint: give the 16 hex digits" in done.stderr, done.stderr
    if typed:
        said = requests.get(f"{base}/watch/{game_id}/verify", params={"fingerprint": typed}, timeout=30)
        assert said.status_code == 422 and "is not a fingerprint: give the 16 hex digits" in said.text
