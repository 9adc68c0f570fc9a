"""Who sees what of a match, and as of when: the one visibility policy.

Every page, endpoint, socket and export asks this module; nothing else
decides. For a viewer, a stream and a moment it answers which events and
which view they may have:

- a seated player: their own seat's view, live (the full replay at the end);
- the match's moderators (a show's organizer and appointed moderators; for a
  match outside any show, those named when it was created): the omniscient
  view, live; of a live show match only once they opened it (a POST that
  writes the opening on the show, ``record_opening``): until then, what a
  spectator gets. A read never writes;
- everyone else: the public view as of ``now - spectator_delay_s`` (under
  the show's policy "everything", what the seats know together: every hand
  and past move, never the deck, a deal's order or salt); the full replay
  once the end is older than the delay and the result is settled, and until
  then no deal's order or salt either.

A match knows nothing of its show: the show facts come from a provider that
the tournaments app registers at startup (``register_show_provider``).
``is_staff`` grants nothing here.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Protocol

from django.http import Http404

from games.core.deal import REVEAL
from games.core.protocol import (
    EVERY_SEAT_VIEW,
    MODERATOR,
    MODERATOR_VIEW,
    SEAT,
    SPECTATOR_VIEW,
    Viewer,
)

PUBLIC = "public"
EVERYTHING = "everything"


@dataclass(frozen=True)
class ShowFacts:
    """What the policy needs to know of a show (ids, never usernames)."""

    organizer_ids: frozenset[int]
    moderator_ids: frozenset[int]
    spectator_delay_s: float
    spectator_policy: str  # PUBLIC | EVERYTHING


class ShowProvider(Protocol):
    def show_facts(self, show_stream: str) -> ShowFacts | None: ...

    def result_settled(self, show_stream: str, match_stream: str) -> bool: ...

    def opened_omnisciently(self, show_stream: str, user_id: int, match_stream: str) -> bool: ...

    def record_omniscient_view(
        self,
        show_stream: str,
        user,
        match_stream: str,
        *,
        now: float | None = None,
        command_id: str | None = None,
    ) -> bool: ...


_provider: ShowProvider | None = None


def clock() -> float:
    """The moment a read is made, unless the caller gives one (tests set it)."""
    return time.time()


def register_show_provider(provider: ShowProvider | None) -> ShowProvider | None:
    """Install the show facts provider; returns the one it replaces."""
    global _provider
    previous, _provider = _provider, provider
    return previous


def show_facts(show_stream: str) -> ShowFacts | None:
    if not show_stream or _provider is None:
        return None
    return _provider.show_facts(show_stream)


class NotVisibleYet(Http404):
    """The match exists, but not yet for this viewer (it is behind the delay)."""

    @property
    def public_message(self) -> str:
        return str(self)


@dataclass(frozen=True)
class MatchFacts:
    show_stream: str
    moderator_ids: frozenset[int]
    spectator_delay_s: float
    spectator_policy: str


def match_facts(match) -> MatchFacts:
    """A show match takes its moderators, delay and policy from its show; any
    other match from its creation record (moderators, spectator_delay_s)."""
    if match.show_stream:
        facts = show_facts(match.show_stream)
        if facts is not None:
            return MatchFacts(
                match.show_stream,
                facts.organizer_ids | facts.moderator_ids,
                float(facts.spectator_delay_s),
                facts.spectator_policy,
            )
    # not a show's (a bracket's, or none): what its creation record says
    try:
        return _creation_facts(match.pk, match.stream, match.created_at)
    except LookupError:  # no creation record: nothing kept
        return MatchFacts("", frozenset(), 0.0, PUBLIC)


# The creation record never changes (the log is append-only): read once per
# process and match. The id and time are its first event's, so a match of a
# rolled-back test never matches another's; lru_cache is thread-safe.
@functools.lru_cache(maxsize=4096)
def _creation_facts(match_id: int, stream: str, created_at) -> MatchFacts:
    from eventlog.store import first

    created = first(stream)
    if created is None:
        raise LookupError(stream)  # raised, so not cached
    data = created.data
    return MatchFacts(
        "",
        frozenset(int(u) for u in data.get("moderators") or () if isinstance(u, int)),
        float(data.get("spectator_delay_s") or 0),
        data.get("spectator_policy") or PUBLIC,
    )


def _user_id(user) -> int | None:
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return user.pk


def role_of(match, user, facts: MatchFacts | None = None) -> Viewer:
    """The seat a user holds, else moderator if they moderate it, else
    spectator: their role, not yet what they see (``viewer_of``)."""
    uid = _user_id(user)
    if uid is None:
        return SPECTATOR_VIEW
    seat = seat_of(match, uid)
    if seat is not None:
        return Viewer.of_seat(seat)
    facts = facts or match_facts(match)
    return MODERATOR_VIEW if uid in facts.moderator_ids else SPECTATOR_VIEW


def viewer_of(match, user, facts: MatchFacts | None = None) -> Viewer:
    """Whose view a user gets: their role (``role_of``), except that a
    moderator sees a live show match as a spectator until their opening of it
    is recorded on the show (``record_opening``)."""
    role = role_of(match, user, facts)
    if role.kind == MODERATOR and not opened(match, user, facts):
        return SPECTATOR_VIEW
    return role


def needs_opening(match, facts: MatchFacts | None = None) -> bool:
    """Whether seeing every card of ``match`` takes a recorded opening: a
    live show match (a match outside any show, or over, does not)."""
    facts = facts or match_facts(match)
    return bool(facts.show_stream) and match.status == "live"


def opened(match, user, facts: MatchFacts | None = None) -> bool:
    """Whether ``user`` may see every card of ``match`` as far as openings go:
    no opening is needed, or theirs is in the show's log (it stays open until
    the match ends). Read from the show's fold: nothing is written."""
    facts = facts or match_facts(match)
    if not needs_opening(match, facts):
        return True
    uid = _user_id(user)
    return (
        uid is not None
        and _provider is not None
        and _provider.opened_omnisciently(facts.show_stream, uid, match.stream)
    )


def seat_of(match, uid: int) -> str | None:
    """The seat (the first by name) user ``uid`` holds in ``match``: as read
    with the match row when it was (``games.services.match_seen_by``), else
    looked up."""
    read = getattr(match, "seat_read_for", None)
    if read is not None and read[0] == uid:
        return read[1]
    holder = match.holders.filter(user_id=uid).order_by("seat").first()
    return holder.seat if holder is not None else None


def is_moderator(match, user) -> bool:
    """Named a moderator (of the show, or at the match's creation) and holding
    no seat in it: a seat holder never moderates their own match."""
    uid = _user_id(user)
    if uid is None or uid not in match_facts(match).moderator_ids:
        return False
    return seat_of(match, uid) is None


def recorded(row) -> float:
    return row.recorded_at.timestamp()


@dataclass(frozen=True)
class Window:
    """What a viewer may have of a match: the rows (recorded at or before
    ``cut``, every row when ``cut`` is None), whose view of their fold, and
    whether that is the full replay."""

    rows: list
    see_as: Viewer
    cut: float | None
    replay: bool


def live_sight(viewer: Viewer, finished_now: bool) -> Viewer | None:
    """Whose view a viewer who sees the match live (a moderator, a seat) gets
    of it now (``finished_now``: it is over, and not voided); None for anyone
    else, who sees it behind the delay (``window``)."""
    if viewer.kind == MODERATOR:
        return MODERATOR_VIEW
    if viewer.kind == SEAT:
        # players see the replay the moment the match ends
        return MODERATOR_VIEW if finished_now else viewer
    return None


def window(match, viewer: Viewer, rows: list, *, fold, now: float | None = None) -> Window:
    """The policy for one match. ``rows`` are the stream's stored rows,
    ``fold(rows)`` their series state; ``viewer`` comes from ``viewer_of``.
    Raises NotVisibleYet when nothing of the match is old enough yet."""
    finished_now = fold(rows).finished and match.status != "void"
    if (see_as := live_sight(viewer, finished_now)) is not None:
        return Window(rows, see_as, None, finished_now)
    facts = match_facts(match)
    now = clock() if now is None else now
    cut = now - facts.spectator_delay_s
    seen = [r for r in rows if recorded(r) <= cut]
    if not any(r.type != "match_created" for r in seen):
        start = next((recorded(r) for r in rows if r.type != "match_created"), cut)
        raise NotVisibleYet(
            f"spectators see this match {facts.spectator_delay_s:g} s late: "
            f"come back in {max(1, int(start - cut) + 1)} s"
        )
    ended = fold(seen).finished
    replay = (
        finished_now
        and ended
        and (not facts.show_stream or _settled(facts.show_stream, match.stream))
    )
    if replay:
        return Window(seen, MODERATOR_VIEW, cut, replay)
    if ended:
        # the full replay is closed (the result is not settled): so are the
        # deals' orders and salts, from which every hand could be read
        seen = [r for r in seen if r.type != REVEAL]
    # "everything" is what the seats know at the cut, never the moderators' view
    # (which holds the undealt deck, the order and the salt)
    everything = facts.spectator_policy == EVERYTHING
    return Window(seen, EVERY_SEAT_VIEW if everything else SPECTATOR_VIEW, cut, replay)


def _settled(show_stream: str, match_stream: str) -> bool:
    return _provider is not None and _provider.result_settled(show_stream, match_stream)


def record_opening(match, user, *, now: float | None = None, command_id: str | None = None) -> bool:
    """A moderator opens a live show match with every card shown: an event on
    the show (its service checks the role by account), at most one per
    moderator and match per period. True when written now; False when
    nothing needed writing (one is recorded lately, the match is outside any
    show or over, the command id was used for it before)."""
    facts = match_facts(match)
    if not needs_opening(match, facts) or _provider is None:
        return False
    return _provider.record_omniscient_view(
        facts.show_stream, user, match.stream, now=now, command_id=command_id
    )


# ---- shows --------------------------------------------------------------------
def show_cut(show_stream: str, user, *, live_for: frozenset[int] = frozenset(), now=None):
    """The moment up to which ``user`` sees a show: None (live) for its
    organizer and moderators and for the ids in ``live_for`` (its active
    entrants, who act in it); everyone else ``now - spectator_delay_s``."""
    facts = show_facts(show_stream)
    uid = _user_id(user)
    if facts is not None and uid is not None:
        if uid in facts.organizer_ids | facts.moderator_ids | live_for:
            return None
    delay = facts.spectator_delay_s if facts is not None else 300.0
    return (clock() if now is None else now) - delay


def version_at(stream: str, cut: float) -> int:
    """The stream's newest version recorded at or before ``cut``, by the
    database's clock (``recorded_at``, as matches are cut), never by the time
    a command says it is; the first append (a show's announcement) always."""
    from datetime import UTC, datetime

    from django.db.models import Max

    from eventlog.models import StoredEvent

    rows = StoredEvent.objects.filter(stream=stream)
    opened = rows.filter(version=1).values_list("recorded_at", flat=True).first()
    if opened is None:
        return 0
    limit = max(datetime.fromtimestamp(cut, tz=UTC), opened)
    return rows.filter(recorded_at__lte=limit).aggregate(v=Max("version"))["v"] or 0


def show_policy(show_stream: str) -> str:
    facts = show_facts(show_stream)
    return facts.spectator_policy if facts is not None else PUBLIC


def opens_at(match) -> float | None:
    """When spectators first see ``match``: its first event after the
    creation record, plus the delay (None while there is none yet)."""
    from eventlog.models import StoredEvent

    started = (
        StoredEvent.objects.filter(stream=match.stream)
        .exclude(type="match_created")
        .order_by("version")
        .values_list("recorded_at", flat=True)
        .first()
    )
    if started is None:
        return None
    return started.timestamp() + match_facts(match).spectator_delay_s
