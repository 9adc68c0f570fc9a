"""The chat's rooms and who may do what in them, by account id.

Each match has a players' room (its seats; its moderators and staff may read
and write) and a spectators' room (anyone who may watch it); each show has a
show room (anyone who may see the show) and a staff room (its organizer and
moderators, and staff).

Site staff (``is_staff``) who are not the show's staff count as staff in
every room (they read, write and moderate it), but never in a room of a
match they play in (there they are a seat) nor in the show room and staff
room of a show where they hold an entrant (there they are a player, as the
show's own organizer and moderators are when they hold one). A room is named ``m<match id>-players``,
``m<id>-spectators``, ``s<show id>-show`` or ``s<id>-staff``; its messages
are the events of its own stream ``chat-<name>``.

Hidden information holds in chat: nothing of a spectators' room reaches a
seat of its match while it is live, and whoever sees a match (or a show)
behind the spectators' delay reads its rooms behind the same delay
(``Access.cut``), so no message tells them the future.

The show room holds it too: whoever sits in a live match of the show reads
there, from the moment that match began until it is over, only what the
show's staff (its organizer and moderators) and they themselves write
(``Access.staff_only_after``): under the "everything" policy a spectator
sees hands at the cut, and the show room must not carry them to a seat."""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.utils.translation import gettext_noop

from eventlog.models import StoredEvent
from games import visibility
from games.core.protocol import SEAT, RoleRequired, RuleError
from games.models import OVER, Match
from tournaments.models import ShowRecord

PLAYERS, SPECTATORS, SHOW, STAFF = "players", "spectators", "show", "staff"
MATCH_ROOMS, SHOW_ROOMS = (PLAYERS, SPECTATORS), (SHOW, STAFF)
_NAME = re.compile(r"(m|s)([1-9][0-9]{0,17})-(players|spectators|show|staff)")
PREFIX = "chat-"


class NoSuchRoom(RuleError):
    """A room name that names no room (or a room of nothing that exists)."""


@dataclass(frozen=True)
class Room:
    name: str  # e.g. m12-players
    kind: str  # players | spectators | show | staff
    match: Match | None = None
    show: ShowRecord | None = None

    @property
    def stream(self) -> str:
        return PREFIX + self.name

    @property
    def show_stream(self) -> str:
        if self.show is not None:
            return self.show.stream
        return self.match.show_stream if self.match is not None else ""


def match_room(match: Match, kind: str) -> Room:
    return Room(f"m{match.pk}-{kind}", kind, match=match)


def show_room(show: ShowRecord, kind: str) -> Room:
    return Room(f"s{show.pk}-{kind}", kind, show=show)


def room_named(name) -> Room:
    """The room ``name`` names, with its match or show read (NoSuchRoom else)."""
    found = _NAME.fullmatch(name) if isinstance(name, str) else None
    if found is None:
        raise NoSuchRoom(gettext_noop("there is no such chat room"))
    of, pk, kind = found.group(1), int(found.group(2)), found.group(3)
    if of == "m" and kind in MATCH_ROOMS:
        match = Match.objects.filter(pk=pk).first()
        if match is not None:
            return match_room(match, kind)
    if of == "s" and kind in SHOW_ROOMS:
        show = ShowRecord.objects.filter(pk=pk).first()
        if show is not None:
            return show_room(show, kind)
    raise NoSuchRoom(gettext_noop("there is no such chat room"))


def room_of_stream(stream: str) -> Room | None:
    try:
        return room_named(stream.removeprefix(PREFIX))
    except NoSuchRoom:
        return None


@dataclass(frozen=True)
class Access:
    """What a person may do in a room: read (as of ``cut``: None is live),
    write, moderate."""

    read: bool
    write: bool = False
    moderate: bool = False
    cut: float | None = None
    # the show room for a seat of a live match of the show: after this event
    # id (its match's start) only ``staff_ids``' messages (and their own)
    staff_only_after: int | None = None
    staff_ids: frozenset[int] = frozenset()


NONE = Access(False)


def _uid(user) -> int | None:
    return user.pk if user is not None and getattr(user, "is_authenticated", False) else None


def _show_staff(show: ShowRecord | None, uid: int) -> bool:
    """The organizer or a moderator of ``show`` who holds no entrant in it."""
    if show is None or uid in (show.seat_holder_ids or ()):
        return False
    return uid == show.organizer_id or uid in (show.moderator_ids or ())


def _show_of(match: Match) -> ShowRecord | None:
    if not match.show_stream:
        return None
    return ShowRecord.objects.filter(stream=match.show_stream).first()


def access(room: Room, user, *, now: float | None = None) -> Access:
    """What ``user`` may do in ``room`` now."""
    now = visibility.clock() if now is None else now
    if room.match is not None:
        return _match_access(room, user, now)
    return _show_access(room, user, now)


def _match_access(room: Room, user, now: float) -> Access:
    match, uid = room.match, _uid(user)
    seated = uid is not None and visibility.role_of(match, user).kind == SEAT
    if seated:
        if room.kind == PLAYERS:
            return Access(True, write=True)
        # the stands never reach a seat while its match is live (not even a count)
        return NONE if match.status == "live" else Access(True)
    if moderates(room, user):
        return Access(True, write=True, moderate=True)
    cut = now - visibility.match_facts(match).spectator_delay_s
    return Access(True, write=room.kind == SPECTATORS and uid is not None, cut=cut)


def moderates(room: Room, user) -> bool:
    """Whether ``user`` moderates ``room`` (reads, writes and moderates it):
    site staff, a show's organizer and moderators in every room of the show,
    a match's moderators in its rooms; never one who plays in it (a seat of
    the match, an entrant of the show). The one rule, for ``access`` and
    for the flood guard (chat.limits), so it reads cheaply: in a show room
    nothing past the show's row; in a match room its facts, and the seat of
    staff and of those the facts name alone."""
    uid = _uid(user)
    if uid is None:
        return False
    if room.match is None:
        return _site_staff(room.show, user, uid) or _show_staff(room.show, uid)
    named = user.is_staff or uid in visibility.match_facts(room.match).moderator_ids
    return named and visibility.seat_of(room.match, uid) is None


def _site_staff(show: ShowRecord | None, user, uid: int) -> bool:
    """Site staff (``is_staff``) count as staff in every room of a show,
    except a show where they hold an entrant: there they are a player (the
    show room's filter holds for them), as the show's own staff are."""
    return bool(user.is_staff) and uid not in ((show.seat_holder_ids or ()) if show else ())


def _show_access(room: Room, user, now: float) -> Access:
    show, uid = room.show, _uid(user)
    if moderates(room, user):
        return Access(True, write=True, moderate=True)
    if room.kind == STAFF:
        return NONE
    active = frozenset(show.seat_holder_ids or ())
    cut = visibility.show_cut(show.stream, user, live_for=active, now=now)
    after = playing_since(show, uid) if uid is not None else None
    if after is None:
        return Access(True, write=uid is not None, cut=cut)
    return Access(True, write=True, cut=cut, staff_only_after=after, staff_ids=show_staff_ids(show))


def show_staff_ids(show: ShowRecord) -> frozenset[int]:
    """The show's organizer and moderators (none of them holding an entrant)."""
    ids = {show.organizer_id, *(show.moderator_ids or ())} - {None}
    return frozenset(ids) - frozenset(show.seat_holder_ids or ())


def playing_since(show: ShowRecord, uid: int) -> int | None:
    """The event id at which the earliest live match of ``show`` that ``uid``
    sits in began (its first event), None when they sit in none."""
    streams = (
        Match.objects.filter(show_stream=show.stream, holders__user_id=uid)
        .exclude(status__in=OVER)
        .values_list("stream", flat=True)
    )
    first = StoredEvent.objects.filter(stream__in=list(streams), version=1)
    return first.order_by("id").values_list("id", flat=True).first()


def readable(room: Room, user, *, now: float | None = None) -> Access:
    """``access``, refused in words when ``user`` may not read the room."""
    found = access(room, user, now=now)
    if not found.read:
        if room.kind == SPECTATORS:
            raise RoleRequired(
                gettext_noop("a player does not read the spectators' room while the match is live")
            )
        raise RoleRequired(
            gettext_noop("only the organizer, the moderators and staff read the staff room")
        )
    return found


def _readable(rooms: list[Room], user) -> list[tuple[Room, Access]]:
    now = visibility.clock()
    found = [(room, access(room, user, now=now)) for room in rooms]
    return [(room, may) for room, may in found if may.read]


def rooms_of_match(match: Match, user) -> list[tuple[Room, Access]]:
    """The rooms of ``match`` that ``user`` may read, with their access."""
    return _readable([match_room(match, kind) for kind in MATCH_ROOMS], user)


def rooms_of_show(show: ShowRecord, user) -> list[tuple[Room, Access]]:
    return _readable([show_room(show, kind) for kind in SHOW_ROOMS], user)


def show_of_room(room: Room) -> ShowRecord | None:
    """The show a room belongs to (a match's: its show's), if any."""
    if room.show is not None:
        return room.show
    return _show_of(room.match) if room.match is not None else None
