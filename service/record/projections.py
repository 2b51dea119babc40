"""What is stored beside the logs, checked against them before it is served (issue 27).

``player_results`` (``service.storage.history``) is a projection: rows written beside the log so a
history is one indexed query. It is outside the hash chain, so a row changed behind Kibitz's
back (the loser shown as the winner) would be served as it stands. Before a history answer
(``GET /players``, ``/players/<name>``, its CSV, the people pages and the club table) is
built, :meth:`ResultsCheck.check` compares every row it counts with the rows the game's log
gives (``service.storage.history.rows`` of the game folded, through ``service.record.cache.FoldCache``: its
chain checked as every read checks it). A game whose rows disagree, or whose log is
damaged, makes the answer a 503 ``record_damaged`` naming it: nothing derived from a record
that is not what Kibitz wrote is served (docs/tamper-evidence.md). Lists of games
(:func:`check_listed`) compare what they show of each games row with its log the same way.

What it costs, once per record version (docs/performance.md, "Stored data checked against
the logs"):

- What a game's log gives is kept in memory with the ``record_hash`` it was computed at, so
  a game is folded once while its record stays as it is (a few small rows per game).
- The stored rows are not read again while nothing has changed them: every insert, update
  and delete of a ``player_results`` row moves the sum of ``results_seal`` (migration
  ``0011_results_seal``; its triggers refuse to set it back), so a history whose rows were
  all compared at one sum (and one guard) answers with one more small query
  (``store.results_stamp``) until a game's results are written again, by this server or
  another.

A row deleted from the table is found by a history over the whole period (the game's rows
are compared as a set) and by ``kibitz check``, not by one player's history.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from flask import current_app
from sqlite_utils import Database

import engine
from engine import stream as streams
from replays import chain, replay
from service.record.cache import FoldCache, agrees, fixed_fields
from service.storage import backend as store
from service.storage import forks, history
from service.storage.connections import get_db

_EXTENSION = "kibitz_results"


#: Where ``game`` stands in ``history.COLUMNS``.
_GAME = history.COLUMNS.index("game")
#: How many scopes (a period, a player) :class:`ResultsCheck` remembers as checked at one stamp.
SCOPES = 1024
#: The scope of every row (what ``GET /players`` without a period counts): it covers every other.
EVERYTHING: tuple[str | None, str | None, str | None] = (None, None, None)


class ResultsCheck:
    """What is known to agree with the logs. Thread-safe.

    - By game id, the ``player_results`` rows its log gives, with the ``record_hash`` and the
      fold cache's generation they were computed at (a game is folded again only when its
      record changed, or when the database's guard did).
    - The scopes (period, player) whose stored rows were all compared at one ``(generation,
      stamp)`` (``store.results_stamp``: it moves with every change of a ``player_results``
      row, whoever makes it): while it stands, they are not read again.
    - By game id, what a list of games shows of it beyond ``game_created`` (version, status,
      ``secret_from_hand``), with the ``record_hash`` and generation it was folded at.
    """

    def __init__(self) -> None:
        self._known: dict[str, tuple[str | None, int, dict[str, tuple[Any, ...]]]] = {}
        self._clean_at: tuple[int, object] | None = None
        self._clean: set[tuple[str | None, str | None, str | None]] = set()
        self._firsts: dict[str, Mapping[str, Any]] = {}  # game id -> fixed_fields of its first event
        self._firsts_generation = -1
        self._settled: dict[str, tuple[str | None, int, int, str, int | None]] = {}
        self._lock = threading.Lock()

    def check(self, db: Database, cache: FoldCache, *, since: str | None = None, until: str | None = None,
              player_key: str | None = None) -> None:
        """Check the ``player_results`` rows a history over ``since`` / ``until``, or of
        ``player_key``, counts (``store.results_in_scope``), unless every one of them was
        checked at the current stamp and guard (one query: ``store.results_stamp``). Raises
        ``store.RecordDamaged`` for the first game whose rows are not the ones its log gives,
        whose log is damaged, or that is not stored."""
        stamp, guard = store.results_stamp(db)
        generation = cache.observe(guard)
        scope = (since, until, player_key)
        with self._lock:
            if self._clean_at != (generation, stamp):
                self._clean_at, self._clean = (generation, stamp), set()
            if scope in self._clean or EVERYTHING in self._clean:
                return
        self._compare(db, cache, generation, store.results_in_scope(db, history.COLUMNS, since, until, player_key),
                      whole=player_key is None)
        with self._lock:
            if self._clean_at == (generation, stamp):
                if len(self._clean) >= SCOPES:
                    self._clean.clear()
                self._clean.add(scope)

    def _compare(self, db: Database, cache: FoldCache, generation: int, rows: list[tuple[Any, ...]], *,
                 whole: bool) -> None:
        """Compare stored ``rows`` (``store.results_in_scope``'s, of :data:`history.COLUMNS`)
        with the rows their games' logs give; ``whole``: each game's rows are all there (a
        scope of every player), so a row missing is damage too."""
        width = len(history.COLUMNS)
        by_game: dict[str, list[tuple[Any, ...]]] = {}
        for row in rows:
            by_game.setdefault(str(row[0]), []).append(row)
        for game_id, stored in by_game.items():
            first = stored[0]
            expected = self._expected(db, cache, generation, game_id, first[_GAME], first[width],
                                      first[width + 1])
            for row in stored:
                values = row[:width]
                want = expected.get(str(row[1]))
                if want == values:
                    continue
                found = dict(zip(history.COLUMNS, values, strict=True))
                if want is None:
                    raise store.damaged(game_id, None, f"player_results has a row for {found['name']!r} that its "
                                                       "events do not give")
                wanted = dict(zip(history.COLUMNS, want, strict=True))
                said = ", ".join(f"{column} {found[column]!r} (its events make it {wanted[column]!r})"
                                 for column in history.COLUMNS if found[column] != wanted[column])
                raise store.damaged(game_id, None, f"player_results of {wanted['name']!r} (seat {wanted['seat']}) "
                                                   f"says {said}")
            if whole and len(stored) != len(expected):
                raise store.damaged(game_id, None, "player_results lacks rows its events give: the histories "
                                                   "leave this game out")

    def check_listed(self, db: Database, cache: FoldCache, rows: list[dict[str, Any]]) -> None:
        """:func:`check_listed` with this check's memory of first events and folds."""
        generation = cache.observe(store.guard(db))
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
            if "version" in row and "status" in row:
                self._settle(db, cache, generation, row, found)

    def _settle(self, db: Database, cache: FoldCache, generation: int, row: Mapping[str, Any],
                fixed: Mapping[str, Any]) -> None:
        """Compare a listed games ``row``'s version, status and ``secret_from_hand`` with its
        log folded (through ``cache``, with the row's ``record_hash``: a version or
        ``record_hash`` that does not match the log is damage), once per record version."""
        game_id, record_hash = str(row["id"]), row.get("record_hash")
        with self._lock:
            known = self._settled.get(game_id)
        if known is None or known[:2] != (record_hash, generation):
            rules = engine.GAMES.get(str(fixed.get("game")))
            if rules is None:
                raise store.damaged(game_id, 1, f"game_created names an unknown game {str(fixed.get('game'))[:40]!r}")
            # a game in progress is kept in the fold cache (its next version then folds one event);
            # a finished one is folded once and not kept, so a long list does not empty the cache
            folded = cache.get(db, rules, game_id, int(row["version"]), record_hash=record_hash,
                               keep=row.get("status") == streams.IN_PROGRESS)
            known = (record_hash, generation, folded.version, streams.status(folded.stream),
                     forks.secret_from_hand(rules, folded.stream.state))
            with self._lock:
                self._settled[game_id] = known
        for column, value in zip(("version", "status", "secret_from_hand"), known[2:], strict=True):
            if column in row and row[column] != value:
                raise store.damaged(game_id, None, f"games.{column} is {row[column]!r} but its events make it "
                                                   f"{value!r}")

    def _expected(self, db: Database, cache: FoldCache, generation: int, game_id: str, game: object,
                  record_hash: str | None, version: int | None) -> dict[str, tuple[Any, ...]]:
        """The rows game ``game_id``'s log gives, by player key, each the values of
        ``history.COLUMNS`` (``game``, ``record_hash``, ``version``: its stored rows' game
        type, and its games row's record hash and version, None when it is not stored)."""
        if version is None:
            raise store.damaged(game_id, None, "player_results has rows for this game but the game is not stored")
        with self._lock:
            known = self._known.get(game_id)
        if known is not None and known[:2] == (record_hash, generation):
            return known[2]
        rules = engine.GAMES.get(str(game))
        if rules is None:
            raise store.damaged(game_id, None, f"player_results names the game {str(game)[:40]!r}")
        folded, fixed = cache.checked(db, rules, game_id, int(version), record_hash=record_hash, keep=False)
        if fixed.get("game") != rules.GAME:
            raise store.damaged(game_id, None, f"player_results names the game {rules.GAME!r} but the log's "
                                               f"game_created says {fixed.get('game')!r}")
        rows = [] if fixed.get("forked_from_game") else history.rows(
            {"id": game_id, "game": rules.GAME, "created_at": fixed.get("created_at")}, folded.stream)
        expected = {str(values[1]): tuple(values) for values in rows}
        with self._lock:
            self._known[game_id] = (record_hash, generation, expected)
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
    fields, ``secret_from_hand`` (``service.record.cache.agrees``) and ``stored_events``, its ``player_results`` rows
    (``service.storage.history.rows``; none for a fork) and a fork's ``fork_lineage``
    (``service.storage.forks.inherited`` from the game it was forked from, when that game was stored
    before it). What ``kibitz check`` compares, for the one game the verify page checks afresh.
    Raises ``store.RecordDamaged`` naming what differs."""
    game_id = str(row["id"])
    fixed = fixed_fields(events[0])
    agrees(game_id, row, fixed, folded)
    if row.get("stored_events") is not None and row["stored_events"] != len(events):
        raise store.damaged(game_id, None, f"games.stored_events is {row['stored_events']} but {len(events)} events "
                                           "are stored")
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


def check_player(rows: list[dict[str, Any]], player: str) -> None:
    """Each games row of a list of ``player``'s games (``GET /games?player=``, which matches
    ``games.player_keys``) seats ``player``, as its log's ``game_created`` does (call after
    :func:`check_listed`, which compared the rows' players with it): a key added to a game's
    ``player_keys`` is a 503 ``record_damaged``, not a game listed under someone who did not
    play it. (A key taken out leaves the game out of the list; ``kibitz check`` names it.)"""
    wanted = player.strip().casefold()
    for row in rows:
        if wanted not in [str(name).casefold() for name in row["players"]]:
            raise store.damaged(str(row["id"]), None, f"games.player_keys lists {wanted[:40]!r} but the log's "
                                                      "game_created seats no such player")


def check_listed(rows: list[dict[str, Any]]) -> None:
    """Compare each games row of a list (``GET /games``, the home page, a game's forks, the
    games of a player's history) with its log: what the list shows of it that the log's
    ``game_created`` fixes (``service.record.cache.fixed_fields``: game, players, visibility, options,
    title, ``created_at``, the fork it branched off), and, for a games row, its version, status
    and ``secret_from_hand`` as the log folds (its ``record_hash`` the last event's). The
    first events come from the fold cache or are read in one query, their hash checked, and
    kept until the database's guard changes (one query: ``store.guard``; a first event cannot
    change without lifting a trigger); a fold is kept per game with the ``record_hash`` it was
    made at, so a game is folded once per record version. Raises ``store.RecordDamaged`` for
    the first row that disagrees (503 ``record_damaged``)."""
    cache: FoldCache = current_app.extensions["kibitz_cache"]
    checker: ResultsCheck = current_app.extensions.setdefault(_EXTENSION, ResultsCheck())
    checker.check_listed(get_db(), cache, rows)
