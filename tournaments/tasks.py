"""Celery tasks of the shows: a weekly template's next show (run by
django-celery-beat's database scheduler; under `make run` by config.embedded_schedule)."""

from celery import shared_task


@shared_task(name="tournaments.create_from_template", ignore_result=True)
def create_from_template(template_id: int) -> str | None:
    from .show_templates import run_recurrence

    return run_recurrence(template_id)
