"""Enforcing deadlines: the one place a timeout is submitted.

A deadline is enforced by submitting ``timeout`` through the same command
path as a player, with a command id made from the match and the deadline,
so enforcing the same deadline twice (the armed task and the sweep, or two
workers) writes one set of events."""

from __future__ import annotations

import logging
import time
from datetime import UTC

from config.logging import log_context
from eventlog.store import ConcurrencyError
from games import services
from games.core.protocol import RuleError
from games.models import Match

log = logging.getLogger(__name__)


def enforce_match(match_id: int, now: float | None = None) -> int:
    """Fire every passed deadline of one match. Returns events written."""
    try:
        match = Match.objects.get(pk=match_id)
    except Match.DoesNotExist:
        return 0
    if match.status != "live" or match.next_deadline is None:
        return 0
    now = time.time() if now is None else now
    deadline = match.next_deadline.timestamp()
    if deadline > now:
        return 0
    command_id = f"timeout:{match.stream}:{deadline:.3f}"
    try:
        with log_context(stream=match.stream, match_id=match.pk, command_id=command_id):
            rows = services.submit(
                match,
                None,
                {"type": "timeout"},
                role="system",
                actor="clock",
                command_id=command_id,
                now=now,
            )
            log.info("timeout of %s written: %d event(s)", match.stream, len(rows))
    except RuleError:
        return 0  # the match moved on: nothing is due any more
    except ConcurrencyError:
        log.info(
            "timeout of %s lost a race; the sweep will look again",
            match.stream,
            extra={"stream": match.stream, "match_id": match.pk},
        )
        return 0
    return len(rows)


def due_matches(now: float | None = None) -> list[int]:
    from datetime import datetime

    now = time.time() if now is None else now
    at = datetime.fromtimestamp(now, tz=UTC)
    return list(
        Match.objects.filter(status="live", next_deadline__lte=at)
        .order_by("next_deadline")
        .values_list("pk", flat=True)
    )


def sweep(now: float | None = None) -> int:
    """Enforce every overdue deadline of every match."""
    return sum(enforce_match(pk, now) for pk in due_matches(now))
