"""Match histories: the ``player_results`` projection and the queries over it.

One row per player per game (``player_key`` = the name trimmed, in NFC, case-folded and
without the joiners U+200C/U+200D, as api.md "Text people type" and ``recording.md`` match
players across games), written from the engine's ``results``
in the same transaction as the write that changes the game's status: at ``POST /games``,
at an import, and by a recorded action, undo or redo that finishes (or reopens) a game. An
``in_progress`` row carries no stats; a finished one carries the result, the score and the
counters. Forks (a ``games.forked_from_game``) never get rows.

Plain functions over a sqlite-utils ``Database``; the SQL is ``service.storage.sqlite``'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlite_utils import Database

import engine
from engine import core
from engine import stream as streams
from replays import replay
from schemas.common import name_key
from service.storage import backend as store

#: The counters of ``results`` summed per game type: ``hands`` and the engine's counters
#: (``engine.core.COUNTERS``; each game declares its own in ``COUNTERS``, None for the others).
COUNTERS = ("hands", *core.COUNTERS)
COLUMNS = ("game_id", "player_key", "name", "seat", "game", "created_at", "status", "result", "score", "unit",
           *COUNTERS)


def key(name: str) -> str:
    """The name under which a player's games are matched: trimmed, NFC, case-folded, without
    joiners (``schemas.common.name_key``, the comparison of two seats of one game)."""
    return name_key(name)


def seat_keys(names: list[str]) -> list[str]:
    """Each seat's ``player_key`` in one game (``names`` in seat order): :func:`key`, except
    for seats that share a key with another seat of the game (names stored before the text
    rules that the rules now call the same, such as NFC and NFD "José"), which keep the old
    key (trimmed and case-folded, unique in the game under the old rules), so every seat keeps
    its own row."""
    wanted = [key(name) for name in names]
    return [new if wanted.count(new) == 1 else name.strip().casefold() for name, new in zip(names, wanted, strict=True)]


def refresh(db: Database, game: Mapping[str, Any], stream: streams.Stream) -> None:
    """Replace the rows of ``game`` (a ``games`` row: ``id``, ``game``, ``created_at``,
    maybe ``forked_from_game``) with the ``results`` of the folded ``stream``
    (:func:`rows`). Reads nothing when ``game`` has its ``forked_from_game`` (a whole games
    row), so a move sends it with its append in one round trip."""
    fork = bool(game["forked_from_game"]) if "forked_from_game" in game else store.is_fork(db, game["id"])
    if fork:
        store.replace_player_results(db, game["id"], COLUMNS, [])
        return
    store.replace_player_results(db, game["id"], COLUMNS, rows(game, stream))


def rows(game: Mapping[str, Any], stream: streams.Stream) -> list[list[Any]]:
    """The ``player_results`` rows of ``game`` (a game that is not a fork: ``id``, ``game``,
    ``created_at``) folded to ``stream``, values in the order of :data:`COLUMNS`, by seat:
    the ``results`` of ``engine.stream.results`` (an abandoned game's rows are
    ``abandoned``, never a win or a loss, and carry no score or stats; an ``in_progress``
    one's no stats). What :func:`refresh` stores and ``kibitz check`` compares."""
    status = streams.status(stream)
    out = []
    results = streams.results(stream)
    for player_key, (name, result) in zip(seat_keys(list(results)), results.items(), strict=True):
        finished = status == "finished"
        out.append([
            game["id"], player_key, name, result["seat"], game["game"], game["created_at"], status,
            result["result"], result["score"] if finished else None, result["unit"],
            *(result[counter] if finished else None for counter in COUNTERS),
        ])
    return sorted(out, key=lambda row: (row[3], row[1]))


def backfill(db: Database) -> int:
    """Fold every stored game that has no rows yet and write its rows; returns how many."""
    ids = store.games_without_results(db)
    done = 0
    for game_id in ids:
        row = store.get_game(db, game_id)
        if row is None or row["game"] not in engine.GAMES:
            continue
        rules = engine.GAMES[row["game"]]
        try:
            folded = replay.fold(rules, store.events(db, game_id, upto=row["version"]))
        except Exception:  # noqa: BLE001 - a log the rules no longer fold is left out, never guessed
            continue
        refresh(db, row, folded.stream)
        done += 1
    return done


# --------------------------------------------------------------------------- reads


def players(db: Database, since: str | None = None, until: str | None = None) -> list[dict[str, Any]]:
    """Every player seen (forks excepted), by name: ``{"name", "games", "finished", "wins",
    "losses", "abandoned", "by_game": {game: {"games", "finished", "wins", "losses",
    "abandoned", "average_<unit>"?}}}``; ``name`` is the latest spelling.

    ``since`` / ``until`` (``YYYY-MM-DD``, UTC, both inclusive; None for no bound) keep the
    games created in that period: the club table's "chosen period". ``average_<unit>`` is the
    mean score over finished games (``lives_lost``, ``points``, ``chips``; None while there is
    none; absent for Fuji Flush, which has no score).
    """
    out: dict[str, dict[str, Any]] = {}
    totals = ("games", "finished", "wins", "losses", "abandoned")
    for row in store.player_totals(db, since, until):
        entry = out.setdefault(row["player_key"], {"name": row["name"], "latest": row["latest"],
                                                   **{field: 0 for field in totals}, "by_game": {}})
        if row["latest"] > entry["latest"]:
            entry["name"], entry["latest"] = row["name"], row["latest"]
        for field in totals:
            entry[field] += row[field]
        per_game: dict[str, Any] = {field: row[field] for field in totals}
        if row["unit"] is not None:
            per_game[f"average_{row['unit']}"] = round(row["average"], 2) if row["average"] is not None else None
        entry["by_game"][row["game"]] = per_game
    for entry in out.values():
        del entry["latest"]
    return list(out.values())


def stats(db: Database, name: str) -> dict[str, dict[str, Any]] | None:
    """Per game type for one player: ``games``, ``finished``, ``wins``, ``losses``, ``abandoned``,
    ``average_<unit>`` over finished games and the counters the game has (summed over
    finished games). None when nobody of that name has played."""
    out: dict[str, dict[str, Any]] = {}
    for row in store.player_stats(db, key(name), COUNTERS):
        entry: dict[str, Any] = {field: row[field] for field in ("games", "finished", "wins", "losses", "abandoned")}
        if row["unit"] is not None:
            entry[f"average_{row['unit']}"] = round(row["average"], 2) if row["average"] is not None else None
        entry.update({counter: row[counter] for counter in COUNTERS if row[counter] is not None})
        out[row["game"]] = entry
    return out or None


def games(db: Database, name: str, limit: int | None = None, offset: int = 0) -> list[dict[str, Any]]:
    """One player's games, newest first: ``{"id", "game", "title", "date", "players",
    "seat", "status", "result", "score", "unit", counters…}``."""
    out = []
    for row in store.player_games(db, key(name), limit, offset):
        out.append({
            "id": row["game_id"],
            "game": row["game"],
            "title": row["title"],
            "date": row["created_at"],
            "name": row["name"],
            "players": row["players"],
            "seat": row["seat"],
            "status": row["status"],
            "result": row["result"],
            "score": row["score"],
            "unit": row["unit"],
            **{counter: row[counter] for counter in COUNTERS},
        })
    return out


def count(db: Database, name: str) -> int:
    """How many games ``name`` has played (forks excepted)."""
    return store.player_game_count(db, key(name))
