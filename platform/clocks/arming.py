"""After every append, wake the enforcer at the match's earliest deadline (the
clocks reactor: reactors.follow).

Arming does not hold one task per deadline: it asks for one run of the
batch enforcer (``clocks.enforce_due``) at the end of the short window the
deadline falls in, and that run enforces every deadline due by then. Deadlines
in one window share a wake-up; a wake-up that finds nothing due costs one
query."""

from __future__ import annotations

import logging
import math
from collections import OrderedDict
from datetime import UTC, datetime

from django.conf import settings

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


def wake_at(deadline: datetime) -> None:
    """Have the enforcer run once ``deadline`` has passed."""
    if settings.CELERY_BROKER_URL.startswith("memory://"):
        from .embedded import wake

        wake()
        return
    at = window_end(deadline)
    if at in _armed:
        return
    _armed[at] = None
    if len(_armed) > _ARMED_MAX:
        _armed.popitem(last=False)
    from .tasks import enforce_due_deadlines

    try:
        enforce_due_deadlines.apply_async(eta=at)
    except Exception:  # the sweep enforces it anyway; never fail the reactor for this
        log.exception("could not arm the enforcer for %s", deadline.isoformat())


def window_end(deadline: datetime) -> datetime:
    """The end of the wake-up window ``deadline`` falls in."""
    ticks = math.ceil(round(deadline.timestamp() / WAKE_WINDOW_S, 6))
    return datetime.fromtimestamp(ticks * WAKE_WINDOW_S, tz=UTC)
