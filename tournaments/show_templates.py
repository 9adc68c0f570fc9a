"""Show templates, one service for the console and the API: save a show's
options, game pool, rounds and moderators as a template; create a show from
one; repeat it weekly (django-celery-beat's database scheduler creates each
show ``announce_days`` before its start, in the template's time zone)."""

from __future__ import annotations

import datetime as dt
import json
import time
import zoneinfo
from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django_celery_beat.models import CrontabSchedule, PeriodicTask

from eventlog.commands import BadCommandId
from eventlog.commands import once as once_per_id
from games.core.protocol import RoleRequired, RuleError

from . import show_services, shows, times
from .models import ShowTemplate, TemplateShow
from .shows.options import MAX_ENTRANTS


def once(scope: str, body: Any, write, **command) -> Any:
    """``eventlog.commands.once``, with a malformed command id refused in
    the rules' words like any other refusal."""
    try:
        return once_per_id(scope, body, write, **command)
    except BadCommandId as exc:
        raise RuleError(str(exc)) from None


TASK = "tournaments.create_from_template"
MAX_ANNOUNCE_DAYS = 6  # a weekly show is announced at most six days ahead


def zone(name: str) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, TypeError):
        raise RuleError("{name!r} is not a time zone (e.g. Europe/Paris, UTC)", name=name) from None


def _checked(options: Any, rounds: Any) -> tuple[dict, list[str]]:
    options = dict(options or {})
    shows.resolve_options(options)  # refused here, not when the first show is made
    if not isinstance(rounds, (list, tuple)) or not all(
        isinstance(t, str) and t.strip() for t in rounds
    ):
        raise RuleError("rounds must be a list of round titles")
    if len(rounds) > MAX_ENTRANTS:
        raise RuleError("a template has at most {max_entrants} rounds", max_entrants=MAX_ENTRANTS)
    return options, [t.strip() for t in rounds]


def _moderators(names: Any, organizer: User) -> list[int]:
    if not isinstance(names, (list, tuple)):
        raise RuleError("moderators must be a list of usernames")
    ids = []
    for name in names:
        uid = User.objects.filter(username=name).values_list("pk", flat=True).first()
        if uid is None:
            raise RuleError("no account is named {name}: only an account can moderate", name=name)
        if uid == organizer.pk:
            raise RuleError("the organizer is a moderator already")
        ids.append(uid)
    return list(dict.fromkeys(ids))


def create(
    organizer: User,
    *,
    name: str,
    options: Mapping[str, Any] | None = None,
    rounds: list[str] | None = None,
    moderators: list[str] | None = None,
    command_id: str | None = None,
    account: int | None = None,
) -> ShowTemplate:
    """A template of ``organizer``'s. A ``command_id`` sent again by the same
    account with the same content gives the first one (``eventlog.commands``)."""
    body = {"name": name, "options": options, "rounds": rounds, "moderators": moderators}
    made = once(
        "template",
        {"by": organizer.pk, **body},
        lambda: {"id": _create(organizer, **body).pk},
        command_id=command_id,
        account=account,
    )
    return ShowTemplate.objects.get(pk=made["id"])


def _create(organizer: User, *, name, options, rounds, moderators) -> ShowTemplate:
    if not isinstance(name, str) or not name.strip():
        raise RuleError("a template needs a name")
    if not shows.one_line(name):
        raise RuleError("a template needs a name on one line, without control characters")
    opts, titles = _checked(options, rounds or [])
    return ShowTemplate.objects.create(
        organizer=organizer,
        name=name.strip()[:200],
        options=opts,
        rounds=titles,
        moderator_ids=_moderators(moderators or [], organizer),
    )


def save_from_show(
    stream: str, user, name: str, *, command_id: str | None = None, account: int | None = None
) -> ShowTemplate:
    """The show's options, game pool, round titles and moderators as a template
    of its organizer's (a retried ``command_id``: the first one)."""
    acting = show_services.acting_for(stream, user)
    if acting.role != shows.ORGANIZER:
        raise RoleRequired("only the organizer of this show may save it as a template")

    def save() -> dict:
        state, _, _ = show_services.load(stream)
        names = [n for n, uid in state.moderator_ids.items() if uid is not None]
        moderators = User.objects.filter(username__in=names).values_list("username", flat=True)
        template = _create(
            user,
            name=name,
            options=state.options,
            rounds=[r.title for r in state.rounds],
            moderators=list(moderators),
        )
        return {"id": template.pk}

    made = once(
        "template-from-show",
        {"show": stream, "name": name},
        save,
        command_id=command_id,
        account=account,
    )
    return ShowTemplate.objects.get(pk=made["id"])


def mine(user, pk: int) -> ShowTemplate:
    """A template of ``user``'s (rights by account: anyone else's is not found)."""
    template = ShowTemplate.objects.filter(pk=pk, organizer=user).first()
    if template is None:
        raise RuleError("you have no template with that id")
    return template


def create_show(
    template: ShowTemplate,
    *,
    starts_at: float | None,
    now: float | None = None,
    command_id: str | None = None,
    account: int | None = None,
) -> str:
    """A show from ``template``, organized by its owner: scheduled at
    ``starts_at`` (None: it runs now, and then needs entrants; a template has
    none, so a template makes scheduled shows). A ``command_id`` sent again
    by the same account for the same show gives the first show's stream."""
    made = once(
        "show-from-template",
        {"template": template.pk, "starts_at": starts_at},
        lambda: {"stream": _create_show(template, starts_at=starts_at, now=now)},
        command_id=command_id,
        account=account,
    )
    return made["stream"]


def _create_show(template: ShowTemplate, *, starts_at: float | None, now: float | None) -> str:
    now = time.time() if now is None else now
    if starts_at is None:
        raise RuleError("a show from a template needs a start time: people register until then")
    shows.check_start(starts_at, now)  # before its name is made from it
    organizer = template.organizer
    when = dt.datetime.fromtimestamp(starts_at, tz=zone(template.time_zone))
    stream = show_services.create_show(
        name=f"{template.name} · {when:%Y-%m-%d %H:%M}",
        organizer=organizer.username,
        organizer_id=organizer.pk,
        entrants=[],
        options=template.options,
        rounds=template.rounds or None,
        now=now,
        starts_at=starts_at,
    )
    acting = show_services.Acting(organizer.username, shows.ORGANIZER)
    for name in User.objects.filter(pk__in=template.moderator_ids).values_list(
        "username", flat=True
    ):
        show_services.command(
            stream, {"type": "appoint_moderator", "username": name}, acting, now=now
        )
    return stream


# ---- weekly recurrence ------------------------------------------------------------
def set_recurrence(
    template: ShowTemplate,
    *,
    weekday: int | None,
    start_time: dt.time | None,
    time_zone: str = "UTC",
    announce_days: int = 2,
    command_id: str | None = None,
    account: int | None = None,
) -> ShowTemplate:
    """Repeat ``template`` every week on ``weekday`` (0 Monday) at
    ``start_time`` in ``time_zone``, each show created ``announce_days``
    before; ``weekday`` None stops it. A retried ``command_id`` changes
    nothing again."""
    weekly = {
        "weekday": weekday,
        "start_time": start_time,
        "time_zone": time_zone,
        "announce_days": announce_days,
    }

    def repeat() -> dict:
        _set_recurrence(template, **weekly)
        return {}

    once(
        "template-recurrence",
        {"template": template.pk, **weekly},
        repeat,
        command_id=command_id,
        account=account,
    )
    template.refresh_from_db()
    return template


def _set_recurrence(
    template: ShowTemplate, *, weekday, start_time, time_zone, announce_days
) -> ShowTemplate:
    if weekday is None:
        if template.periodic_task is not None:
            template.periodic_task.delete()
        template.weekday = template.start_time = template.periodic_task = None
        template.save()
        return template
    if not isinstance(weekday, int) or not 0 <= weekday <= 6:
        raise RuleError("weekday is 0 (Monday) to 6 (Sunday)")
    if not isinstance(start_time, dt.time):
        raise RuleError("a weekly show needs its start time (hours and minutes)")
    if not isinstance(announce_days, int) or not 1 <= announce_days <= MAX_ANNOUNCE_DAYS:
        raise RuleError(
            "announce_days is 1 to {max_announce_days}", max_announce_days=MAX_ANNOUNCE_DAYS
        )
    times.zone(time_zone)
    announce_day = (weekday - announce_days) % 7
    # cron counts days from Sunday (0); Python's weekday() from Monday (0)
    crontab, _ = CrontabSchedule.objects.get_or_create(
        minute=str(start_time.minute),
        hour=str(start_time.hour),
        day_of_week=str((announce_day + 1) % 7),
        day_of_month="*",
        month_of_year="*",
        timezone=time_zone,
    )
    with transaction.atomic():
        task = template.periodic_task
        if task is None:
            task = PeriodicTask(name=f"show template {template.pk}", task=TASK)
        task.crontab = crontab
        task.args = json.dumps([template.pk])
        task.enabled = True
        task.save()
        template.weekday, template.start_time = weekday, start_time.replace(second=0, microsecond=0)
        template.time_zone, template.announce_days = time_zone, announce_days
        template.periodic_task = task
        template.save()
    return template


def next_start(template: ShowTemplate, now: float) -> float:
    """The start of the show a recurrence creates at ``now``: the first
    ``weekday`` at ``start_time`` at least ``announce_days`` ahead, in the
    template's time zone (daylight saving time included)."""
    tz = zone(template.time_zone)
    day = dt.datetime.fromtimestamp(now, tz=tz).date() + dt.timedelta(days=template.announce_days)
    for _ in range(8):
        if day.weekday() == template.weekday:
            start = dt.datetime.combine(day, template.start_time, tzinfo=tz)
            if start.timestamp() > now:
                return start.timestamp()
        day += dt.timedelta(days=1)
    raise AssertionError("unreachable: a weekday comes within eight days")


def run_recurrence(template_id: int, now: float | None = None) -> str | None:
    """What the periodic task does: create the next show of a weekly template,
    once per start time (a second run for the same start creates nothing)."""
    now = time.time() if now is None else now
    template = ShowTemplate.objects.filter(pk=template_id).select_related("organizer").first()
    if template is None or template.weekday is None or template.start_time is None:
        return None
    starts_at = next_start(template, now)
    when = dt.datetime.fromtimestamp(starts_at, tz=dt.UTC)
    try:
        with transaction.atomic():
            made = TemplateShow.objects.create(template=template, starts_at=when, stream="")
            made.stream = create_show(template, starts_at=starts_at, now=now)
            made.save(update_fields=["stream"])
    except IntegrityError:
        return None  # made already for that start
    return made.stream
