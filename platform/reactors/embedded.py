"""The reactors in embedded mode (`make run`): one thread of the server
follows the log like `manage.py run_reactors` does, woken by each append
(and catching up every POLL_S), so what a crash between an append's commit
and its inline run left undone is done on the next start. The inline run
(``REACTORS_INLINE``): right after an append commits, its own process passes
over the append's partition (``run_inline``), then wakes the thread."""

from __future__ import annotations

import logging

from django.conf import settings
from django.utils import timezone

from eventlog.models import StoredEvent
from runtime.background import Background

from . import positions
from .follow import (
    POLL_S,
    Follower,
    MatchRows,
    Reactor,
    backing_off,
    call_alone,
    default_owner,
    registered,
)
from .models import ReactorPartition
from .positions import partition_of

log = logging.getLogger(__name__)

_state: dict = {}


def follow_step() -> float:
    follower = _state.get("follower")
    if follower is None:
        follower = _state["follower"] = Follower(owner=default_owner("embedded-"))
    return follower.step()


_background = Background("reactors", follow_step, retry_s=POLL_S)
wake, start = _background.wake, _background.start

INLINE_OWNER = "inline"  # embedded mode's appending process (holds no lease)


def run_inline(rows: list[StoredEvent]) -> None:
    """Embedded mode (``REACTORS_INLINE``): right after an append commits, its
    own process follows the log of the append's partition, as a follower
    would (it needs no lease: a checkpoint moves only from where it was read,
    under its row's lock). So each event is handled once and the checkpoint
    moves with the effects; a crash between the commit and this leaves the
    events to the follower thread. What this pass could not reach (an older
    transaction still open, a checkpoint a batch behind) is handled at once
    anyway, the follower coming to it later (handled twice, doubling nothing)."""
    if not settings.REACTORS_INLINE or not rows:
        return
    wanted = [r for r in registered() if any(r.wants(row) for row in rows)]
    if wanted:
        try:
            covered = _inline_pass(rows, wanted)
        except Exception:  # a broken reactor must not undo a committed append
            log.exception("reactors: the inline pass failed; the follower will do it")
            covered = set()
        matches = MatchRows(rows)
        for reactor in wanted:
            mine = [r for r in rows if reactor.wants(r)]
            if reactor.name in covered or not mine:
                continue
            try:
                call_alone(reactor, mine, matches)
            except Exception:
                log.exception("reactor %s failed after an append", reactor.name)
    wake()


def _inline_pass(rows: list[StoredEvent], reactors: list[Reactor]) -> set[str]:
    """One pass over the partition of ``rows`` (one append: one stream) for
    ``reactors``; the names of those whose checkpoint it moved past the rows."""
    follower = Follower(INLINE_OWNER, reactors=reactors, leased=False)
    partition = partition_of(rows[0].stream, follower.partitions)
    names = [r.name for r in reactors]
    parts = list(ReactorPartition.objects.filter(reactor__in=names, partition=partition))
    if len(parts) < len(names):
        follower.make_rows(partition)
        parts = list(ReactorPartition.objects.filter(reactor__in=names, partition=partition))
    at: dict[tuple[int, int], list[ReactorPartition]] = {}
    now = timezone.now()
    for part in parts:
        if not backing_off(part, now):  # else left to the follower, after its backoff
            at.setdefault((part.after_tx, part.after_id), []).append(part)
    covered: set[str] = set()
    last = rows[-1].id
    for position, group in at.items():
        done = follower._pass(partition, position, group)
        if done is not None and last in done.ids:
            covered |= {p.reactor for p in group if p.pk in done.moved}
    if len(covered) < len(names):  # not read by this pass: past them already?
        reached = positions.position_of(last)
        for part in ReactorPartition.objects.filter(
            reactor__in=set(names) - covered, partition=partition
        ):
            if (part.after_tx, part.after_id) >= reached:
                covered.add(part.reactor)
    return covered
