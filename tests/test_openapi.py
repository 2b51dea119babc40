"""The OpenAPI document covers every route and every problem status."""

from __future__ import annotations

import re

import schemas
from service.web.pages import is_page_endpoint


def _openapi_path(rule: str) -> str:
    return re.sub(r"<(?:[a-z]+:)?([a-z_]+)>", r"{\1}", rule)


def test_every_route_is_documented(app, client):
    spec = client.get("/openapi.json").get_json()
    assert spec["openapi"].startswith("3.")
    missing = []
    for rule in app.url_map.iter_rules():
        if is_page_endpoint(rule.endpoint):  # HTML pages and their static files are not the JSON API
            continue
        path = _openapi_path(rule.rule)
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            if method.lower() not in spec["paths"].get(path, {}):
                missing.append(f"{method} {path}")
    assert missing == []


def test_no_documented_path_is_missing_a_route(app, client):
    routes = {_openapi_path(rule.rule) for rule in app.url_map.iter_rules()}
    assert set(client.get("/openapi.json").get_json()["paths"]) <= routes


def test_schemas_come_from_marshmallow(client):
    spec = client.get("/openapi.json").get_json()
    components = spec["components"]["schemas"]
    assert set(components["CreateGame_toepen"]["properties"]) >= {"game", "players", "visibility", "dealer",
                                                                   "options"}
    assert set(components["Problem"]["properties"]) >= {"type", "title", "status", "detail", "code", "errors",
                                                        "version"}
    for game, module in schemas.GAMES.items():
        assert any(name.startswith(f"{game}_") for name in components), game
        assert module.ACTIONS
    events = spec["paths"]["/games/{game_id}/events"]["post"]
    assert {"401", "403", "404", "409", "412", "413", "415", "422"} <= set(events["responses"])
    assert events["requestBody"]["content"]["application/json"]["schema"]["anyOf"]
