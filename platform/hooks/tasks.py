"""Celery: each delivery is a task, retried with exponential backoff; the
sweeper runs periodically (beat) and when a worker starts, sending what no
task carries (a crash between an append's commit and its queueing)."""

from celery import shared_task, signals

from .delivery import attempt

# the periodic sweep leaves deliveries due this recently to their own task
SWEEP_GRACE_S = 10.0


@shared_task(bind=True, name="hooks.deliver", ignore_result=True, max_retries=None)
def deliver(self, delivery_id: int) -> None:
    wait = attempt(delivery_id)
    if wait is not None:
        raise self.retry(countdown=wait)


@shared_task(name="hooks.sweep", ignore_result=True)
def sweep(older_than: float = SWEEP_GRACE_S) -> int:
    from .outbox import sweep as sweep_due

    return sweep_due(older_than=older_than)[0]


@signals.worker_ready.connect
def _sweep_on_start(**_kwargs) -> None:
    sweep.delay(0.0)  # what was due while no worker ran
