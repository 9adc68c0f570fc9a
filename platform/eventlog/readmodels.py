"""Read models: tables kept in step with the log inside each append, and
rebuildable from it. Each registers how to empty itself and how to apply
one event; ``rebuild_all`` replays the whole log through them.

A rebuild is safe while the site runs: on PostgreSQL it holds the append
lock exclusively (appends hold it shared, store.REBUILD_LOCK), so it waits
for appends in flight and no append commits until it is done; on SQLite its
transaction holds the single write lock. A read model's primary key is the
global id of its stream's first event, so a rebuild changes no URL; a child
row's (a seat, an entrant, an item...) is ``stable_id`` of its natural key,
the same live, rewritten, and after a rebuild."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from django.db import connection, transaction

from .models import StoredEvent
from .store import REBUILD_LOCK, all_events, register_projector

_resets: list[Callable[[], None]] = []
_finishers: list[Callable[[], None]] = []


def read_model(reset: Callable[[], None], finish: Callable[[], None] | None = None):
    """Decorator: register ``apply(event)`` with its ``reset()`` and an
    optional ``finish()`` run once after a rebuild."""

    def wrap(apply: Callable[[StoredEvent], None]):
        _resets.append(reset)
        if finish is not None:
            _finishers.append(finish)
        register_projector(apply)
        return apply

    return wrap


def rebuild_all(progress: Callable[[int], None] | None = None) -> int:
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cur:
                cur.execute("SELECT pg_advisory_xact_lock(%s)", [REBUILD_LOCK])
        return _rebuild(progress)


def _rebuild(progress: Callable[[int], None] | None) -> int:
    from .store import projectors

    for reset in _resets:
        reset()
    appliers = projectors()
    n = 0
    for row in all_events():
        for apply in appliers:
            apply(row)
        n += 1
        if progress and (n % 200 == 0):
            progress(n)
    for finish in _finishers:
        finish()
    if progress:
        progress(n)
    return n


def first_event_id(row: StoredEvent) -> int:
    """The global id of the first event of ``row``'s stream: a read model's
    primary key, the same live and after a rebuild."""
    if row.version == 1:
        return row.id
    return (
        StoredEvent.objects.filter(stream=row.stream, version=1).values_list("id", flat=True).get()
    )


def stable_id(*natural_key) -> int:
    """A child row's primary key from its natural key (its kind, its parent's
    id, its own name): 60 bits of a hash, never 0, the same on every rebuild."""
    digest = hashlib.sha256("\0".join(map(str, natural_key)).encode()).digest()
    return (int.from_bytes(digest[:8], "big") >> 4) or 1
