"""Read models: tables kept in step with the log inside each append, and
rebuildable from it. Each registers how to empty itself and how to apply
one event; ``rebuild_all`` replays the whole log through them."""

from __future__ import annotations

from collections.abc import Callable

from .models import StoredEvent
from .store import all_events, register_projector

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
