"""The match histories checked against the logs before they are served (issue 27).

``player_results`` (``service.history``) is a projection: rows written beside the log so a
history is one indexed query. It is outside the hash chain, so a row changed behind Kibitz's
back (the loser shown as the winner) would be served as it stands. Before a history answer
(``GET /players``, ``/players/<name>``, its CSV, the people pages and the club table) is
built, :meth:`ResultsCheck.check` compares every row it counts with the rows the game's log
gives (``service.history.rows`` of the game folded, through ``service.cache.FoldCache``: its
chain checked as every read checks it). A game whose rows disagree, or whose log is
damaged, makes the answer a 503 ``record_damaged`` naming it: nothing derived from a record
that is not what Kibitz wrote is served (docs/tamper-evidence.md).

What a game's log gives is kept in memory with the ``record_hash`` it was computed at, so
a game is folded once while its record stays as it is (the memo holds a few small rows per
game; a game the fold cache holds costs one head query). A row deleted from the table is
found by a history over the whole period (the game's rows are compared as a set) and by
``kibitz check``, not by one player's history.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from flask import current_app
from sqlite_utils import Database

import engine
from replays import chain, replay
from service.record.cache import FoldCache, agrees, fixed_fields
from service.storage import backend as store
from service.storage import forks, history
from service.storage.connections import get_db

_EXTENSION = "kibitz_results"


class ResultsCheck:
    """The rows each game's log gives, by game id, with the ``record_hash`` they were
    computed at. Thread-safe."""

    def __init__(self) -> None:
        self._known: dict[str, tuple[str | None, dict[str, dict[str, Any]]]] = {}
        self._firsts: dict[str, Mapping[str, Any]] = {}  # game id -> fixed_fields of its first event
        self._firsts_generation = -1
        self._lock = threading.Lock()

    def check(self, db: Database, cache: FoldCache, *, since: str | None = None, until: str | None = None,
              player_key: str | None = None) -> None:
        """Check the ``player_results`` rows a history over ``since`` / ``until``, or of
        ``player_key``, counts (``store.results_in_scope``). Raises ``store.RecordDamaged``
        for the first game whose rows are not the ones its log gives, or whose log is damaged."""
        by_game: dict[str, list[dict[str, Any]]] = {}
        for row in store.results_in_scope(db, since, until, player_key):
            by_game.setdefault(str(row["game_id"]), []).append(row)
        for game_id, stored in by_game.items():
            expected = self._expected(db, cache, game_id, stored[0])
            found = {str(row["player_key"]): row for row in stored}
            for key, row in found.items():
                want = expected.get(key)
                if want is None:
                    raise store.damaged(game_id, None, f"player_results has a row for {row.get('name')!r} that its "
                                                       "events do not give")
                wrong = [column for column in history.COLUMNS if row.get(column) != want[column]]
                if wrong:
                    said = ", ".join(f"{column} {row.get(column)!r} (its events make it {want[column]!r})"
                                     for column in wrong)
                    raise store.damaged(game_id, None, f"player_results of {want['name']!r} (seat {want['seat']}) "
                                                       f"says {said}")
            if player_key is None and set(found) != set(expected):
                raise store.damaged(game_id, None, "player_results lacks rows its events give: the histories "
                                                   "leave this game out")

    def check_listed(self, db: Database, cache: FoldCache, rows: list[dict[str, Any]]) -> None:
        """:func:`check_listed` with this check's memory of first events."""
        generation = cache.generation
        with self._lock:
            if self._firsts_generation != generation:
                self._firsts.clear()
                self._firsts_generation = generation
            fixed = {str(row["id"]): self._firsts.get(str(row["id"])) or cache.fixed(str(row["id"])) for row in rows}
        missing = [game_id for game_id, found in fixed.items() if found is None]
        if missing:
            for game_id, first in store.first_events(db, missing).items():
                if chain.first_break([first]) is not None:
                    raise store.damaged(game_id, 1, "its hash does not follow the chain: the event was changed "
                                                    "after it was recorded")
                fixed[game_id] = fixed_fields(first)
            with self._lock:
                if self._firsts_generation == generation:
                    self._firsts.update({game_id: found for game_id, found in fixed.items() if found is not None})
        for row in rows:
            found = fixed.get(str(row["id"]))
            if found is None:
                raise store.damaged(str(row["id"]), 1, "event 1 is missing: a gap in the stored log")
            for column, value in found.items():
                if column in row and row[column] != value:
                    said = "was recorded at" if column == "created_at" else "says"
                    raise store.damaged(str(row["id"]), None, f"games.{column} is {row[column]!r} but the log's "
                                                              f"game_created {said} {value!r}")

    def _expected(self, db: Database, cache: FoldCache, game_id: str,
                  stored: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        """The rows game ``game_id``'s log gives, by player key (``stored``: one of its
        stored rows, with the game's ``g_record_hash`` and ``g_version``)."""
        record_hash = stored["g_record_hash"]
        with self._lock:
            known = self._known.get(game_id)
        if known is not None and known[0] == record_hash:
            return known[1]
        rules = engine.GAMES.get(str(stored["game"]))
        if rules is None:
            raise store.damaged(game_id, None, f"player_results names the game {str(stored['game'])[:40]!r}")
        folded = cache.get(db, rules, game_id, int(stored["g_version"]), record_hash=record_hash)
        fixed = cache.fixed(game_id)
        if fixed is None:  # left the cache already: its first event, checked by the get just made
            fixed = fixed_fields(store.events(db, game_id, upto=1)[0])
        if fixed.get("game") != rules.GAME:
            raise store.damaged(game_id, None, f"player_results names the game {rules.GAME!r} but the log's "
                                               f"game_created says {fixed.get('game')!r}")
        rows = [] if fixed.get("forked_from_game") else history.rows(
            {"id": game_id, "game": rules.GAME, "created_at": fixed.get("created_at")}, folded.stream)
        expected = {str(values[1]): dict(zip(history.COLUMNS, values, strict=True)) for values in rows}
        with self._lock:
            self._known[game_id] = (record_hash, expected)
        return expected


def check(*, since: str | None = None, until: str | None = None, name: str | None = None) -> None:
    """Check, for the current request, what a history over ``since`` / ``until`` (or of the
    player called ``name``) counts (:meth:`ResultsCheck.check`): 503 ``record_damaged`` for
    a game whose rows are not what its log gives."""
    checker: ResultsCheck = current_app.extensions.setdefault(_EXTENSION, ResultsCheck())
    cache: FoldCache = current_app.extensions["kibitz_cache"]
    checker.check(get_db(), cache, since=since, until=until,
                  player_key=None if name is None else history.key(name))


def check_game(db: Database, row: Mapping[str, Any], events: list[dict[str, Any]], folded: replay.Folded) -> None:
    """Compare everything stored about game ``row`` (a loaded games row) outside its chain
    with its whole log ``events`` (read and checked) folded to ``folded``: the row's own
    fields and ``secret_from_hand`` (``service.cache.agrees``), its ``player_results`` rows
    (``service.history.rows``; none for a fork) and a fork's ``fork_lineage``
    (``service.forks.inherited`` from the game it was forked from, when that game was stored
    before it). What ``kibitz check`` compares, for the one game the verify page checks afresh.
    Raises ``store.RecordDamaged`` naming what differs."""
    game_id = str(row["id"])
    fixed = fixed_fields(events[0])
    agrees(game_id, row, fixed, folded)
    rules = folded.stream.rules
    expected = [] if fixed.get("forked_from_game") else [
        dict(zip(history.COLUMNS, values, strict=True))
        for values in history.rows({"id": game_id, "game": rules.GAME, "created_at": fixed["created_at"]},
                                   folded.stream)]
    stored = {str(found["player_key"]): found for found in store.player_results_of(db, game_id)}
    for want in expected:
        found = stored.pop(str(want["player_key"]), None)
        wrong = [column for column in history.COLUMNS if found is None or found.get(column) != want[column]]
        if wrong:
            said = "has no row" if found is None else "says " + ", ".join(
                f"{column} {found.get(column)!r} (its events make it {want[column]!r})" for column in wrong)
            raise store.damaged(game_id, None, f"player_results of {want['name']!r} (seat {want['seat']}) {said}")
    if stored:
        raise store.damaged(game_id, None, f"player_results has a row for {next(iter(stored.values())).get('name')!r} "
                                           "that its events do not give")
    parent, seq = fixed.get("forked_from_game"), fixed.get("forked_from_seq")
    above = store.get_game(db, str(parent)) if parent else None
    lineage = [list(pair) for pair in store.fork_lineage(db, game_id)]
    inherited: list[list[Any]] = []
    if above is not None and isinstance(seq, int):
        inherited = forks.inherited(db, str(parent), rules.GAME, forks.hand_at(db, str(parent), seq))
    later = above is not None and above.get("_rowid", 0) > row.get("_rowid", 0)
    if lineage != inherited and not (later and lineage == []):
        raise store.damaged(game_id, None, f"games.fork_lineage is {lineage!r} but the games it was forked from give "
                                           f"{inherited!r}")


def check_listed(rows: list[dict[str, Any]]) -> None:
    """Compare each games row of a list (``GET /games``, the home page, a game's forks) with
    its log's ``game_created`` (``service.cache.fixed_fields``): what the list shows of it
    (game, players, visibility, options, title, ``created_at``, the fork it branched off) is
    under the chain. The fold cache holds it for the games it has; the others' first events
    are read in one query, their hash checked, and kept (a first event cannot change without
    lifting a trigger, which empties what is kept: the cache's generation). Raises
    ``store.RecordDamaged`` for the first row that disagrees (503 ``record_damaged``)."""
    cache: FoldCache = current_app.extensions["kibitz_cache"]
    checker: ResultsCheck = current_app.extensions.setdefault(_EXTENSION, ResultsCheck())
    checker.check_listed(get_db(), cache, rows)
