"""The chat's moderation in a show's audit (the dashboard), in words: each
hiding, timeout (of a room or of all the show's rooms), slow mode, closing
and opening of a room and change of the word list in the show's rooms and
its matches' rooms
(tournaments.dashboard.register_audit_source, filled by chat.apps)."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from eventlog.models import StoredEvent
from games.models import Match

from .models import ChatMessage

MODERATION = (
    "chat_message_hidden",
    "chat_timed_out",
    "chat_slow_mode",
    "chat_room_closed",
    "chat_room_opened",
    "chat_words_set",
)
# the kinds in words for the audit's filter (tournaments.words.audit_kind_words)
KIND_WORDS = (
    gettext_noop("chat message hidden"),
    gettext_noop("chat timed out"),
    gettext_noop("chat slow mode"),
    gettext_noop("chat room closed"),
    gettext_noop("chat room opened"),
    gettext_noop("chat words set"),
)
LENGTHS = {"5m": gettext_noop("5 min"), "1h": gettext_noop("1 h"), "show": gettext_noop("the show")}


def room_words(stream: str, matches: dict[int, Match]) -> str:
    kind = stream.rsplit("-", 1)[-1]
    if stream.startswith("chat-s"):
        return _("the show room") if kind == "show" else _("the staff room")
    match = matches.get(int(stream.removeprefix("chat-m").split("-")[0]))
    if kind == "players":
        return _("the players' room of %(match)s") % {"match": match}
    return _("the spectators' room of %(match)s") % {"match": match}


def _text(row, room: str) -> str:
    data = row.data
    if row.type == "chat_message_hidden":
        author = (
            ChatMessage.objects.filter(pk=data.get("message_id"))
            .values_list("author", flat=True)
            .first()
        )
        return _("%(by)s hid a message of %(author)s in %(room)s") % {
            "by": data.get("by"),
            "author": author or "?",
            "room": room,
        }
    if row.type == "chat_timed_out":
        from django.contrib.auth import get_user_model

        who = get_user_model().objects.filter(pk=data.get("user_id")).first()
        said = {
            "by": data.get("by"),
            "who": who.username if who else "?",
            "room": room,
            "length": _(LENGTHS.get(data.get("length"), "?")),
        }
        if data.get("scope") == "show":
            return (
                _("%(by)s timed %(who)s out of all the show's rooms (from %(room)s) for %(length)s")
                % said
            )
        return _("%(by)s timed %(who)s out of %(room)s for %(length)s") % said
    if row.type == "chat_room_closed":
        return _("%(by)s closed %(room)s") % {"by": data.get("by"), "room": room}
    if row.type == "chat_room_opened":
        return _("%(by)s opened %(room)s again") % {"by": data.get("by"), "room": room}
    if row.type == "chat_words_set":
        # the words themselves stay off the audit's page: the count only
        count = len(data.get("words") or ())
        return ngettext(
            "%(by)s set the chat's word list: %(n)s word",
            "%(by)s set the chat's word list: %(n)s words",
            count,
        ) % {"by": data.get("by"), "n": count}
    if not data.get("seconds"):
        return _("%(by)s turned slow mode off in %(room)s") % {"by": data.get("by"), "room": room}
    return _("%(by)s set slow mode in %(room)s: one message every %(s)s s") % {
        "by": data.get("by"),
        "room": room,
        "s": data.get("seconds"),
    }


def audit_rows(record) -> list[dict]:
    """The chat moderation of ``record``'s show, as the audit's rows."""
    matches = {m.pk: m for m in Match.objects.filter(show_stream=record.stream)}
    streams = [f"chat-s{record.pk}-show", f"chat-s{record.pk}-staff"]
    streams += [f"chat-m{pk}-{kind}" for pk in matches for kind in ("players", "spectators")]
    rows = StoredEvent.objects.filter(stream__in=streams, type__in=MODERATION).order_by("id")
    return [
        {
            "version": row.version,
            "kind": row.type,
            "actor": row.data.get("by"),
            "role": "moderator",
            "reason": row.data.get("reason", ""),
            "at": row.recorded_at.timestamp(),
            "text": _text(row, room_words(row.stream, matches)),
            "void": False,
        }
        for row in rows
    ]
