"""The enforcer's loop: one Celery wake-up that keeps watching the deadline
index, instead of one wake-up per 10 ms window of deadlines.

A wake-up (``clocks.enforce_due``) that finds no loop running becomes the
loop: it enforces what is due, then sleeps until the next deadline in the
index, looking again at least every ``LOOK_S``, and goes on while deadlines
keep falling within ``CLOCKS_ARM_AHEAD_S`` (at most ``LOOP_S`` in all). It
promises in the cache the time until which it keeps looking (``watched``):
arming sends no wake-up for a deadline that promise covers and that is at
least ``LOOK_S`` ahead (a look comes before it), so on a busy server a
deadline costs no Celery task of its own. Before it stops, the loop
enforces once more what is due by the end of its promise. The promise's
key lives ``KEEP_S`` unless the loop writes it again, so a killed loop's
promise runs out within a second; the beat's sweep (every 2 s) enforces the
deadlines it had been left, as it does a killed worker's wake-ups. A
wake-up that finds a loop running enforces what is due once, as before."""

from __future__ import annotations

import logging
import time

from celery import current_app
from django.conf import settings
from django.core.cache import cache

from .enforce import enforce_due, next_deadline

log = logging.getLogger(__name__)

LOOK_S = 0.05  # the loop looks at the index at least this often
LOOP_S = 60.0  # a loop ends within this (a worker's warm shutdown waits for it)
KEEP_S = 1.0  # the promise's key lives this long unless the loop writes it again

_seen = (0.0, 0.0)  # (the promise this process last read, when): trusted KEEP_S / 2


def _key() -> str:
    return f"clocks-watched:{current_app.conf.task_default_queue}"


def watched(deadline: float, now: float) -> bool:
    """Whether a running loop will look at the index before ``deadline``."""
    global _seen
    if deadline - now < LOOK_S:
        return False
    until, read_at = _seen
    if deadline <= until and time.time() - read_at < KEEP_S / 2:
        return True
    try:
        found = cache.get(_key())
    except Exception:  # no Redis answer: arm it (a second wake-up costs one query)
        return False
    _seen = (float(found) if found is not None else 0.0, time.time())
    return deadline <= _seen[0]


def _promise(until: float) -> None:
    cache.set(_key(), until, timeout=KEEP_S)


def run_loop() -> int:
    """The wake-up's work: the loop, or (a loop runs already) what is due now.
    Returns events written."""
    start = time.time()
    until = start + min(settings.CLOCKS_ARM_AHEAD_S, LOOP_S)
    try:
        ours = cache.add(_key(), until, timeout=KEEP_S)
    except Exception:
        log.exception("could not start the clocks' loop; enforcing once")
        ours = False
    if not ours:
        return enforce_due()
    try:
        return _watch(start, until)
    finally:
        try:
            cache.delete(_key())
        except Exception:  # it runs out by itself
            pass


def _watch(start: float, until: float) -> int:
    """Enforce what falls due until ``until``, which grows while deadlines
    keep coming within ``CLOCKS_ARM_AHEAD_S`` (up to ``LOOP_S`` after
    ``start``); the promise written again every ``KEEP_S / 2``."""
    ahead = settings.CLOCKS_ARM_AHEAD_S
    written, written_at = 0, start
    while True:
        written += enforce_due()
        now = time.time()
        if now >= until:
            break
        nxt = next_deadline()
        nxt = nxt.timestamp() if nxt is not None else None
        if nxt is not None and nxt - now <= ahead:
            until = max(until, min(now + ahead, start + LOOP_S))
        if now - written_at >= KEEP_S / 2:
            _promise(until)
            written_at = now
        wait = LOOK_S if nxt is None else min(max(0.0, nxt - now), LOOK_S)
        time.sleep(max(0.0, min(wait, until - now)))
    # what is due by the end of the promise (a deadline arming left to the loop)
    return written + enforce_due()
