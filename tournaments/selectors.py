"""Reads for the tournament side (read models only)."""

from .models import ShowRecord


def is_show_moderator(stream: str, user) -> bool:
    """The show's organizer and appointed moderators moderate its matches
    (by account id: a new account reusing a name inherits nothing)."""
    uid = getattr(user, "pk", None)
    if uid is None or not getattr(user, "is_authenticated", False):
        return False
    if not stream.startswith("show-"):
        return False
    show = ShowRecord.objects.filter(stream=stream).only("organizer_id", "moderator_ids").first()
    return bool(show and (uid == show.organizer_id or uid in show.moderator_ids))
