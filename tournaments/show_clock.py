"""Show step deadlines enforced: an entrant who lets a step's deadline pass
(a token gift, a candidate choice, a nomination, a ban) has a random legal
choice made for them (the show's ``timeout`` command). Every clock sweep
runs it (Celery beat's ``clocks.sweep``, the embedded clock thread of
`make run`). Two sweepers racing write one timeout: the second finds the
step made (its append is refused by version, then nothing is overdue)."""

from __future__ import annotations

import logging
import time

from eventlog.store import ConcurrencyError
from games.core.protocol import RuleError

from . import show_services, shows
from .models import ShowRecord

log = logging.getLogger(__name__)
MAX_PER_SHOW = 20  # timeouts one sweep writes for one show, at most
CLOCK = show_services.Acting("clock", shows.SYSTEM)


def sweep_shows(now: float | None = None) -> int:
    """Time out every passed step deadline of every running show; events written."""
    now = time.time() if now is None else now
    written = 0
    for stream in ShowRecord.objects.filter(status="running").values_list("stream", flat=True):
        for _ in range(MAX_PER_SHOW):
            state = show_services.load(stream)[0]
            if not shows.overdue(state, now):
                break
            try:
                rows = show_services.command(stream, {"type": "timeout"}, CLOCK, now=now)
            except (RuleError, ConcurrencyError) as exc:
                log.info("show step timeout not written: %s", exc, extra={"stream": stream})
                break
            written += len(rows)
    return written
