"""Read models: tables kept in step with the log inside each append, and
rebuildable from it. Each registers how to apply one event, how to forget
the rows it derived from one stream, and optionally what to do once a
stream is replayed (``settle``) and once every stream is (``finish``);
``rebuild_all`` replays the log through them.

A rebuild never stops the site's writers: it rebuilds one stream at a time,
in one transaction that holds that stream's lock (``store.lock_stream``), so
an append to that stream either committed before (it is replayed) or waits
and is projected on the rebuilt rows; appends to every other stream go on.
Readers see a stream's old rows until its new ones commit. Rows shared by
many streams (a game's ratings) are rebuilt by ``finish``, under their own
lock. A read model's primary key is the global id of its stream's first
event, so a rebuild changes no URL; a child row's (a seat, an entrant, an
item, a rating...) is ``stable_id`` of its natural key, the same live,
rewritten, and after a rebuild."""

from __future__ import annotations

import contextvars
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.db import connection, models, transaction
from django.db.models import Exists, Min, OuterRef, QuerySet

from .models import StoredEvent
from .store import lock_stream, projectors, register_projector
from .vendors import Fork


@dataclass(frozen=True)
class _ReadModel:
    forget: Callable[[str], None]
    prune: Callable[[], None] | None
    settle: Callable[[str], None] | None
    finish: Callable[[], None] | None


_models: list[_ReadModel] = []
_rebuilding = contextvars.ContextVar("rebuilding", default=False)


def read_model(
    forget: Callable[[str], None],
    *,
    prune: Callable[[], None] | None = None,
    settle: Callable[[str], None] | None = None,
    finish: Callable[[], None] | None = None,
    writes: Callable[[StoredEvent], frozenset[str] | None] | None = None,
):
    """Decorator: register ``apply(event)`` with ``forget(stream)`` (delete
    the rows derived from that stream), and optionally ``prune()`` (delete
    rows of streams the log does not have, see ``unlogged``), ``settle(stream)``
    (run once a stream is replayed, in its transaction), ``finish()`` (run
    once every stream is, outside their locks) and ``writes(event)`` (what
    ``apply`` would write for it, when that can be said without running it:
    ``store.register_projector``)."""

    def wrap(apply: Callable[[StoredEvent], None]):
        _models.append(_ReadModel(forget, prune, settle, finish))
        register_projector(apply, writes=writes)
        return apply

    return wrap


def rebuilding() -> bool:
    """Whether the events being applied are a rebuild's replay (in this thread)."""
    return _rebuilding.get()


def rebuild_all(progress: Callable[[int], None] | None = None) -> int:
    """Replay the log into every read model, stream by stream (streams in the
    order they began); the number of events replayed. ``progress(n)`` is
    told the events replayed so far."""
    streams = (
        StoredEvent.objects.values("stream")
        .annotate(began=Min("id"))
        .order_by("began")
        .values_list("stream", flat=True)
    )
    done = 0
    for stream in list(streams):
        done = rebuild_stream(stream, done, progress)
    for model in _models:
        if model.prune:
            with transaction.atomic():
                model.prune()
    for model in _models:
        if model.finish:
            model.finish()
    if progress:
        progress(done)
    return done


def rebuild_stream(
    stream: str, done: int = 0, progress: Callable[[int], None] | None = None
) -> int:
    """Rebuild the rows derived from ``stream`` in one transaction holding its
    lock; ``done`` plus the events replayed."""
    token = _rebuilding.set(True)
    try:
        with transaction.atomic():
            lock_stream(stream)  # first: an append in flight commits before we read
            rows = list(StoredEvent.objects.filter(stream=stream).order_by("version"))
            for model in _models:
                model.forget(stream)
            appliers = projectors()
            for row in rows:
                for apply in appliers:
                    apply(row)
                done += 1
                if progress and done % 200 == 0:
                    progress(done)
            for model in _models:
                if model.settle:
                    model.settle(stream)
    finally:
        _rebuilding.reset(token)
    return done


def unlogged(rows: QuerySet, field: str = "stream") -> QuerySet:
    """The rows of ``rows`` whose stream (``field``) has no event in the log.
    Checked in the same statement as a delete of them, so a row an append
    commits meanwhile (with its stream's first event) is never among them."""
    return rows.exclude(Exists(StoredEvent.objects.filter(stream=OuterRef(field))))


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


def stable_id_sql(*natural_key: str) -> str:
    """``stable_id`` in SQL (PostgreSQL), for a statement whose natural key is
    only known inside it: ``natural_key`` are SQL expressions. The same hash,
    bytes and bits as ``stable_id``, side by side with it so they change
    together (tests/eventlog/test_readmodels.py compares them)."""
    joined = " || '\\x00'::bytea || ".join(f"convert_to(({k})::text, 'UTF8')" for k in natural_key)
    return (
        f"COALESCE(NULLIF((('x' || substr(encode(sha256({joined}), 'hex'), 1, 16))::bit(64) >> 4)"
        "::bigint, 0), 1)"
    )


def _project_models() -> list[type[models.Model]]:
    """The project's own tables (not Django's, not a library's), the log aside."""
    root = Path(settings.BASE_DIR).resolve()
    found = []
    for model in apps.get_models():
        meta = model._meta
        path = Path(meta.app_config.path).resolve()
        if meta.app_label == "eventlog" or not meta.managed or meta.proxy:
            continue
        if path.is_relative_to(root) and ".venv" not in path.parts:
            found.append(model)
    return sorted(found, key=lambda m: m._meta.db_table)


def _compared_fields(model: type[models.Model]) -> list[str]:
    # times a row is saved at, and the kept folds (a cache of the log), differ by nature
    return [
        f.attname
        for f in model._meta.concrete_fields
        if f.editable
        and not getattr(f, "auto_now", False)
        and not getattr(f, "auto_now_add", False)
    ]


def fingerprint() -> dict[str, dict]:
    """Each table of the project's: its rows (primary keys included) in
    primary-key order, as a count and a SHA-256. Two databases with the same
    fingerprint hold the same read models."""
    out = {}
    for model in _project_models():
        digest, count = hashlib.sha256(), 0
        rows = model.objects.order_by("pk").values_list(*_compared_fields(model))
        for row in rows.iterator(chunk_size=2000):
            digest.update(json.dumps(row, default=str).encode())
            count += 1
        out[model._meta.db_table] = {"rows": count, "sha256": digest.hexdigest()}
    return out


def _repeatable_read() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")


def _serialized_already() -> None:
    """SQLite: the transaction takes the write lock (IMMEDIATE), so no write
    commits between its reads."""


# one_snapshot(): at a transaction's start, every read in it sees one snapshot
one_snapshot = Fork(postgresql=_repeatable_read, portable=_serialized_already)


@dataclass(frozen=True)
class Comparison:
    events: int
    tables: int
    differ: list[str]


def compare_with_rebuild() -> Comparison:
    """Rebuild every read model in a transaction that is then rolled back, and
    say which tables the rebuild would change: none, when they equal the log's
    fold. On PostgreSQL both fingerprints read one snapshot, so a write that
    commits meanwhile is not taken for a difference (one to a row the rebuild
    rewrites fails the check with a serialization error: run it on a quiet site)."""
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if outermost:
            one_snapshot()
        before = fingerprint()
        events = rebuild_all()
        after = fingerprint()
        transaction.set_rollback(True)
    differ = sorted(t for t in before if before[t] != after.get(t))
    return Comparison(events, len(before), differ)
