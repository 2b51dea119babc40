"""Rules versions (issue 7): a game recorded under an older supported version rebuilds
through the engine's ``upcast`` with that version's meaning; an unknown version is a clear
refusal, never a wrong result.

The old version here is synthetic: "Toepen version 0", whose ``game_created`` kept the
options under ``settings`` and whose ``play`` named its card in a one-item ``cards`` list.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

import engine
from engine import stream as streams
from engine import toepen
from replays import replay
from tests.conftest import OPEN_DEAL, assert_problem, create

PLAYERS = ["Ann", "Bob", "Cas", "Dee"]
V1 = [
    {"type": "game_created", "game": "toepen", "players": PLAYERS, "visibility": "open", "dealer": "Ann",
     "options": toepen.resolve_options({"limit": 5}, PLAYERS), "rules_version": 1},
    OPEN_DEAL,
    {"type": "play", "player": "Bob", "card": "7H"},
    {"type": "play", "player": "Cas", "card": "8H"},
    {"type": "knock", "player": "Dee"},
    {"type": "undo"},
    {"type": "play", "player": "Dee", "card": "AH"},
]


def to_v0(action: dict[str, Any]) -> dict[str, Any]:
    """The same action as version 0 recorded it."""
    old = dict(action)
    if old["type"] == "game_created":
        old["settings"] = old.pop("options")
        old["rules_version"] = 0
    if old["type"] == "play":
        old["cards"] = [old.pop("card")]
    return old


def upcast_v0(version: int, action: Any) -> dict[str, Any]:
    assert version == 0
    new = dict(action)
    if new["type"] == "game_created":
        new["options"] = new.pop("settings")
    if new["type"] == "play" and "cards" in new:
        new["card"] = new.pop("cards")[0]
    return new


@pytest.fixture
def version_0(monkeypatch):
    monkeypatch.setattr(toepen, "SUPPORTED_VERSIONS", frozenset({0, 1}))
    monkeypatch.setattr(toepen, "upcast", upcast_v0)


def _fold(actions: list[dict[str, Any]]) -> replay.Folded:
    events = [{"seq": i, "type": a["type"], "data": {k: v for k, v in a.items() if k != "type"}}
              for i, a in enumerate(actions, start=1)]
    return replay.fold(toepen, events)


def test_every_engine_declares_its_versions_and_an_upcaster():
    for rules in engine.GAMES.values():
        assert rules.RULES_VERSION in rules.SUPPORTED_VERSIONS
        action = {"type": "play", "player": "Ann", "card": "TH"}
        assert rules.upcast(rules.RULES_VERSION, action) == action


def test_an_old_version_log_rebuilds_with_its_meaning(version_0):
    old = _fold([to_v0(a) for a in V1])
    new = _fold(copy.deepcopy(V1))
    assert old.stream.rules_version == 0 and new.stream.rules_version == 1
    assert toepen.view(old.stream.state, True) == toepen.view(new.stream.state, True)
    assert old.stream.state.hand.tricks == new.stream.state.hand.tricks


def test_an_unknown_version_is_refused_never_folded():
    with pytest.raises(streams.UnknownRulesVersion, match="version 0 is unknown"):
        _fold([to_v0(a) for a in V1])
    for version in (2, "1", None, True):
        created = {**V1[0], "rules_version": version}
        with pytest.raises(streams.UnknownRulesVersion):
            streams.start(toepen, {k: v for k, v in created.items() if k != "type"})


def _v0_document(client: Any) -> dict[str, Any]:
    game = create(client, visibility="open", options={"limit": 5})
    for action in V1[1:]:
        path = "undo" if action["type"] == "undo" else "events"
        assert game.post({} if path == "undo" else action, path).status_code == 201
    doc = client.get(f"{game.url}/export", headers=game.auth).get_json()
    for event in doc["events"]:
        old = to_v0({"type": event["type"], **event["data"]})
        event["data"] = {k: v for k, v in old.items() if k != "type"}
        del event["hash"], event["salt"]  # rewritten into version 0: as exported before the hash chain
    return doc


def test_import_of_an_old_version_keeps_its_log_and_rebuilds(client, other_client, version_0):
    doc = _v0_document(client)
    client = other_client  # the game the document was made from is stored on the first server
    body = client.post("/games/import", json=doc).get_json()
    assert body["state"]["tricks"][0]["plays"][2] == {"player": "Dee", "card": "AH", "seq": 7}
    again = client.get(f"/games/{body['id']}/export", headers={"Authorization": f"Bearer {body['token']}"}).get_json()
    unchained = [{k: v for k, v in event.items() if k not in ("hash", "salt")} for event in again["events"]]
    assert unchained == doc["events"] and again["game"]["rules_version"] == 0


def test_import_of_an_unknown_version_is_422(client):
    doc = _v0_document(client)
    problem = assert_problem(client.post("/games/import", json=doc), 422, "import_invalid")
    assert problem["seq"] == 1 and problem["rule_code"] == "unknown_rules_version"
    assert "version 0 is unknown" in problem["rule_message"]
