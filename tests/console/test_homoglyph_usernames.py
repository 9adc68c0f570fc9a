"""A username that passes for another is refused at the invitation and at
sign-up: letters of several alphabets (a Cyrillic е in "organizеr"), a
compatibility form (full-width letters), invisible characters."""

import pytest
from django.contrib.auth.models import User

from tournaments import invitations

LOOKALIKES = [
    "organiz\u0435r",  # Cyrillic е
    "\u043erganizer",  # Cyrillic о first
    "ｏｒｇａｎｉｚｅｒ",  # full-width
    "organ\u200bizer",  # zero-width space
    "οrganizer",  # Greek omicron
]


@pytest.mark.django_db
@pytest.mark.parametrize("name", LOOKALIKES)
def test_an_invitation_for_a_lookalike_name_is_refused(org_client, name):
    User.objects.create_user("organizer")
    resp = org_client.post("/console/invite/", {"username": name})
    assert resp.status_code == 400
    assert "/console/join/" not in resp.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("name", LOOKALIKES)
def test_a_signup_link_for_a_lookalike_name_makes_no_account(client, organizer, name):
    url = f"/console/join/{invitations.account_token(name, organizer.pk)}/"
    body = {"password1": "a-long-pass-phrase-1", "password2": "a-long-pass-phrase-1"}
    resp = client.post(url, body)
    assert resp.status_code == 400
    assert not User.objects.filter(username=name).exists()


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["organizer2", "zoé", "Ólafur", "ольга", "佐藤"])
def test_plain_names_of_one_alphabet_are_invited(org_client, name):
    resp = org_client.post("/console/invite/", {"username": name})
    assert resp.status_code == 200 and "/console/join/" in resp.content.decode()
