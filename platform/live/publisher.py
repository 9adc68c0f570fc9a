"""After commit, tell each match's groups "the stream is at version v".

The message carries no card and no view: each consumer renders its own
viewer's table (live.render), so a payload made for one viewer never
reaches another. It carries the version's recorded time and the match's
spectator delay, so a spectator consumer knows when to release it without
a query. One coroutine sends every group of every match of an append."""

from __future__ import annotations

import asyncio
import logging
import threading

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from .groups import groups_of

log = logging.getLogger(__name__)

# the event loop this process's sockets live on (the server's), once one connected
_sockets_loop: asyncio.AbstractEventLoop | None = None
# sends started on the sockets' own loop, kept so they are not collected mid-run
_on_loop: set[asyncio.Task] = set()
_WAIT_S = 5.0


def serving_on(loop: asyncio.AbstractEventLoop) -> None:
    global _sockets_loop
    _sockets_loop = loop


async def _send_all(layer, sends: list[tuple[str, dict]]) -> None:
    results = await asyncio.gather(
        *(layer.group_send(group, message) for group, message in sends),
        return_exceptions=True,
    )
    for (group, message), result in zip(sends, results, strict=True):
        if isinstance(result, BaseException):  # a lost message costs nothing: clients catch up
            log.warning("could not tell %s about version %s: %r", group, message["version"], result)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def send(layer, sends: list[tuple[str, dict]]) -> None:
    """Every (group, message) in one coroutine. On the sockets' loop when one
    runs: a write from a thread of its own (the embedded clock, a bot) would
    otherwise queue the message from another loop, and the in-memory layer
    would not wake the socket that waits."""
    if not sends:
        return
    loop, here = _sockets_loop, _running_loop()
    if loop is not None and loop.is_running():
        if here is loop:  # on the sockets' own thread: it cannot wait for itself
            task = loop.create_task(_send_all(layer, sends))
            _on_loop.add(task)
            task.add_done_callback(_on_loop.discard)
            return
        asyncio.run_coroutine_threadsafe(_send_all(layer, sends), loop).result(timeout=_WAIT_S)
        return
    if here is not None:
        # another loop runs in this thread (a browser test's driver):
        # AsyncToSync refuses to run here, so send from a short-lived thread
        thread = threading.Thread(
            target=asyncio.run, args=(_send_all(layer, sends),), name="live-publish"
        )
        thread.start()
        thread.join(timeout=_WAIT_S)
        return
    async_to_sync(_send_all)(layer, sends)


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
    from games.visibility import match_facts

    sends: list[tuple[str, dict]] = []
    try:
        for match in Match.objects.filter(stream__in=last):
            row = last[match.stream]
            facts = match_facts(match)
            message = {
                "type": "table.update",
                "version": row.version,
                "at": row.recorded_at.timestamp(),
                "delay": facts.spectator_delay_s,
                "policy": facts.spectator_policy,
            }
            sends += [(group, message) for group in groups_of(match)]
        send(layer, sends)
    except Exception:  # a lost message costs nothing: clients catch up on reconnect
        log.exception("could not announce versions of %s", ", ".join(sorted(last)))
