"""The HTTP face: everything a browser or an API client talks to.

- ``app``: the Flask app factory (configuration, blueprints, the writer, the fold cache);
- ``server``: ``kibitz serve``'s HTTP server (uvicorn), answering polls from memory;
- ``gate``: what the server refuses from the headers alone (tokens, the create limit);
- ``boards``: each game's version and public board, remembered for the game page's polls;
- ``openapi``: the OpenAPI document of the API;
- ``views/``: the API's JSON routes, one blueprint per resource;
- ``pages/``: the HTML pages; ``templates/`` and ``static/`` the files they use.

May import everything below it: ``service.record``, the modules at the top of ``service``,
``service.storage``, ``replays``, ``schemas`` and ``engine``; never ``service.cli``. A view
never imports another view or a page module, nor a page a view
(``tests/test_import_layers.py``).
"""
