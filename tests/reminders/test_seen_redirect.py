"""Dismissing the header's reminders sends the browser back to the page it
came from, given as ``next``: a path of this site only, never another site
nor a script (anything else goes to the reminders page), and never a 500."""

import pytest
from django.contrib.auth.models import User

from reminders.models import SITE, Reminder

SETTINGS = "/account/reminders/"


@pytest.fixture
def ana_client(client, db):
    ana = User.objects.create_user("ana")
    Reminder.objects.create(
        user=ana, kind="match_ready", channel=SITE, key="k", params={}, url="/", status="sent"
    )
    client.force_login(ana)
    return client


@pytest.mark.parametrize(
    ("given", "lands"),
    [
        ("/s/1/", "/s/1/"),
        ("/s/1/?tab=board", "/s/1/?tab=board"),
        ("", SETTINGS),
        ("https://evil.example/", SETTINGS),
        ("//evil.example/", SETTINGS),
        ("/\\evil.example/", SETTINGS),
        ("javascript:alert(1)", SETTINGS),
        ("x:y", SETTINGS),
        ("evil", SETTINGS),
        ("http://testserver.evil.example/", SETTINGS),
    ],
)
def test_next_is_a_path_of_this_site_or_the_reminders_page(ana_client, given, lands):
    response = ana_client.post("/account/reminders/seen", {"next": given})
    assert response.status_code == 302
    assert response["Location"] == lands
    assert not Reminder.objects.filter(seen=False).exists()
