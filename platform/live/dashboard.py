"""The moderators' dashboard socket, ws/shows/<pk>/dashboard/: a show's
organizer and moderators (by account id, as the dashboard's pages decide)
are told at once when a dispute is filed, so their page can change its title,
sound if they allowed it and fetch its live part, rather than wait for its
2 s refresh. The message says only that a dispute came and how many are
open: no text of it, no card (the page fetches what its viewer may see).

The same socket carries the show's staff room (live.show_chat: messages in
and out, its rights asked again on every push) and says when a chat message
was reported (``{"type": "chat_reported"}``: the page fetches its reports)."""

from __future__ import annotations

import asyncio
import logging

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.layers import get_channel_layer

from chat.rooms import STAFF

from . import commands, publisher
from .show_chat import ShowChatSocket, show_chat_sends

log = logging.getLogger(__name__)

NOT_STAFF = 4403  # not the show's organizer nor one of its moderators (or no such show)


def dashboard_group(show_pk: int) -> str:
    return f"show-{show_pk}.dashboard"


class DashboardConsumer(ShowChatSocket, AsyncJsonWebsocketConsumer):
    """Joins its show's dashboard group when its account moderates the show;
    forwards ``{"type": "dispute_filed", "open": n}`` and
    ``{"type": "chat_reported"}``, and carries the staff room's chat."""

    CHAT_KINDS = (STAFF,)

    async def connect(self):
        self.pk = self.scope["url_route"]["kwargs"]["pk"]
        self.language = commands.language_of(self.scope)
        staff = await database_sync_to_async(self._is_staff)()
        if staff:  # joined before the handshake ends: nothing announced after it is missed
            await self._join()
        await self.accept()  # then closed with the reason: a code before accept never arrives
        if not staff:
            await self.close(code=NOT_STAFF, reason="not a moderator of this show")

    async def _join(self):
        publisher.serving_on(asyncio.get_running_loop())
        self.group = dashboard_group(self.pk)
        try:
            await self.channel_layer.group_add(self.group, self.channel_name)
        except Exception as exc:  # the layer away: the page's refresh still runs
            log.warning("dashboard socket of show %s could not join: %s", self.pk, exc)
        self.groups.append(self.group)
        await self._chat_join()  # the staff room's news (live.show_chat)

    def _is_staff(self) -> bool:
        from tournaments.models import ShowRecord
        from tournaments.selectors import is_show_moderator

        user = self.scope.get("user")
        record = ShowRecord.objects.filter(pk=self.pk).first()
        return bool(record and user is not None and is_show_moderator(record.stream, user))

    async def dispute_filed(self, event):
        # a moderator removed since: told nothing more, closed
        if not await database_sync_to_async(self._is_staff)():
            await self.close(code=NOT_STAFF)
            return
        await self.send_json({"type": "dispute_filed", "open": event.get("open", 0)})

    async def chat_reported(self, event):
        """A message of the show's rooms was reported: the page fetches its
        reports (as its moderator may read them); nothing of it here."""
        if not await database_sync_to_async(self._is_staff)():
            await self.close(code=NOT_STAFF)
            return
        await self.send_json({"type": "chat_reported"})


def announce_after_append(rows, matches=None) -> None:
    """The live reactor: the matches' versions and rooms (publisher), the
    shows' rooms and reports (live.show_chat), then the dashboards' disputes."""
    publisher.announce_after_append(rows, matches)
    if any(r.stream.startswith("chat-s") or r.type == "chat_message_reported" for r in rows):
        try:
            announce_show_chat(rows)
        except Exception:  # the pages catch up on their next connect (or poll)
            log.exception("could not announce the chat of a show")
    if any(r.type == "dispute_filed" for r in rows):
        try:
            announce_disputes([r for r in rows if r.stream.startswith("show-")])
        except Exception:  # the dashboards still refresh every 2 s
            log.exception("could not tell the dashboards of a dispute")


def announce_disputes(rows) -> None:
    """The dashboards reactor: tell a show's dashboards of each dispute filed
    in its stream (rows of ``show-`` streams, at least once: a message told
    twice only refreshes the page twice)."""
    filed = {r.stream for r in rows if r.type == "dispute_filed"}
    layer = get_channel_layer()
    if not filed or layer is None:
        return
    from tournaments import show_services
    from tournaments.models import ShowRecord

    sends = []
    for record in ShowRecord.objects.filter(stream__in=filed):
        state = show_services.load(record.stream)[0]
        still_open = sum(1 for d in state.disputes.values() if d.status == "open")
        message = {"type": "dispute.filed", "open": still_open, "version": state.version}
        sends.append((dashboard_group(record.pk), message))
    publisher.send(layer, sends)


def announce_show_chat(rows) -> None:
    """The show rooms' news to their sockets, a report to the dashboards."""
    layer = get_channel_layer()
    if layer is not None:
        publisher.send(layer, show_chat_sends(rows, dashboard_group))
