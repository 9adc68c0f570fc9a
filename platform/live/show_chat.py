"""A show's chat over a socket: the show page's (ws/shows/<pk>/, ShowConsumer)
carries its show room (and its staff room for the show's staff), the
moderators' dashboard's (live.dashboard) its staff room and the news of a
reported message. The messages are those of the match socket (live.chat):
``{"chat": {"room", "text"}, "id"}`` in, ``chat_ack`` or ``refused`` back,
``{"chat": {"since": {...}}}`` on every connect, ``{"type": "chat", ...}``
pushed.

The group messages carry no text: the show room's news go to the group of
the show's sockets, the staff room's to the group its staff's sockets join
(only theirs, at connect), a report to the dashboards' group. Each socket
reads its own viewer's messages and asks again on every push whether they
may: one removed from the show's staff, or timed out of the staff room,
gets nothing more of it at once; a seat of a live match of the show reads in
the show room only the show's staff and themselves; a viewer behind the
delay gets each message once it is older than the delay."""

from __future__ import annotations

import asyncio
import logging
import re

from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.utils.translation import gettext_noop

from chat.live import receives
from chat.rooms import SHOW, SHOW_ROOMS, STAFF, Room, show_room
from tournaments.models import ShowRecord

from . import auth, commands, publisher
from .chat import ChatSocket
from .pool import off_loop

log = logging.getLogger(__name__)

_STREAM = re.compile(r"chat-s([0-9]+)-(show|staff)")
_MATCH_STREAM = re.compile(r"chat-m([0-9]+)-(players|spectators)")
NO_SUCH_SHOW = 4404
WHAT_TO_SEND = (
    'send {"chat": {"room": "<room>", "text": "..."}, "id": "<command id>"}, '
    'or {"chat": {"since": {"<room>": <the last message id you show>}}}'
)


def show_chat_group(show_pk: int) -> str:
    return f"show-{show_pk}.chat"


def staff_chat_group(show_pk: int) -> str:
    return f"show-{show_pk}.staff"


def _show_pks_of_matches(pks: set[int]) -> dict[int, int]:
    """match id -> its show's id, for the matches of a show among ``pks``."""
    from games.models import Match

    streams = dict(Match.objects.filter(pk__in=pks).values_list("pk", "show_stream"))
    shows = dict(
        ShowRecord.objects.filter(stream__in=set(streams.values())).values_list("stream", "pk")
    )
    return {pk: shows[s] for pk, s in streams.items() if s in shows}


def show_chat_sends(rows, dashboard_group) -> list[tuple[str, dict]]:
    """The group messages of the show rooms' rows of an append: the show
    room's news to its show's sockets, the staff room's to its staff's;
    and a report (in any room of a show, its matches' too) to the show's
    dashboards."""
    news: dict[str, list] = {}
    reported: set[int] = set()
    match_reports: set[int] = set()
    for row in rows:
        found = _STREAM.fullmatch(row.stream)
        if found:
            news.setdefault(row.stream, []).append(row)
            if row.type == "chat_message_reported":
                reported.add(int(found.group(1)))
        elif row.type == "chat_message_reported" and (m := _MATCH_STREAM.fullmatch(row.stream)):
            match_reports.add(int(m.group(1)))
    sends = []
    for stream, got in news.items():
        found = _STREAM.fullmatch(stream)
        pk, kind = int(found.group(1)), found.group(2)
        message = {
            "type": "chat.update",
            "room": stream.removeprefix("chat-"),
            "at": max(r.recorded_at.timestamp() for r in got),
            "hidden": [r.data["message_id"] for r in got if r.type == "chat_message_hidden"],
        }
        group = show_chat_group(pk) if kind == SHOW else staff_chat_group(pk)
        sends.append((group, message))
    if match_reports:
        reported |= set(_show_pks_of_matches(match_reports).values())
    sends += [(dashboard_group(pk), {"type": "chat.reported"}) for pk in sorted(reported)]
    return sends


class ShowChatSocket(ChatSocket):
    """What a show's sockets add for its chat rooms (``CHAT_KINDS``)."""

    CHAT_KINDS = SHOW_ROOMS
    CHAT_ELSEWHERE = gettext_noop("this socket carries the chat of its own show's rooms only")

    def _chat_room(self, name) -> Room | None:
        show = ShowRecord.objects.filter(pk=self.pk).first()  # read afresh: roles change
        for kind in self.CHAT_KINDS:
            if show is not None and name == f"s{self.pk}-{kind}":
                return show_room(show, kind)
        return None

    def _chat_groups(self) -> list[str] | None:
        """The groups this socket's viewer joins now (None: no such show):
        the show room's, and the staff room's for its staff."""
        show = ShowRecord.objects.filter(pk=self.pk).first()
        if show is None:
            return None
        user, why = auth.account_now(self.scope)
        groups = []
        if SHOW in self.CHAT_KINDS:
            groups.append(show_chat_group(self.pk))
        if STAFF in self.CHAT_KINDS and why is None:
            if receives(show_room(show, STAFF), user).read:
                groups.append(staff_chat_group(self.pk))
        return groups

    async def _chat_join(self) -> bool:
        """Join this viewer's groups; False when there is no such show."""
        groups = await off_loop(self._chat_groups)()
        if groups is None:
            return False
        publisher.serving_on(asyncio.get_running_loop())
        for group in groups:
            try:
                await self.channel_layer.group_add(group, self.channel_name)
            except Exception as exc:  # the layer away: the page's poll catches up
                log.warning("show socket %s could not join %s (%s)", self.pk, group, exc)
            self.groups.append(group)  # left on disconnect
        return True

    async def chat_update(self, event):
        await super().chat_update(event)
        name = event.get("room")
        if name == f"s{self.pk}-{STAFF}" and not await off_loop(self._still_staff)():
            try:  # nothing more of the staff room on this socket
                await self.channel_layer.group_discard(staff_chat_group(self.pk), self.channel_name)
            except Exception as exc:
                log.warning("show socket %s could not leave its staff group (%s)", self.pk, exc)

    async def receive(self, text_data=None, bytes_data=None):
        if await self.chat_or_parsed(text_data, bytes_data) is not None:
            await self.send_json({"error": WHAT_TO_SEND})

    def _still_staff(self) -> bool:
        room = self._chat_room(f"s{self.pk}-{STAFF}")
        user, why = auth.account_now(self.scope)
        return room is not None and why is None and receives(room, user).read


class ShowConsumer(ShowChatSocket, AsyncJsonWebsocketConsumer):
    """ws/shows/<pk>/: the show page's socket, for its chat rooms. Anyone who
    may see the show connects (the rooms' rights are asked on every push and
    every message); a show that does not exist is closed with 4404."""

    async def connect(self):
        self.pk = self.scope["url_route"]["kwargs"]["pk"]
        self.language = commands.language_of(self.scope)
        refused = self.scope.get("refused")
        # joined before the handshake ends: nothing announced after it is missed
        joined = not refused and await self._chat_join()
        await self.accept()  # then closed with the reason: a code before accept never arrives
        if refused:
            await self.send_json(commands.refused(None, "bad_token", refused))
            await self.close(code=4401, reason="not authenticated")
        elif not joined:
            await self.close(code=NO_SUCH_SHOW, reason="no such show")
