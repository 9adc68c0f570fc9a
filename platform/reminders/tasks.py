"""Celery: each reminder sent by e-mail or push is a task, retried with backoff."""

from celery import shared_task

from .delivery import attempt


@shared_task(bind=True, name="reminders.deliver", ignore_result=True, max_retries=None)
def deliver(self, reminder_id: int) -> None:
    wait = attempt(reminder_id)
    if wait is not None:
        raise self.retry(countdown=wait)
