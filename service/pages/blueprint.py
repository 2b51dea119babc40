"""The pages' one blueprint (``pages``), which every module of ``service.pages`` adds its routes to.

Its own module, so that the page modules import it from below instead of from the package
that imports them (no import in a circle).
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint

HERE = Path(__file__).resolve().parent
bp = Blueprint(
    "pages",
    __name__,
    template_folder=str(HERE.parent / "templates"),
    static_folder=str(HERE.parent / "static"),
    static_url_path="/static",
)
