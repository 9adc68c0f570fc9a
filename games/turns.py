"""Whose turn it was once a given version of a match was written: what a
reactor that comes to an append late (webhooks, reminders) tells, rather
than whose turn it is now."""

from __future__ import annotations

from games.core.registry import series_for

from . import services
from .models import Match


def pending_at(match: Match, version: int) -> list | None:
    """The decisions ``match`` waited on once ``version`` was written (seats,
    kinds and deadlines: public); None when it was not in play then (over,
    taken out by a ruling, or only its creation record)."""
    loaded = services.load(match)
    if loaded.version == version:
        if match.status != "live" or loaded.abandoned:
            return None
        state = loaded.state
    else:  # the match moved on since: as of this version
        before = services.rows_kept(match.stream)[:version]
        if any(services.is_platform(r) and r.type == "match_abandoned" for r in before):
            return None
        state = services.fold_kept(match.game, before)
    if state is None:
        return None
    return series_for(match.game).pending(state)
