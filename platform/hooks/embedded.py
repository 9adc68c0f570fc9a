"""Webhook deliveries in embedded mode (`make run`, the memory broker, no
Celery worker): one thread in the server runs the outbox's sweeper, sending
every pending delivery that is due, with the same backoff as the Celery
task, and sleeps until the next is due or a new delivery wakes it. Its own
thread, so a slow receiver never holds up the clocks."""

from __future__ import annotations

from runtime.background import Background

from .outbox import BATCH, IDLE_S  # noqa: F401  (the embedded sender's limits)


def deliver_due(now: float | None = None) -> float:
    """Try every pending delivery that is due (oldest first, at most BATCH);
    returns the seconds until the next one is due (at most IDLE_S)."""
    from .outbox import sweep

    return sweep(now)[1]


_background = Background("hooks", deliver_due, retry_s=IDLE_S)
wake, start = _background.wake, _background.start
