"""Celery tasks: the periodic sweep, one match's deadline, the bots' moves.
The batch enforcer woken at deadlines is clocks.enforce_due (arming sends it)."""

from celery import shared_task

from .arming import arm_ahead
from .enforce import enforce_match, sweep


@shared_task(name="clocks.enforce_deadline", ignore_result=True, acks_late=True)
def enforce_deadline(match_id: int) -> int:
    """One match's deadline: what releases before the batch enforcer armed
    (such tasks may still be queued after an upgrade)."""
    return enforce_match(match_id)


@shared_task(name="clocks.sweep", ignore_result=True)
def sweep_overdue() -> int:
    """Every overdue deadline enforced, then the next ones armed (``arm_ahead``)."""
    written = sweep()
    arm_ahead()
    return written


@shared_task(name="clocks.move_bots", ignore_result=True)
def move_bots() -> int:
    from games.services import move_bots_due

    return move_bots_due()
