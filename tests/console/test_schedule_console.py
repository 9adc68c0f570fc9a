"""The console's scheduled shows and templates: a show scheduled in the
organizer's time zone, a template saved from the form and from a show, a
show made from a template, a weekly recurrence; refusals beside their field."""

import datetime as dt
import zoneinfo

import pytest
from django_celery_beat.models import PeriodicTask

from tournaments import show_services, shows
from tournaments.models import ShowRecord, ShowTemplate

FUTURE = dt.date.today() + dt.timedelta(days=3)


def show_fields(**extra):
    return {
        "name": "Friday night",
        "bots": 0,
        "bot_kind": "level:1",
        "game_pool": ["love-me-not", "higher-lower", "doubting-love-letter"],
        "game_pick": "organizer",
        "final_game": "doubting-love-letter",
        "candidates_per_round": 1,
        "candidate_rule": "last",
        "step_deadline_s": 600,
        "spectator_delay_s": 0,
        "spectator_policy": "public",
        "registration": "open",
        "cap": 8,
        "waiting_list": "on",
        "check_in_s": 900,
        "absentees": "waiting_list_then_bot",
        "replacement_bot": "level:1",
        "ready_check_s": 90,
        **extra,
    }


@pytest.mark.django_db
def test_schedule_a_show_in_the_organizers_time_zone(org_client):
    response = org_client.post(
        "/console/shows/scheduled/new/",
        show_fields(starts_at=f"{FUTURE}T20:30", time_zone="Europe/Paris"),
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    record = ShowRecord.objects.get(name="Friday night")
    want = dt.datetime.combine(FUTURE, dt.time(20, 30), tzinfo=zoneinfo.ZoneInfo("Europe/Paris"))
    assert record.starts_at == want and record.status == "scheduled"
    state = show_services.load(record.stream)[0]
    assert state.options["cap"] == 8 and state.options["ready_check_s"] == 90
    assert state.options["absentees"] == "waiting_list_then_bot"


@pytest.mark.django_db
def test_a_start_in_the_past_is_refused_beside_its_field(org_client):
    response = org_client.post(
        "/console/shows/scheduled/new/", show_fields(starts_at="2001-01-01T10:00", time_zone="UTC")
    )
    assert response.status_code == 400
    assert "starts_at must be a time in the future" in response.content.decode()
    assert not ShowRecord.objects.exists()


@pytest.mark.django_db
def test_templates_from_the_form_and_from_a_show_then_a_show_and_a_recurrence(
    org_client, organizer, alice
):
    fields = show_fields(moderators="alice", rounds="Opening\nClosing")
    response = org_client.post("/console/templates/", fields)
    assert response.status_code == 302, response.content.decode()[:2000]
    template = ShowTemplate.objects.get(organizer=organizer)
    assert template.rounds == ["Opening", "Closing"] and template.moderator_ids == [alice.pk]
    assert template.options["registration"] == "open"

    page = f"/console/templates/{template.pk}/"
    assert org_client.get(page).status_code == 200
    response = org_client.post(f"{page}show", {"starts_at": f"{FUTURE}T18:00", "time_zone": "UTC"})
    assert response.status_code == 302
    made = ShowRecord.objects.get(name__startswith=template.name)
    state = show_services.load(made.stream)[0]
    assert state.phase == shows.SCHEDULED and state.moderator_ids == {"alice": alice.pk}

    response = org_client.post(
        f"{page}recurrence",
        {"weekday": "4", "start_time": "20:00", "time_zone": "Europe/Paris", "announce_days": 3},
    )
    assert response.status_code == 302
    task = PeriodicTask.objects.get(name=f"show template {template.pk}")
    assert task.crontab.day_of_week == "2"  # Tuesday, three days before a Friday

    response = org_client.post(f"/console/shows/{made.pk}/template", {"name": "Again"})
    assert response.status_code == 302
    assert ShowTemplate.objects.filter(name="Again", organizer=organizer).exists()


@pytest.mark.django_db
def test_another_organizers_template_is_refused(org_client, client, alice):
    from django.contrib.auth.models import Permission

    alice.user_permissions.add(Permission.objects.get(codename="add_match"))
    theirs = ShowTemplate.objects.create(organizer=alice, name="Alice's")
    assert org_client.get(f"/console/templates/{theirs.pk}/").status_code == 403
    response = org_client.post(
        f"/console/templates/{theirs.pk}/show", {"starts_at": f"{FUTURE}T18:00", "time_zone": "UTC"}
    )
    assert response.status_code == 403 and not ShowRecord.objects.exists()
    client.force_login(alice)
    assert client.get("/console/templates/").status_code == 200


def _next_in(zone: str, odd) -> dt.datetime:
    """The next 02:30 (within a year) that is ``odd`` on the clocks of ``zone``."""
    tz = zoneinfo.ZoneInfo(zone)
    day = dt.date.today() + dt.timedelta(days=2)
    for _ in range(360):
        at = dt.datetime.combine(day, dt.time(2, 30))
        if odd(at, tz):
            return at
        day += dt.timedelta(days=1)
    raise AssertionError(f"no such 02:30 in {zone} this year")


def _gap_in(zone: str) -> dt.datetime:
    """A time the clocks of ``zone`` skip (the hour they go forward)."""

    def skipped(at, tz):
        shown = dt.datetime.fromtimestamp(at.replace(tzinfo=tz).timestamp(), tz)
        return shown.replace(tzinfo=None) != at

    return _next_in(zone, skipped)


def _twice_in(zone: str) -> dt.datetime:
    """A time the clocks of ``zone`` show twice (the hour they go back): the
    first showing is ahead of the second (in a skipped hour it is behind)."""

    def shown_twice(at, tz):
        return at.replace(tzinfo=tz).utcoffset() > at.replace(tzinfo=tz, fold=1).utcoffset()

    return _next_in(zone, shown_twice)


@pytest.fixture
def template(org_client, organizer):
    return ShowTemplate.objects.create(organizer=organizer, name="Cup", options={})


@pytest.mark.django_db
def test_a_template_show_past_the_year_9999_is_refused_not_a_server_error(org_client, template):
    """9999-12-31T23:59 in Etc/GMT+12 is in the year 10000 in UTC: once a 500."""
    response = org_client.post(
        f"/console/templates/{template.pk}/show",
        {"starts_at": "9999-12-31T23:59", "time_zone": "Etc/GMT+12"},
    )
    assert response.status_code == 400
    assert "within a year" in response.content.decode()
    assert not ShowRecord.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "starts_at",
    ["٢٠٢٧-٠١-١٥T20:30", f"{FUTURE}T20:30\x00", f"{FUTURE}T٢٠:٣٠", f"{FUTURE}T20:30:00+05:00"],
    ids=["other-digits", "trailing-nul", "time-in-other-digits", "offset"],  # not by the date
)
def test_a_start_in_other_digits_or_with_more_after_it_is_refused(org_client, template, starts_at):
    response = org_client.post(
        f"/console/templates/{template.pk}/show", {"starts_at": starts_at, "time_zone": "UTC"}
    )
    assert response.status_code == 400
    assert "Enter a valid date/time" in response.content.decode()
    response = org_client.post(
        "/console/shows/scheduled/new/", show_fields(starts_at=starts_at, time_zone="UTC")
    )
    assert response.status_code == 400
    assert not ShowRecord.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("zone", ["localtime", "posixrules", "Factory", "right/UTC", "posix/UTC"])
def test_a_zone_that_is_no_place_is_refused(org_client, template, zone):
    response = org_client.post(
        "/console/shows/scheduled/new/", show_fields(starts_at=f"{FUTURE}T20:30", time_zone=zone)
    )
    assert response.status_code == 400 and not ShowRecord.objects.exists()
    response = org_client.post(
        f"/console/templates/{template.pk}/recurrence",
        {"weekday": "4", "start_time": "20:30", "time_zone": zone, "announce_days": "2"},
    )
    assert response.status_code == 400
    template.refresh_from_db()
    assert template.weekday is None and template.time_zone == "UTC"
    response = org_client.post("/account/reminders/", {"time_zone": zone})
    assert response.status_code in (200, 400) and "time_zone" in response.context["form"].errors


@pytest.mark.django_db
def test_a_start_the_clocks_skip_is_refused_with_the_time_they_show(org_client, template):
    gap = _gap_in("Europe/Paris")
    typed = f"{gap:%Y-%m-%dT%H:%M}"
    response = org_client.post(
        "/console/shows/scheduled/new/", show_fields(starts_at=typed, time_zone="Europe/Paris")
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert f"{gap:%Y-%m-%d %H:%M} does not exist in Europe/Paris" in page
    assert "they show 03:30" in page
    response = org_client.post(
        f"/console/templates/{template.pk}/show",
        {"starts_at": typed, "time_zone": "Europe/Paris"},
    )
    assert response.status_code == 400 and "does not exist" in response.content.decode()
    assert not ShowRecord.objects.exists()


@pytest.mark.django_db
def test_a_start_the_clocks_show_twice_is_the_first(org_client):
    twice = _twice_in("Europe/Paris")
    response = org_client.post(
        "/console/shows/scheduled/new/",
        show_fields(starts_at=f"{twice:%Y-%m-%dT%H:%M}", time_zone="Europe/Paris"),
    )
    assert response.status_code == 302
    first = twice.replace(tzinfo=zoneinfo.ZoneInfo("Europe/Paris"), fold=0)
    # (timestamps: Python never finds a time shown twice equal to one in another zone)
    assert ShowRecord.objects.get().starts_at.timestamp() == first.timestamp()
    assert first.utcoffset() == dt.timedelta(hours=2)  # summer time, before the clocks go back


@pytest.mark.django_db
def test_a_show_name_on_two_lines_is_refused_beside_its_field(org_client):
    response = org_client.post(
        "/console/shows/scheduled/new/",
        show_fields(name="Friday\nnight", starts_at=f"{FUTURE}T20:30", time_zone="UTC"),
    )
    assert response.status_code == 400
    assert "name" in response.context["form"].errors
    response = org_client.post("/console/templates/", show_fields(name="Friday\u2028night"))
    assert response.status_code == 400 and "name" in response.context["form"].errors
    assert not ShowRecord.objects.exists() and not ShowTemplate.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/console/shows/new/", "/console/shows/scheduled/new/"])
@pytest.mark.parametrize("player", [str(2**70), "٣", "-1", "9" * 5000])
def test_a_player_id_past_any_integer_is_refused_beside_its_field(org_client, url, player):
    """players=2^70 was a 500 on SQLite (OverflowError before the query)."""
    response = org_client.post(
        url, show_fields(players=player, starts_at=f"{FUTURE}T20:30", time_zone="UTC")
    )
    assert response.status_code == 400
    assert "players" in response.context["form"].errors
    assert not ShowRecord.objects.exists()
