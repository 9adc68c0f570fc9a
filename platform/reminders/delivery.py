"""One attempt at a reminder: an e-mail (Django's mail) or a push to each of
the player's browsers. Retried with backoff by the task (or the embedded
thread) up to MAX_ATTEMPTS; the sweep (beat, a worker's start, the embedded
thread) tries whatever is due that no task carries."""

from __future__ import annotations

import logging
import time
from datetime import timedelta

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import Q
from django.utils import timezone, translation

from . import push
from .models import EMAIL, PUSH, PushSubscription, Reminder
from .words import title

log = logging.getLogger(__name__)
MAX_ATTEMPTS = 4
BACKOFF_S = 30
CLAIM_S = 120  # a try's claim: longer than one e-mail or push round can take


def backoff_s(attempts: int) -> float:
    return BACKOFF_S * 2 ** (attempts - 1)


def _absolute(url: str) -> str:
    return settings.SITE_URL.rstrip("/") + url if url.startswith("/") else url


def _email(r: Reminder) -> None:
    if not r.user.email:
        raise ValueError("the player has no e-mail address")
    with translation.override("en"):
        subject = f"{title(r.kind)} · Showtable"
    send_mail(subject, f"{r.text}\n\n{_absolute(r.url)}\n", None, [r.user.email])


def _push(r: Reminder) -> None:
    subs = list(PushSubscription.objects.filter(user=r.user))
    if not subs:
        raise ValueError("the player has no push subscription any more")
    with translation.override("en"):
        head = title(r.kind)
    sent, errors = 0, []
    for sub in subs:
        try:
            push.send(sub, head, r.text, _absolute(r.url))
            sent += 1
        except push.Gone:
            sub.delete()  # the browser unsubscribed: forget it
        except Exception as exc:  # one browser failing must not stop the others
            errors.append(str(exc)[:100])
    if not sent:
        raise ValueError("; ".join(errors) or "every subscription had expired")


def attempt(reminder_id: int) -> float | None:
    """Try once; seconds to wait before the next try, or None when done (or
    another is sending it). Claimed in a short transaction, sent with no
    transaction open, the outcome recorded only while the claim holds: a
    redelivered task, the sweep and a worker never send it twice at once."""
    r = _claim(reminder_id)
    if r is None:
        return None
    claim = r.claimed_until
    try:
        {EMAIL: _email, PUSH: _push}[r.channel](r)
        r.status, r.error, r.sent_at = Reminder.SENT, "", timezone.now()
    except Exception as exc:
        r.error = f"{type(exc).__name__}: {exc}"[:300]
        log.info("reminder %s not delivered: %s", r.pk, r.error)
    r.attempts += 1
    if r.status == Reminder.PENDING and r.attempts >= MAX_ATTEMPTS:
        r.status = Reminder.FAILED
    Reminder.objects.filter(pk=r.pk, status=Reminder.PENDING, claimed_until=claim).update(
        status=r.status, error=r.error, sent_at=r.sent_at, attempts=r.attempts, claimed_until=None
    )
    return backoff_s(r.attempts) if r.status == Reminder.PENDING else None


def _claim(reminder_id: int) -> Reminder | None:
    """The pending reminder, claimed for one try (CLAIM_S); None when it is
    gone, done, or claimed by another."""
    now = timezone.now()
    with transaction.atomic():
        r = (
            Reminder.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("user")
            .filter(_unclaimed(now), pk=reminder_id, status=Reminder.PENDING)
            .first()
        )
        if r is not None:
            r.claimed_until = now + timedelta(seconds=CLAIM_S)
            r.save(update_fields=["claimed_until"])
    return r


def _unclaimed(now) -> Q:
    return Q(claimed_until__isnull=True) | Q(claimed_until__lte=now)


def due(now_ts: float) -> list[int]:
    """Pending reminders whose next try is due (and that no one is sending)."""
    out = []
    pending = Reminder.objects.filter(_unclaimed(timezone.now()), status=Reminder.PENDING)
    for pk, attempts, created in pending.values_list("pk", "attempts", "created_at")[:200]:
        if (
            not attempts
            or created.timestamp() + sum(backoff_s(i) for i in range(1, attempts + 1)) <= now_ts
        ):
            out.append(pk)
    return out


def send_due(now_ts: float | None = None) -> int:
    """The sweep: every pending reminder whose try is due, tried (whether its
    task was queued, lost, or never made); how many were tried."""
    found = due(time.time() if now_ts is None else now_ts)
    for pk in found:
        attempt(pk)
    return len(found)
