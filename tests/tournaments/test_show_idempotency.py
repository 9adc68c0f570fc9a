"""Every show, bracket and moderation write takes a command id: retries of
one command write once and get the first answer; the same id from another
account or with another body is a 409 (API) or a refusal in words (forms);
the console's and dashboard's forms carry a hidden id made when rendered,
so a double click writes once."""

import re
import threading

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client

from eventlog.models import StoredEvent
from tournaments import show_services as ss
from tournaments import shows
from tournaments.models import BracketRecord, ShowRecord

GRANT = {
    "type": "grant_item",
    "entrant": "ana",
    "item": "insurance",
    "scope": "any",
    "given_by": "the audience",
    "reason": "best comeback",
}


def items_of(stream):
    return list(ss.load(stream)[0].items.values())


@pytest.fixture
def staffed_show(db):
    """olga organizes ana, ben and cal; mia and max moderate."""
    olga = User.objects.create_user("olga", password="pw-123456")
    mia = User.objects.create_user("mia", password="pw-123456")
    max_ = User.objects.create_user("max", password="pw-123456")
    stream = ss.create_show(
        name="Olga's show", organizer="olga", entrants=["ana", "ben", "cal"], organizer_id=olga.pk
    )
    org = ss.Acting("olga", shows.ORGANIZER)
    ss.command(stream, {"type": "appoint_moderator", "username": "mia"}, org)
    ss.command(stream, {"type": "appoint_moderator", "username": "max"}, org)
    return ShowRecord.objects.get(stream=stream), {"olga": olga, "mia": mia, "max": max_}


def grant(client, record, command_id, body=GRANT):
    return client.post(
        f"/api/shows/{record.pk}/commands",
        {"command": body, "command_id": command_id},
        content_type="application/json",
    )


def test_a_retried_grant_item_makes_one_item_and_answers_as_the_first(client, staffed_show):
    record, users = staffed_show
    client.force_login(users["mia"])
    first = grant(client, record, "grant-1")
    assert first.status_code == 201, first.content
    again = grant(client, record, "grant-1")
    assert again.status_code == 200, again.content
    assert again.json()["appended"] == first.json()["appended"]
    assert len(items_of(record.stream)) == 1


def test_another_account_or_another_body_under_the_same_id_is_409(client, staffed_show):
    record, users = staffed_show
    client.force_login(users["mia"])
    assert grant(client, record, "grant-1").status_code == 201
    n = StoredEvent.objects.count()
    client.force_login(users["max"])  # another moderator, the same command, the same id
    resp = grant(client, record, "grant-1")
    assert resp.status_code == 409, resp.content
    assert resp.json()["code"] == "command_id_reused" and "command id" in resp.json()["message"]
    client.force_login(users["mia"])  # the same moderator, another command
    resp = grant(client, record, "grant-1", {**GRANT, "entrant": "ben"})
    assert resp.status_code == 409, resp.content
    assert StoredEvent.objects.count() == n and len(items_of(record.stream)) == 1


def test_a_bad_command_id_is_a_400_and_writes_nothing(client, staffed_show):
    record, users = staffed_show
    client.force_login(users["mia"])
    n = StoredEvent.objects.count()
    resp = grant(client, record, "has space")
    assert resp.status_code == 400 and "command_id" in resp.json()["fields"]
    assert StoredEvent.objects.count() == n


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_twenty_concurrent_retries_of_one_grant_item_make_one_item(monkeypatch):
    from rest_framework.settings import api_settings

    # the rate limits are not what is tested here: all 20 retries reach the service
    rates = {**api_settings.DEFAULT_THROTTLE_RATES, "commands": None, "commands_burst": None}
    monkeypatch.setattr(api_settings, "DEFAULT_THROTTLE_RATES", rates)
    olga = User.objects.create_user("olga", password="pw-123456")
    mia = User.objects.create_user("mia", password="pw-123456")
    stream = ss.create_show(
        name="Race", organizer="olga", entrants=["ana", "ben", "cal"], organizer_id=olga.pk
    )
    ss.command(
        stream, {"type": "appoint_moderator", "username": "mia"}, ss.Acting("olga", "organizer")
    )
    record = ShowRecord.objects.get(stream=stream)
    answers, errors = [], []
    barrier = threading.Barrier(20)

    def retry():
        from django.db import connection

        try:
            c = Client()
            c.force_login(mia)
            barrier.wait(timeout=30)
            resp = grant(c, record, "grant-race")
            answers.append((resp.status_code, resp.json().get("appended")))
        except Exception as exc:  # asserted on below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=retry) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert errors == []
    assert len(items_of(stream)) == 1
    codes = sorted(code for code, _ in answers)
    assert codes == [200] * 19 + [201], answers
    assert len({tuple(appended) for _, appended in answers}) == 1


def test_creating_a_show_or_a_bracket_twice_with_one_id_makes_one(client, db):
    olga = User.objects.create_user("olga", password="pw-123456")
    olga.user_permissions.add(
        *Permission.objects.filter(codename__in=["add_showrecord", "add_bracketrecord"])
    )
    client.force_login(olga)
    show = {"name": "Once", "entrants": ["ana", "ben", "cal"], "command_id": "new-show"}
    a = client.post("/api/shows/", show, content_type="application/json")
    b = client.post("/api/shows/", show, content_type="application/json")
    assert a.status_code == 201 and b.status_code == 201, (a.content, b.content)
    assert a.json()["id"] == b.json()["id"] and ShowRecord.objects.count() == 1
    other = client.post("/api/shows/", {**show, "name": "Another"}, content_type="application/json")
    assert other.status_code == 409, other.content
    bracket = {
        "name": "Cup",
        "game": "love-me-not",
        "format": "single",
        "entrants": ["ana", "ben", "cal", "dee"],
        "command_id": "new-cup",
    }
    a = client.post("/api/brackets/", bracket, content_type="application/json")
    b = client.post("/api/brackets/", bracket, content_type="application/json")
    assert a.status_code == 201 and b.status_code == 201, (a.content, b.content)
    assert a.json()["id"] == b.json()["id"] and BracketRecord.objects.count() == 1


def _hidden_command_id(html: str, action: str) -> str:
    form = re.search(rf'<form[^>]*action="{re.escape(action)}"[^>]*>(.*?)</form>', html, re.S)
    assert form, f"no form posting to {action}"
    found = re.search(r'name="command_id" value="([^"]+)"', form.group(1))
    assert found, f"the form posting to {action} carries no command id"
    return found.group(1)


def test_a_double_clicked_console_step_writes_once(client, staffed_show):
    record, users = staffed_show
    User.objects.create_user("zoe")
    client.force_login(users["olga"])
    action = f"/console/shows/{record.pk}/appoint"
    command_id = _hidden_command_id(
        client.get(f"/console/shows/{record.pk}/").content.decode(), action
    )
    n = StoredEvent.objects.count()
    form = {"appoint-username": "zoe", "command_id": command_id}
    for _ in range(2):
        resp = client.post(action, form)
        assert resp.status_code == 302, resp.content.decode()[-2000:]
    assert StoredEvent.objects.count() == n + 1
    assert "zoe" in ss.load(record.stream)[0].moderator_ids


def test_a_double_clicked_dashboard_grant_writes_once(client, staffed_show):
    record, users = staffed_show
    client.force_login(users["mia"])
    page = client.get(f"/shows/{record.pk}/dashboard/").content.decode()
    command_id = _hidden_command_id(page, f"/shows/{record.pk}/dashboard/act")
    form = {"action": "grant_item", **{k: v for k, v in GRANT.items() if k != "type"}}
    form["command_id"] = command_id
    for _ in range(2):
        resp = client.post(f"/shows/{record.pk}/dashboard/act", form)
        assert resp.status_code == 302, resp.content.decode()[-2000:]
    assert len(items_of(record.stream)) == 1


def test_a_retried_invitation_is_the_same_invitation(client, staffed_show):
    record, users = staffed_show
    client.force_login(users["olga"])
    url = f"/api/shows/{record.pk}/invitations"
    body = {"entrant": "ana", "command_id": "invite-ana"}
    first = client.post(url, body, content_type="application/json")
    again = client.post(url, body, content_type="application/json")
    assert first.status_code == 201 and again.status_code == 201, (first.content, again.content)
    assert first.json()["id"] == again.json()["id"]
    assert len(ss.load(record.stream)[0].invitations) == 1
    # the same id for another entrant is another command: refused
    other = client.post(url, {**body, "entrant": "ben"}, content_type="application/json")
    assert other.status_code == 409, other.content
    assert len(ss.load(record.stream)[0].invitations) == 1
