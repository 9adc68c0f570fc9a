"""The outbox's sweeper: every pending delivery that is due (and whose
backoff has passed) is tried, oldest first. The embedded thread runs it
all the time; under Celery a periodic task and each worker's start do, so
a delivery whose queued task was lost (a crash between the append's commit
and the queueing, a broker restart) is still sent, and only once."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from django.db.models import Q

BATCH = 50  # deliveries tried per pass
IDLE_S = 5.0  # the longest a pass asks to wait


def sweep(now: float | None = None, *, older_than: float = 0.0) -> tuple[int, float]:
    """Try the pending deliveries due at ``now`` - ``older_than`` (the Celery
    sweep leaves the newest to their own queued task). Returns (tried, seconds
    until the next is due, at most IDLE_S)."""
    from .delivery import attempt, backoff_s
    from .models import WebhookDelivery

    now = time.time() if now is None else now
    limit = datetime.fromtimestamp(now - older_than, tz=UTC)
    pending = WebhookDelivery.objects.filter(status=WebhookDelivery.PENDING)
    wait = IDLE_S
    upcoming = pending.filter(due_at__gt=limit).order_by("due_at").values_list("due_at", flat=True)
    nearest = upcoming.first()
    if nearest is not None:
        wait = min(wait, max(0.0, nearest.timestamp() - now + older_than))
    tried = 0
    for delivery in pending.filter(Q(due_at__isnull=True) | Q(due_at__lte=limit)).order_by("id")[
        : BATCH * 4
    ]:
        due = 0.0
        if delivery.attempts and delivery.last_attempt_at is not None:
            due = delivery.last_attempt_at.timestamp() + backoff_s(delivery.attempts)
        if due > now:
            wait = min(wait, due - now)
            continue
        if tried == BATCH:
            return tried, 0.0
        tried += 1
        again = attempt(delivery.pk, now)
        if again is not None:
            wait = min(wait, again)
    return tried, max(0.0, wait)
