"""The reported messages of a show's rooms (and its matches' rooms) for its
moderators' dashboard: each message still shown, who reported it and why,
the two messages before and after it as that moderator may read them, and
where to hide it (tournaments.dashboard.register_report_source, filled by
chat.apps, so tournaments never imports the chat)."""

from __future__ import annotations

from django.urls import reverse

from games.models import Match

from . import services
from .audit import room_words
from .models import ChatMessage, ChatReport
from .rooms import access, room_of_stream


def _message(m: ChatMessage) -> dict:
    return {"id": m.id, "author": m.author, "text": m.text, "at": m.at}


def _entry(message: ChatMessage, reports: list, user, matches: dict) -> dict | None:
    room = room_of_stream(message.stream)
    if room is None or not access(room, user).moderate:
        return None
    before, after = services.report_context(room, user, message.id)
    return {
        "room": room.name,
        "room_words": room_words(message.stream, matches),
        "message": _message(message),
        "reports": [{"reporter": r.reporter, "reason": r.reason, "at": r.at} for r in reports],
        "before": [_message(m) for m in before],
        "after": [_message(m) for m in after],
        "hide_url": reverse("chat:hide", args=[room.name]),
    }


def report_rows(record, user) -> list[dict]:
    """The open reports of ``record``'s show that ``user`` moderates, the
    most recently reported first (a hidden message's reports are done)."""
    matches = {m.pk: m for m in Match.objects.filter(show_stream=record.stream)}
    streams = [f"chat-s{record.pk}-show", f"chat-s{record.pk}-staff"]
    streams += [f"chat-m{pk}-{kind}" for pk in matches for kind in ("players", "spectators")]
    reports = ChatReport.objects.filter(stream__in=streams).order_by("-id")
    by_message: dict[int, list] = {}
    for r in reports:
        by_message.setdefault(r.message_id, []).append(r)
    shown = ChatMessage.objects.filter(id__in=list(by_message), hidden=False)
    messages = {m.id: m for m in shown}
    out = []
    for message_id, found in by_message.items():
        if message_id in messages:
            entry = _entry(messages[message_id], found[::-1], user, matches)
            if entry is not None:
                out.append(entry)
    return out
