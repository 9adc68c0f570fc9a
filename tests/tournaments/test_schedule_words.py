"""A scheduled show as people read it: how many registered of how many
seats, and who; "check-in is open" once it opened (no "opens at" for a time
past); its calendar reminds (VALARM); a player's feed keeps a show for
KEEP_ENDED after it ended; the scheduling form offers the browser's time
zone (marked for static/js/browser_zone.js only on a form shown new)."""

import datetime as dt
import time

import pytest
from django.contrib.auth.models import User
from django.utils import translation
from icalendar import Calendar

from clocks.enforce import sweep
from reminders import calendars
from reminders.models import ReminderSettings
from tournaments import show_services as ss
from tournaments.console.schedule_forms import RecurrenceForm, ScheduledShowForm
from tournaments.models import ShowRecord

pytestmark = pytest.mark.django_db


def _scheduled(now, cap=8):
    User.objects.get_or_create(username="olga")
    stream = ss.create_show(
        name="Friday night",
        organizer="olga",
        entrants=[],
        options={"registration": "open", "check_in_s": 600, "step_deadline_s": 0, "cap": cap},
        now=now,
        starts_at=now + 3600,
    )
    return ShowRecord.objects.get(stream=stream)


def _register(record, names, now):
    users = [User.objects.create_user(n, password="pw-123456") for n in names]
    for u in users:
        ss.register(record.stream, u, now=now)
    return users


def test_the_show_page_says_how_many_registered_and_who(client):
    now = time.time()
    record = _scheduled(now)
    _register(record, ["ana", "ben", "cal", "dee", "eve"], now + 1)
    with translation.override("en"):
        page = client.get(record.get_absolute_url()).content.decode()
    assert "5 of 8 registered: ana, ben, cal, dee, eve" in page
    client.cookies["django_language"] = "fr"
    page = client.get(record.get_absolute_url()).content.decode()
    assert "5 inscrits sur 8" in page and "of 8 registered" not in page


def test_check_in_is_said_open_once_it_opened_not_when_it_opens(client):
    now = time.time()
    record = _scheduled(now)
    _register(record, ["ana"], now + 1)
    page = client.get(record.get_absolute_url()).content.decode()
    assert "check-in opens" in page and "check-in is open" not in page
    ics = client.get(f"/shows/{record.pk}/calendar.ics").content.decode()
    assert "Check-in opens at" in ics
    sweep(now=now + 3600 - 600)  # the check-in opens, on its clock
    page = client.get(record.get_absolute_url()).content.decode()
    assert "check-in is open" in page and "check-in opens" not in page
    ics = client.get(f"/shows/{record.pk}/calendar.ics").content.decode()
    assert "Check-in is open" in ics and "Check-in opens at" not in ics


def test_the_shows_calendar_has_an_alarm_before_each_start(client):
    record = _scheduled(time.time())
    cal = Calendar.from_ical(client.get(f"/shows/{record.pk}/calendar.ics").content)
    events = [c for c in cal.walk("VEVENT")]
    assert len(events) == 2  # the show and its check-in
    for event in events:
        alarms = event.walk("VALARM")
        assert len(alarms) == 1 and alarms[0]["action"] == "DISPLAY"
        assert alarms[0].decoded("trigger") == -calendars.ALARM_BEFORE


def test_a_players_feed_keeps_a_show_for_a_while_after_it_ended():
    now = time.time()
    record = _scheduled(now)
    (ana,) = _register(record, ["ana"], now + 1)
    assert calendars.player_shows(ana) == [record]
    ShowRecord.objects.filter(pk=record.pk).update(status="finished")  # as its read model would
    ended = ss.load(record.stream)[0].log[-1].data["at"]
    kept = calendars.KEEP_ENDED.total_seconds()
    assert calendars.player_shows(ana, now=ended + kept - 60) == [record]
    assert calendars.player_shows(ana, now=ended + kept + 60) == []
    ShowRecord.objects.filter(pk=record.pk).update(status="cancelled")
    assert calendars.player_shows(ana, now=ended + 60) == []


def test_the_form_offers_the_browsers_zone_only_when_shown_new(client):
    new = ScheduledShowForm()
    assert new.fields["time_zone"].widget.attrs.get("data-browser-zone") == "1"
    assert new.fields["time_zone"].initial == "UTC"  # valid without JavaScript
    sent = ScheduledShowForm({"time_zone": "UTC"})
    assert "data-browser-zone" not in sent.fields["time_zone"].widget.attrs
    kept = RecurrenceForm(initial={"time_zone": "Europe/Paris"})
    assert "data-browser-zone" not in kept.fields["time_zone"].widget.attrs
    assert "data-browser-zone" not in ScheduledShowForm().fields["name"].widget.attrs
    html = str(new["time_zone"])
    assert 'data-browser-zone="1"' in html and 'value="UTC" selected' in html
    assert ReminderSettings.objects.count() == 0


def test_the_console_page_loads_the_zone_script(client):
    olga = User.objects.create_user("olga", password="pw-123456", is_staff=True)
    from django.contrib.auth.models import Permission

    olga.user_permissions.add(Permission.objects.get(codename="add_match"))
    client.force_login(olga)
    page = client.get("/console/shows/scheduled/new/").content.decode()
    assert "js/browser_zone.js" in page and 'data-browser-zone="1"' in page
    assert dt.timedelta(0) < calendars.ALARM_BEFORE


def test_the_french_registered_line_puts_a_non_breaking_space_before_its_colon(client):
    now = time.time()
    record = _scheduled(now)
    _register(record, ["ana", "ben"], now + 1)
    client.cookies["django_language"] = "fr"
    page = client.get(record.get_absolute_url()).content.decode()
    assert "2 inscrits sur 8\u00a0: ana, ben" in page
    empty = _scheduled(now, cap=None)
    page = client.get(empty.get_absolute_url()).content.decode()
    assert "0 inscrit" in page and "\u00a0: </p>" not in page
