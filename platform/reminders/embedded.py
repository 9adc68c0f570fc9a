"""Reminders in embedded mode (`make run`, no Celery worker): one thread of
the server sends every e-mail and push reminder whose try is due."""

from __future__ import annotations

from runtime.background import Background

IDLE_S = 5.0


def deliver_due() -> float:
    from .delivery import send_due

    send_due()
    return IDLE_S


_background = Background("reminders", deliver_due, retry_s=IDLE_S)
wake, start = _background.wake, _background.start
