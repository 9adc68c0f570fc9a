"""Celery tasks of the shows: a weekly template's next show (run by
django-celery-beat's database scheduler; under `make run` by tournaments.recurring)."""

from celery import shared_task

from .show_templates import TASK, run_recurrence


@shared_task(name=TASK, ignore_result=True)
def create_from_template(template_id: int) -> str | None:
    return run_recurrence(template_id)
