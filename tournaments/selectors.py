"""Reads for the tournament side (read models only)."""

from games.models import Match
from games.visibility import ShowFacts  # the policy's own shape

from .models import DisputeRecord, ShowRecord

# dispute states that leave a match's result in question (shows/state.py)
_PENDING = ("open", "claimed", "awaiting_approval")


def show_facts(show_stream: str) -> ShowFacts | None:
    """The show's staff accounts and spectator rules; None for no such show."""
    row = (
        ShowRecord.objects.filter(stream=show_stream)
        .values_list(
            "organizer_id",
            "moderator_ids",
            "seat_holder_ids",
            "spectator_delay_s",
            "spectator_policy",
        )
        .first()
    )
    if row is None:
        return None
    organizer_id, moderator_ids, holder_ids, delay, policy = row
    players = frozenset(holder_ids)  # an account holding a seat never moderates the show
    return ShowFacts(
        frozenset([organizer_id] if organizer_id is not None else []) - players,
        frozenset(moderator_ids) - players,
        float(delay),
        policy,
    )


def result_settled(show_stream: str, match_stream: str) -> bool:
    """Whether the match's result stands: it is finished, no dispute on it
    is open, claimed or awaiting approval, and no ruling reopened it."""
    pending = DisputeRecord.objects.filter(
        show__stream=show_stream, target_stream=match_stream, status__in=_PENDING
    )
    if pending.exists():
        return False
    # a ruling that reopens the series puts the match back in play (live)
    return Match.objects.filter(stream=match_stream, status="finished").exists()


def disputed_matches(match_streams) -> set[str]:
    """Of ``match_streams``, those whose result a dispute still holds in
    question (result_settled's dispute test, for many matches at once)."""
    return set(
        DisputeRecord.objects.filter(
            target_stream__in=list(match_streams), status__in=_PENDING
        ).values_list("target_stream", flat=True)
    )


def is_show_moderator(stream: str, user) -> bool:
    """The show's organizer and appointed moderators moderate its matches
    (by account id: a new account reusing a name inherits nothing)."""
    uid = getattr(user, "pk", None)
    if uid is None or not getattr(user, "is_authenticated", False):
        return False
    if not stream.startswith("show-"):
        return False
    show = (
        ShowRecord.objects.filter(stream=stream)
        .only("organizer_id", "moderator_ids", "seat_holder_ids")
        .first()
    )
    if show is None or uid in show.seat_holder_ids:
        return False
    return uid == show.organizer_id or uid in show.moderator_ids


# how many of the newest shows the home's and the header's questions look at
RECENT_SHOWS = 200


def staffs_a_show(user) -> bool:
    """Whether ``user`` organizes or moderates some show (by account id, as
    is_show_moderator decides): the header's Moderate link is theirs alone."""
    uid = getattr(user, "pk", None)
    if uid is None or not getattr(user, "is_authenticated", False):
        return False
    rows = ShowRecord.objects.values_list("organizer_id", "moderator_ids", "seat_holder_ids")
    return any(
        uid not in holders and (uid == org or uid in (mods or []))
        for org, mods, holders in rows[:RECENT_SHOWS]
    )


def shows_held_by(user_id: int) -> list[ShowRecord]:
    """The shows in which ``user_id`` holds (or registered) an entrant, newest first."""
    rows = ShowRecord.objects.all()[:RECENT_SHOWS]
    return [r for r in rows if user_id in (r.seat_holder_ids or [])]
