"""A command id on the writes that had none (issue #21: "every write endpoint
accepts a command id with the same rules"): a retry with the same id by the
same account writes once and is answered as the first time; the same id from
another account, or with other content, is a 409 in words, nothing written.
(That every write route takes one: tests/config/test_every_write_takes_a_command_id.py.)"""

import datetime as dt
import json

import pytest
from django.contrib.auth.models import Permission, User

from eventlog.models import CommandRecord
from eventlog.store import read
from hooks.models import WebhookEndpoint
from ratings.models import Season
from ratings.readmodels import SEASONS
from tournaments import show_services as ss
from tournaments import show_templates
from tournaments.models import ShowRecord, ShowTemplate

pytestmark = pytest.mark.django_db

IN_A_DAY = (dt.datetime.now(dt.UTC) + dt.timedelta(days=1)).replace(microsecond=0)


def organizer(name):
    user = User.objects.create_user(name, password="pw-123456")
    user.user_permissions.add(
        *Permission.objects.filter(codename__in=["add_showrecord", "add_match"])
    )
    return User.objects.get(pk=user.pk)


@pytest.fixture
def olga():
    return organizer("olga")


@pytest.fixture
def omar():
    return organizer("omar")


def own_show(user):
    stream = ss.create_show(
        name=f"{user.username}'s",
        organizer=user.username,
        organizer_id=user.pk,
        entrants=["ana", "ben", "cal", "dee"],
        options={"step_deadline_s": 0},
    )
    return ShowRecord.objects.get(stream=stream)


def reused(response):
    assert response.status_code == 409, response.content
    body = response.json()
    assert body["code"] == "command_id_reused" and "another" in body["message"]


# ---- show from a template -----------------------------------------------------------
def test_a_show_from_a_template_retried_is_one_show(olga, omar, as_user, post):
    mine = show_templates.create(olga, name="Cup")
    theirs = show_templates.create(omar, name="Bowl")
    body = {"starts_at": IN_A_DAY.isoformat(), "command_id": "from-tpl-1"}
    first = post(as_user(olga), f"/api/templates/{mine.pk}/shows", body)
    again = post(as_user(olga), f"/api/templates/{mine.pk}/shows", body)
    assert first.status_code == again.status_code == 201, again.content
    assert first.json() == again.json()
    assert ShowRecord.objects.count() == 1
    # the same id from another account, or with another start: refused, nothing made
    reused(post(as_user(omar), f"/api/templates/{theirs.pk}/shows", body))
    later = {**body, "starts_at": (IN_A_DAY + dt.timedelta(hours=1)).isoformat()}
    reused(post(as_user(olga), f"/api/templates/{mine.pk}/shows", later))
    assert ShowRecord.objects.count() == 1
    # a new id is a new show
    new = post(as_user(olga), f"/api/templates/{mine.pk}/shows", {**later, "command_id": "n"})
    assert new.status_code == 201 and ShowRecord.objects.count() == 2


def test_the_console_makes_one_show_from_a_resent_template_form(olga, omar, client):
    mine = show_templates.create(olga, name="Cup")
    client.force_login(olga)
    page = client.get(f"/console/templates/{mine.pk}/")
    assert b'name="command_id"' in page.content  # the form carries its id
    when = (IN_A_DAY + dt.timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")
    form = {"starts_at": when, "time_zone": "UTC", "command_id": "form-1"}
    for _ in range(2):
        resp = client.post(f"/console/templates/{mine.pk}/show", form)
        assert resp.status_code == 302, resp.content
    assert ShowRecord.objects.count() == 1
    theirs = show_templates.create(omar, name="Bowl")
    client.force_login(omar)
    resp = client.post(f"/console/templates/{theirs.pk}/show", form)
    assert resp.status_code == 400 and b"already sent" in resp.content
    assert ShowRecord.objects.count() == 1


# ---- templates ----------------------------------------------------------------------
def test_templates_retried_are_one_template(olga, omar, as_user, post):
    show, their_show = own_show(olga), own_show(omar)
    for url, their_url, body in [
        (
            "/api/templates/",
            "/api/templates/",
            {"name": "Cup", "rounds": ["R"], "command_id": "t1"},
        ),
        (
            f"/api/shows/{show.pk}/template",
            f"/api/shows/{their_show.pk}/template",
            {"name": "Saved", "command_id": "t2"},
        ),
    ]:
        before = ShowTemplate.objects.count()
        first = post(as_user(olga), url, body)
        again = post(as_user(olga), url, body)
        assert first.status_code == again.status_code == 201, again.content
        assert first.json()["id"] == again.json()["id"]
        assert ShowTemplate.objects.count() == before + 1
        reused(post(as_user(omar), their_url, body))
        reused(post(as_user(olga), url, {**body, "name": "Other"}))
        assert ShowTemplate.objects.count() == before + 1


def test_a_recurrence_retried_is_set_once(olga, omar, as_user):
    mine = show_templates.create(olga, name="Cup")
    theirs = show_templates.create(omar, name="Bowl")
    body = {"weekday": 4, "start_time": "20:30", "time_zone": "UTC", "command_id": "rec-1"}

    def put(user, template, data):
        return as_user(user).put(
            f"/api/templates/{template.pk}/recurrence",
            json.dumps(data),
            content_type="application/json",
        )

    assert put(olga, mine, body).status_code == 200
    assert put(olga, mine, body).status_code == 200
    assert CommandRecord.objects.filter(command_id="c:rec-1").count() == 1
    reused(put(omar, theirs, body))
    reused(put(olga, mine, {**body, "weekday": 5}))
    mine.refresh_from_db()
    assert mine.weekday == 4


# ---- seasons ------------------------------------------------------------------------
def test_a_season_retried_is_named_once(olga, omar, as_user, post):
    body = {"name": "Winter", "starts": "2030-01-01", "ends": "2030-03-31", "command_id": "s-1"}
    first = post(as_user(olga), "/api/seasons/", body)
    again = post(as_user(olga), "/api/seasons/", body)
    assert first.status_code == again.status_code == 201, again.content
    assert first.json() == again.json()
    assert Season.objects.count() == 1 and len(read(SEASONS)) == 1
    reused(post(as_user(omar), "/api/seasons/", body))
    reused(post(as_user(olga), "/api/seasons/", {**body, "name": "Spring"}))
    assert Season.objects.count() == 1 and len(read(SEASONS)) == 1


def test_the_seasons_page_names_one_season_from_a_resent_form(olga, omar, client):
    client.force_login(olga)
    assert b'name="command_id"' in client.get("/players/seasons/").content
    form = {"name": "Winter", "starts": "2030-01-01", "ends": "2030-03-31", "command_id": "f-1"}
    for _ in range(2):
        assert client.post("/players/seasons/", form).status_code == 302
    assert Season.objects.count() == 1
    client.force_login(omar)
    resp = client.post("/players/seasons/", form)
    assert resp.status_code == 400 and b"already sent" in resp.content
    assert Season.objects.count() == 1


# ---- webhooks -----------------------------------------------------------------------
def test_a_webhook_endpoint_retried_is_made_once(olga, omar, as_user, post):
    mine, theirs = own_show(olga), own_show(omar)
    body = {"url": "http://127.0.0.1:9/", "kinds": ["result"], "command_id": "hook-1"}
    first = post(as_user(olga), f"/api/shows/{mine.pk}/webhooks", body)
    again = post(as_user(olga), f"/api/shows/{mine.pk}/webhooks", body)
    assert first.status_code == again.status_code == 201, again.content
    assert first.json()["id"] == again.json()["id"]
    assert WebhookEndpoint.objects.count() == 1
    reused(post(as_user(omar), f"/api/shows/{theirs.pk}/webhooks", body))
    reused(post(as_user(olga), f"/api/shows/{mine.pk}/webhooks", {**body, "kinds": ["champion"]}))
    assert WebhookEndpoint.objects.count() == 1


def test_a_webhook_removal_retried_is_answered_the_same(olga, omar, as_user):
    mine, theirs = own_show(olga), own_show(omar)
    hook = WebhookEndpoint.objects.create(show_stream=mine.stream, url="http://x/", secret="s")
    other = WebhookEndpoint.objects.create(show_stream=theirs.stream, url="http://y/", secret="s")
    url = f"/api/shows/{mine.pk}/webhooks/{hook.pk}?command_id=rm-1"
    assert as_user(olga).delete(url).status_code == 204
    assert as_user(olga).delete(url).status_code == 204  # a retry, not a 404
    assert as_user(olga).delete(url.split("?")[0]).status_code == 404  # without an id: gone
    reused(as_user(omar).delete(f"/api/shows/{theirs.pk}/webhooks/{other.pk}?command_id=rm-1"))
    assert WebhookEndpoint.objects.filter(pk=other.pk).exists()
    bad = as_user(olga).delete(f"/api/shows/{mine.pk}/webhooks/{hook.pk}?command_id=no%20spaces")
    assert bad.status_code == 400 and bad.json()["message"]


# ---- invitations --------------------------------------------------------------------
def test_an_invitation_revoked_with_a_retry_is_revoked_once(
    post, staffed_show, show_people, as_user
):
    org = as_user(show_people["organizer"])
    url = f"/api/shows/{staffed_show.pk}/invitations"
    made = [post(org, url, {"entrant": e}).json()["id"] for e in ("cal", "dee")]
    revoke = f"{url}/{made[0]}?command_id=rv-1"
    assert org.delete(revoke).status_code == 204
    events = len(read(staffed_show.stream))
    again = org.delete(revoke)  # without the id this is a 422 "already revoked"
    assert again.status_code == 204, again.content
    assert len(read(staffed_show.stream)) == events
    # the same id for another invitation: not a retry
    reused(org.delete(f"{url}/{made[1]}?command_id=rv-1"))
    statuses = {i["id"]: i["status"] for i in org.get(url).json()}
    assert statuses == {made[0]: "revoked", made[1]: "open"}


# ---- the page's own writes ----------------------------------------------------------
def test_a_resent_register_form_registers_once(olga, client):
    stream = ss.create_show(
        name="Friday",
        organizer="olga",
        organizer_id=olga.pk,
        entrants=[],
        starts_at=IN_A_DAY.timestamp(),
        options={"registration": "open", "cap": 4},
    )
    record = ShowRecord.objects.get(stream=stream)
    ana = User.objects.create_user("ana_user")
    client.force_login(ana)
    assert b'name="command_id"' in client.get(record.get_absolute_url()).content
    first = client.post(f"/shows/{record.pk}/register/", {"command_id": "reg-1"})
    assert first.status_code == 302, first.content
    written = len(read(stream))
    # without the id the second is "registered already" (400); with it, a retry
    again = client.post(f"/shows/{record.pk}/register/", {"command_id": "reg-1"})
    assert again.status_code == 302, again.content
    assert len(read(stream)) == written
    other = client.post(f"/shows/{record.pk}/register/")
    assert other.status_code == 400
    assert ss.load(stream)[0].status["ana_user"] == "active"


def test_a_resent_token_form_makes_one_token(client):
    from api.models import ApiToken

    user = User.objects.create_user("tina")
    client.force_login(user)
    first = client.post("/account/tokens/", {"name": "bot", "command_id": "tok-1"})
    assert first.status_code == 200 and b"token-secret" in first.content
    again = client.post("/account/tokens/", {"name": "bot", "command_id": "tok-1"})
    assert again.status_code == 200 and b"token-secret" not in again.content  # shown once
    assert ApiToken.objects.filter(user=user).count() == 1


@pytest.mark.parametrize("bad", ["no spaces!", "x" * 65, "é"])
def test_a_form_with_a_forged_command_id_is_refused_in_words(olga, client, bad):
    from api.models import ApiToken

    mine = show_templates.create(olga, name="Cup")
    token, _secret = ApiToken.issue(olga, "bot")
    client.force_login(olga)
    when = (IN_A_DAY + dt.timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")
    records, tokens = CommandRecord.objects.count(), ApiToken.objects.count()
    for url, form in [
        ("/account/tokens/", {"name": "bot2"}),
        (f"/account/tokens/{token.pk}/revoke", {}),
        ("/account/reminders/calendar/new", {}),
        ("/players/seasons/", {"name": "W", "starts": "2030-01-01", "ends": "2030-02-01"}),
        (f"/console/templates/{mine.pk}/show", {"starts_at": when, "time_zone": "UTC"}),
    ]:
        resp = client.post(url, {**form, "command_id": bad})
        assert resp.status_code < 500, url
        if resp.status_code == 302:  # the words wait on the next page
            resp = client.get(resp.url)
        assert b"command id is 1 to 64" in resp.content, url
    assert CommandRecord.objects.count() == records and ApiToken.objects.count() == tokens
    assert not Season.objects.exists() and not ShowRecord.objects.exists()
    token.refresh_from_db()
    assert token.revoked is None
