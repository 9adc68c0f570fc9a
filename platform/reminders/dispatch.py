"""From the log to reminders: a reactor (reactors.follow) turns the moments a
player asked to be told of into reminder rows, one per channel they chose
("Check-in is open", "Your match is ready", "Your turn"). A site reminder is
shown at once; e-mail and push are sent by a Celery task (under `make run`,
by a thread of the server: reminders.embedded). Idempotent: a row is unique
by player, channel and what it is about."""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.urls import reverse
from django.utils import timezone, translation

from .models import (
    CHECK_IN_OPEN,
    DEFAULT_CHANNELS,
    MATCH_READY,
    PUSH,
    SITE,
    YOUR_TURN,
    PushSubscription,
    Reminder,
    ReminderSettings,
)
from .words import text

log = logging.getLogger(__name__)

TURN_EVERY_S = 600  # at most one "your turn" per match and channel in this long
READY_EVENTS = ("death_match_opened", "final_opened")
LINK_EVENTS = ("death_match_linked", "final_linked")


def _show_items(rows) -> list[tuple[int, str, str, dict, str]]:
    """(user id, kind, key, params, url) of the show events players are told of."""
    from tournaments import show_services, shows
    from tournaments.models import ShowRecord

    out = []
    by_stream: dict[str, list] = {}
    for r in rows:
        if r.type in ("check_in_opened", *READY_EVENTS, *LINK_EVENTS):
            by_stream.setdefault(r.stream, []).append(r)
    for stream, found in by_stream.items():
        record = ShowRecord.objects.filter(stream=stream).first()
        if record is None:
            continue
        state, _, _ = show_services.load(stream)
        url = reverse("tournaments:show", args=[record.pk])
        for r in found:
            if r.type == "check_in_opened":
                for e in state.entrants:
                    if state.status.get(e) in (shows.ACTIVE, shows.WAITING) and e in state.held:
                        key = f"{stream}:check_in:{e}"
                        out.append((state.held[e], CHECK_IN_OPEN, key, {"show": state.name}, url))
                continue
            seats = r.data.get("seats") or r.data.get("players") or _linked_seats(state, r)
            ready_by = r.data.get("ready_by")
            if r.type in LINK_EVENTS and _had_ready_check(state, r):
                continue  # told when its ready-check began
            what = _match_words(r, seats)
            params = {"show": state.name, "match": what}
            if r.type in READY_EVENTS:
                if ready_by is None:
                    continue  # no ready-check: told when the match opens (linked)
                params["seconds"] = round(ready_by - r.data.get("at", ready_by))
            for w in seats:
                if w in state.held:
                    key = f"{stream}:{r.version}:ready:{w}"
                    out.append((state.held[w], MATCH_READY, key, params, url))
    return out


def _linked_seats(state, row) -> list[str]:
    if row.type == "final_linked":
        return list(state.final.players) if state.final else []
    rnd = next((x for x in state.rounds if x.id == row.data.get("round")), None)
    duel = rnd.duel(row.data.get("candidate")) if rnd else None
    return list(duel.seats) if duel else []


def _had_ready_check(state, row) -> bool:
    if row.type == "final_linked":
        return state.final is not None and state.final.ready_by is not None
    rnd = next((x for x in state.rounds if x.id == row.data.get("round")), None)
    duel = rnd.duel(row.data.get("candidate")) if rnd else None
    return duel is not None and duel.ready_by is not None


def _match_words(row, seats) -> str:
    if row.type.startswith("final"):
        return "the final " + " v ".join(seats)
    return "death match " + " v ".join(seats)


def _turn_items(rows, matches) -> list[tuple[int, str, str, dict, str]]:
    """Matches that wait on a seat a person holds, as of the append (the
    reactor may come to it late, or again). One per match, seat and window
    of TURN_EVERY_S of the log's time: the key is made of the append, never
    of the clock, so handling it again makes nothing new."""
    from games.models import SeatHolder
    from games.turns import pending_at

    last = {}
    for r in rows:
        if r.stream.startswith("match-"):
            last[r.stream] = r
    out = []
    for match in matches.of(last):
        holders = dict(
            SeatHolder.objects.filter(match=match, user__isnull=False).values_list(
                "seat", "user_id"
            )
        )
        if not holders:
            continue
        row = last[match.stream]
        decisions = pending_at(match, row.version) or []
        bucket = int(row.recorded_at.timestamp() // TURN_EVERY_S)
        url = reverse("games:match", args=[match.pk])
        for seat in sorted({d.seat for d in decisions} & set(holders)):
            key = f"{match.stream}:turn:{seat}:{bucket}"
            out.append((holders[seat], YOUR_TURN, key, {"match": str(match)}, url))
    return out


def _opens_ready_check(row) -> bool:
    """A match opened with a ready-check (games/ready_check.py)."""
    return row.type == "series_started" and bool((row.data or {}).get("ready"))


def _match_ready_items(rows, matches) -> list[tuple[int, str, str, dict, str]]:
    """The people a match opened with a ready-check waits for (a bracket's
    series between people, a one-off match): "Your match is ready", once."""
    from games.models import SeatHolder

    opened = {r.stream: r for r in rows if _opens_ready_check(r)}
    out = []
    for match in matches.of(opened):
        ready = opened[match.stream].data["ready"]
        seconds = round(ready["by"] - opened[match.stream].data.get("at", ready["by"]))
        url = reverse("games:match", args=[match.pk])
        held = SeatHolder.objects.filter(match=match, user__isnull=False, seat__in=ready["seats"])
        for seat, user_id in held.order_by("seat").values_list("seat", "user_id"):
            key = f"{match.stream}:ready:{seat}"
            params = {"match": str(match), "seconds": seconds, "waits": 1}
            out.append((user_id, MATCH_READY, key, params, url))
    return out


def remind_after_append(rows, matches=None) -> None:
    """The reminders reactor (reactors.follow): the rows of one append, at
    least once; a reminder is made once per key and channel (unique), so
    rows handled again remind no one twice."""
    from reactors.follow import MatchRows

    show_rows = [r for r in rows if r.stream.startswith("show-")]
    items = _show_items(show_rows) if show_rows else []
    matches = matches or MatchRows(rows)
    if any(_opens_ready_check(r) for r in rows):
        items += _match_ready_items(rows, matches)
    if any(r.stream.startswith("match-") for r in rows) and matches.once(
        "reminders.turns", _anyone_wants_turns
    ):
        items += _turn_items(rows, matches)
    if items:
        make(items)


def wanted(rows, matches) -> bool:
    """Whether one append's rows may remind anyone (the reminders reactor's
    ``needs``): a show's rows may; a match's only when some player chose
    "your turn" reminders, asked once per pass."""
    if any(r.stream.startswith("show-") or _opens_ready_check(r) for r in rows):
        return True
    return matches.once("reminders.turns", _anyone_wants_turns)


_WANTS_TURNS: dict[str, tuple[str, tuple]] = {}  # vendor -> the statement and its parameters


def _anyone_wants_turns() -> bool:
    """One cheap query before looking at a match's seats: "your turn" goes by
    e-mail or push only, to players who chose it. Asked on every pass of the
    reactors, so its statement is the ORM's, compiled once for the database
    (the ORM writes ``has_key`` for each vendor: no fork of ours)."""
    found = _WANTS_TURNS.get(connection.vendor)
    if found is None:
        query = ReminderSettings.objects.filter(channels__has_key=YOUR_TURN).values("pk")[:1]
        found = _WANTS_TURNS[connection.vendor] = query.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(*found)
        return cursor.fetchone() is not None


def make(items) -> list[Reminder]:
    """Reminder rows for ``items``, on the channels each player chose."""
    users = {i[0] for i in items}
    chosen = {s.user_id: s for s in ReminderSettings.objects.filter(user_id__in=users)}
    pushable = set(
        PushSubscription.objects.filter(user_id__in=users).values_list("user_id", flat=True)
    )
    made = []
    with translation.override("en"):  # the stored text; pages say it in their language
        for item in items:
            made += _rows(item, chosen, pushable)
    pending = [r.pk for r in made if r.status == Reminder.PENDING]
    if pending:  # after the commit: a worker that ran first would find no row
        transaction.on_commit(lambda: [enqueue(pk) for pk in pending])
    return made


def _rows(item, chosen, pushable) -> list[Reminder]:
    user_id, kind, key, params, url = item
    made = []
    if True:
        pref = chosen.get(user_id)
        channels = pref.wants(kind) if pref else list(DEFAULT_CHANNELS[kind])
        for channel in channels:
            if kind == YOUR_TURN and channel == SITE:
                continue  # the site says it already: the header's "Your turn"
            if channel == PUSH and user_id not in pushable:
                continue
            sent = channel == SITE
            try:
                with transaction.atomic():
                    made.append(
                        Reminder.objects.create(
                            user_id=user_id,
                            kind=kind,
                            channel=channel,
                            key=key[:200],
                            text=text(kind, params)[:300],
                            params=params,
                            url=url,
                            status=Reminder.SENT if sent else Reminder.PENDING,
                            sent_at=timezone.now() if sent else None,
                        )
                    )
            except IntegrityError:
                continue  # made already
    return made


def enqueue(reminder_id: int) -> None:
    if settings.CELERY_BROKER_URL.startswith("memory://"):
        from . import embedded

        embedded.wake()
        return
    from .tasks import deliver

    try:
        deliver.apply_async(args=[reminder_id])
    except Exception:  # never fail a move because a reminder could not be queued
        log.exception("could not queue reminder %s", reminder_id)
