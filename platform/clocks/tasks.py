"""Celery tasks: the armed deadline and the periodic sweep."""

from celery import shared_task

from .enforce import enforce_match, sweep


@shared_task(name="clocks.enforce_deadline", ignore_result=True, acks_late=True)
def enforce_deadline(match_id: int) -> int:
    return enforce_match(match_id)


@shared_task(name="clocks.sweep", ignore_result=True)
def sweep_overdue() -> int:
    return sweep()


@shared_task(name="clocks.move_bots", ignore_result=True)
def move_bots() -> int:
    from games.services import move_bots_due

    return move_bots_due()
