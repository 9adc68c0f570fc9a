"""A message as the pages and the sockets give it: plain values only (the
text is never HTML: the pages escape it, chat.js sets it as text), so a
message's links and markup are shown as the characters they are."""

from __future__ import annotations

from .models import ChatMessage


def as_json(message: ChatMessage, user=None) -> dict:
    uid = user.pk if user is not None and getattr(user, "is_authenticated", False) else None
    return {
        "id": message.id,
        "author": message.author,
        "author_id": message.author_id,
        "text": message.text,
        "at": message.at.isoformat(),
        "mine": uid == message.author_id,
    }
