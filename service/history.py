"""Match histories: the ``player_results`` projection and the queries over it.

One row per player per game (``player_key`` = the name trimmed and case-folded, as
``recording.md`` matches players across games), written from the engine's ``results``
in the same transaction as the write that changes the game's status: at ``POST /games``,
at an import, and by a recorded action, undo or redo that finishes (or reopens) a game. An
``in_progress`` row carries no stats; a finished one carries the result, the score and the
counters. Forks (a ``games.forked_from_game``) never get rows.

Plain functions over a sqlite-utils ``Database``, like ``service.store``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from sqlite_utils import Database

import engine
from engine import core
from engine import stream as streams
from replays import replay
from service import store

#: The counters of ``results`` summed per game type: ``hands`` and the engine's counters
#: (``engine.core.COUNTERS``; each game declares its own in ``COUNTERS``, None for the others).
COUNTERS = ("hands", *core.COUNTERS)
COLUMNS = ("game_id", "player_key", "name", "seat", "game", "created_at", "status", "result", "score", "unit",
           *COUNTERS)


def key(name: str) -> str:
    """The name under which a player's games are matched: trimmed and case-folded."""
    return name.strip().casefold()


def refresh(db: Database, game: Mapping[str, Any], stream: streams.Stream) -> None:
    """Replace the rows of ``game`` (a ``games`` row: ``id``, ``game``, ``created_at``,
    maybe ``forked_from_game``) with the ``results`` of the folded ``stream``
    (``engine.stream.results``: an abandoned game's rows are ``abandoned``, never a win or a
    loss, and carry no score or stats)."""
    db.execute("DELETE FROM player_results WHERE game_id = ?", [game["id"]])
    if game.get("forked_from_game") or is_fork(db, game["id"]):
        return
    status = streams.status(stream)
    rows = []
    for name, result in streams.results(stream).items():
        finished = status == "finished"
        rows.append([
            game["id"], key(name), name, result["seat"], game["game"], game["created_at"], status,
            result["result"], result["score"] if finished else None, result["unit"],
            *(result[counter] if finished else None for counter in COUNTERS),
        ])
    db.conn.executemany(
        f"INSERT INTO player_results ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})", rows)


def is_fork(db: Database, game_id: str) -> bool:
    """True when the stored game ``game_id`` is a what-if fork (recorded here or imported)."""
    found = db.execute("SELECT forked_from_game FROM games WHERE id = ?", [game_id]).fetchone()
    return bool(found and found[0])


def backfill(db: Database) -> int:
    """Fold every stored game that has no rows yet and write its rows; returns how many."""
    ids = [row[0] for row in db.execute(
        "SELECT id FROM games WHERE id NOT IN (SELECT DISTINCT game_id FROM player_results)").fetchall()]
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
    where, params = period_clause(since, until)
    sql = (
        "SELECT player_key, game, COUNT(*) AS games, SUM(status = 'finished') AS finished, "
        "SUM(result = 'won') AS wins, SUM(result = 'lost') AS losses, "
        "SUM(status = 'abandoned') AS abandoned, AVG(score) AS average, MAX(unit) AS unit, "
        f"MAX(created_at) AS latest, name FROM player_results {where} "
        "GROUP BY player_key, game ORDER BY player_key, game"
    )
    out: dict[str, dict[str, Any]] = {}
    totals = ("games", "finished", "wins", "losses", "abandoned")
    for row in db.query(sql, params):
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


def period_clause(since: str | None, until: str | None) -> tuple[str, list[str]]:
    """``WHERE`` text and parameters keeping rows created from ``since`` to ``until``
    (``YYYY-MM-DD`` dates, inclusive; stored times are ISO 8601 UTC, so they compare as text)."""
    clauses, params = [], []
    if since is not None:
        clauses.append("created_at >= ?")
        params.append(since)
    if until is not None:
        clauses.append("created_at < ?")
        params.append(until + "T24")  # after every time of that day ("T23:59:59.999Z" < "T24")
    return ("WHERE " + " AND ".join(clauses)) if clauses else "", params


def stats(db: Database, name: str) -> dict[str, dict[str, Any]] | None:
    """Per game type for one player: ``games``, ``finished``, ``wins``, ``losses``, ``abandoned``,
    ``average_<unit>`` over finished games and the counters the game has (summed over
    finished games). None when nobody of that name has played."""
    sql = (
        "SELECT game, COUNT(*) AS games, SUM(status = 'finished') AS finished, SUM(result = 'won') AS wins, "
        "SUM(result = 'lost') AS losses, SUM(status = 'abandoned') AS abandoned, AVG(score) AS average, "
        "MAX(unit) AS unit, "
        + ", ".join(f"SUM({counter}) AS {counter}" for counter in COUNTERS)
        + " FROM player_results WHERE player_key = ? GROUP BY game ORDER BY game"
    )
    out: dict[str, dict[str, Any]] = {}
    for row in db.query(sql, [key(name)]):
        entry: dict[str, Any] = {field: row[field] for field in ("games", "finished", "wins", "losses", "abandoned")}
        if row["unit"] is not None:
            entry[f"average_{row['unit']}"] = round(row["average"], 2) if row["average"] is not None else None
        entry.update({counter: row[counter] for counter in COUNTERS if row[counter] is not None})
        out[row["game"]] = entry
    return out or None


def games(db: Database, name: str, limit: int | None = None, offset: int = 0) -> list[dict[str, Any]]:
    """One player's games, newest first: ``{"id", "game", "title", "date", "players",
    "seat", "status", "result", "score", "unit", counters…}``."""
    sql = (
        "SELECT r.*, g.title, g.players FROM player_results AS r JOIN games AS g ON g.id = r.game_id "
        "WHERE r.player_key = ? ORDER BY r.created_at DESC, r.game_id LIMIT ? OFFSET ?"
    )
    out = []
    for row in db.query(sql, [key(name), -1 if limit is None else limit, offset]):
        out.append({
            "id": row["game_id"],
            "game": row["game"],
            "title": row["title"],
            "date": row["created_at"],
            "name": row["name"],
            "players": json.loads(row["players"]),
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
    return int(db.execute("SELECT COUNT(*) FROM player_results WHERE player_key = ?", [key(name)]).fetchone()[0])
