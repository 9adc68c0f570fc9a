"""Stored log rows as the games see them. The event log knows no game: a
row (anything with ``type``, ``data``, ``visibility``, ``version``,
``recorded_at`` and ``metadata``) becomes a game ``Event`` here, and is
redacted for a viewer here. Pure: no Django."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .protocol import Event, Viewer


def as_game_event(row: Any) -> Event:
    vis = row.visibility
    to = vis.get("to")
    # a fold makes one per row: filled in directly, not through the frozen
    # class's field-by-field __init__ (the same value)
    event = object.__new__(Event)
    event.__dict__.update(
        type=row.type,
        data=row.data,
        visible_to=tuple(to) if to is not None else None,
        public=vis.get("public"),
    )
    return event


def redact(row: Any, viewer: Viewer) -> dict | None:
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


def redact_all(rows: Iterable[Any], viewer: Viewer) -> list[dict]:
    """Only what ``viewer`` may see: hidden events are left out, partly
    hidden ones carry their public version."""
    return [shown for shown in (redact(r, viewer) for r in rows) if shown is not None]
