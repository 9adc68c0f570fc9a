"""The in-process clock worker of embedded mode (`make run`): one thread
that sleeps until the earliest deadline of any match (or until an append
wakes it) and enforces what is due. Production runs Celery instead."""

from __future__ import annotations

import logging
import threading
import time

log = logging.getLogger(__name__)

_wakeup = threading.Event()
_started = threading.Lock()
_thread: threading.Thread | None = None
SWEEP_S = 2.0  # look at least this often, as the beat sweep would
BOT_TICK_S = 0.5  # how often to look while bots have moves to make


def wake() -> None:
    _wakeup.set()


def _next_wait() -> float:
    from games.models import Match

    nxt = (
        Match.objects.filter(status="live", next_deadline__isnull=False)
        .order_by("next_deadline")
        .values_list("next_deadline", flat=True)
        .first()
    )
    if nxt is None:
        return SWEEP_S
    return max(0.0, min(SWEEP_S, nxt.timestamp() - time.time()))


def _bots_waiting() -> bool:
    from games.models import Match

    return Match.objects.filter(status="live", holders__bot__gt="").exclude(waiting_on=[]).exists()


def _loop(stop: threading.Event) -> None:
    from django.db import close_old_connections

    from games.services import move_bots_due

    from .enforce import sweep

    while not stop.is_set():
        try:
            close_old_connections()
            n = sweep()
            if n:
                log.info("clock: %d timeout event(s) written", n)
            moved = move_bots_due()
            wait = min(_next_wait(), BOT_TICK_S) if moved or _bots_waiting() else _next_wait()
        except Exception:
            log.exception("clock loop failed; retrying")
            wait = SWEEP_S
        _wakeup.wait(wait)
        _wakeup.clear()


def start() -> threading.Event:
    """Start the clock thread once; returns its stop flag."""
    global _thread
    stop = threading.Event()
    with _started:
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_loop, args=(stop,), name="clock", daemon=True)
            _thread.start()
    return stop
