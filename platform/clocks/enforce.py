"""Enforcing deadlines: the one place a timeout is submitted.

The match rows' ``next_deadline`` is the deadline index. ``enforce_due`` reads
every due match from it in batches (earliest first) and submits each one's
``timeout`` through the same command path as a player, with a system command
id made from the deadline (scoped to the match's stream, and never equal to a
client's id), so enforcing the same deadline twice (two wake-ups, the sweep,
two workers) writes one set of events, and only the first counts as written.
Enforcers running at once share a batch: each match is claimed for the length
of its own transaction (a PostgreSQL advisory lock, tried, never waited for),
so the others skip it, and a killed enforcer's claims end with its connection."""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime

from django.db import transaction
from django.db.models.expressions import RawSQL

from eventlog.store import ConcurrencyError, system_command_id
from eventlog.vendors import Fork
from games import services
from games.core.protocol import RuleError
from games.models import Match
from runtime.logging import log_context

log = logging.getLogger(__name__)

BATCH = 100  # due matches read from the index per query
CLOCK_LOCK = 0x636C6B73  # "clks": the advisory lock class of a claimed match


def enforce_due(now: float | None = None, limit: int = BATCH) -> int:
    """Fire every passed deadline in the index; returns events written.

    Reads the due matches ``limit`` at a time, earliest deadline first,
    and goes on after the last one read (a match it could not move on is not
    read again), until a read finds fewer than ``limit``."""
    written = 0
    after: tuple[datetime, int] | None = None
    while True:
        at = datetime.fromtimestamp(time.time() if now is None else now, tz=UTC)
        due = Match.objects.filter(status="live", next_deadline__lte=at)
        if after is not None:
            due = due.filter(next_deadline__gte=after[0]).exclude(
                next_deadline=after[0], pk__lte=after[1]
            )
        batch = list(due.order_by("next_deadline", "pk")[:limit])
        if batch:  # read before enforcing: a submit moves the match's deadline on
            after = (batch[-1].next_deadline, batch[-1].pk)
        for match in batch:
            try:
                written += _claim_and_enforce(match, now)
            except Exception:  # one failing match must not stop every clock behind it
                log.exception(
                    "timeout of %s failed; the next wake-up tries again",
                    match.stream,
                    extra={"stream": match.stream, "match_id": match.pk},
                )
        if len(batch) < limit:
            return written


def enforce_match(match_id: int, now: float | None = None) -> int:
    """Fire every passed deadline of one match. Returns events written."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None or match.status != "live" or match.next_deadline is None:
        return 0
    return _claim_and_enforce(match, now)


def _claim_and_enforce(match: Match, now: float | None) -> int:
    """Enforce ``match``'s deadline as read, unless another enforcer holds
    it or it moved on since it was read."""
    deadline_at = match.next_deadline
    if deadline_at is None or deadline_at.timestamp() > (time.time() if now is None else now):
        return 0
    with transaction.atomic():
        if not _claim(match.pk, deadline_at):
            return 0
        return _enforce(match, now)


def _still_due(match_id: int, deadline_at: datetime):
    """The match, if it is still live and due at this deadline."""
    return Match.objects.filter(pk=match_id, status="live", next_deadline=deadline_at)


# the match's advisory lock, tried, never waited for
_TRY_LOCK = RawSQL("pg_try_advisory_xact_lock(%s, (id %% 2147483648)::int4)", [CLOCK_LOCK])


def _claim_by_advisory_lock(match_id: int, deadline_at: datetime) -> bool:
    claimed = _still_due(match_id, deadline_at).annotate(claimed=_TRY_LOCK)
    return bool(claimed.values_list("claimed", flat=True).first())


def _claim_still_due(match_id: int, deadline_at: datetime) -> bool:
    """SQLite writes one transaction at a time: nobody to share the match with."""
    return _still_due(match_id, deadline_at).exists()


# _claim(match_id, deadline_at), inside a transaction: is the match still due
# at this deadline, and is it now ours until the transaction ends?
_claim = Fork(postgresql=_claim_by_advisory_lock, portable=_claim_still_due)


def _enforce(match: Match, now: float | None) -> int:
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


_sweepers: list = []


def also_sweep(fn) -> None:
    """Have every sweep call ``fn(now) -> events written`` too (e.g. the
    shows' step deadlines: the clocks know no show)."""
    _sweepers.append(fn)


def sweep(now: float | None = None) -> int:
    """Enforce every overdue deadline of every match, then the registered sweepers'."""
    n = enforce_due(now)
    for fn in _sweepers:
        try:
            n += fn(now)
        except Exception:  # one failing sweeper must not stop the clocks
            log.exception("a sweeper failed; the next sweep tries again")
    return n
