"""A show room forwarded by a show's webhooks (the kind "chat", e.g. to a
Discord channel): each message of the show room (never the staff room, nor
a match's rooms) becomes a delivery due at the show's spectator delay (even
for the organizer's live endpoint); one hidden by then is withdrawn, never
sent. Registered as a source of hooks.sources by chat.apps."""

from __future__ import annotations

import re

from eventlog.models import StoredEvent
from hooks.sources import Source
from tournaments.models import ShowRecord

from .live import shown
from .models import ChatMessage

KIND = "chat"
_SHOW_ROOM = re.compile(r"chat-s([1-9][0-9]{0,17})-show")
# what Discord reads as markdown (or a mention, a masked link): shown as typed
_MARKDOWN = re.compile(r"([\\*_~`|>#\[\]()<:@-])")


def discord_text(text: str) -> str:
    return _MARKDOWN.sub(r"\\\1", text)


def _pk(stream: str) -> int | None:
    found = _SHOW_ROOM.fullmatch(stream)
    return int(found.group(1)) if found else None


def shows_of(streams: set) -> set:
    pks = {pk for s in streams if (pk := _pk(s)) is not None}
    return set(ShowRecord.objects.filter(pk__in=pks).values_list("stream", flat=True))


def items(rows) -> list[tuple]:
    """(show stream, kind, version, body, recorded_at) of the show room's messages."""
    messages = [r for r in rows if r.type == "chat_message" and _pk(r.stream) is not None]
    if not messages:
        return []
    shows = dict(
        ShowRecord.objects.filter(pk__in={_pk(r.stream) for r in messages}).values_list(
            "pk", "stream"
        )
    )
    hidden = set(
        ChatMessage.objects.filter(id__in=[r.id for r in messages], hidden=True).values_list(
            "id", flat=True
        )
    )
    out = []
    for row in messages:
        show = shows.get(_pk(row.stream))
        if show is None or row.id in hidden:
            continue
        author, text = str(row.data.get("author", "")), str(row.data.get("text", ""))
        body = {
            "kind": KIND,
            "show": show,
            "stream": row.stream,
            "version": row.version,
            "message_id": row.id,
            "author": author,
            "message": text,
            "at": row.recorded_at.isoformat(),
            "text": f"{author}: {text}",
            "discord": f"**{discord_text(author)}**: {discord_text(text)}",
        }
        out.append((show, KIND, row.version, body, row.recorded_at))
    return out


def stands(kind: str, stream: str, version: int) -> bool:
    """A message still shown when its delivery is due (hidden since: withdrawn)."""
    if kind != KIND:
        return True
    found = StoredEvent.objects.filter(stream=stream, version=version).values_list("id", flat=True)
    return shown(found.first())


SOURCE = Source(prefix="chat-s", items=items, shows_of=shows_of, stands=stands, delayed=(KIND,))
