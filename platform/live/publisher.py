"""After an append, tell each match's groups "the stream is at version v"
(the live reactor, reactors.follow: the reactors' processes, or the appending
process right after its commit in embedded mode).

The message carries no card and no view: each consumer renders its own
viewer's table (live.render), so a payload made for one viewer never
reaches another. It carries the version's recorded time and the match's
spectator delay, so a spectator consumer knows when to release it without
a query. One coroutine sends every group of every match of an append."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import threading
import weakref
from collections import Counter

from channels.layers import get_channel_layer
from django.conf import settings

from .chat import chat_sends
from .groups import groups_of

log = logging.getLogger(__name__)

# the event loop this process's sockets live on (the server's), once one connected
_sockets_loop: asyncio.AbstractEventLoop | None = None
# this process's own publishing loop, on a thread of its own, when no socket's runs:
# (pid, loop), so a forked child (a Celery prefork worker) starts its own
_own: tuple[int, asyncio.AbstractEventLoop] | None = None
_own_lock = threading.Lock()
# sends not yet done, kept so they are not collected mid-run (and for flush)
_in_flight: set = set()
# per loop, the sends in flight to each group, one after the other (a match's
# versions in order); the groups of different matches go on in parallel
_order: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
# with the layer away (Redis restarting), sends wait on it: beyond this many, drop
MAX_IN_FLIGHT = 1000


def serving_on(loop: asyncio.AbstractEventLoop) -> None:
    global _sockets_loop
    _sockets_loop = loop


class _InOrder:
    """Each group's sends one after the other, groups in parallel: a send
    waits only for those to its own group (one match's) started before it."""

    def __init__(self):
        self.locks: dict[str, asyncio.Lock] = {}
        self.users: Counter = Counter()

    async def send(self, layer, group: str, message: dict) -> None:
        lock = self.locks.setdefault(group, asyncio.Lock())
        self.users[group] += 1
        try:
            async with lock:
                await layer.group_send(group, message)
        finally:
            self.users[group] -= 1
            if not self.users[group]:
                del self.users[group], self.locks[group]


async def _send_all(layer, sends: list[tuple[str, dict]]) -> None:
    loop = asyncio.get_running_loop()
    order = _order.get(loop)
    if order is None:
        order = _order[loop] = _InOrder()
    results = await asyncio.gather(
        *(order.send(layer, group, message) for group, message in sends),
        return_exceptions=True,
    )
    for (group, message), result in zip(sends, results, strict=True):
        if isinstance(result, BaseException):  # a lost message costs nothing: clients catch up
            log.warning(
                "could not tell %s about version %s: %r", group, message.get("version"), result
            )


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _own_loop() -> asyncio.AbstractEventLoop:
    global _own
    with _own_lock:
        if _own is None or _own[0] != os.getpid() or _own[1].is_closed():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="live-publish", daemon=True).start()
            _own = (os.getpid(), loop)
        return _own[1]


def _keep(task) -> None:
    _in_flight.add(task)
    task.add_done_callback(_in_flight.discard)


def send(layer, sends: list[tuple[str, dict]]) -> None:
    """Every (group, message) in one coroutine, sent without waiting: the
    writer (a request, a clock, a bot) goes on at once. On the sockets' loop
    when one runs in this process (the in-memory layer wakes only a socket
    waiting on the loop it was sent from), else on this process's own
    publishing loop, where the layer's connections stay open between sends."""
    if not sends:
        return
    if len(_in_flight) >= MAX_IN_FLIGHT:
        log.warning("dropped %d version messages: %d sends in flight", len(sends), len(_in_flight))
        return
    loop = _sockets_loop
    if loop is None or not loop.is_running():
        loop = _own_loop()
    if _running_loop() is loop:  # on the loop's own thread: it cannot wait for itself
        _keep(loop.create_task(_send_all(layer, sends)))
    else:
        _keep(asyncio.run_coroutine_threadsafe(_send_all(layer, sends), loop))


def flush(timeout: float = 5.0) -> bool:
    """Wait until every send started from another thread is done (tests, and
    a process about to exit); True if none is left."""
    waiting = [f for f in list(_in_flight) if isinstance(f, concurrent.futures.Future)]
    done, left = concurrent.futures.wait(waiting, timeout=timeout)
    return not left


def announce_after_append(rows, matches=None) -> None:
    """The live reactor: tell each match's groups its new version.
    ``matches``: the batch's match rows, shared with the other reactors."""
    last: dict[str, object] = {}
    for r in rows:
        if r.stream.startswith("match-"):
            last[r.stream] = r  # rows come in version order: the stream's newest wins
    chatting = any(r.stream.startswith("chat-m") for r in rows)
    if not last and not chatting:
        return
    layer = get_channel_layer()
    if layer is None:
        return
    if chatting:
        _announce_chat(layer, rows)
    if not last:
        return
    from reactors.follow import MatchRows

    matches = matches or MatchRows(rows)
    sends: list[tuple[str, dict]] = []
    try:
        for match in matches.of(last):
            sends += _version_sends(match, last[match.stream])
        send(layer, sends)
    except Exception:  # a lost message costs nothing: clients catch up on reconnect
        log.exception("could not announce versions of %s", ", ".join(sorted(last)))


def announce_committed(match, rows) -> None:
    """The process that committed a move tells its match's groups at once
    (games.services.on_move_committed), so the next seat hears of it without
    waiting for the reactors' pass; the live reactor tells them again when it
    follows the log, and a socket skips a version it has shown. In embedded
    mode the append's inline pass is that reactor already."""
    if settings.REACTORS_INLINE:
        return
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        send(layer, _version_sends(match, rows[-1]))
    except Exception:  # the reactor's announcement follows
        log.exception("could not announce version %s of %s", rows[-1].version, match.stream)


def _version_sends(match, row) -> list[tuple[str, dict]]:
    from games.visibility import match_facts

    facts = match_facts(match)
    message = {
        "type": "table.update",
        "version": row.version,
        "at": row.recorded_at.timestamp(),
        "delay": facts.spectator_delay_s,
        "policy": facts.spectator_policy,
    }
    return [(group, message) for group in groups_of(match)]


def _announce_chat(layer, rows) -> None:
    """A match room's news to its match's groups (live.chat.chat_sends)."""
    try:
        send(layer, chat_sends(rows))
    except Exception:  # a lost message costs little: the next connect catches up
        log.exception("could not announce the chat of %s", sorted({r.stream for r in rows}))
