"""Show templates: saved from a show, a show created from one, and a weekly
recurrence run by django-celery-beat's database scheduler (its own entries
decide what is due), under `make run` by the embedded thread."""

import datetime as dt
import json

import pytest
from django.contrib.auth.models import User
from django_celery_beat.models import PeriodicTask

from config import embedded_schedule
from games.core.protocol import RoleRequired, RuleError
from tournaments import show_services, shows
from tournaments import show_templates as st
from tournaments.models import ShowRecord, TemplateShow

T0 = 1_800_000_000.0  # a Friday, 2027-01-15 08:00 UTC


def people():
    return {n: User.objects.get_or_create(username=n)[0] for n in ("olga", "mia", "ana")}


@pytest.mark.django_db
def test_a_show_saved_as_a_template_makes_a_scheduled_show_with_its_options_and_moderators():
    u = people()
    stream = show_services.create_show(
        name="Night",
        organizer="olga",
        entrants=["a", "b", "c"],
        options={"game_pool": ["love-me-not", "higher-lower"], "ready_check_s": 90},
        rounds=["Opening", "Closing"],
        now=T0,
    )
    show_services.command(
        stream,
        {"type": "appoint_moderator", "username": "mia"},
        show_services.Acting("olga", shows.ORGANIZER),
        now=T0,
    )
    with pytest.raises(RoleRequired):
        st.save_from_show(stream, u["ana"], "Mine now")
    template = st.save_from_show(stream, u["olga"], "Night template")
    assert template.rounds == ["Opening", "Closing"]
    assert template.options["ready_check_s"] == 90 and template.moderator_ids == [u["mia"].pk]

    made = st.create_show(template, starts_at=T0 + 86400, now=T0)
    state = show_services.load(made)[0]
    assert state.phase == shows.SCHEDULED and state.starts_at == T0 + 86400
    assert state.options["game_pool"] == ["love-me-not", "higher-lower"]
    assert [r.title for r in state.rounds] == ["Opening", "Closing"]
    assert state.moderator_ids == {"mia": u["mia"].pk}
    assert state.organizer_id == u["olga"].pk
    with pytest.raises(RuleError, match="start time"):
        st.create_show(template, starts_at=None, now=T0)
    with pytest.raises(RuleError, match="you have no template"):
        st.mine(u["ana"], template.pk)  # another account's template is not found


@pytest.mark.django_db
def test_a_template_refuses_bad_options_and_unknown_moderators():
    u = people()
    with pytest.raises(RuleError, match="unknown show option"):
        st.create(u["olga"], name="x", options={"nope": 1})
    with pytest.raises(RuleError, match="ready_check_s"):
        st.create(u["olga"], name="x", options={"ready_check_s": 10**9})
    with pytest.raises(RuleError, match="no account is named ghost"):
        st.create(u["olga"], name="x", moderators=["ghost"])
    with pytest.raises(RuleError, match="time zone"):
        st.zone("Mars/Olympus")


@pytest.mark.django_db
def test_a_weekly_template_is_a_database_periodic_task_the_embedded_runner_fires_once():
    u = people()
    template = st.create(u["olga"], name="Sunday cup", options={"registration": "open"})
    st.set_recurrence(
        template,
        weekday=6,  # Sunday
        start_time=dt.time(20, 30),
        time_zone="Europe/Paris",
        announce_days=2,
    )
    task = PeriodicTask.objects.get(task=st.TASK)
    assert json.loads(task.args) == [template.pk]
    cron = task.crontab
    assert (cron.minute, cron.hour, cron.day_of_week) == ("30", "20", "5")  # Friday 20:30
    assert str(cron.timezone) == "Europe/Paris"

    # the next start from a Friday: that Sunday, 20:30 in Paris (19:30 UTC in winter)
    start = st.next_start(template, T0)
    assert dt.datetime.fromtimestamp(start, tz=dt.UTC) == dt.datetime(
        2027, 1, 17, 19, 30, tzinfo=dt.UTC
    )

    # django-celery-beat's entry says it is due once its last run is a week old
    task.last_run_at = dt.datetime.now(dt.UTC) - dt.timedelta(days=8)
    task.save()
    assert embedded_schedule.run_due() > 0
    made = TemplateShow.objects.get(template=template)
    record = ShowRecord.objects.get(stream=made.stream)
    assert record.status == "scheduled" and record.organizer_id == u["olga"].pk
    task.refresh_from_db()
    assert task.total_run_count == 1 and task.last_run_at > dt.datetime.now(dt.UTC) - dt.timedelta(
        minutes=1
    )
    embedded_schedule.run_due()  # not due again
    assert TemplateShow.objects.filter(template=template).count() == 1
    assert st.run_recurrence(template.pk) is None  # the same start twice: one show

    st.set_recurrence(template, weekday=None, start_time=None)
    assert not PeriodicTask.objects.filter(task=st.TASK).exists()
