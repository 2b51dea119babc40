"""Times on the pages in club time (``service.clubtime``): the ``clock`` template filter.

``{{ iso | clock }}`` writes a stored UTC time as ``<time datetime="…Z" data-clock="minute"
data-zone="Europe/London" title="Europe/London, UTC+00:00">2026-12-05 06:42 GMT</time>``
(a date and minute with the zone's short name after it; a play's "06:42:05 GMT" too), in the
zone the server was started with (``TIMEZONE`` in the app's config); ``static/kibitz.js``
writes every ``time[data-clock]`` again in the device's own zone where the page runs script.
"""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

from markupsafe import Markup

from service import clubtime
from service.web.pages.blueprint import bp


def club_zone() -> ZoneInfo:
    """The zone the pages show times in (``service.clubtime.club_zone``)."""
    return clubtime.club_zone()


#: The styles written with the zone's short name after them: every time a page shows in a
#: sentence or a column (a start "2026-12-05 19:42 CET", a play "19:42:05 CET"), so that no time
#: on a page leaves the reader guessing its zone (issue 25); a bare ``date`` names none.
ZONED = ("minute", "second")


@bp.app_template_filter("clock")
def clock(iso: Any, style: str = "minute") -> Markup:
    """A stored UTC time (``iso``) in club time inside ``<time>``, for the pages' script to
    write again in the device's zone; ``style`` is one of ``clubtime.STYLES``. Nothing for None."""
    if not iso:
        return Markup("")
    where = club_zone()
    moment = clubtime.local(str(iso), where)
    words = clubtime.zone_words(where, moment)
    text = clubtime.written(str(iso), where, style)
    if style in ZONED and moment is not None:  # a time says which zone it is in: "19:42 CET", "19:42:05 CET"
        text = f"{text} {clubtime.zone_name(where, moment)}"
    return Markup('<time datetime="{}" data-clock="{}" data-zone="{}" title="{}">{}</time>').format(
        iso, style, where.key, words, text)


@bp.app_template_filter("clock_text")
def clock_text(iso: Any, style: str = "minute") -> str:
    """:func:`clock` as plain text, for places that hold text only (an ``<option>``)."""
    return clubtime.written(str(iso), club_zone(), style) if iso else ""
