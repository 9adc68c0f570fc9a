"""Celery: each delivery is a task, retried with exponential backoff."""

from celery import shared_task

from .delivery import attempt


@shared_task(bind=True, name="hooks.deliver", ignore_result=True, max_retries=None)
def deliver(self, delivery_id: int) -> None:
    wait = attempt(delivery_id)
    if wait is not None:
        raise self.retry(countdown=wait)
