"""Reminders in embedded mode (`make run`, no Celery worker): one thread of
the server sends every e-mail and push reminder whose try is due."""

from __future__ import annotations

import time

from config.background import Background

IDLE_S = 5.0


def deliver_due() -> float:
    from .delivery import attempt, due

    for pk in due(time.time()):
        attempt(pk)
    return IDLE_S


_background = Background("reminders", deliver_due, retry_s=IDLE_S)
wake, start = _background.wake, _background.start
