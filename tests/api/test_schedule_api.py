"""The API of scheduled shows and templates: a scheduled show created with
its start, registration, the player's commands (check_in, ready, withdraw),
templates and their recurrence; refusals are 4xx with words, nothing written."""

import datetime as dt
import json

import jsonschema
import pytest
import yaml
from django.contrib.auth.models import Permission, User

from clocks.enforce import sweep
from tournaments import show_services as ss
from tournaments.models import ShowRecord, ShowTemplate

IN_A_DAY = (dt.datetime.now(dt.UTC) + dt.timedelta(days=1)).replace(microsecond=0)


@pytest.fixture
def olga(db):
    user = User.objects.create_user("olga")
    user.user_permissions.add(Permission.objects.get(codename="add_showrecord"))
    return user


def create(client, post, **extra):
    body = {
        "name": "Friday night",
        "entrants": [],
        "starts_at": IN_A_DAY.isoformat(),
        "options": {"registration": "open", "cap": 2, "check_in_s": 600},
        **extra,
    }
    return post(client, "/api/shows/", body)


@pytest.mark.django_db
def test_a_scheduled_show_by_the_api_register_check_in_withdraw(olga, ana, other, as_user, post):
    response = create(as_user(olga), post)
    assert response.status_code == 201, response.json()
    assert response.json()["status"] == "scheduled"
    pk = response.json()["id"]
    assert post(as_user(None), f"/api/shows/{pk}/register", {}).status_code in (401, 403)
    response = post(as_user(ana), f"/api/shows/{pk}/register", {})
    assert response.status_code == 201
    again = post(as_user(ana), f"/api/shows/{pk}/register", {})
    assert again.status_code == 422 and "registered already" in again.json()["message"]
    assert post(as_user(olga), f"/api/shows/{pk}/register", {}).status_code == 422
    assert post(as_user(ana), "/api/shows/999999/register", {}).status_code == 404

    cmd = lambda who, t: post(as_user(who), f"/api/shows/{pk}/commands", {"command": {"type": t}})  # noqa: E731
    refused = cmd(ana, "check_in")
    assert refused.status_code == 422 and "not open" in refused.json()["message"]
    assert cmd(other, "withdraw").status_code == 403  # olaf holds no entrant: a spectator
    record = ShowRecord.objects.get(pk=pk)
    sweep(now=record.starts_at.timestamp() - 600)
    assert cmd(ana, "check_in").status_code == 201
    assert cmd(ana, "withdraw").status_code == 201
    assert ss.load(record.stream)[0].status["ana_user"] == "withdrawn"


@pytest.mark.django_db
def test_bad_start_times_are_400s(olga, as_user, post):
    for bad in ("tomorrow", "2027-01-15T20:30:00", "9" * 100, 1e308):
        response = create(as_user(olga), post, starts_at=bad)
        assert response.status_code == 400, bad
    past = create(as_user(olga), post, starts_at="2001-01-01T00:00:00Z")
    assert past.status_code == 422 and "future" in past.json()["message"]
    assert not ShowRecord.objects.exists()


@pytest.mark.django_db
def test_templates_by_the_api(olga, other, as_user, post):
    client = as_user(olga)
    response = post(
        client,
        "/api/templates/",
        {"name": "Cup", "options": {"registration": "open", "ready_check_s": 60}, "rounds": ["R"]},
    )
    assert response.status_code == 201, response.json()
    tid = response.json()["id"]
    assert post(as_user(other), "/api/templates/", {"name": "x"}).status_code == 403
    bad = post(client, "/api/templates/", {"name": "x", "options": {"cap": 1}})
    assert bad.status_code == 422 and "cap" in bad.json()["message"]
    # another account's template is not found
    assert as_user(other).get(f"/api/templates/{tid}/").status_code == 404
    response = post(client, f"/api/templates/{tid}/shows", {"starts_at": IN_A_DAY.isoformat()})
    assert response.status_code == 201 and response.json()["status"] == "scheduled"
    recurrence = client.put(
        f"/api/templates/{tid}/recurrence",
        {"weekday": 4, "start_time": "20:30", "time_zone": "Europe/Paris", "announce_days": 2},
        content_type="application/json",
    )
    assert recurrence.status_code == 200 and recurrence.json()["weekday"] == 4
    wrong = client.put(
        f"/api/templates/{tid}/recurrence",
        {"weekday": 4, "start_time": "20:30", "time_zone": "Mars/Base"},
        content_type="application/json",
    )
    assert wrong.status_code == 422 and "time zone" in wrong.json()["message"]
    assert ShowTemplate.objects.get(pk=tid).time_zone == "Europe/Paris"
    show = ShowRecord.objects.get(status="scheduled")
    saved = post(client, f"/api/shows/{show.pk}/template", {"name": "Again"})
    assert saved.status_code == 201
    assert post(as_user(other), f"/api/shows/{show.pk}/template", {"name": "x"}).status_code == 403


@pytest.mark.django_db
@pytest.mark.parametrize(
    "starts_at",
    [
        "٢٠٢٧-٠١-١٥T20:30:00+01:00",
        f"{IN_A_DAY:%Y-%m-%dT%H:%M:%S}+01:00\x00",
        f"{IN_A_DAY:%Y-%m-%dT%H:%M:%S}+01:00\n",
        f"{IN_A_DAY:%Y-%m-%dT%H:%M:%S}+٠١:00",
    ],
    # named, not by value: the values hold the time of collection, which two
    # xdist workers may see a second apart
    ids=["other-digits", "trailing-nul", "trailing-newline", "offset-in-other-digits"],
)
def test_a_start_in_other_digits_or_with_more_after_it_is_a_400(olga, as_user, post, starts_at):
    response = create(as_user(olga), post, starts_at=starts_at)
    assert response.status_code == 400, response.json()
    assert "a date and time" in response.json()["fields"]["starts_at"][0]
    assert not ShowRecord.objects.exists()


@pytest.mark.django_db
def test_a_show_name_on_two_lines_is_refused(olga, as_user, post):
    response = create(as_user(olga), post, name="Friday\nnight")
    assert response.status_code == 422 and "one line" in response.json()["message"]
    assert not ShowRecord.objects.exists()


@pytest.fixture
def template_id(olga, as_user, post):
    return post(as_user(olga), "/api/templates/", {"name": "Cup"}).json()["id"]


def recur(client, tid, **body):
    body = {"weekday": 4, "start_time": "20:30", "time_zone": "UTC", **body}
    return client.put(
        f"/api/templates/{tid}/recurrence", json.dumps(body), content_type="application/json"
    )


@pytest.mark.django_db
@pytest.mark.parametrize("zone", ["localtime", "posixrules", "Factory", "right/UTC", "posix/UTC"])
def test_a_recurrence_in_a_zone_that_is_no_place_is_refused(olga, as_user, template_id, zone):
    response = recur(as_user(olga), template_id, time_zone=zone)
    assert response.status_code == 422 and "is not a time zone" in response.json()["message"]
    assert ShowTemplate.objects.get(pk=template_id).weekday is None


@pytest.mark.django_db
@pytest.mark.parametrize("start_time", ["٢٠:٣٠", "20:30\x00", "20:30+05:00", "20:30:00Z", "8:30"])
def test_a_weekly_time_with_an_offset_or_other_digits_is_a_400(
    olga, as_user, template_id, start_time
):
    response = recur(as_user(olga), template_id, start_time=start_time)
    assert response.status_code == 400
    assert "without an offset" in response.json()["fields"]["start_time"][0]
    assert ShowTemplate.objects.get(pk=template_id).weekday is None


@pytest.mark.django_db
def test_a_templates_start_time_answers_as_its_schema_says(olga, as_user, template_id, client):
    """The schema said format: time (RFC 3339: an offset) and the API answered 20:30:00."""
    answer = recur(as_user(olga), template_id, start_time="20:30")
    assert answer.status_code == 200
    schema = yaml.safe_load(client.get("/api/schema/").content)
    declared = schema["components"]["schemas"]["Template"]["properties"]["start_time"]
    assert declared.get("format") != "time"
    jsonschema.validate(
        answer.json()["start_time"], declared, format_checker=jsonschema.FormatChecker()
    )
    assert answer.json()["start_time"] == "20:30:00"
