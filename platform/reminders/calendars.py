"""iCalendar feeds (the ``icalendar`` library): a show's (public: its start
and check-in window) and a player's (every scheduled or running show they
are registered for, behind a secret link made from their settings' nonce)."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import unicodedata

from django.conf import settings
from django.http import HttpResponse
from icalendar import Alarm, Calendar, Event

from tournaments.shows.options import NOT_ON_ONE_LINE

SHOW_LENGTH = dt.timedelta(hours=2)  # a show's expected length, for calendars
MAX_SHOWS = 100
ALARM_BEFORE = dt.timedelta(minutes=15)  # a calendar reminds this long before a start
KEEP_ENDED = dt.timedelta(days=30)  # a player's feed keeps a show this long after it ended


def _at(ts: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(ts, tz=dt.UTC)


def _one_line(text: str) -> str:
    """The calendar's name is one content line, which icalendar does not
    escape; a show named before names were checked may hold a line break."""
    return "".join(" " if unicodedata.category(c) in NOT_ON_ONE_LINE else c for c in text)


def _calendar(name: str) -> Calendar:
    cal = Calendar()
    cal.add("prodid", "-//Showtable//shows//EN")
    cal.add("version", "2.0")
    cal.add("x-wr-calname", _one_line(name))
    return cal


def _alarm(what: str) -> Alarm:
    """A calendar's own reminder (VALARM), ALARM_BEFORE the event starts."""
    alarm = Alarm()
    alarm.add("action", "DISPLAY")
    alarm.add("description", _one_line(what))
    alarm.add("trigger", -ALARM_BEFORE)
    return alarm


def show_events(records, request, name: str | None = None) -> Calendar:
    """A calendar of these shows: each start, and each check-in window."""
    from tournaments import show_services, shows

    cal = _calendar(name or (records[0].name if records else "Showtable"))
    for record in records[:MAX_SHOWS]:
        state, _, _ = show_services.load(record.stream)
        if state.starts_at is None:
            continue
        url = request.build_absolute_uri(record.get_absolute_url())
        event = Event()
        event.add("uid", f"{record.stream}@showtable")
        event.add("summary", state.name)
        event.add("dtstart", _at(state.starts_at))
        event.add("dtend", _at(state.starts_at) + SHOW_LENGTH)
        event.add("dtstamp", _at(state.log[0].data.get("at", state.starts_at)))
        event.add("url", url)
        event.add("status", "CANCELLED" if state.phase == shows.CANCELLED else "CONFIRMED")
        if state.phase != shows.CANCELLED:
            event.add_component(_alarm(state.name))
        opens = shows.check_in_opens_at(state)
        if opens is not None:
            said = (
                "Check-in is open"
                if state.check_in_open
                else f"Check-in opens at {_at(opens):%Y-%m-%d %H:%M} UTC"
            )
            event.add("description", f"{said}: {url}")
            check_in = Event()
            check_in.add("uid", f"{record.stream}-check-in@showtable")
            check_in.add("summary", f"Check-in: {state.name}")
            check_in.add("dtstart", _at(opens))
            check_in.add("dtend", _at(state.starts_at))
            check_in.add("dtstamp", _at(state.log[0].data.get("at", opens)))
            check_in.add("url", url)
            check_in.add_component(_alarm(f"Check-in: {state.name}"))
            cal.add_component(check_in)
        else:
            event.add("description", url)
        cal.add_component(event)
    return cal


def calendar_response(cal: Calendar, filename: str) -> HttpResponse:
    response = HttpResponse(cal.to_ical(), content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    return response


# ---- a player's own feed -------------------------------------------------------------
def _digest(user_id: int, nonce: str) -> str:
    key = settings.SECRET_KEY.encode()
    return hmac.new(key, f"calendar:{user_id}:{nonce}".encode(), hashlib.sha256).hexdigest()[:40]


def token_for(prefs) -> str:
    """The secret in a player's calendar link (a new nonce makes a new one)."""
    return f"{prefs.user_id}-{_digest(prefs.user_id, prefs.calendar_nonce)}"


def user_for(token: str):
    """The account a calendar token belongs to, or None (forged, or revoked)."""
    from .models import ReminderSettings

    user_id, _, digest = token.partition("-")
    if not user_id.isascii() or not user_id.isdigit() or len(user_id) > 12:
        return None
    prefs = ReminderSettings.objects.filter(user_id=int(user_id)).select_related("user").first()
    if prefs is None or not hmac.compare_digest(
        digest, _digest(prefs.user_id, prefs.calendar_nonce)
    ):
        return None
    return prefs.user


def player_shows(user, now: float | None = None) -> list:
    """The scheduled and running shows ``user`` holds an entrant of (registered,
    waiting, invited, playing), and those that ended in the last KEEP_ENDED
    (a calendar keeps what happened), soonest first."""
    from django.db.models import Q
    from django.utils import timezone

    from tournaments import show_services, shows
    from tournaments.models import ShowRecord

    now_at = timezone.now() if now is None else _at(now)
    since = now_at - KEEP_ENDED
    out = []
    records = ShowRecord.objects.filter(starts_at__isnull=False).filter(
        Q(status__in=("scheduled", "running")) | Q(status="finished", starts_at__gte=since)
    )
    for record in records.order_by("starts_at")[:MAX_SHOWS]:
        state, _, _ = show_services.load(record.stream)
        if record.status == "finished" and _ended_at(state) < since:
            continue
        mine = [e for e, uid in state.held.items() if uid == user.pk]
        if any(state.status.get(e) not in (shows.WITHDRAWN, shows.DECLINED) for e in mine):
            out.append(record)
    return out


def _ended_at(state) -> dt.datetime:
    """When a finished show ended: its last event's time (its start, if none says)."""
    at = state.log[-1].data.get("at") if state.log else None
    return _at(at if isinstance(at, (int, float)) else state.starts_at)
