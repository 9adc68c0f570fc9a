"""The appends a reactor kept failing on (``ParkedAppend``): counted for
/healthz, tried again by the admin's action or `manage.py retry_parked`
(each a reactor's effects are idempotent: an append tried again late, after
the ones that followed it, does what it would have done)."""

from __future__ import annotations

from django.utils import timezone

from eventlog.models import StoredEvent

from .follow import MatchRows, call_alone, registered
from .models import ParkedAppend, ReactorPartition


def counts() -> dict[str, int]:
    """What /healthz says of the reactors: the appends parked and not handled
    since, and the checkpoints held back by a failure they are retrying."""
    return {
        "parked": ParkedAppend.objects.filter(handled=False).count(),
        "retrying": ReactorPartition.objects.filter(failures__gt=0).count(),
    }


def retry(parked: ParkedAppend) -> bool:
    """``parked`` tried once more by its reactor; whether it went through
    (then marked handled; else its error and tries recorded)."""
    reactor = next((r for r in registered() if r.name == parked.reactor), None)
    rows = list(
        StoredEvent.objects.filter(
            stream=parked.stream, version__range=(parked.first_version, parked.last_version)
        ).order_by("version")
    )
    error = ""
    if reactor is None:
        error = f"no reactor is named {parked.reactor!r} any more"
    else:
        try:
            call_alone(reactor, rows, MatchRows(rows))
        except Exception as exc:  # recorded on the row, as when it was parked
            error = f"{type(exc).__name__}: {exc}"[:300]
    parked.retried_at = timezone.now()
    parked.attempts += 1
    if error:
        parked.error = error
    parked.handled = not error
    parked.save(update_fields=["retried_at", "attempts", "error", "handled"])
    return parked.handled
