"""Enforcing deadlines: the one place a timeout is submitted.

A deadline is enforced by submitting ``timeout`` through the same command
path as a player, with a system command id made from the deadline (scoped
to the match's stream, and never equal to a client's id), so enforcing the
same deadline twice (the armed task and the sweep, or two workers) writes
one set of events, and only the first counts as written."""

from __future__ import annotations

import logging
import time
from datetime import UTC

from config.logging import log_context
from eventlog.store import ConcurrencyError, system_command_id
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
    try:
        timeout_id = ("timeout", f"{deadline:.3f}")
        with log_context(
            stream=match.stream, match_id=match.pk, command_id=system_command_id(*timeout_id)
        ):
            rows = services.submit(
                match,
                None,
                {"type": "timeout"},
                role="system",
                actor="clock",
                system_id=timeout_id,
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
    if getattr(rows, "replay", False):
        # enforced before (the armed task and the sweep): nothing new, and
        # that first timeout must have moved the deadline on
        match.refresh_from_db(fields=["next_deadline"])
        if match.next_deadline is not None and match.next_deadline.timestamp() == deadline:
            log.error("timeout of %s at %.3f is recorded but still due", match.stream, deadline)
        return 0
    written = [r for r in rows if r.stream == match.stream and r.pk is not None]
    if len(written) != len(rows):
        log.error("timeout of %s: the events it wrote are not this match's", match.stream)
        return 0
    return len(written)


def due_matches(now: float | None = None) -> list[int]:
    from datetime import datetime

    now = time.time() if now is None else now
    at = datetime.fromtimestamp(now, tz=UTC)
    return list(
        Match.objects.filter(status="live", next_deadline__lte=at)
        .order_by("next_deadline")
        .values_list("pk", flat=True)
    )


_sweepers: list = []


def also_sweep(fn) -> None:
    """Have every sweep call ``fn(now) -> events written`` too (e.g. the
    shows' step deadlines: the clocks know no show)."""
    _sweepers.append(fn)


def sweep(now: float | None = None) -> int:
    """Enforce every overdue deadline of every match, then the registered sweepers'."""
    n = sum(enforce_match(pk, now) for pk in due_matches(now))
    for fn in _sweepers:
        try:
            n += fn(now)
        except Exception:  # one failing sweeper must not stop the clocks
            log.exception("a sweeper failed; the next sweep tries again")
    return n
