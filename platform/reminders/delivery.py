"""One attempt at a reminder: an e-mail (Django's mail) or a push to each of
the player's browsers. Retried with backoff by the task (or the embedded
thread) up to MAX_ATTEMPTS."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.mail import send_mail
from django.utils import timezone, translation

from . import push
from .models import EMAIL, PUSH, PushSubscription, Reminder
from .words import title

log = logging.getLogger(__name__)
MAX_ATTEMPTS = 4
BACKOFF_S = 30


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
    """Try once; seconds to wait before the next try, or None when done."""
    r = Reminder.objects.select_related("user").filter(pk=reminder_id).first()
    if r is None or r.status != Reminder.PENDING:
        return None
    try:
        {EMAIL: _email, PUSH: _push}[r.channel](r)
        r.status, r.error, r.sent_at = Reminder.SENT, "", timezone.now()
    except Exception as exc:
        r.error = f"{type(exc).__name__}: {exc}"[:300]
        log.info("reminder %s not delivered: %s", r.pk, r.error)
    r.attempts += 1
    if r.status == Reminder.PENDING and r.attempts >= MAX_ATTEMPTS:
        r.status = Reminder.FAILED
    r.save(update_fields=["status", "error", "sent_at", "attempts"])
    return backoff_s(r.attempts) if r.status == Reminder.PENDING else None


def due(now_ts: float) -> list[int]:
    """Pending reminders whose next try is due."""
    out = []
    for pk, attempts, created in Reminder.objects.filter(status=Reminder.PENDING).values_list(
        "pk", "attempts", "created_at"
    )[:200]:
        if (
            not attempts
            or created.timestamp() + sum(backoff_s(i) for i in range(1, attempts + 1)) <= now_ts
        ):
            out.append(pk)
    return out
