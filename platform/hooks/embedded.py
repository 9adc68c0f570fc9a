"""Webhook deliveries in embedded mode (`make run`, the memory broker, no
Celery worker): one thread in the server sends every pending delivery whose
try is due, with the same backoff as the Celery task, and sleeps until the
next is due or a new delivery wakes it. Its own thread, so a slow receiver
never holds up the clocks."""

from __future__ import annotations

import time

from config.background import Background

IDLE_S = 5.0  # look at least this often (a delivery written by another process)
BATCH = 50  # deliveries tried per pass


def deliver_due(now: float | None = None) -> float:
    """Try every pending delivery that is due (oldest first, at most BATCH);
    returns the seconds until the next one is due (at most IDLE_S)."""
    from .delivery import attempt, backoff_s
    from .models import WebhookDelivery

    now = time.time() if now is None else now
    wait = IDLE_S
    pending = WebhookDelivery.objects.filter(status=WebhookDelivery.PENDING).order_by("id")
    tried = 0
    for delivery in pending[: BATCH * 4]:
        due = 0.0
        if delivery.attempts and delivery.last_attempt_at is not None:
            due = delivery.last_attempt_at.timestamp() + backoff_s(delivery.attempts)
        if due > now:
            wait = min(wait, due - now)
            continue
        if tried == BATCH:
            return 0.0
        tried += 1
        again = attempt(delivery.pk)
        if again is not None:
            wait = min(wait, again)
    return max(0.0, wait)


_background = Background("hooks", deliver_due, retry_s=IDLE_S)
wake, start = _background.wake, _background.start
