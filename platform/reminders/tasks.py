"""Celery: each reminder sent by e-mail or push is a task, retried with backoff
(the sending code is imported when a reminder is sent, not when a worker starts)."""

from celery import shared_task


@shared_task(bind=True, name="reminders.deliver", ignore_result=True, max_retries=None)
def deliver(self, reminder_id: int) -> None:
    from .delivery import attempt

    wait = attempt(reminder_id)
    if wait is not None:
        raise self.retry(countdown=wait)
