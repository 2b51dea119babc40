"""Blueprints, one per resource: games, recording, replays (audit), meta (health, OpenAPI)."""
