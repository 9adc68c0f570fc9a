"""The chat over a match's socket (chat/ decides, this carries): a message
``{"chat": {"room", "text"}, "id": "<command id>"}`` posts in one of the
match's rooms and is answered ``{"type": "chat_ack", "id", "message"}`` or
refused in the API's words; ``{"chat": {"since": {"<room>": <last id>}}}``
(sent on every connect) brings what the page missed. Each room's news
arrives as ``{"type": "chat", "room", "messages": [...], "hidden": [ids]}``.

The group message (``chat.update``) carries no text: each socket reads its
own viewer's messages, and checks its access on every push. A spectators'
room is never announced to a seat's group, and a seat's socket reads
nothing of it while the match is live (``chat.rooms``); a viewer behind the
delay gets each message once it is older than the delay."""

from __future__ import annotations

import asyncio
import logging
import re

from django.utils import translation
from django.utils.translation import gettext_noop

from api.exceptions import handle
from chat import services as chat
from chat.live import receives
from chat.models import ChatMessage
from chat.present import as_json
from chat.rooms import MATCH_ROOMS, PLAYERS, Room, match_room
from games.core.protocol import RoleRequired
from games.models import Match

from . import auth, commands
from .groups import match_group, watchers_group
from .pool import off_loop as _off_loop

log = logging.getLogger(__name__)
_STREAM = re.compile(r"chat-m([0-9]+)-(players|spectators)")
_MARGIN_S = 0.05


def match_of_stream(stream: str) -> tuple[int, str] | None:
    """(match id, room kind) of a match room's stream, else None."""
    found = _STREAM.fullmatch(stream)
    return (int(found.group(1)), found.group(2)) if found else None


def chat_sends(rows) -> list[tuple[str, dict]]:
    """The group messages announcing the chat rows of an append: a players'
    room to its match's group (every socket of the match), a spectators'
    room to its watchers' group (moderators and spectators, never a seat)."""
    last: dict[str, object] = {}
    for row in rows:
        if match_of_stream(row.stream):
            last.setdefault(row.stream, [])
            last[row.stream].append(row)
    sends = []
    for stream, news in last.items():
        pk, kind = match_of_stream(stream)
        match = Match.objects.filter(pk=pk).first()
        if match is None:
            continue
        hidden = [r.data["message_id"] for r in news if r.type == "chat_message_hidden"]
        message = {
            "type": "chat.update",
            "room": stream.removeprefix("chat-"),
            "at": max(r.recorded_at.timestamp() for r in news),
            "hidden": hidden,
        }
        group = match_group(match.pk) if kind == PLAYERS else watchers_group(match.pk)
        sends.append((group, message))
    return sends


def _hidden_for(room: Room, user, hidden: list) -> list[int]:
    """Of the ids a group message says were hidden, those this viewer could
    have read (nothing more: not even a count of what they may not read)."""
    ids = [h for h in hidden if isinstance(h, int) and not isinstance(h, bool)]
    if not ids:
        return []
    return sorted(set(ids) & set(chat.hidden_since(room, user, min(ids) - 1)))


class ChatSocket:
    """What a match socket (live.consumers.MatchConsumer) adds for the chat
    (a show's sockets: live.show_chat.ShowChatSocket)."""

    CHAT_KINDS = MATCH_ROOMS
    CHAT_ELSEWHERE = gettext_noop("this socket carries the chat of its own match's rooms only")

    def _chat_room(self, name) -> Room | None:
        match = Match.objects.filter(pk=self.pk).first()
        for kind in MATCH_ROOMS:
            if match is not None and name == f"m{self.pk}-{kind}":
                return match_room(match, kind)
        return None

    async def chat_or_parsed(self, text_data, bytes_data):
        """A message read within bounds: a chat message is handled here (None
        back), an unreadable one answered (None back); else what it says."""
        try:
            content = commands.parse(text_data, bytes_data)
        except commands.Unreadable as exc:
            await self.send_json(exc.answer)
            return None
        if isinstance(content, dict) and "chat" in content:
            await self.chat_command(content)
            return None
        return content

    async def chat_command(self, content: dict):
        body = content.get("chat")
        if isinstance(body, dict) and "since" in body:
            await self._chat_catch_up(body["since"])
            return
        answer = await _off_loop(self._chat_post)(content)
        await self.send_json(answer)
        if answer.get("type") == "chat_ack":
            await self._chat_push(answer["room"])

    def _chat_post(self, content: dict) -> dict:
        ident = content.get("id")
        shown = ident if isinstance(ident, str) and len(ident) <= 64 else None
        with translation.override(self.language):
            try:
                user, why = auth.account_now(self.scope)
                if why is not None or not user.is_authenticated:
                    raise RoleRequired(gettext_noop("log in to write in the chat"))
                body = content.get("chat")
                name = body.get("room") if isinstance(body, dict) else None
                room = self._chat_room(name)
                if room is None:
                    raise RoleRequired(self.CHAT_ELSEWHERE)
                row = chat.post(room, user, body.get("text"), command_id=ident or None)
                message = as_json(ChatMessage.objects.get(pk=row.id), user)
                return {"type": "chat_ack", "id": shown, "room": name, "message": message}
            except Exception as exc:
                response = handle(exc, {})
                if response is None:
                    raise
                return {"type": "refused", "id": shown, **response.data}

    async def _chat_catch_up(self, since):
        if not isinstance(since, dict) or len(since) > len(self.CHAT_KINDS):
            return
        for name, last in since.items():
            if isinstance(last, int) and not isinstance(last, bool) and last >= 0:
                self.chat_seen = {**getattr(self, "chat_seen", {}), name: last}
                await self._chat_push(name)

    async def chat_update(self, event):
        """A room of this match moved: this viewer's news of it, if they read it."""
        name = event.get("room")
        if isinstance(name, str):
            await self._chat_push(name, hidden=event.get("hidden") or [], at=event.get("at"))

    async def _chat_push(self, name: str, hidden=(), at=None):
        try:
            news = await _off_loop(self._chat_news)(name, list(hidden), at)
        except Exception as exc:  # the database away: the next connect catches up
            log.warning("chat of match %s not pushed (%s)", self.pk, type(exc).__name__)
            return
        if news is None:
            return
        payload, wait = news
        if wait is not None:  # behind the delay: once it is due
            loop = asyncio.get_running_loop()
            loop.call_later(wait, lambda: asyncio.ensure_future(self._chat_push(name)))
        if payload["messages"] or payload["hidden"]:
            await self.send_json(payload)

    def _chat_news(self, name: str, hidden: list, at):
        """(payload, wait): the messages of room ``name`` this viewer has not
        had and may read now, the hidden ones, and how long until a message
        announced at ``at`` is theirs (None: nothing waits); None when they
        may not read the room (checked now, on every push)."""
        room = self._chat_room(name)
        user, why = auth.account_now(self.scope)
        if room is None or why is not None:
            return None
        may = receives(room, user)  # on every push: a role lost, a timeout count at once
        if not may.read:
            return None
        seen = getattr(self, "chat_seen", {}).get(name, 0)
        messages = chat.history(room, user, after=seen)
        if messages:
            self.chat_seen = {**getattr(self, "chat_seen", {}), name: messages[-1].id}
        wait = None
        if may.cut is not None and isinstance(at, int | float) and at > may.cut:
            wait = at - may.cut + _MARGIN_S
        payload = {
            "type": "chat",
            "room": name,
            "messages": [as_json(m, user) for m in messages],
            "hidden": _hidden_for(room, user, hidden),
        }
        return payload, wait
