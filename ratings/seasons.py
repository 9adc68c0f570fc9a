"""Seasons: a date range an organizer names, an event in the stream
``ratings-seasons``; leaderboards per season fold only its matches."""

from __future__ import annotations

import re
from datetime import date

from django.db import transaction

from eventlog.store import (
    ConcurrencyError,
    NewEvent,
    append,
    command_fingerprint,
    replayed,
    stream_version,
)
from games.core.protocol import RoleRequired, RuleError

from .readmodels import SEASONS

PERMISSION = "games.add_match"  # the organizer's (the console's)
MAX_RETRIES = 5
NAME_MAX = 100
DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")  # ASCII digits only


def _organizer(user) -> None:
    if not (getattr(user, "is_authenticated", False) and user.has_perm(PERMISSION)):
        raise RoleRequired("only an organizer (permission games.add_match) may name a season")


def _day(value, field: str) -> str:
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str) and DAY.fullmatch(value):
        try:
            return date.fromisoformat(value).isoformat()
        except ValueError:
            pass
    raise RuleError("{field} must be a day written YYYY-MM-DD, e.g. 2030-01-31", field=field)


def name_season(
    user, *, name, starts, ends, command_id: str | None = None, account: int | None = None
) -> str:
    """Name the season from ``starts`` to ``ends`` (both days included);
    returns its id. A ``command_id`` sent again by the same account for the
    same season is answered with the first one's id, nothing named twice;
    used by another account or for another season, ``CommandIdReused``."""
    _organizer(user)
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > NAME_MAX:
        raise RuleError("a season needs a name of 1 to {name_max} characters", name_max=NAME_MAX)
    first, last = _day(starts, "starts"), _day(ends, "ends")
    if last < first:
        raise RuleError("a season ends on or after the day it starts")
    season = {"name": name.strip(), "starts": first, "ends": last}
    key = fingerprint = None
    if command_id:
        from games.services import command_key

        key = command_key(command_id)
        fingerprint = command_fingerprint(f"user:{user.pk}", {"name_season": season})
    return _append(
        user,
        lambda version: NewEvent("season_named", {"id": f"s{version + 1}", **season}),
        key,
        fingerprint,
    )


def remove_season(user, season_id: str) -> str:
    from .models import Season

    _organizer(user)
    if not Season.objects.filter(season_id=season_id).exists():
        raise RuleError("there is no season {season_id}", season_id=season_id)
    return _append(user, lambda _v: NewEvent("season_removed", {"id": season_id}))


def _append(user, make, key: str | None = None, fingerprint: str | None = None) -> str:
    for attempt in range(MAX_RETRIES):
        if key:
            first = replayed(SEASONS, key, fingerprint)
            if first:
                return first[0].data["id"]
        version = stream_version(SEASONS)
        event = make(version)
        try:
            with transaction.atomic():
                rows = append(
                    SEASONS,
                    version,
                    [event],
                    actor=user.username,
                    role="organizer",
                    command_id=key,
                    fingerprint=fingerprint,
                )
            return rows[0].data["id"]
        except ConcurrencyError:
            if attempt == MAX_RETRIES - 1:
                raise
    raise AssertionError("unreachable")
