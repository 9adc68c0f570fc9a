"""Who may file a dispute about a match, and in which show: by account,
never by a seat's name alone.

A show takes disputes about its own matches and about bracket matches; its
organizer and moderators may file one, and so may the player who holds, by
account, both their entrant in the show and that seat in the match."""

from __future__ import annotations

from django.urls import reverse

from games.disputes import DisputePlace
from games.models import Match

from . import shows
from .models import ShowRecord
from .show_services import Acting, acting_for

STAFF = (shows.ORGANIZER, shows.MODERATOR)
BRACKET_SHOWS_MAX = 50  # the running shows a bracket match's dispute may go to


def takes_disputes_about(record: ShowRecord, match: Match) -> bool:
    return match.show_stream == record.stream or match.show_stream.startswith("bracket-")


def filer(record: ShowRecord, user, match: Match) -> Acting | None:
    """The user as the show's organizer or moderator, or as the entrant whose
    seat they hold in ``match``; None if neither, or if the show takes no
    dispute about that match."""
    if not user.is_authenticated or not takes_disputes_about(record, match):
        return None
    acting = acting_for(record.stream, user)
    if acting.role in STAFF:
        return acting
    for seat in match.holders.filter(user_id=user.pk).values_list("seat", flat=True):
        acting = acting_for(record.stream, user, entrant=seat)
        if acting.role == shows.PLAYER and acting.actor == seat:
            return acting
    return None


class DisputePlaces:
    """games.disputes' provider: the shows where this viewer may file a
    dispute about this match (its own show; for a bracket's match, the
    running shows that would take it from them)."""

    def dispute_places(self, match: Match, user) -> list[DisputePlace]:
        if match.show_stream.startswith("bracket-"):
            records = ShowRecord.objects.filter(status="running")[:BRACKET_SHOWS_MAX]
        elif match.show_stream:
            records = ShowRecord.objects.filter(stream=match.show_stream)
        else:
            return []
        return [
            DisputePlace(
                r.name, reverse("dashboard:file_dispute", args=[r.pk]) + f"?match={match.pk}"
            )
            for r in records
            if filer(r, user, match) is not None
        ]
