"""Who may file a dispute about a match, and in which show: by account,
never by a seat's name alone.

A show takes disputes about its own matches and about the matches of the
brackets that name it as their host (the bracket's own record decides, no
other show's staff); its organizer and moderators may file one unless their
account holds a seat in that match or bracket, and so may the player who
holds, by account, both their entrant in the show and that seat in the match;
in a hosted bracket's match, whoever holds a seat of it by account files as
that seat (the bracket's players are no entrants of the host show)."""

from __future__ import annotations

from django.urls import reverse

from games import services as match_services
from games import visibility
from games.core.protocol import RuleError
from games.disputes import DisputePlace
from games.models import Match
from games.presenters.table import table_for

from . import shows
from .bracket_services import bracket_authority
from .models import ShowRecord
from .show_services import Acting, acting_for

STAFF = (shows.ORGANIZER, shows.MODERATOR)


def takes_disputes_about(record: ShowRecord, match: Match) -> bool:
    if match.show_stream == record.stream:
        return True
    return (
        match.show_stream.startswith("bracket-")
        and bracket_authority(match.show_stream)[0] == record.stream
    )


def holds_seat_in(match: Match, user_id: int | None) -> bool:
    """Whether the account holds a seat in ``match`` or in its bracket."""
    if user_id is None:
        return False
    if match.holders.filter(user_id=user_id).exists():
        return True
    return user_id in bracket_authority(match.show_stream)[1]


def filer(record: ShowRecord, user, match: Match) -> Acting | None:
    """The user as the show's organizer or moderator, or as the entrant whose
    seat they hold in ``match``; None if neither, or if the show takes no
    dispute about that match."""
    if not user.is_authenticated or not takes_disputes_about(record, match):
        return None
    acting = acting_for(record.stream, user)
    if acting.role in STAFF and not holds_seat_in(match, user.pk):
        return acting
    for seat in match.holders.filter(user_id=user.pk).values_list("seat", flat=True):
        acting = acting_for(record.stream, user, entrant=seat)
        if acting.role == shows.PLAYER and acting.actor == seat:
            return acting
        if match.show_stream != record.stream:  # a hosted bracket's match
            return Acting(seat, shows.PLAYER, user.pk)
    return None


AROUND = 2  # the moves shown before and after the one disputed


def move_in_context(match: Match, version: int | None, user) -> dict | None:
    """The disputed move in words with the moves around it, as ``user`` may
    see the match now (a player: their own seat's view; staff: as the policy
    lets them; hidden information holds): ``{"move": line or None, "lines":
    [...]}``; None when they may see none of it yet."""
    if not version:
        return None
    viewer = match_services.viewer_for(match, user)
    try:
        history = table_for(match, viewer).history
    except (RuleError, visibility.NotVisibleYet):
        return None
    lines = [x for x in history if abs(x.version - version) <= AROUND]
    return {"move": next((x for x in lines if x.version == version), None), "lines": lines}


class DisputePlaces:
    """games.disputes' provider: the shows where this viewer may file a
    dispute about this match (its own show; for a bracket's match, the show
    the bracket names as its host)."""

    def dispute_places(self, match: Match, user) -> list[DisputePlace]:
        if match.show_stream.startswith("bracket-"):
            host = bracket_authority(match.show_stream)[0]
            records = ShowRecord.objects.filter(stream=host) if host else []
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
