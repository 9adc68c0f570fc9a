"""The batch enforcer as a Celery task (``clocks.enforce_due``): one run
enforces every deadline due by then, and the first of them becomes the loop
that keeps watching the index (clocks.watch). Arming (clocks.arming) wakes
it at the end of a deadline's window when no loop watches it, and the
beat's sweep (clocks.tasks) arms through arming: the task sits in a module
of its own, below both."""

from celery import shared_task

from .watch import run_loop


@shared_task(name="clocks.enforce_due", ignore_result=True, acks_late=True)
def enforce_due_deadlines(helper: bool = False) -> int:
    return run_loop(helper=helper)
