"""Club time: the time zone the pages show times in (docs/club-server.md, "Club time").

The record keeps every time in UTC (api.md: ISO 8601 with a ``Z``), and so do the API and
every export. The pages show times in the club's own zone instead: the zone of the computer
``kibitz serve`` runs on by default (``tzlocal``), or the IANA name given with ``kibitz
serve --timezone Europe/London`` or in ``$KIBITZ_TIMEZONE`` (read by ``wsgi.py``'s app too).
Pages render each time server-side in that zone inside ``<time datetime="…UTC…">``; where the
page runs script, ``static/kibitz.js`` writes it again in the device's own zone. A day
("the games of 5 December") is a day in club time: :func:`day_bounds`.
"""

from __future__ import annotations

import os
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

try:
    import tzlocal
except ImportError:  # pragma: no cover  (a virtualenv made before setup.cfg required it: UTC until reinstalled)
    tzlocal = None  # type: ignore[assignment]

#: The environment variable naming the club's zone (an IANA name such as ``Europe/London``).
ENV = "KIBITZ_TIMEZONE"
#: How a time is written on the pages, per style: ``minute`` (home, game page), ``second``
#: (a trick's plays, corrections), ``date`` (a player's games). ``static/kibitz.js`` writes
#: the same shapes in the device's zone.
STYLES = {"minute": "%Y-%m-%d %H:%M", "second": "%H:%M:%S", "date": "%Y-%m-%d"}


class TimeZoneError(ValueError):
    """A time zone name that is not one; the message is one sentence saying what to give."""


def zone(name: str | None) -> ZoneInfo:
    """The zone called ``name`` (an IANA name: ``Europe/London``, ``Pacific/Auckland``, ``UTC``);
    None or empty: this computer's own zone (UTC when it cannot be told). Raises
    :class:`TimeZoneError` for a name the time zone database does not know."""
    name = (name or "").strip()
    if not name:
        return local_zone()
    try:
        if name.startswith(("/", ".")) or ".." in name:
            raise ValueError(name)
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise TimeZoneError(f"The time zone {name[:60]!r} is unknown: give an IANA name such as Europe/London, "
                            "America/New_York or UTC (timedatectl list-timezones lists them).") from None


def local_zone() -> ZoneInfo:
    """This computer's zone (``$TZ`` or ``/etc/localtime``, through tzlocal), as an IANA zone;
    UTC when it has none that the time zone database knows."""
    if tzlocal is None:  # pragma: no cover
        return ZoneInfo("UTC")
    try:
        found = tzlocal.get_localzone()
    except Exception:  # noqa: BLE001  (a broken /etc/localtime: the pages fall back to UTC)
        return ZoneInfo("UTC")
    if isinstance(found, ZoneInfo):
        return found
    return ZoneInfo("UTC")  # pragma: no cover  (tzlocal 5 returns ZoneInfo)


def club_zone() -> ZoneInfo:
    """The zone the pages show times in: ``TIMEZONE`` in the running app's config (set by
    ``service.web.app.create_app``), this computer's zone outside one."""
    from flask import current_app, has_app_context

    found = current_app.config.get("TIMEZONE") if has_app_context() else None
    return found if isinstance(found, ZoneInfo) else zone(found)


def from_environment() -> ZoneInfo:
    """The zone named by ``$KIBITZ_TIMEZONE``, else this computer's; raises :class:`TimeZoneError`."""
    return zone(os.environ.get(ENV))


def parse_utc(iso: str) -> datetime | None:
    """A stored UTC time (``2026-12-05T06:42:11.489Z``) as an aware datetime; None for anything else."""
    try:
        moment = datetime.fromisoformat(str(iso).replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def local(iso: str, where: tzinfo) -> datetime | None:
    """The stored UTC time ``iso`` in the zone ``where``; None when ``iso`` is not a time."""
    moment = parse_utc(iso)
    return None if moment is None else moment.astimezone(where)


def written(iso: str, where: tzinfo, style: str = "minute") -> str:
    """``iso`` as the pages write it in ``where`` (:data:`STYLES`); ``iso`` itself when it is not a time."""
    moment = local(iso, where)
    return str(iso) if moment is None else moment.strftime(STYLES[style])


def zone_name(where: tzinfo, moment: datetime | None = None) -> str:
    """The zone's short name at ``moment`` (now by default), as a person reads it after a time:
    ``"CET"``, ``"BST"``, ``"NZDT"``; ``"UTC-03"`` where the zone has no letters for it."""
    moment = (moment or datetime.now(UTC)).astimezone(where)
    name = moment.tzname() or ""
    return f"UTC{name}" if not name or name[0] in "+-" else name


def zone_words(where: ZoneInfo, moment: datetime | None = None) -> str:
    """The zone as a person reads it beside a time: ``"Pacific/Auckland, UTC+13:00"``."""
    moment = moment or datetime.now(UTC)
    offset = moment.astimezone(where).utcoffset() or timedelta(0)
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    return f"{where.key}, UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def today(where: tzinfo) -> date:
    """Today's date in the zone ``where``."""
    return datetime.now(UTC).astimezone(where).date()


def stored(moment: datetime) -> str:
    """An aware datetime written as the record writes times (UTC, milliseconds, ``Z``), so that
    stored times compare with it as text."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.astimezone(UTC).microsecond // 1000:03d}Z"


def day_bounds(first: date, last: date, where: tzinfo) -> tuple[str, str]:
    """The days ``first`` to ``last`` (both inclusive) of the zone ``where`` as the stored UTC
    times they span: ``(from, before)``, from the first day's midnight there (included) to the
    midnight after the last day (excluded), each as :func:`stored` writes it."""
    start = datetime.combine(first, time(0), tzinfo=where)
    end = datetime.combine(last + timedelta(days=1), time(0), tzinfo=where)
    return stored(start), stored(end)
