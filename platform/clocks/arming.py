"""After every append, wake the enforcer at the match's earliest deadline (the
clocks reactor: reactors.follow).

Arming does not hold one task per deadline: it asks for one run of the
batch enforcer (``clocks.enforce_due``) at the end of the short window the
deadline falls in, and that run enforces every deadline due by then. Deadlines
in one window share a wake-up; a wake-up that finds nothing due costs one
query.

Only deadlines of the next ``CLOCKS_ARM_AHEAD_S`` (10 s) are armed when they are set. A
later one (a 60 s decision, a day-long reserve) is armed by the beat's sweep
once it comes that close (``arm_ahead``): most such deadlines are moved on by
a move long before they fall due, so a move costs no Celery publish and the
workers hold no task for a minute or a day ahead (an ETA beyond the Redis
broker's visibility timeout would be delivered twice, too)."""

from __future__ import annotations

import logging
import math
import time
from collections import OrderedDict
from datetime import UTC, datetime

from django.conf import settings
from django.core.cache import cache

from .enforce_due import enforce_due_deadlines
from .watch import watched

log = logging.getLogger(__name__)

WAKE_WINDOW_S = 0.01  # deadlines this close share one wake-up (its end: never early)

# wake-up times already asked for by this process: one transaction may append
# several times (a match's creation does), and many matches share a window
_armed: OrderedDict[datetime, None] = OrderedDict()
_ARMED_MAX = 10_000


def arm_after_append(rows, matches=None) -> None:
    """``matches``: the batch's match rows, shared with the other reactors."""
    streams = {r.stream for r in rows if r.stream.startswith("match-")}
    if not streams:
        return
    from reactors.follow import MatchRows

    deadlines = {
        match.next_deadline
        for match in (matches or MatchRows(rows)).of(streams)
        if match.status == "live" and match.next_deadline is not None
    }
    for deadline in sorted(deadlines):
        wake_at(deadline)


def wake_at(deadline: datetime, now: float | None = None) -> None:
    """Have the enforcer run once ``deadline`` has passed, if it falls in
    the next ``CLOCKS_ARM_AHEAD_S`` (a later one: ``arm_ahead``)."""
    if settings.CELERY_BROKER_URL.startswith("memory://"):
        from .embedded import wake

        wake()
        return
    now = time.time() if now is None else now
    if deadline.timestamp() - now > settings.CLOCKS_ARM_AHEAD_S:
        return
    if watched(deadline.timestamp(), now):
        return  # the running loop looks at the index before it (clocks.watch)
    at = window_end(deadline)
    if at in _armed:
        return
    _remember(at)
    # one wake-up per window across the processes (reactors, the sweep's workers)
    queue = enforce_due_deadlines.app.conf.task_default_queue
    key = f"clocks-armed:{queue}:{round(at.timestamp() * 1000)}"
    try:
        if not cache.add(key, 1, timeout=max(1.0, at.timestamp() - now) + 60):
            return
    except Exception:  # no Redis answer: arm it anyway (a second wake-up costs one query)
        log.exception("could not mark the wake-up at %s as armed", at.isoformat())

    try:
        enforce_due_deadlines.apply_async(eta=at)
    except Exception:  # the sweep enforces it anyway; never fail the reactor for this
        log.exception("could not arm the enforcer for %s", deadline.isoformat())
        _armed.pop(at, None)
        try:
            cache.delete(key)
        except Exception:
            pass


def arm_ahead(now: float | None = None) -> int:
    """Arm a wake-up for every live deadline of the next ``CLOCKS_ARM_AHEAD_S``
    (the beat's sweep calls it); returns how many windows it looked at."""
    from games.models import Match

    if settings.CELERY_BROKER_URL.startswith("memory://"):
        return 0  # the embedded clock thread sleeps until the earliest deadline itself
    now = time.time() if now is None else now
    after = datetime.fromtimestamp(now, tz=UTC)  # what is due now, the sweep enforced
    upto = datetime.fromtimestamp(now + settings.CLOCKS_ARM_AHEAD_S, tz=UTC)
    deadlines = (
        Match.objects.filter(status="live", next_deadline__gt=after, next_deadline__lte=upto)
        .order_by("next_deadline")
        .values_list("next_deadline", flat=True)
    )
    windows = {}
    for deadline in deadlines.iterator(chunk_size=1000):
        windows.setdefault(window_end(deadline), deadline)
    for deadline in windows.values():
        wake_at(deadline, now)
    return len(windows)


def _remember(at: datetime) -> None:
    _armed[at] = None
    if len(_armed) > _ARMED_MAX:
        _armed.popitem(last=False)


def window_end(deadline: datetime) -> datetime:
    """The end of the wake-up window ``deadline`` falls in."""
    ticks = math.ceil(round(deadline.timestamp() / WAKE_WINDOW_S, 6))
    return datetime.fromtimestamp(ticks * WAKE_WINDOW_S, tz=UTC)
