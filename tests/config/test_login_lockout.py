"""Login lockout (django-axes): 25 wrong passwords, then the right one, is
refused with words; the count is per username and per address."""

import pytest
from django.contrib.auth.models import User
from django.test import Client


@pytest.fixture
def lockout(settings, db):
    settings.AXES_ENABLED = True
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast
    settings.AXES_FAILURE_LIMIT = 10
    return User.objects.create_user("olga", password="the-right-one-123")


def login(client, password, username="olga"):
    return client.post("/accounts/login/", {"username": username, "password": password})


def test_twenty_five_wrong_passwords_then_the_right_one_is_locked_out(lockout):
    client = Client()
    codes = [login(client, f"wrong-{i}").status_code for i in range(25)]
    assert codes[:9] == [200] * 9 and codes[-1] == 429  # the form again, then locked
    resp = login(client, "the-right-one-123")
    assert resp.status_code == 429
    assert "Too many failed logins" in resp.content.decode()
    assert "_auth_user_id" not in client.session


def test_the_lock_holds_the_account_from_another_address_too(lockout):
    for i in range(10):
        login(Client(REMOTE_ADDR="10.0.0.1"), f"wrong-{i}")
    resp = login(Client(REMOTE_ADDR="10.0.0.2"), "the-right-one-123")
    assert resp.status_code == 429


def test_a_few_mistakes_then_the_right_password_logs_in(lockout):
    client = Client()
    for i in range(3):
        login(client, f"wrong-{i}")
    assert login(client, "the-right-one-123").status_code == 302


def test_password_reset_mails_are_limited_per_address(db, settings, mailoutbox):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"password_reset": "3/hour"},
    }
    User.objects.create_user("olga", email="olga@example.com", password="x-123456789")
    client = Client()
    codes = [
        client.post("/accounts/password_reset/", {"email": "olga@example.com"}).status_code
        for _ in range(5)
    ]
    assert codes[:3] == [302] * 3 and codes[3:] == [429, 429]
    assert len(mailoutbox) == 3
