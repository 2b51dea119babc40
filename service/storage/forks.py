"""Secrecy along chains of what-if forks, of any length (api.md, "Views and secrets").

A fork copies the dealt cards of the game it branched off, so whatever it records in a
shared hand (a play, a show, the hand's end) names cards that are still in players' hands in
any game up its chain that is still playing that hand: its public reads are refused while
one is (``service.record.secrecy``). Nothing here walks the chain: each game row stores what the check
needs (``service.storage.sqlite``, migration ``0004_fork_lineage``):

- ``secret_from_hand`` on every game: the first hand or round that is not over (its cards,
  and those of later hands, are still secret at that table), NULL once every hand is over;
  kept by every write (:func:`secret_from_hand`).
- ``fork_lineage`` on a fork: what it inherits, ``[[ancestor id, last hand shared], …]``
  for every game up its chain it shares dealt cards with, written once when the fork is
  made (:func:`inherited`): the parent's lineage (each shared hand capped at the hand the
  fork was taken in) plus the parent itself.

So the check of a read is one query over the fork's own lineage (:func:`sealed_by`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlite_utils import Database

import engine
from engine.interface import GameRules
from replays import replay
from service.storage import backend as store


def secret_from_hand(rules: GameRules, state: Any) -> int | None:
    """The first hand or round of ``state`` that is not over (1 before the first deal), or
    None when every hand is over (the game is over). Hands end in order: once hand n is not
    over, no later one is; so the first one not over is found by halving the hands 1 to the
    current one plus one (a write asks this on every move: its cost must not grow with the
    number of hands played, tests/test_secret_from_hand.py)."""
    low, high = 1, rules.hand_number(state) + 2  # the answer is in low..high - 1, or high: none
    while low < high:
        middle = (low + high) // 2
        if rules.hand_over(state, middle):
            low = middle + 1
        else:
            high = middle
    return None if low == rules.hand_number(state) + 2 else low


def inherited(db: Database, parent_id: str, game: str, hand: int) -> list[list[Any]]:
    """The ``fork_lineage`` of a new fork of ``parent_id`` taken in hand ``hand`` (the
    parent's hand number at the fork's ``seq``, 0 before its first deal): ``[]`` when the
    parent is not stored here, is another game, or nothing was dealt yet."""
    parent = store.get_game(db, parent_id)
    if parent is None or parent["game"] != game or hand < 1:
        return []
    above = [[ancestor, min(shared, hand)] for ancestor, shared in store.fork_lineage(db, parent_id)]
    return [*above, [parent_id, hand]]


def hand_at(db: Database, game_id: str, seq: int) -> int:
    """The hand number of stored game ``game_id`` right after event ``seq`` (0 if there is no
    such game, or it does not fold)."""
    row = store.get_game(db, game_id)
    if row is None or row["game"] not in engine.GAMES:
        return 0
    rules = engine.GAMES[row["game"]]
    try:
        folded = replay.fold(rules, store.events(db, game_id, upto=seq))
    except Exception:  # noqa: BLE001 - a log that no longer folds shares nothing we can name
        return 0
    return int(rules.hand_number(folded.stream.state))


def sealed_by(db: Database, row: Mapping[str, Any]) -> tuple[str, int] | None:
    """``(game id, hand)`` when open fork ``row`` shares a hand that a game up its chain is
    still playing (its ``secret_from_hand`` is at most the last hand the fork shares with
    it), the nearest such game first; else None (also for a ``table`` game or a game that is
    not a fork). Whatever the fork records in such a hand (a play, a show, the hand's end)
    names cards that game's players may still hold (api.md, "Views and secrets": "Forks
    share hands"), so its public reads are refused while it lasts."""
    if row["visibility"] != "open" or not row.get("forked_from_game"):
        return None
    for ancestor, shared, secret_from in store.lineage_secrets(db, row["id"]):
        if secret_from <= shared:
            return ancestor, secret_from
    return None


def backfill(db: Database) -> None:
    """Fill ``secret_from_hand`` of every stored game and ``fork_lineage`` of every fork
    (games stored before migration ``0004_fork_lineage``), parents before their forks."""
    rows = store.fork_relations(db)
    for game_id, (game, _parent, _seq) in rows.items():
        if game not in engine.GAMES:
            continue
        rules = engine.GAMES[game]
        try:
            state = replay.fold(rules, store.events(db, game_id)).stream.state
        except Exception:  # noqa: BLE001 - a log that no longer folds is left as it was
            continue
        store.set_secret_from_hand(db, game_id, secret_from_hand(rules, state))
    done: set[str] = set()
    for start in sorted(rows):
        chain: list[str] = []  # start, its parent, … up to a game already done or not a fork
        up: str | None = start
        while up is not None and up in rows and up not in done and up not in chain:
            chain.append(up)
            up = rows[up][1]
        for fork_id in reversed(chain):  # parents first: each inherits its parent's lineage
            game, parent, seq = rows[fork_id]
            if parent and isinstance(seq, int):
                store.set_fork_lineage(db, fork_id, inherited(db, parent, game, hand_at(db, parent, seq)))
            done.add(fork_id)
