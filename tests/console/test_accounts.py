"""Accounts as players expect them: invitation sign-up, log in and out in the
site's look, password change and reset by e-mail."""

import re

from django.contrib.auth.models import User
from django.core import mail
from django.urls import reverse


def test_invitation_link_sign_up_end_to_end(org_client, client):
    resp = org_client.post(reverse("console:invite"), {"username": "newbie"})
    assert resp.status_code == 200
    link = resp.context["link"]
    assert "/console/join/" in link and not User.objects.filter(username="newbie").exists()
    org_client.logout()

    path = link.split("testserver", 1)[1]
    page = client.get(path)
    assert page.status_code == 200 and b"Welcome, newbie" in page.content
    # the username is the invitation's, whatever the form sends
    resp = client.post(
        path,
        {
            "username": "someone-else",
            "password1": "a-Good-pass-971",
            "password2": "a-Good-pass-971",
        },
    )
    assert resp.status_code == 302
    user = User.objects.get(username="newbie")
    assert not User.objects.filter(username="someone-else").exists()
    assert client.get(reverse("home")).context["user"] == user
    assert not user.has_perm("games.add_match")
    # the link makes one account, once
    client.logout()
    again = client.get(path)
    assert again.status_code == 400 and b"accepted already" in again.content
    assert client.login(username="newbie", password="a-Good-pass-971")


def test_a_tampered_invitation_is_refused(client, db):
    resp = client.get(reverse("console:signup", args=["not-a-token"]))
    assert resp.status_code == 400 and b"not valid or has expired" in resp.content
    assert User.objects.count() == 0


def test_sign_up_refuses_a_weak_or_mismatched_password(org_client, client):
    link = org_client.post(reverse("console:invite"), {"username": "newbie"}).context["link"]
    path = link.split("testserver", 1)[1]
    resp = client.post(path, {"password1": "a-Good-pass-971", "password2": "other-Pass-333"})
    assert resp.status_code == 400 and not User.objects.filter(username="newbie").exists()


def test_only_organizers_invite(client, alice):
    client.force_login(alice)
    assert client.post(reverse("console:invite"), {"username": "x"}).status_code == 403


def test_login_and_logout_in_the_sites_look(client, alice):
    page = client.get(reverse("login"))
    assert page.status_code == 200
    assert b"Showtable" in page.content and b"Django administration" not in page.content
    assert b"Forgot your password?" in page.content
    resp = client.post(reverse("login"), {"username": "alice", "password": "pw-alice-123"})
    assert resp.status_code == 302
    resp = client.post(reverse("logout"))
    assert resp.status_code == 302 and resp["Location"] == "/"
    assert not client.get(reverse("home")).context["user"].is_authenticated


def test_password_change(client, alice):
    client.force_login(alice)
    page = client.get(reverse("password_change"))
    assert page.status_code == 200 and b"Django administration" not in page.content
    resp = client.post(
        reverse("password_change"),
        {
            "old_password": "pw-alice-123",
            "new_password1": "n3w-Secret-pass",
            "new_password2": "n3w-Secret-pass",
        },
    )
    assert resp.status_code == 302
    client.logout()
    assert client.login(username="alice", password="n3w-Secret-pass")


def test_password_reset_sends_an_email_with_a_working_link(client, alice):
    page = client.get(reverse("password_reset"))
    assert page.status_code == 200 and b"Django administration" not in page.content
    resp = client.post(reverse("password_reset"), {"email": "alice@example.com"})
    assert resp.status_code == 302
    assert len(mail.outbox) == 1
    msg = mail.outbox[0]
    assert msg.to == ["alice@example.com"] and "Showtable" in msg.subject
    path = re.search(r"https?://[^/]+(/accounts/reset/\S+)", msg.body).group(1)
    resp = client.get(path, follow=True)
    assert resp.status_code == 200 and resp.context["validlink"]
    set_url = resp.redirect_chain[-1][0]
    resp = client.post(
        set_url, {"new_password1": "r3set-Pass-word", "new_password2": "r3set-Pass-word"}
    )
    assert resp.status_code == 302
    assert client.login(username="alice", password="r3set-Pass-word")
    # a used link is spent
    spent = client.get(path, follow=True)
    assert not spent.context["validlink"] and b"Link not valid" in spent.content


def test_password_reset_for_an_unknown_address_sends_nothing(client, alice):
    resp = client.post(reverse("password_reset"), {"email": "nobody@example.com"})
    assert resp.status_code == 302 and mail.outbox == []


def test_the_console_link_shows_for_organizers_only(client, organizer, alice):
    console = reverse("console:index").encode()
    client.force_login(alice)
    assert console not in client.get(reverse("home")).content
    client.force_login(organizer)
    assert console in client.get(reverse("home")).content
