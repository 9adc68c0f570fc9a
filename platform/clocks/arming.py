"""After every append, arm the match's earliest deadline (the clocks reactor:
reactors.follow)."""

from __future__ import annotations

import logging
from collections import OrderedDict
from datetime import UTC, datetime

from django.conf import settings

log = logging.getLogger(__name__)


# (match id, deadline) already armed by this process: one transaction may
# append several times (a match's creation does), and each append's hook
# would otherwise send the same task again
_armed: OrderedDict[tuple[int, datetime], None] = OrderedDict()
_ARMED_MAX = 10_000


def arm_after_append(rows, matches=None) -> None:
    """``matches``: the batch's match rows, shared with the other reactors."""
    streams = {r.stream for r in rows if r.stream.startswith("match-")}
    if not streams:
        return
    from reactors.follow import MatchRows

    for match in (matches or MatchRows(rows)).of(streams):
        if match.status != "live" or match.next_deadline is None:
            continue
        key = (match.pk, match.next_deadline)
        if key in _armed:
            continue
        _armed[key] = None
        if len(_armed) > _ARMED_MAX:
            _armed.popitem(last=False)
        arm(match.pk, match.next_deadline)


def arm(match_id: int, deadline: datetime) -> None:
    if settings.CELERY_BROKER_URL.startswith("memory://"):
        from .embedded import wake

        wake()
        return
    from .tasks import enforce_deadline

    try:
        enforce_deadline.apply_async(args=[match_id], eta=deadline)
    except Exception:  # the sweep enforces it anyway; never fail the move for this
        log.exception("could not arm the deadline of match %s", match_id)


def seconds_until(deadline: datetime) -> float:
    return (deadline - datetime.now(UTC)).total_seconds()
