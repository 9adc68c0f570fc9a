"""The batch enforcer as a Celery task (``clocks.enforce_due``): one run
enforces every deadline due by then. Arming (clocks.arming) wakes it at the
end of a deadline's window, and the beat's sweep (clocks.tasks) arms through
arming: the task sits in a module of its own, below both."""

from celery import shared_task

from .enforce import enforce_due


@shared_task(name="clocks.enforce_due", ignore_result=True, acks_late=True)
def enforce_due_deadlines() -> int:
    return enforce_due()
