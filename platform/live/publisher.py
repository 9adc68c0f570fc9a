"""After commit, tell each match's groups "the stream is at version v".

The message carries no card and no view: each consumer renders its own
viewer's table (live.render), so a payload made for one viewer never
reaches another. Spectator consumers hold the news back until the
version's recorded time is older than the match's delay."""

from __future__ import annotations

import asyncio
import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from .groups import groups_of

log = logging.getLogger(__name__)

# the event loop this process's sockets live on (the server's), once one connected
_sockets_loop: asyncio.AbstractEventLoop | None = None


def serving_on(loop: asyncio.AbstractEventLoop) -> None:
    global _sockets_loop
    _sockets_loop = loop


def _send(layer, group: str, message: dict) -> None:
    """group_send on the sockets' loop: a write from a thread of its own (the
    embedded clock, a bot) would otherwise queue the message from another
    loop, and the in-memory layer would not wake the socket that waits."""
    loop = _sockets_loop
    if loop is not None and loop.is_running():
        try:
            here = asyncio.get_running_loop()
        except RuntimeError:
            here = None
        if here is not loop:
            sent = asyncio.run_coroutine_threadsafe(layer.group_send(group, message), loop)
            sent.result(timeout=5)
            return
    async_to_sync(layer.group_send)(group, message)


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
                _send(layer, group, message)
            except Exception:  # a lost message costs nothing: clients catch up on reconnect
                log.exception("could not tell %s about version %s", group, row.version)
