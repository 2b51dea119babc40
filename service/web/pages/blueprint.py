"""The pages' one blueprint (``pages``), which every module of ``service.web.pages`` adds its routes to.

Its own module, so that the page modules import it from below instead of from the package
that imports them (no import in a circle). It also holds the templates' filters that isolate
text people type (``bdi``, ``bdi_join``, ``names_isolated``, ``isolated_text``,
``names_isolated_text``; api.md, "Text people type").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from flask import Blueprint
from markupsafe import Markup, escape

HERE = Path(__file__).resolve().parent
bp = Blueprint(
    "pages",
    __name__,
    template_folder=str(HERE.parent / "templates"),
    static_folder=str(HERE.parent / "static"),
    static_url_path="/static",
)


# --------------------------------------------------------------------------- typed text, isolated


@bp.app_template_filter("bdi")
def bdi(text: Any) -> Markup:
    """``text`` (a name, a title, a note, a reason: text people type) isolated in ``<bdi>``
    (escaped), so a right-to-left name or a stored direction override never reorders the
    words around it (api.md, "Text people type"); None gives nothing."""
    return Markup("") if text is None else Markup("<bdi>{}</bdi>").format(text)


@bp.app_template_filter("bdi_join")
def bdi_join(items: Iterable[Any], separator: str = ", ") -> Markup:
    """Names joined by ``separator``, each isolated (:func:`bdi`)."""
    return escape(separator).join(bdi(item) for item in items)


@bp.app_template_filter("bdi_and")
def bdi_and(items: Iterable[Any]) -> Markup:
    """Names as a sentence lists them, each isolated (:func:`bdi`): "Ann, Bob and Cas"."""
    names = [bdi(item) for item in items]
    if len(names) <= 1:
        return Markup("").join(names)
    return escape(", ").join(names[:-1]) + escape(" and ") + names[-1]


@bp.app_template_filter("names_isolated")
def names_isolated(text: Any, names: Iterable[str]) -> Markup:
    """A sentence of the service (a summary, a headline, a reason) with every player name
    from ``names`` in it isolated (:func:`bdi`), the rest escaped."""
    if text is None:
        return Markup("")
    wanted = sorted({name for name in names or () if name}, key=len, reverse=True)
    if not wanted:
        return escape(text)
    parts = re.split("(" + "|".join(map(re.escape, wanted)) + ")", str(text))
    return Markup("").join(bdi(part) if index % 2 else escape(part) for index, part in enumerate(parts))


#: FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE: isolation where markup cannot go (an
#: ``<option>``, a ``<title>``, text a script sets).
FSI, PDI = "\u2068", "\u2069"


@bp.app_template_filter("isolated_text")
def isolated_text(text: Any) -> str:
    """``text`` between FSI and PDI: :func:`bdi` for places that hold text only (``<option>``)."""
    return "" if text is None else f"{FSI}{text}{PDI}"


@bp.app_template_filter("names_isolated_text")
def names_isolated_text(text: Any, names: Iterable[str]) -> str:
    """:func:`names_isolated` for places that hold text only: each name between FSI and PDI."""
    if text is None:
        return ""
    wanted = sorted({name for name in names or () if name}, key=len, reverse=True)
    if not wanted:
        return str(text)
    return re.sub("(" + "|".join(map(re.escape, wanted)) + ")", lambda m: isolated_text(m.group(1)), str(text))
