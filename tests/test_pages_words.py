"""Words for card players on the server-rendered pages (Flask's test client): the club table
sorts Toepen's lives lost best first; a visibility reads "open hands" or "table visibility",
never a bare word beside the title; the hand audit's result sentences end with one full stop;
Stop the Bus between rounds says who lost the chip and why."""

from __future__ import annotations

import re

from tests.browser.recorded import BUS_STEPS
from tests.conftest import create

NAMES = re.compile(r'class="cell-link" href="/people/(\w+)"')

def _page_text(response) -> str:  # noqa: ANN001 - a test client response
    """The page's HTML without the <bdi> isolates around names (api.md, "Text people type"),
    so a sentence reads as a person reads it."""
    return re.sub(r"</?bdi>", "", response.get_data(as_text=True))



def test_club_table_sorts_lives_lost_best_first(client):
    # Ann loses 3 lives over two games, Bob 1, Cas 0 (each game: one ruling, then abandoned
    # games do not count, so each is finished by a ruling that reaches the limit)
    for loser, amount in (("Ann", 2), ("Ann", 1), ("Bob", 1)):
        game = create(client, players=["Ann", "Bob", "Cas"], options={"limit": 2})
        game.post({"type": "adjust", "player": loser, "amount": amount, "reason": "ruling"})
        if amount < 2:
            game.post({"type": "adjust", "player": "Cas" if loser != "Cas" else "Bob", "amount": 2, "reason": "ruling"})
    html = _page_text(client.get("/club?sort=average&order=desc"))
    toepen = html.split('id="h-toepen"')[1]
    rows = re.findall(r'href="/people/(\w+)">\w+</a></th>(.*?)</tr>', toepen, re.S)
    averages = [float(re.findall(r"<td>([\d.]+)</td>", cells)[-1]) for _, cells in rows]
    assert averages == sorted(averages), averages  # the fewest lives lost first: the best first
    assert 'aria-sort="ascending"' in toepen and "fewer is better" in toepen
    worst_first = _page_text(client.get("/club?sort=average&order=asc")).split('id="h-toepen"')[1]
    rows = re.findall(r'href="/people/(\w+)">\w+</a></th>(.*?)</tr>', worst_first, re.S)
    assert [float(re.findall(r"<td>([\d.]+)</td>", c)[-1]) for _, c in rows] == sorted(averages, reverse=True)


def test_visibility_reads_in_words_beside_the_title(client):
    open_game = create(client, visibility="open", title="Bus")
    table_game = create(client)
    assert " · open hands · " in _page_text(client.get(f"/watch/{open_game.id}"))
    assert " · table visibility · " in _page_text(client.get(f"/watch/{table_game.id}"))
    home = _page_text(client.get("/"))
    assert "open hands ·" in home and re.search(r'class="game-meta">\s*(open|table) ·', home) is None


def test_stop_the_bus_between_rounds_says_who_lost_a_chip_and_why(client):
    game = create(client, game="stop_the_bus", players=["Ann", "Bob", "Cas"], dealer="Cas")
    for action in BUS_STEPS[:11]:  # one round to the showdown
        answer = game.post(action)
        assert answer.status_code == 201, answer.get_json()
    html = _page_text(client.get(f"/watch/{game.id}"))
    line = re.search(r'<p class="hand-result" id="hand-result">(.*?)</p>', html).group(1)
    assert line == "Round 1 is over. Bob loses a chip. Bob has the weakest hand (pair, 9-9-5), below run, 4-3-2 (Cas)."
    assert line.endswith(".") and ".." not in line and "rules/" not in line
    audit = _page_text(client.get(f"/watch/{game.id}/hands/1"))
    assert "Bob has the weakest hand" in audit and "..</p>" not in audit


def test_fool_between_rounds_and_a_finished_toepen_game_show_the_last_result(client):
    fool = create(client, game="fool", players=["Ann", "Bob", "Cas", "Dee"], options={"hand_size": 1})
    assert fool.post({"type": "deal"}).status_code == 201
    for card in ("G20", "G4", "G11", "R7"):
        who = fool.get().get_json()["state"]["to_act"][0]
        answer = fool.post({"type": "play", "player": who, "card": card})
        assert answer.status_code == 201, answer.get_json()
    state = fool.get().get_json()["state"]
    assert state["phase"] == "deal", state["phase"]
    html = _page_text(client.get(f"/watch/{fool.id}"))
    line = re.search(r'<p class="hand-result" id="hand-result">(.*?)</p>', html).group(1)
    assert line.startswith("Round 1 is over. Points this round: ") and line.endswith(".") and ".." not in line
    toepen = create(client, players=["Ann", "Bob", "Cas"], options={"limit": 2})
    for action in ({"type": "deal"}, {"type": "knock", "player": "Bob"}, {"type": "fold", "player": "Cas"},
                   {"type": "fold", "player": "Ann"},
                   {"type": "adjust", "player": "Ann", "amount": 1, "reason": "ruling"}):  # Ann reaches 2: over
        answer = toepen.post(action)
        assert answer.status_code == 201, answer.get_json()
    html = _page_text(client.get(f"/watch/{toepen.id}"))
    assert "Game over: Bob and Cas won." in html
    line = re.search(r'<p class="hand-result" id="hand-result">(.*?)</p>', html).group(1)
    assert line == "Hand 1 is over. Ann lost 1 life, Cas lost 1 life. Ann and Cas folded: Bob is the last player in."
