"""The HTTP service: app factory, views, problem bodies, tokens, storage, cache, CLI."""
