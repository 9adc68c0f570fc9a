"""What the live pushes ask of the chat (the sockets of live/, the show's
overlay, the webhooks): who receives a room's news now, and whether a
message may still be shown. Asked again on every push, so a change of role
or a timeout counts at once."""

from __future__ import annotations

from django.db.models import Q
from django.utils import timezone

from .models import ChatMessage, ChatTimeout
from .rooms import NONE, STAFF, Access, Room, access


def timed_out(room: Room, user, now=None) -> bool:
    """Whether ``user`` is timed out of ``room`` right now."""
    uid = user.pk if user is not None and getattr(user, "is_authenticated", False) else None
    if uid is None:
        return False
    now = timezone.now() if now is None else now
    held = ChatTimeout.objects.filter(stream=room.stream, user_id=uid)
    return held.filter(Q(until__isnull=True) | Q(until__gt=now)).exists()


def receives(room: Room, user) -> Access:
    """``access``, but a person timed out of the staff room stops receiving
    it at once (as one removed from the show's staff does: ``access`` reads
    the show's staff afresh)."""
    may = access(room, user)
    if may.read and room.kind == STAFF and timed_out(room, user):
        return NONE
    return may


def shown(message_id) -> bool:
    """Whether a message still stands (not hidden by a moderator)."""
    if isinstance(message_id, bool) or not isinstance(message_id, int):
        return False
    return ChatMessage.objects.filter(pk=message_id, hidden=False).exists()
