"""Enforcing deadlines: the one place a timeout is submitted.

The match rows' ``next_deadline`` is the deadline index. ``enforce_due`` reads
every due match from it in batches (earliest first) and submits each one's
``timeout`` through the same command path as a player, with a system command
id made from the deadline (scoped to the match's stream, and never equal to a
client's id), so enforcing the same deadline twice (two wake-ups, the sweep,
two workers) writes one set of events, and only the first counts as written.
Enforcers running at once share a batch: the
due matches are read and claimed in one statement (a PostgreSQL advisory
lock per match, tried, never waited for), so the others skip them, and a
killed enforcer's claims end with its connection. A timeout is one append:
its events, the match row and its clock index in one statement."""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime

from eventlog import rows as db_rows
from eventlog.store import ConcurrencyError, system_command_id
from eventlog.vendors import Fork
from games import services
from games.core.protocol import RuleError
from games.models import Match
from runtime.logging import log_context

log = logging.getLogger(__name__)

# due matches read and claimed per query: few, so that enforcers running at
# once (the loop, its helper, a wake-up, the sweep) share a backlog instead
# of one of them claiming a hundred and writing them one by one
BATCH = 2
CLOCK_LOCK = 0x636C6B73  # "clks": the advisory lock class of a claimed match


def enforce_due(now: float | None = None, limit: int = BATCH, each_read=None) -> int:
    """Fire every passed deadline in the index; returns events written.

    Reads and claims the due matches ``limit`` at a time, earliest deadline
    first, and goes on after the last one read (a match it could not move on
    is not read again), until a read finds fewer than ``limit``. After each
    read whose timeouts wrote something, ``each_read(late_s)`` hears how far
    past its deadline the earliest match read was (a loop keeps its promise,
    and sees that it falls behind)."""
    written = 0
    after: tuple[datetime, int] | None = None
    while True:
        at = datetime.fromtimestamp(time.time() if now is None else now, tz=UTC)
        batch = _claim_due(at, after, limit)
        if batch:  # read before enforcing: a submit moves the match's deadline on
            after = (batch[-1][0].next_deadline, batch[-1][0].pk)
            late_s = (at - batch[0][0].next_deadline).total_seconds()
        done = _enforce_claimed(batch, now)
        written += done
        if done and each_read is not None:
            each_read(late_s)
        if len(batch) < limit:
            return written


def next_deadline(after: float | None = None) -> datetime | None:
    """The earliest deadline of any live match in the index (later than
    ``after`` when given)."""
    return _next_deadline(None if after is None else datetime.fromtimestamp(after, tz=UTC))


def next_look(written: int, looked_at: float) -> datetime | None:
    """The deadline an enforcer waits for after a pass begun at ``looked_at``:
    the earliest in the index; after a pass that wrote nothing, the earliest
    later than ``looked_at``, since what was due then is another enforcer's
    claim or a timeout that fails (logged, tried again), never spun on."""
    return next_deadline() if written else next_deadline(after=looked_at)


def enforce_match(match_id: int, now: float | None = None) -> int:
    """Fire every passed deadline of one match. Returns events written."""
    at = datetime.fromtimestamp(time.time() if now is None else now, tz=UTC)
    return _enforce_claimed(_claim_due(at, None, 1, match_id), now)


def _enforce_claimed(batch: list[tuple[Match, bool]], now: float | None) -> int:
    """The timeouts of the matches of ``batch`` this enforcer claimed, each
    in its own transaction (the append's); the claims given back after."""
    written = 0
    claimed = [match for match, ours in batch if ours]
    try:
        for match in claimed:
            try:
                written += _enforce(match, now)
            except Exception:  # one failing match must not stop every clock behind it
                log.exception(
                    "timeout of %s failed; the next wake-up tries again",
                    match.stream,
                    extra={"stream": match.stream, "match_id": match.pk},
                )
    finally:
        if claimed:
            _release([match.pk for match in claimed])
    return written


# ---- claims: which enforcer fires a due match --------------------------------
# PostgreSQL: the due matches are read and claimed in one statement, each with
# its session-level advisory lock, tried (never waited for), so enforcers
# running at once share a batch and a killed one's claims end with its
# connection; each timeout is then its append's own transaction (the append's
# version check and the deadline's command id make a match that moved on, or
# was fired by another enforcer meanwhile, write nothing), and the batch's
# claims are given back in one statement. SQLite writes one transaction at a
# time: every due match read is this enforcer's.
_TABLE = Match._meta.db_table
_DUE = (
    f"SELECT * FROM {_TABLE} WHERE status = 'live' AND next_deadline <= %s "
    "AND (next_deadline, id) > (%s, %s) AND (%s::bigint IS NULL OR id = %s::bigint) "
    "ORDER BY next_deadline, id LIMIT %s"
)
# the lock tried on each row the inner query returns, and on those alone
_CLAIM_DUE = (
    f"SELECT {db_rows.columns(Match)}, pg_try_advisory_lock(%s, (id %% 2147483648)::int4) "
    f"FROM ({_DUE}) AS due ORDER BY next_deadline, id"
)
_RELEASE = "SELECT pg_advisory_unlock(%s, (id %% 2147483648)::int4) FROM unnest(%s::bigint[]) AS id"
_FIRST = (datetime(1, 1, 1, tzinfo=UTC), 0)


def _claim_due_advisory(at: datetime, after, limit: int, match_id: int | None = None) -> list:
    after = after or _FIRST
    params = [CLOCK_LOCK, at, after[0], after[1], match_id, match_id, limit]
    found = db_rows.run(_CLAIM_DUE, params)
    return [(db_rows.instance(Match, row), bool(row[-1])) for row in found]


# a loop asks after every pass: prepared, as the claims and their release
# are (through the ORM it cost an enforcer a tenth of its CPU under load, bench
# clocks_scale; the release through Django's cursor a twentieth)
_NEXT = (
    f"SELECT next_deadline FROM {_TABLE} WHERE status = 'live' AND next_deadline > %s "
    "ORDER BY next_deadline LIMIT 1"
)


def _next_deadline_prepared(after: datetime | None) -> datetime | None:
    found = db_rows.first_row(_NEXT, [after or _FIRST[0]])  # no deadline is NULL > anything
    return found[0] if found else None


def _next_deadline_by_orm(after: datetime | None) -> datetime | None:
    live = Match.objects.filter(status="live", next_deadline__gt=after or _FIRST[0])
    return live.order_by("next_deadline").values_list("next_deadline", flat=True).first()


def _release_advisory(match_ids: list[int]) -> None:
    db_rows.run(_RELEASE, [CLOCK_LOCK, match_ids])


def _claim_due_by_orm(at: datetime, after, limit: int, match_id: int | None = None) -> list:
    due = Match.objects.filter(status="live", next_deadline__lte=at)
    if after is not None:
        due = due.filter(next_deadline__gte=after[0]).exclude(
            next_deadline=after[0], pk__lte=after[1]
        )
    if match_id is not None:
        due = due.filter(pk=match_id)
    return [(match, True) for match in due.order_by("next_deadline", "pk")[:limit]]


def _nothing_to_release(match_ids: list[int]) -> None:
    pass


# _claim_due(at, after, limit, match_id=None): [(match, claimed by us)] of the
# matches due at ``at`` after (deadline, id) ``after``, earliest first;
# _release(match_ids): the claims given back
_claim_due = Fork(postgresql=_claim_due_advisory, portable=_claim_due_by_orm)
_release = Fork(postgresql=_release_advisory, portable=_nothing_to_release)
# _next_deadline(after): the earliest deadline in the index (later than ``after``)
_next_deadline = Fork(postgresql=_next_deadline_prepared, portable=_next_deadline_by_orm)


def _enforce(match: Match, now: float | None) -> int:
    begun = time.time()
    now = begun if now is None else now
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
            # how late it began and how long it took: a late timeout's two
            # causes (its wake, or its write) told apart (bench clocks_scale)
            log.info(
                "timeout of %s written: %d event(s), begun %.1f ms after its deadline, "
                "written in %.1f ms",
                match.stream,
                len(rows),
                (now - deadline) * 1e3,
                (time.time() - begun) * 1e3,
            )
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
