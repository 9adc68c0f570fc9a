"""Show step deadlines enforced: an entrant who lets a step's deadline pass
(a token gift, a candidate choice, a nomination, a ban) has a random legal
choice made for them (the show's ``timeout`` command), and one who misses a
match's ready-check forfeits it; a scheduled show's check-in opens and the
show starts when their time comes (``open_check_in``, ``start``). Every clock sweep
runs it (Celery beat's ``clocks.sweep``, the embedded clock thread of
`make run`). Two sweepers racing write one timeout: the second finds the
step made (its append is refused by version, then nothing is overdue)."""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime

from django.db.models import Q

from eventlog.store import ConcurrencyError
from games.core.protocol import RuleError

from . import show_services, shows
from .models import ShowRecord

log = logging.getLogger(__name__)
MAX_PER_SHOW = 20  # timeouts one sweep writes for one show, at most
CLOCK = show_services.Acting("clock", shows.SYSTEM)


def _at(now: float) -> datetime:
    return datetime.fromtimestamp(now, tz=UTC)


def _due_command(state, now: float) -> dict | None:
    """What the clock must do for a show at ``now``: open its check-in or start
    it (a scheduled show), or time out a passed step or ready-check."""
    kind = shows.due(state, now)
    if kind is not None:
        return {"type": kind}
    return {"type": "timeout"} if shows.overdue(state, now) else None


def sweep_shows(now: float | None = None) -> int:
    """Open the check-in and start every scheduled show whose time came, and
    time out every passed deadline of every running show; events written."""
    now = time.time() if now is None else now
    written = 0
    streams = ShowRecord.objects.filter(
        Q(status="running") | Q(status="scheduled", next_due_at__lte=_at(now))
    ).values_list("stream", flat=True)
    for stream in streams:
        for _ in range(MAX_PER_SHOW):
            state = show_services.load(stream)[0]
            cmd = _due_command(state, now)
            if cmd is None:
                break
            try:
                rows = show_services.command(stream, cmd, CLOCK, now=now)
            except (RuleError, ConcurrencyError) as exc:
                log.info("show step timeout not written: %s", exc, extra={"stream": stream})
                break
            written += len(rows)
    return written
