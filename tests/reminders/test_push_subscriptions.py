"""POST /account/reminders/push takes a browser's push subscription: the
endpoint is a push service's https URL (no control character, a proper
host, a sane length); a refusal is a 400 in words that never say what a host
resolved to, and writes nothing; another account's endpoint stays theirs."""

import json

import pytest
from django.contrib.auth.models import User
from django.test import Client

from reminders.models import PushSubscription
from tests.reminders.test_reminders import browser_keys

URL = "/account/reminders/push"
GOOD = "https://127.0.0.1:9/push/1"


@pytest.fixture
def keys():
    _private, p256dh, auth = browser_keys()
    return {"p256dh": p256dh, "auth": auth}


def logged_in(name: str) -> Client:
    client = Client()
    client.force_login(User.objects.get_or_create(username=name)[0])
    return client


def post(client, body):
    raw = body if isinstance(body, (str, bytes)) else json.dumps(body)
    return client.post(URL, raw, content_type="application/json")


@pytest.mark.django_db
def test_a_lone_surrogate_is_a_400(keys):
    raw = json.dumps({"endpoint": GOOD, "keys": keys}).replace("/push/1", "/push/\\ud800")
    response = post(logged_in("ana"), raw)
    assert response.status_code == 400
    assert "half a character" in response.json()["message"]
    assert not PushSubscription.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("endpoint", "words"),
    [
        ("https://127.0.0.1:9/push/\x00", "control character"),
        ("https://127.0.0.1:9/push/\x1b[2J", "control character"),
        ("https://127.0.0.1:9/push/a b", "space"),
        ("http://127.0.0.1:9/push/1", "https://"),
        ("https:///push/1", "https://"),
        ("https://exa_mple..com/push/1", "https://"),
        ("https://user:pw@127.0.0.1:9/push/1", "https://"),
        ("https://127.0.0.1:99999/push/1", "https://"),
        ("https://127.0.0.1:9/" + "a" * 500, "longer than 500"),
        (None, "missing"),
        (7, "missing"),
    ],
)
def test_an_endpoint_that_is_no_push_service_url_is_a_400(keys, endpoint, words):
    response = post(logged_in("ana"), {"endpoint": endpoint, "keys": keys})
    assert response.status_code == 400, endpoint
    assert words in response.json()["message"]
    assert not PushSubscription.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "169.254.169.254", "[::1]"])
def test_an_internal_host_is_refused_without_telling_its_address(keys, settings, host):
    settings.HOOKS_ALLOW_PRIVATE_ADDRESSES = False
    response = post(logged_in("ana"), {"endpoint": f"https://{host}/push/1", "keys": keys})
    assert response.status_code == 400
    message = response.json()["message"]
    assert "internal address" in message
    for told in ("127.0.0.1", "::1", "169.254", "loopback", "link-local", host):
        assert told not in message
    assert not PushSubscription.objects.exists()


@pytest.mark.django_db
def test_another_accounts_endpoint_stays_theirs(keys):
    assert post(logged_in("ben"), {"endpoint": GOOD, "keys": keys}).status_code == 201
    _private, p256dh, auth = browser_keys()
    response = post(logged_in("ana"), {"endpoint": GOOD, "keys": {"p256dh": p256dh, "auth": auth}})
    assert response.status_code == 409 and response.json()["code"] == "taken"
    (kept,) = PushSubscription.objects.all()
    assert (kept.user.username, kept.p256dh, kept.auth) == ("ben", keys["p256dh"], keys["auth"])


@pytest.mark.django_db
def test_the_same_browser_subscribing_again_keeps_one_row(keys):
    ana = logged_in("ana")
    assert post(ana, {"endpoint": GOOD, "keys": keys}).status_code == 201
    response = post(ana, {"endpoint": GOOD, "keys": keys})
    assert response.status_code == 201 and response.json()["browsers"] == 1
