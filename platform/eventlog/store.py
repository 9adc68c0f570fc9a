"""append / read: the only way events enter or leave the log.

Optimistic concurrency: the caller folds the stream, decides, and appends
with the version it folded; a writer that lost the race gets
``ConcurrencyError`` and nothing is written.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.db.models import Max

from games.core.protocol import Event, Viewer

from .models import StoredEvent

log = logging.getLogger(__name__)


class ConcurrencyError(Exception):
    """The stream moved on since the caller read it."""

    def __init__(self, stream: str, expected: int, actual: int | None = None):
        self.stream, self.expected, self.actual = stream, expected, actual
        super().__init__(
            f"stream {stream} is no longer at version {expected}"
            + (f" (now {actual})" if actual is not None else "")
        )


@dataclass(frozen=True)
class NewEvent:
    type: str
    data: Mapping[str, Any]
    visible_to: Sequence[str] | None = None  # None: everyone
    public: Mapping[str, Any] | None = None  # what others see (None: nothing)

    @classmethod
    def from_game(cls, event: Event) -> NewEvent:
        return cls(event.type, dict(event.data), event.visible_to, event.public)


# projectors update read models inside the append transaction;
# after-commit hooks fan out (live updates, clock arming)
_projectors: list[Callable[[StoredEvent], None]] = []
_after_commit: list[Callable[[list[StoredEvent]], None]] = []


def register_projector(fn: Callable[[StoredEvent], None]) -> Callable:
    if fn not in _projectors:
        _projectors.append(fn)
    return fn


def projectors() -> list[Callable[[StoredEvent], None]]:
    return list(_projectors)


def on_append(fn: Callable[[list[StoredEvent]], None]) -> Callable:
    """Run ``fn(events)`` after the transaction that appended them commits."""
    if fn not in _after_commit:
        _after_commit.append(fn)
    return fn


def stream_version(stream: str) -> int:
    return StoredEvent.objects.filter(stream=stream).aggregate(v=Max("version"))["v"] or 0


def replayed(command_id: str) -> list[StoredEvent]:
    return list(StoredEvent.objects.filter(command_id=command_id).order_by("command_seq"))


class _Conflict(Exception):
    """Inside append: the stream was not at the expected version."""


def append(
    stream: str,
    expected_version: int,
    events: Iterable[NewEvent | Event],
    *,
    command_id: str | None = None,
    actor: str | None = None,
    role: str | None = None,
    causation: int | None = None,
    extra: Mapping[str, Any] | None = None,
) -> list[StoredEvent]:
    """Append ``events`` after ``expected_version`` in one transaction.

    A command id already recorded returns the events it wrote the first
    time and writes nothing.
    """
    batch = [e if isinstance(e, NewEvent) else NewEvent.from_game(e) for e in events]
    if not batch:
        return []
    rows = [
        StoredEvent(
            stream=stream,
            version=expected_version + i,
            type=e.type,
            data=dict(e.data),
            metadata={
                "actor": actor,
                "role": role,
                "causation": causation,
                "visibility": {
                    "to": list(e.visible_to) if e.visible_to is not None else None,
                    "public": dict(e.public) if e.public is not None else None,
                },
                **(extra or {}),
            },
            command_id=command_id,
            command_seq=i,
        )
        for i, e in enumerate(batch, 1)
    ]
    try:
        with transaction.atomic():
            if connection.vendor == "postgresql":
                _insert_checked(rows, expected_version)
            else:
                # SQLite writes one transaction at a time (IMMEDIATE), so the
                # check and the insert cannot be split by another writer
                if stream_version(stream) != expected_version:
                    raise _Conflict
                for row in rows:
                    row.save(force_insert=True)
            for row in rows:
                for project in _projectors:
                    project(row)
            transaction.on_commit(lambda: _fan_out(rows))
    except (_Conflict, IntegrityError):
        # a retried command id answers with its first result; anything else
        # lost the race for this version
        if command_id:
            first = replayed(command_id)
            if first:
                return first
        raise ConcurrencyError(stream, expected_version, stream_version(stream)) from None
    return rows


_TABLE = StoredEvent._meta.db_table
_ROW_SQL = "(%s, %s::integer, %s, %s::jsonb, %s::jsonb, %s, %s::smallint)"


def _insert_checked(rows: list[StoredEvent], expected_version: int) -> None:
    """PostgreSQL: the version check and the insert in one statement (one
    round trip); a concurrent writer of the same version meets the unique
    (stream, version) index."""
    values, params = [], []
    for r in rows:
        values.append(_ROW_SQL)
        params += [
            r.stream,
            r.version,
            r.type,
            json.dumps(r.data),
            json.dumps(r.metadata),
            r.command_id,
            r.command_seq,
        ]
    sql = (
        f"INSERT INTO {_TABLE} (stream, version, type, data, metadata, command_id, command_seq, recorded_at) "
        "SELECT v.stream, v.version, v.type, v.data, v.metadata, v.command_id, v.command_seq, statement_timestamp() "
        f"FROM (VALUES {', '.join(values)}) "
        "AS v(stream, version, type, data, metadata, command_id, command_seq) "
        f"WHERE COALESCE((SELECT MAX(version) FROM {_TABLE} WHERE stream = %s), 0) = %s "
        "RETURNING id, recorded_at"
    )
    with connection.cursor() as cur:
        cur.execute(sql, params + [rows[0].stream, expected_version])
        returned = cur.fetchall()
    if len(returned) != len(rows):
        raise _Conflict
    for row, (pk, at) in zip(rows, returned, strict=True):
        row.id, row.recorded_at = pk, at
        row._state.adding = False
        row._state.db = "default"


def _fan_out(rows: list[StoredEvent]) -> None:
    for hook in list(_after_commit):
        try:
            hook(rows)
        except Exception:  # a broken subscriber must not undo a committed append
            log.exception("after-append hook %s failed", getattr(hook, "__name__", hook))


def read(stream: str, after: int = 0) -> list[StoredEvent]:
    return list(StoredEvent.objects.filter(stream=stream, version__gt=after).order_by("version"))


def read_upto(row: StoredEvent) -> list[StoredEvent]:
    """The stream of ``row`` up to and including it: what a projector folds
    so that a live update and a rebuild see the same history."""
    return list(
        StoredEvent.objects.filter(stream=row.stream, version__lte=row.version).order_by("version")
    )


def as_game_event(row: StoredEvent) -> Event:
    vis = row.visibility
    return Event(
        type=row.type,
        data=row.data,
        visible_to=tuple(vis["to"]) if vis.get("to") is not None else None,
        public=vis.get("public"),
    )


def redact(row: StoredEvent, viewer: Viewer) -> dict | None:
    """The event as ``viewer`` may see it, or None when hidden from them."""
    data = as_game_event(row).for_viewer(viewer)
    if data is None:
        return None
    return {
        "version": row.version,
        "type": row.type,
        "data": dict(data),
        "recorded_at": row.recorded_at.isoformat(),
        "actor": row.metadata.get("actor"),
    }


def read_for(viewer: Viewer, stream: str, after: int = 0) -> list[dict]:
    """Only what ``viewer`` may see: hidden events are left out, partly
    hidden ones carry their public version."""
    out = []
    for row in read(stream, after):
        shown = redact(row, viewer)
        if shown is not None:
            out.append(shown)
    return out


def all_events(batch: int = 2000):
    """Every event in global order, fetched in batches."""
    last = 0
    while True:
        rows = list(StoredEvent.objects.filter(id__gt=last).order_by("id")[:batch])
        if not rows:
            return
        yield from rows
        last = rows[-1].id
