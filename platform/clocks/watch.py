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
wake-up that finds a loop running enforces what is due once, as before.

One loop enforces one timeout at a time. When it looks again and the
earliest deadline is already ``HELP_LATE_S`` past, it is falling behind: it
asks for a helper (a wake-up with ``helper``), which runs in another pool
process and enforces beside it until nothing has been due for ``LINGER_S``.
Enforcers claim a few due matches at a time (clocks.enforce), so the two
share a backlog: a match one claimed, the other skips."""

from __future__ import annotations

import logging
import time

from celery import current_app
from django.conf import settings
from django.core.cache import cache

from .enforce import enforce_due, next_look

log = logging.getLogger(__name__)

LOOK_S = 0.05  # the loop looks at the index at least this often
LOOP_S = 60.0  # a loop ends within this (a worker's warm shutdown waits for it)
KEEP_S = 1.0  # the promise's key lives this long unless the loop writes it again
HELP_LATE_S = 0.02  # the earliest deadline this far past: the loop asks for a helper
LINGER_S = 0.5  # a helper ends once nothing has been due for this long

_seen = (0.0, 0.0)  # (the promise this process last read, when): trusted KEEP_S / 2


def _key() -> str:
    return f"clocks-watched:{current_app.conf.task_default_queue}"


def _helper_key() -> str:
    return f"clocks-helper:{current_app.conf.task_default_queue}"


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


def run_loop(helper: bool = False) -> int:
    """The wake-up's work: the loop, or (a loop runs already) what is due now;
    with ``helper``, the loop's helper. Returns events written."""
    if helper:
        return _help()
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
    beat = _Beat(_key(), until, asks_for_help=True)
    written = 0
    while True:
        looked_at = time.time()
        done = enforce_due(each_read=beat)
        written += done
        now = time.time()
        if now >= until:
            break
        nxt = _next_look(done, looked_at)
        if nxt is not None and nxt - now <= ahead:
            until = beat.value = max(until, min(now + ahead, start + LOOP_S))
        beat(0.0 if nxt is None else now - nxt)
        time.sleep(max(0.0, min(_pause(nxt, now), until - now)))
    # what is due by the end of the promise (a deadline arming left to the loop)
    return written + enforce_due()


def _next_look(written: int, looked_at: float) -> float | None:
    nxt = next_look(written, looked_at)
    return nxt.timestamp() if nxt is not None else None


def _pause(nxt: float | None, now: float) -> float:
    """Until ``nxt``, looking again at least every ``LOOK_S``."""
    return LOOK_S if nxt is None else min(max(0.0, nxt - now), LOOK_S)


class _Beat:
    """What a loop does between reads of the index, and within a long pass
    (after each claimed share): its key written again every ``KEEP_S / 2``,
    so it does not run out while the loop lives; and, for the watching loop,
    a helper asked for (at most once a ``KEEP_S``) when the earliest match it
    read was ``HELP_LATE_S`` past its deadline."""

    def __init__(self, key: str, value: float, asks_for_help: bool = False):
        self.key, self.value, self.asks_for_help = key, value, asks_for_help
        self.kept_at, self.asked_at = time.time(), 0.0

    def __call__(self, late_s: float) -> None:
        now = time.time()
        try:
            if now - self.kept_at >= KEEP_S / 2:
                cache.set(self.key, self.value, timeout=KEEP_S)
                self.kept_at = now
            if self.asks_for_help and late_s >= HELP_LATE_S and now - self.asked_at >= KEEP_S:
                self.asked_at = now
                if cache.get(_helper_key()) is None:
                    current_app.send_task("clocks.enforce_due", kwargs={"helper": True})
                    log.info("the clocks' loop is %.0f ms behind: a helper asked for", late_s * 1e3)
        except Exception:  # no Redis answer: the key runs out, the sweep covers
            log.exception("the clocks' loop could not reach the cache or the broker")


def _help() -> int:
    """Enforce what is due beside the loop until nothing has been due for
    ``LINGER_S`` (at most ``LOOP_S``). One helper at a time: a second
    wake-up enforces what is due once."""
    start = time.time()
    try:
        ours = cache.add(_helper_key(), start, timeout=KEEP_S)
    except Exception:
        ours = False
    if not ours:
        return enforce_due()
    beat = _Beat(_helper_key(), start)
    written, busy_at = 0, start
    log.info("the clocks' helper started")
    try:
        while True:
            looked_at = time.time()
            done = enforce_due(each_read=beat)
            written += done
            now = time.time()
            if done:
                busy_at = now
            if now - busy_at >= LINGER_S or now - start >= LOOP_S:
                log.info("the clocks' helper ended: %d event(s) written", written)
                return written
            beat(0.0)
            nxt = _next_look(done, looked_at)
            time.sleep(_pause(nxt, now))
    finally:
        try:
            cache.delete(_helper_key())
        except Exception:  # it runs out by itself
            pass
