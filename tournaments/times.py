"""What a person may give as a time, one definition for the console's forms,
the reminders' form and the API: a time zone among the places of the IANA
database, a date and time in ASCII digits, and a wall-clock time that exists
in its zone (one in a daylight saving gap is refused, not moved)."""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo

from games.core.protocol import RuleError

# in the database but no place: this machine's own clock, the rules' template,
# the placeholder, and the posix/ and right/ copies of every zone
NOT_PLACES = frozenset({"localtime", "posixrules", "Factory"})
ZONES = tuple(
    sorted(
        z
        for z in zoneinfo.available_timezones()
        if z not in NOT_PLACES and not z.startswith(("posix/", "right/"))
    )
)
_ZONES = frozenset(ZONES)

# 2027-01-15T20:30[:00[.000]], then (the API's) Z or +01:00: ASCII digits only
# (Python's parsers take Arabic-Indic and other digits too), nothing after it
_LOCAL = r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?"
LOCAL_MOMENT = re.compile(_LOCAL, re.ASCII)  # a form's: its time zone is another field
MOMENT = re.compile(_LOCAL + r"(Z|[+-]\d{2}:?\d{2})?", re.ASCII)
WALL_TIME = re.compile(r"[0-9]{2}:[0-9]{2}(:[0-9]{2})?")  # no offset: the zone says it


def zone(name: object) -> zoneinfo.ZoneInfo:
    """The zone a person chose, refused unless it is a place's."""
    if not isinstance(name, str) or name not in _ZONES:
        raise RuleError("{name!r} is not a time zone (e.g. Europe/Paris, UTC)", name=name)
    return zoneinfo.ZoneInfo(name)


def is_moment(text: str, *, offset: bool = True) -> bool:
    return (MOMENT if offset else LOCAL_MOMENT).fullmatch(text) is not None


def is_wall_time(text: str) -> bool:
    return WALL_TIME.fullmatch(text) is not None


def wall_clock(naive: dt.datetime, zone_name: str) -> float:
    """The Unix time of ``naive`` read on the clocks of ``zone_name``. A time
    the clocks skip (the hour they go forward) is refused with the time they
    show instead; a time they show twice (the hour they go back) is the first."""
    aware = naive.replace(tzinfo=zone(zone_name), fold=0)
    try:
        shown = dt.datetime.fromtimestamp(aware.timestamp(), aware.tzinfo)
    except (OverflowError, ValueError, OSError):
        raise RuleError("starts_at must be a time in the future, within a year") from None
    if shown.replace(tzinfo=None) != naive.replace(fold=0):
        raise RuleError(
            "{at} does not exist in {zone}: the clocks go forward then "
            "(they show {shown}); choose another time",
            at=f"{naive:%Y-%m-%d %H:%M}",
            zone=zone_name,
            shown=f"{shown:%H:%M}",
        )
    return aware.timestamp()
