"""The limits per address count the connection's address; X-Forwarded-For
is believed only from the proxies in settings.TRUSTED_PROXIES, read from its
right end (a client writes whatever it likes on its left)."""

import pytest
from django.contrib.auth.models import User
from django.test import Client, RequestFactory

from api.client_address import client_address

RESET = "/accounts/password_reset/"


def ask_reset(forwarded_for: str, remote: str = "127.0.0.1"):
    client = Client(REMOTE_ADDR=remote, HTTP_X_FORWARDED_FOR=forwarded_for)
    return client.post(RESET, {"email": "olga@example.com"}).status_code


@pytest.fixture
def resets(db, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"password_reset": "5/hour"},
    }
    User.objects.create_user("olga", email="olga@example.com", password="x-123456789")


def test_a_new_forwarded_for_each_time_is_still_one_address(resets, mailoutbox):
    codes = [ask_reset(f"198.51.100.{i}") for i in range(8)]
    assert codes == [302] * 5 + [429] * 3
    assert len(mailoutbox) == 5


def test_behind_a_trusted_proxy_each_client_has_its_own_count(resets, settings, mailoutbox):
    settings.TRUSTED_PROXIES = ["127.0.0.0/8"]
    # the client's own claim on the left changes each time; the proxy's entry does not
    ana = [ask_reset(f"198.51.100.{i}, 203.0.113.7") for i in range(6)]
    ben = [ask_reset("203.0.113.8")]
    assert ana == [302] * 5 + [429] and ben == [302]
    assert len(mailoutbox) == 6


@pytest.mark.parametrize(
    ("trusted", "remote", "forwarded", "seen"),
    [
        ([], "10.0.0.1", "203.0.113.7", "10.0.0.1"),
        (["10.0.0.1"], "10.0.0.1", "203.0.113.7", "203.0.113.7"),
        (["10.0.0.1"], "10.0.0.2", "203.0.113.7", "10.0.0.2"),  # not a proxy we know
        (["10.0.0.0/24"], "10.0.0.1", "1.2.3.4, 203.0.113.7, 10.0.0.5", "203.0.113.7"),
        (["10.0.0.1"], "10.0.0.1", "", "10.0.0.1"),
        (["10.0.0.1"], "10.0.0.1", "not-an-address", "10.0.0.1"),
        (["::1"], "::1", "2001:db8::7", "2001:db8::7"),
    ],
)
def test_the_address_seen(settings, trusted, remote, forwarded, seen):
    settings.TRUSTED_PROXIES = trusted
    request = RequestFactory().get("/", REMOTE_ADDR=remote, HTTP_X_FORWARDED_FOR=forwarded)
    assert client_address(request) == seen


def test_the_login_lockout_sees_the_client_behind_a_trusted_proxy(db, settings):
    settings.AXES_ENABLED = True
    settings.AXES_FAILURE_LIMIT = 3
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.TRUSTED_PROXIES = ["127.0.0.1"]
    User.objects.create_user("ben", password="the-right-one-123")

    def login(forwarded_for, username, password):
        client = Client(HTTP_X_FORWARDED_FOR=forwarded_for)
        return client.post("/accounts/login/", {"username": username, "password": password})

    for i in range(5):  # one client guessing at many accounts is locked out by address
        login("203.0.113.7", f"nobody-{i}", "wrong")
    assert login("203.0.113.7", "ben", "the-right-one-123").status_code == 429
    # another client behind the same proxy is not
    assert login("203.0.113.8", "ben", "the-right-one-123").status_code == 302
