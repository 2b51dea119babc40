"""The current trick's label is read whole (issue 25): a fresh user, Fool! on a 390×844 phone with six
seats, saw the current trick scrolled to its newest play, its label cut to "rick 1". The trick's
plays now wrap onto as many lines as they need (docs/table-page.md, "Recording": the band): the label "Trick 1:"
is on screen whole, at the trick's left, with every play of the trick.
"""

from __future__ import annotations

from tests.browser.conftest import PHONE
from tests.browser.table import open_table

SIX = ["Annabel", "Bettina", "Cassandra", "Dorothea", "Evangeline", "Fay"]

#: the label's box, the trick's box and sideways scroll, and what is seen at the label's first letter
LABEL = """() => { const t = document.querySelector('#board .trick.current'); const l = t.querySelector('.trick-label');
  const r = l.getBoundingClientRect(), q = t.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + 2, (r.top + r.bottom) / 2);
  const plays = Array.from(t.querySelectorAll('.play')).map(p => { const b = p.getBoundingClientRect();
    return b.left >= q.left - 1 && b.right <= Math.min(q.right, window.innerWidth) + 1; });
  return {text: l.textContent, left: r.left, right: r.right, trickLeft: q.left, scrolled: t.scrollLeft,
          seen: !!hit && hit.closest('.trick-label') === l, plays: plays}; }"""


def test_fool_with_six_seats_on_a_phone_reads_the_trick_label_whole(server, new_context):
    game = server.create(game="fool", players=SIX)
    server.post(game, {"type": "deal"})
    for _ in range(5):  # five of the six seats play yellow cards
        play = next(a for a in server.get(f"/games/{game['id']}/actions", game["token"])["actions"] if a["type"] == "play")
        card = next(c for c in (play.get("cards") or play.get("possible")) if str(c).startswith("Y"))
        server.post(game, {"type": "play", "player": play["player"], "card": card})
    page = new_context(viewport=PHONE).new_page()
    open_table(page, server, game, base=server.lan_base)
    page.evaluate("() => window.scrollTo(0, 0)")
    seen = page.evaluate(LABEL)
    assert seen["text"] == "Trick 1:", seen
    assert seen["scrolled"] == 0 and seen["left"] >= seen["trickLeft"] - 1 and seen["left"] >= 0, seen
    assert seen["seen"], seen  # its first letter on screen, not under anything
    assert len(seen["plays"]) == 5 and all(seen["plays"]), seen
