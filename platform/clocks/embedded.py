"""The in-process clock worker of embedded mode (`make run`): one thread
that sleeps until the earliest deadline of any match (or until an append
wakes it) and enforces what is due. Production runs Celery instead."""

from __future__ import annotations

import logging
import time

from runtime.background import Background

log = logging.getLogger(__name__)

SWEEP_S = 2.0  # look at least this often, as the beat sweep would
BOT_TICK_S = 0.5  # how often to look while bots have moves to make


def _next_wait(written: int, looked_at: float) -> float:
    """Until the deadline to wait for (``enforce.next_look``), at most ``SWEEP_S``."""
    from .enforce import next_look

    nxt = next_look(written, looked_at)
    if nxt is None:
        return SWEEP_S
    return max(0.0, min(SWEEP_S, nxt.timestamp() - time.time()))


def _bots_waiting() -> bool:
    from games.models import Match

    return Match.objects.filter(status="live", holders__bot__gt="").exclude(waiting_on=[]).exists()


def _step() -> float:
    """Enforce what is due and move the bots; the seconds until the next look."""
    from games.services import move_bots_due

    from .enforce import sweep

    looked_at = time.time()
    n = sweep()
    if n:
        log.info("clock: %d timeout event(s) written", n)
    moved = move_bots_due()
    wait = _next_wait(n, looked_at)
    return min(wait, BOT_TICK_S) if moved or _bots_waiting() else wait


_background = Background("clock", _step, retry_s=SWEEP_S)
wake, start = _background.wake, _background.start
