"""The player page's "Scores over a game" chart: every player of the game is in its legend,
inside the picture (pygal reserved room for only ``players // columns`` legend rows, so a fourth
player's entry fell below the SVG), and each line is drawn differently (width, dashes) so lines
with the same totals stay visible; the caption names players whose lines coincide."""

from __future__ import annotations

import re

import pytest

from tests.conftest import create

NAMES = ["Ann", "Bob", "Cas", "Dee", "Eve", "Fay", "Gus"]


def _chart(html: str) -> str:
    section = html.split('id="h-over-game"')[1]
    return section[section.index("<svg"):section.index("</svg>")]


@pytest.mark.parametrize("players", [4, 5, 7])
def test_every_player_is_in_the_legend_inside_the_picture_and_lines_differ(client, players):
    names = NAMES[:players]
    game = create(client, players=names, options={"limit": 5})
    game.post({"type": "deal"})
    for who, amount in (("Bob", 1), ("Cas", 2), ("Dee", 2)):
        game.post({"type": "adjust", "player": who, "amount": amount, "reason": "ruling"})
    html = client.get("/people/Ann").get_data(as_text=True)
    svg = _chart(html)
    height = float(re.search(r'viewBox="0 0 [\d.]+ ([\d.]+)"', svg).group(1))
    legends = svg[svg.index('class="legends"') - 40:]
    shift = float(re.search(r'translate\(([\d.]+), ([\d.]+)\)" class="legends"', legends).group(2))
    entries = re.findall(r'<text x="[\d.]+" y="([\d.]+)">([^<]+)</text>', legends)
    assert sorted(name.strip("\u2068\u2069") for _, name in entries) == sorted(names)  # each isolated (FSI … PDI)
    assert all(shift + float(y) <= height for y, _ in entries), (height, shift, entries)
    styles = re.findall(r"\.series\.serie-(\d+)\{([^}]*)\}", svg)
    looks = {number: style for number, style in styles}
    assert len(looks) == players and len(set(looks.values())) == players, looks
    caption = html.split("<figcaption>")[1].split("</figcaption>")[0].replace("<bdi>", "").replace("</bdi>", "")
    assert "Cas and Dee have the same total after every hand: their lines lie on top of each other." in caption
    assert "Ann's line is the thick one" in caption
