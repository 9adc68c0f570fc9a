"""Reactors follow the log.

A reactor is what reacts to an append and need not share its transaction
(webhook deliveries first). It reads the log by position from a checkpoint
kept in the database, one per partition of the streams, and its effects are
idempotent: it may see an event more than once (at least once), and nothing
is lost or doubled.

Positions. An id from a sequence is taken at insert but seen at commit, so
a lower id can appear after a higher one was read. On PostgreSQL each event
records its writing transaction (``tx``, eventlog migration 0006) and a
reader takes only events whose ``tx`` is below the oldest transaction still
running (``pg_snapshot_xmin``; those of other databases left out), in (tx,
id) order: nothing can appear below that line any more, so the checkpoint
(tx, id) never passes an event that is still to commit. A long transaction
that wrote holds the reactors back until it ends (never anything lost). SQLite writes one transaction at a time: ids commit in
order and the position is the id (tx 0). Both are reactors.positions; the
wait for the next append (LISTEN/NOTIFY on PostgreSQL) is reactors.listen.

Partitions. A stream belongs to partition ``partition_of(stream)``. Each
process following the log (``manage.py run_reactors``, the embedded thread
of ``make run``) is a ``Follower``: it says it is alive, takes its share of
the partitions nobody holds or whose lease ran out, renews its leases, and
gives back what is above its share when another follower joins. A partition's
checkpoint moves in the same transaction as the reactor's database effects,
while its row is locked and only if it still holds it, so a follower that
lost its lease (killed, paused past it) never moves it: the one that took
over starts from the last checkpoint committed.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from eventlog import rows as db_rows
from eventlog.models import StoredEvent

from . import positions
from .listen import Woken, wakeup
from .models import ParkedAppend, ReactorFollower, ReactorPartition
from .positions import partition_of

log = logging.getLogger(__name__)

BATCH = 500  # events read per pass
POLL_S = 5.0  # catch up at least this often, notified or not
# A woken partition held back by an older transaction still open is read
# again this soon (doubling while it stays held, up to RETRY_MAX_S): that
# transaction may write no event, so no NOTIFY would say it ended.
RETRY_S = 0.005
RETRY_MAX_S = 0.5


@dataclass(frozen=True)
class Reactor:
    name: str
    # the rows of one append (one stream, one transaction, in version order);
    # must be idempotent: it may get the same rows again
    handle: Callable[..., None]
    prefixes: tuple[str, ...] = ()  # the streams it cares about (none: all)
    # handle(rows, matches=MatchRows): the batch's match rows, read once for all
    with_matches: bool = False
    # False: it only reads the database (its effects are elsewhere: Redis, the
    # broker), so it runs without a savepoint of its own (two round trips less)
    writes: bool = True
    # needs(rows, matches): whether it has anything to do for one append's rows,
    # asked (reading only) before its savepoint is opened; None: always
    needs: Callable[..., bool] | None = None

    def wants(self, row: StoredEvent) -> bool:
        return not self.prefixes or row.stream.startswith(self.prefixes)


_reactors: dict[str, Reactor] = {}


def register(
    name: str,
    handle: Callable,
    *,
    prefixes: tuple[str, ...] = (),
    with_matches: bool = False,
    writes: bool = True,
    needs: Callable[..., bool] | None = None,
) -> Reactor:
    reactor = _reactors[name] = Reactor(name, handle, tuple(prefixes), with_matches, writes, needs)
    return reactor


# The match rows are the games app's read model: it registers their model at
# start-up (GamesConfig.ready), so that the log's followers import nothing of it.
_match_model = None


# Told of each batch of rows a pass reads (in commit order), before its reactors
# handle it: the games keep their match streams' rows (games.services), so that a
# reactor reading a whole stream (the ratings', at a match's end) reads only what
# came after. A hook's error is logged and the pass goes on.
_rows_read_hooks: list[Callable[[list[StoredEvent]], None]] = []


def on_rows_read(hook: Callable[[list[StoredEvent]], None]) -> None:
    if hook not in _rows_read_hooks:
        _rows_read_hooks.append(hook)


def _tell_rows_read(rows: list[StoredEvent]) -> None:
    for hook in _rows_read_hooks:
        try:
            hook(rows)
        except Exception:
            log.exception("reactors: a hook on the rows read failed")


def register_match_model(model) -> type | None:
    """Install the model of the match rows; returns the one it replaces."""
    global _match_model
    previous, _match_model = _match_model, model
    return previous


class MatchRows:
    """The match rows (read model) of a batch's streams, read once for every
    reactor that handles the batch (live publishing, clock arming, reminders
    would each read the same rows). Read when first asked, in the pass's
    transaction; no reactor writes them. ``once`` keeps the reactors' other
    look-ups of the whole batch (one query per pass, not per append)."""

    def __init__(self, rows: list[StoredEvent]):
        self.batch_streams = {r.stream for r in rows}
        self.streams = {s for s in self.batch_streams if s.startswith("match-")}
        self._found: dict | None = None
        self._once: dict[str, object] = {}

    def once(self, key: str, compute: Callable[[], object]) -> object:
        """``compute()``, made once for the batch under ``key``."""
        if key not in self._once:
            self._once[key] = compute()
        return self._once[key]

    def of(self, streams) -> list:
        """The match rows of ``streams`` (those of the batch), by stream."""
        if self._found is None:
            # every match stream of the batch, read once (not only the asker's:
            # ``streams`` stays what this call asked for)
            batch = sorted(self.streams)
            match = _match_model
            found = (
                db_rows.fetch(
                    match,
                    db_rows.select(match, f'"stream" IN ({_in(batch)})'),
                    batch,
                    prepare=False,
                )
                if batch and match is not None
                else []
            )
            self._found = {m.stream: m for m in found}
        return [self._found[s] for s in sorted(set(streams)) if s in self._found]


def _call(reactor: Reactor, rows: list[StoredEvent], matches: MatchRows) -> None:
    if reactor.with_matches:
        reactor.handle(rows, matches=matches)
    else:
        reactor.handle(rows)


def registered() -> list[Reactor]:
    return list(_reactors.values())


def _in(values) -> str:
    """The placeholders of an ``IN (...)`` of ``values`` (never empty)."""
    return ", ".join(["%s"] * len(values))


# the checkpoints a pass reads, locks and moves: statements made once (the
# ORM's building and compiling cost more than running them, once per pass)
_PARTITIONS = ReactorPartition._meta.db_table


def _held(owner: str, reactors: list[str], partitions: int, only) -> list[ReactorPartition]:
    """The checkpoint rows ``owner`` holds of ``reactors`` (of ``only``'s partitions)."""
    if not reactors or (only is not None and not only):
        return []
    where = f'"owner" = %s AND "reactor" IN ({_in(reactors)}) AND "partition" < %s'
    params = [owner, *reactors, partitions]
    if only is not None:
        where += f' AND "partition" IN ({_in(only)})'
        params += sorted(only)
    return db_rows.fetch(
        ReactorPartition, db_rows.select(ReactorPartition, where), params, prepare=False
    )


def _locked_at(pks: list[int], position: tuple[int, int], owner: str | None) -> set[int]:
    """Of the checkpoint rows ``pks``, those still at ``position`` (and held by
    ``owner``, when given), locked until the transaction ends."""
    sql = (
        f'SELECT "id" FROM "{_PARTITIONS}" WHERE "id" IN ({_in(pks)}) '
        'AND "after_tx" = %s AND "after_id" = %s'
    )
    params = [*pks, *position]
    if owner is not None:
        sql += ' AND "owner" = %s'
        params.append(owner)
    sql += ' ORDER BY "id"'
    if connection.features.has_select_for_update:
        sql += " FOR UPDATE"
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return {pk for (pk,) in cursor.fetchall()}


def _locked_at_many(wanted: list[tuple[list[int], tuple[int, int]]], owner: str | None) -> set[int]:
    """``_locked_at`` of each (checkpoint rows, position) of ``wanted``, in
    one statement on PostgreSQL."""
    if connection.vendor != "postgresql":
        return set().union(*(_locked_at(pks, position, owner) for pks, position in wanted))
    at = [(pk, position) for pks, position in wanted for pk in pks]
    sql = (
        f'SELECT t."id" FROM "{_PARTITIONS}" t JOIN unnest(%s::bigint[], %s::bigint[], '
        '%s::bigint[]) AS w(pk, after_tx, after_id) ON t."id" = w.pk '
        'AND t."after_tx" = w.after_tx AND t."after_id" = w.after_id'
    )
    params = [[pk for pk, _ in at], [tx for _, (tx, _id) in at], [i for _, (_tx, i) in at]]
    if owner is not None:
        sql += ' WHERE t."owner" = %s'
        params.append(owner)
    sql += ' ORDER BY t."id" FOR UPDATE OF t'
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return {pk for (pk,) in cursor.fetchall()}


def _move_many(moves: dict[tuple[int, int], set[int]]) -> None:
    """Each set of checkpoint rows of ``moves`` (locked) moved to its position,
    in one statement on PostgreSQL."""
    moves = {to: pks for to, pks in moves.items() if pks}
    if not moves:
        return
    if connection.vendor != "postgresql" or len(moves) == 1:
        for to, pks in moves.items():
            _move(pks, to)
        return
    at = sorted((pk, to) for to, pks in moves.items() for pk in pks)
    with connection.cursor() as cursor:
        cursor.execute(
            f'UPDATE "{_PARTITIONS}" t SET "after_tx" = w.after_tx, "after_id" = w.after_id '
            "FROM unnest(%s::bigint[], %s::bigint[], %s::bigint[]) AS w(pk, after_tx, after_id) "
            'WHERE t."id" = w.pk',
            [[pk for pk, _ in at], [tx for _, (tx, _i) in at], [i for _, (_tx, i) in at]],
        )


def _move(pks: set[int], to: tuple[int, int]) -> None:
    """The checkpoint rows ``pks`` (locked by ``_locked_at``) moved ``to``."""
    ordered = sorted(pks)
    with connection.cursor() as cursor:
        cursor.execute(
            f'UPDATE "{_PARTITIONS}" SET "after_tx" = %s, "after_id" = %s '
            f'WHERE "id" IN ({_in(ordered)})',
            [*to, *ordered],
        )


def start_at_the_tip(name: str, checkpoints=ReactorPartition, db=connection) -> None:
    """A reactor added to a log that has events already starts at its end
    (what came before was done another way, e.g. inside the appends): its
    checkpoint rows made there. Rows it has already are left as they are.
    For a migration, with its historical ``ReactorPartition`` and connection."""
    checkpoints.objects.using(db.alias).bulk_create(
        [
            checkpoints(reactor=name, partition=p, after_tx=tx, after_id=last)
            for p, (tx, last) in positions.the_tip(db).items()
        ],
        ignore_conflicts=True,
    )


def appends(rows: list[StoredEvent]) -> list[list[StoredEvent]]:
    """``rows`` (in log order) as the appends that wrote them: per stream and
    writing transaction (on SQLite, per run of one stream and command id)."""
    out: list[list[StoredEvent]] = []
    groups: dict[tuple, list[StoredEvent]] = {}
    for row in rows:
        tx = getattr(row, "tx", None)
        if tx is None:
            if (
                out
                and out[-1][-1].stream == row.stream
                and out[-1][-1].command_id == row.command_id
            ):
                out[-1].append(row)
            else:
                out.append([row])
            continue
        group = groups.get((row.stream, tx))
        if group is None:
            group = groups[(row.stream, tx)] = []
            out.append(group)
        group.append(row)
    return [sorted(g, key=lambda r: r.version) for g in out]


def _handle(reactor: Reactor, rows: list[StoredEvent], matches: MatchRows) -> str | None:
    """One append's rows to one reactor, in a savepoint if it writes; what
    went wrong when it failed (logged; its checkpoint then stops before the
    append: ``_failed``), None when done. When the database itself failed
    the whole pass is tried again (so too any database error of a reactor
    that only reads: with no savepoint of its own it leaves the pass's
    transaction unusable)."""
    if reactor.needs is not None and not _needs(reactor, rows, matches):
        return None
    try:
        if reactor.writes:
            with transaction.atomic():
                _call(reactor, rows, matches)
        else:
            _call(reactor, rows, matches)
    except (OperationalError, InterfaceError):
        raise
    except Exception as exc:
        if isinstance(exc, DatabaseError) and not reactor.writes:
            raise
        log.exception("reactor %s failed on %s@%s", reactor.name, rows[0].stream, rows[-1].version)
        return f"{type(exc).__name__}: {exc}"[:300]
    return None


def _handle_all(
    part: ReactorPartition, reactor: Reactor, rows: list[StoredEvent], matches: MatchRows
) -> tuple[int, int] | bool:
    """The batch's appends to ``reactor``, in order, for its checkpoint row
    ``part``: True when it may move past them all; else where it stops (the
    position before the append it failed on; False: where it was), to try
    that append again after a backoff. An append it failed on
    REACTOR_RETRIES times in a row is parked and passed."""
    had_failed = part.failures > 0
    for group in appends([r for r in rows if reactor.wants(r)]):
        error = _handle(reactor, group, matches)
        if error is None:
            continue
        if part.failures + 1 < settings.REACTOR_RETRIES:
            _failed(part, error)
            return _before(rows, group[0])
        _park(part, group, error)
    if had_failed:
        ReactorPartition.objects.filter(pk=part.pk).update(failures=0, retry_at=None, last_error="")
    return True


def _before(rows: list[StoredEvent], first: StoredEvent) -> tuple[int, int] | bool:
    """The position just before ``first`` in the batch ``rows`` (False: the
    batch's start): every earlier row belongs to an append handled before it."""
    at = next(i for i, r in enumerate(rows) if r.id == first.id)
    if at == 0:
        return False
    row = rows[at - 1]
    return (getattr(row, "tx", None) or 0, row.id)


def _failed(part: ReactorPartition, error: str) -> None:
    """One more failure in a row on the append after ``part``'s checkpoint:
    tried again after REACTOR_BACKOFF_S, doubling each time."""
    part.failures += 1
    wait = settings.REACTOR_BACKOFF_S * 2 ** (part.failures - 1)
    part.retry_at = timezone.now() + timedelta(seconds=wait)
    part.last_error = error
    ReactorPartition.objects.filter(pk=part.pk).update(
        failures=part.failures, retry_at=part.retry_at, last_error=error
    )


def _park(part: ReactorPartition, rows: list[StoredEvent], error: str) -> None:
    """The append ``rows`` set aside, visibly (admin, /healthz), for a later try."""
    log.error(
        "reactor %s parked %s@%s-%s after %s tries: %s",
        part.reactor,
        rows[0].stream,
        rows[0].version,
        rows[-1].version,
        part.failures + 1,
        error,
    )
    ParkedAppend.objects.create(
        reactor=part.reactor,
        stream=rows[0].stream,
        first_version=rows[0].version,
        last_version=rows[-1].version,
        error=error,
        attempts=part.failures + 1,
    )
    part.failures = 0


def backing_off(part: ReactorPartition, now) -> bool:
    """Whether ``part``'s reactor waits before trying a failed append again."""
    return part.retry_at is not None and part.retry_at > now


def _needs(reactor: Reactor, rows: list[StoredEvent], matches: MatchRows) -> bool:
    """``reactor.needs``; when it fails other than in the database (which has
    the pass tried again), the reactor is asked to handle the rows anyway."""
    try:
        return reactor.needs(rows, matches)
    except DatabaseError:
        raise
    except Exception:
        log.exception("reactor %s could not tell whether it needs %s", reactor.name, rows[0].stream)
        return True


def call_alone(reactor: Reactor, rows: list[StoredEvent], matches: MatchRows) -> None:
    """``reactor`` on ``rows`` outside a pass: in a transaction of its own
    when it writes, as in a pass, so the locks it takes (a game's ratings
    lock) hold until its effects commit."""
    if reactor.writes:
        with transaction.atomic():
            _call(reactor, rows, matches)
    else:
        _call(reactor, rows, matches)


def default_owner(kind: str = "") -> str:
    """A follower's name: this host and process, and a token of its own."""
    return f"{socket.gethostname()}:{os.getpid()}:{kind}{uuid.uuid4().hex[:8]}"


class Follower:
    """One process's (or thread's) share of the reactors' partitions."""

    def __init__(
        self,
        owner: str | None = None,
        *,
        reactors: list[Reactor] | None = None,
        partitions: int | None = None,
        lease_s: float | None = None,
        batch: int = BATCH,
        leased: bool = True,
    ):
        self.owner = owner or default_owner()
        self.leased = leased  # False: the inline pass, which moves checkpoints unheld
        self.reactors = {r.name: r for r in (reactors if reactors is not None else registered())}
        self.partitions = partitions or settings.REACTOR_PARTITIONS
        self.lease_s = lease_s or settings.REACTOR_LEASE_S
        self.batch = batch
        self.held: set[tuple[str, int]] = set()
        self._rows_made = False
        self._next_beat = self._next_full = 0.0
        self.waiting: dict[int, int] = {}  # partition -> transaction notified, not yet reached
        self.reached: dict[tuple[str, int], int] = {}  # (reactor, partition) -> checkpoint's tx
        self._retry_s = RETRY_S  # the next wait while a partition is held back

    # ---- leases -------------------------------------------------------------
    def beat(self) -> set[tuple[str, int]]:
        """Say alive; renew what is held up to a fair share (the partitions
        over the live followers), give back the rest, take free ones up to it."""
        now = timezone.now()
        until = now + timedelta(seconds=self.lease_s)
        if not self._rows_made:
            self.make_rows(*range(self.partitions))
            self._rows_made = True
        ReactorFollower.objects.update_or_create(owner=self.owner, defaults={"alive_until": until})
        ReactorFollower.objects.filter(alive_until__lt=now - 10 * (until - now)).delete()
        alive = ReactorFollower.objects.filter(alive_until__gt=now).count()
        share = -(-self.partitions // max(1, alive))
        held = set()
        for name in self.reactors:
            rows = ReactorPartition.objects.filter(reactor=name, partition__lt=self.partitions)
            mine = sorted(rows.filter(owner=self.owner).values_list("partition", flat=True))
            if mine[share:]:
                rows.filter(owner=self.owner, partition__in=mine[share:]).update(
                    owner="", lease_until=None
                )
            kept = mine[:share]
            if kept:
                rows.filter(owner=self.owner, partition__in=kept).update(lease_until=until)
            kept = set(rows.filter(owner=self.owner).values_list("partition", flat=True))
            free = Q(owner="") | Q(lease_until__isnull=True) | Q(lease_until__lt=now)
            for p in rows.filter(free).order_by("partition").values_list("partition", flat=True):
                if len(kept) >= share:
                    break
                # the condition again in the UPDATE: of two takers, one wins
                if rows.filter(free, partition=p).update(owner=self.owner, lease_until=until):
                    kept.add(p)
            held |= {(name, p) for p in kept}
        self.held = held
        return held

    def make_rows(self, *partitions: int) -> None:
        """The checkpoint rows of ``partitions`` for every reactor, where missing."""
        ReactorPartition.objects.bulk_create(
            [
                ReactorPartition(reactor=name, partition=p)
                for name in self.reactors
                for p in partitions
            ],
            ignore_conflicts=True,
        )

    def leave(self) -> None:
        """A clean stop: give every partition back at once."""
        ReactorPartition.objects.filter(owner=self.owner).update(owner="", lease_until=None)
        ReactorFollower.objects.filter(owner=self.owner).delete()
        self.held = set()

    # ---- following ------------------------------------------------------------
    def catch_up(self, only: set[int] | None = None) -> int:
        """Every held partition (or those of ``only``) to the end of what is
        final; events handled. The reactors at the same checkpoint of a
        partition (the usual case) share one read and one transaction. A
        partition is read again only after a full batch: a shorter one held
        all that was final, and whatever commits after it notifies (or is
        found by the next full catch-up), so a wake costs one read a
        partition, not a second one that finds nothing."""
        done = 0
        while True:
            held = _held(self.owner, list(self.reactors), self.partitions, only)
            if only is None:
                self.held = {(part.reactor, part.partition) for part in held}
            now = timezone.now()  # a reactor backing off is read again by a later full catch-up
            held = [part for part in held if not backing_off(part, now)]
            self.reached = {(part.reactor, part.partition): part.after_tx for part in held}
            at: dict[tuple[int, int, int], list[ReactorPartition]] = {}
            for part in held:
                at.setdefault((part.partition, part.after_tx, part.after_id), []).append(part)
            more = False
            groups = [(p, tuple(position), parts) for (p, *position), parts in sorted(at.items())]
            for (_p, _position, parts), passed in zip(groups, self._pass_all(groups), strict=True):
                if passed is not None:
                    done += len(passed.ids)
                    more = more or len(passed.ids) >= self.batch
                    for part in parts:
                        if part.pk in passed.moved:
                            self.reached[(part.reactor, part.partition)] = passed.to[0]
            if not more:
                return done

    def _pass_all(
        self, groups: list[tuple[int, tuple[int, int], list[ReactorPartition]]]
    ) -> list[Pass | None]:
        """``_pass`` of each (partition, position, checkpoint rows) of
        ``groups``, read in one statement and handled and checkpointed in one
        transaction: a wake's appends over many partitions cost one read, one
        lock, one look-up of their match rows and one commit, not one of each
        per partition. A database error undoes them all (tried again)."""
        if len(groups) <= 1:
            return [self._pass(*group) for group in groups]
        reads = positions.read_after_many(
            [(partition, position) for partition, position, _ in groups],
            self.partitions,
            self.batch,
        )
        passes: list[Pass | None] = [None] * len(groups)
        todo = [
            (i, group, rows, moved_to)
            for i, (group, (rows, moved_to)) in enumerate(zip(groups, reads, strict=True))
            if moved_to is not None
        ]
        if not todo:
            return passes
        for _i, _group, rows, _to in todo:
            _tell_rows_read(rows)
        with transaction.atomic():
            mine = _locked_at_many(
                [([p.pk for p in parts], position) for _i, (_, position, parts), _r, _t in todo],
                self.owner if self.leased else None,
            )
            matches = MatchRows([r for *_, rows, _to in todo for r in rows])
            moves: dict[tuple[int, int], set[int]] = {}
            for i, (_partition, _position, parts), rows, moved_to in todo:
                if any(p.pk in mine for p in parts):
                    moved = self._handle_group(parts, mine, rows, moved_to, matches, moves)
                    passes[i] = Pass({r.id for r in rows}, moved, moved_to)
                else:
                    self._lost(parts, mine)
            _move_many(moves)
        return passes

    def _lost(self, parts: list[ReactorPartition], mine: set[int]) -> None:
        """Of ``parts``, those not locked (``mine``) are no longer held: another
        follower took them over (or the inline pass moved them) and goes on
        from their checkpoints."""
        self.held -= {(p.reactor, p.partition) for p in parts if p.pk not in mine}

    def _handle_group(
        self,
        parts: list[ReactorPartition],
        mine: set[int],
        rows: list[StoredEvent],
        moved_to: tuple[int, int],
        matches: MatchRows,
        moves: dict[tuple[int, int], set[int]],
    ) -> set[int]:
        """``rows`` to the reactors of ``parts`` still held (``mine``); in
        ``moves``, where each checkpoint row goes (``moved_to``, or the
        position before an append a reactor failed on); the rows moved past
        them all."""
        self._lost(parts, mine)
        moved = {p.pk for p in parts if p.pk in mine}
        for part in parts:
            if part.pk in mine:
                done = _handle_all(part, self.reactors[part.reactor], rows, matches)
                if done is not True:
                    moved.discard(part.pk)
                    if done:
                        moves.setdefault(done, set()).add(part.pk)
        if moved:
            moves.setdefault(moved_to, set()).update(moved)
        return moved

    def _pass(
        self, partition: int, position: tuple[int, int], parts: list[ReactorPartition]
    ) -> Pass | None:
        """One batch of one partition for the reactors at ``position`` there,
        handled and checkpointed in one transaction; None when nothing moved
        (nothing new, or no longer held)."""
        rows, moved_to = positions.read_after(position, partition, self.partitions, self.batch)
        if moved_to is None:
            return None
        _tell_rows_read(rows)
        with transaction.atomic():
            # still ours and where we read from: else another follower took it
            # over (or the inline pass moved it) and goes on from the checkpoint
            mine = _locked_at([p.pk for p in parts], position, self.owner if self.leased else None)
            if not mine:
                self._lost(parts, mine)
                return None
            matches = MatchRows(rows)  # one look-up for every reactor of the batch
            moves: dict[tuple[int, int], set[int]] = {}
            moved = self._handle_group(parts, mine, rows, moved_to, matches, moves)
            _move_many(moves)
        return Pass({r.id for r in rows}, moved, moved_to)

    def step(self, poll_s: float = POLL_S, woken: Woken | None = None) -> float:
        """The leases renewed when due (every third of one), then caught up:
        only the partitions ``woken`` names and those still waiting for a
        notified transaction, or all of them (on start, on a timeout, when
        partitions were taken over, at least every ``poll_s``, or when a
        notification named no stream); returns the seconds to wait before
        the next step at most (soon while a partition is held back).
        ``woken`` empty (a wait that timed out) reads the waiting partitions
        only, unless the full catch-up is due."""
        full = woken is None or woken.everything
        if time.monotonic() >= self._next_beat:
            before = set(self.held)
            if self.beat() - before:  # partitions taken over: from their checkpoints
                full = True
            self._next_beat = time.monotonic() + self.lease_s / 3
        if time.monotonic() >= self._next_full:
            full = True
        if woken is not None:
            for stream, tx in woken.streams.items():
                p = partition_of(stream, self.partitions)
                self.waiting[p] = max(tx, self.waiting.get(p, 0))
        if full:
            self.catch_up()
            self._next_full = time.monotonic() + poll_s
        elif self.waiting:
            self.catch_up(only=set(self.waiting))
        # a partition waits until every reactor's checkpoint there reached the
        # transaction notified (an older one still open holds it back)
        for p, tx in list(self.waiting.items()):
            reached = [t for (_name, q), t in self.reached.items() if q == p]
            if not reached or min(reached) >= tx:
                del self.waiting[p]
        now = time.monotonic()
        wait = max(0.0, min(poll_s, self._next_beat - now, self._next_full - now))
        if not self.waiting:
            self._retry_s = RETRY_S
            return wait
        retry, self._retry_s = self._retry_s, min(RETRY_MAX_S, self._retry_s * 2)
        return min(wait, retry)

    def run(self, stop: threading.Event, *, poll_s: float = POLL_S) -> None:
        """Follow until ``stop``, then give the partitions back: woken by
        NOTIFY (PostgreSQL), catching up at least every ``poll_s``."""
        from django.db import close_old_connections

        waiting = wakeup()
        waiting.listen()  # before the first catch-up: no commit falls between the two
        woken = None
        try:
            while not stop.is_set():
                wait = poll_s
                try:
                    close_old_connections()
                    wait = self.step(poll_s, woken)
                except DatabaseError:
                    log.exception("reactors: the database failed; trying again")
                    connection.close()
                    waiting.wait(wait)
                    woken = None  # read everything once it answers again
                    continue
                woken = waiting.wait(wait)
        finally:
            waiting.close()
            try:
                self.leave()
            except DatabaseError:
                log.exception("reactors: could not give the partitions back")


@dataclass(frozen=True)
class Pass:
    """What one pass read (event ids), whose checkpoints it moved (row pks)
    and to where."""

    ids: set[int]
    moved: set[int]
    to: tuple[int, int]
