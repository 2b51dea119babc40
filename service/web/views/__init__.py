"""The API's JSON routes, one blueprint per resource: games, recording, replays (audit),
review, history, transfer, meta (health, OpenAPI).

Part of ``service.web``: may import ``service.record`` and below; a view never imports
another view or a page module (``tests/test_import_layers.py``).
"""
