"""Celery: each reminder sent by e-mail or push is a task, queued after the
commit that made it and retried with backoff; the sweep runs periodically
(beat) and when a worker starts, sending what no task carries (a crash
before the queueing, a lost task). The sending code is imported when a
reminder is sent, not when a worker starts."""

from celery import shared_task, signals


@shared_task(bind=True, name="reminders.deliver", ignore_result=True, max_retries=None)
def deliver(self, reminder_id: int) -> None:
    from .delivery import attempt

    wait = attempt(reminder_id)
    if wait is not None:
        raise self.retry(countdown=wait)


@shared_task(name="reminders.sweep", ignore_result=True)
def sweep() -> int:
    from .delivery import send_due

    return send_due()


@signals.worker_ready.connect
def _sweep_on_start(**_kwargs) -> None:
    sweep.delay()  # what was due while no worker ran
