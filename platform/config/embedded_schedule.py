"""The database schedule in embedded mode (`make run`, no beat process): a
thread of the server asks django-celery-beat's own entries which periodic
tasks are due (its ModelEntry, the crontab in the task's time zone, its
last run) and runs them in-process, recording each run as beat would."""

from __future__ import annotations

import logging

from runtime.background import Background

log = logging.getLogger(__name__)
IDLE_S = 30.0  # look at least this often (a template changed in the meantime)


def run_due() -> float:
    """Run every due periodic task this process knows; seconds until the next look."""
    from django_celery_beat.models import PeriodicTask
    from django_celery_beat.schedulers import ModelEntry

    from tournaments import tasks  # noqa: F401  (registers the shows' tasks in this process)

    from .celery import app

    wait = IDLE_S
    for model in PeriodicTask.objects.enabled().filter(task__in=list(app.tasks.keys())):
        entry = ModelEntry(model, app=app)
        due, next_s = entry.is_due()
        if due:
            try:
                app.tasks[entry.task].apply(args=entry.args, kwargs=entry.kwargs)
            except Exception:  # one failing task must not stop the schedule
                log.exception("periodic task %s failed", entry.name)
            next(entry).save()  # last run and count, as beat records them
        wait = min(wait, max(1.0, next_s))
    return wait


_background = Background("schedule", run_due, retry_s=IDLE_S)
wake, start = _background.wake, _background.start
