"""Ten browsers post one sign-up link at once: one account is made, every
other post is a clear 4xx (never an IntegrityError's 500)."""

import threading

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client

from tournaments import invitations


@pytest.mark.django_db(transaction=True)
def test_ten_posts_of_one_signup_link_make_one_account_and_nine_4xx():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite serialises the writers")
    olga = User.objects.create_user("olga")
    url = f"/console/join/{invitations.account_token('newcomer', olga.pk)}/"
    body = {"password1": "a-long-pass-phrase-1", "password2": "a-long-pass-phrase-1"}
    start, statuses = threading.Barrier(10), []

    def post():
        client = Client(raise_request_exception=False)
        start.wait(timeout=30)
        try:
            statuses.append(client.post(url, body).status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=post) for _ in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(statuses) == 10
    assert statuses.count(302) == 1, statuses
    assert all(400 <= s < 500 for s in statuses if s != 302), statuses
    assert User.objects.filter(username="newcomer").count() == 1
