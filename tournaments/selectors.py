"""Reads for the tournament side (read models only)."""

from .models import ShowRecord


def is_show_moderator(stream: str, user) -> bool:
    """The show's organizer and appointed moderators moderate its matches."""
    name = getattr(user, "username", None)
    if not name or not stream.startswith("show-"):
        return False
    show = ShowRecord.objects.filter(stream=stream).only("organizer", "moderators").first()
    return bool(show and (name == show.organizer or name in show.moderators))
