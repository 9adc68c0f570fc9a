"""After commit, tell each match's groups "the stream is at version v".

The message carries no card and no view: each consumer renders its own
viewer's table (live.render), so a payload made for one viewer never
reaches another. Spectator consumers hold the news back until the
version's recorded time is older than the match's delay."""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from .groups import groups_of

log = logging.getLogger(__name__)


def announce_after_append(rows) -> None:
    last: dict[str, object] = {}
    for r in rows:
        if r.stream.startswith("match-"):
            last[r.stream] = r  # rows come in version order: the stream's newest wins
    if not last:
        return
    layer = get_channel_layer()
    if layer is None:
        return
    from games.models import Match

    for match in Match.objects.filter(stream__in=last):
        row = last[match.stream]
        message = {
            "type": "table.update",
            "version": row.version,
            "at": row.recorded_at.timestamp(),
        }
        for group in groups_of(match):
            try:
                async_to_sync(layer.group_send)(group, message)
            except Exception:  # a lost message costs nothing: clients catch up on reconnect
                log.exception("could not tell %s about version %s", group, row.version)
