"""Show invitations over the API: the organizer invites a person to hold an
entrant, lists and revokes invitations; any account (session or token)
accepts one and plays as that entrant from then on. Every refusal writes
nothing."""

import pytest
from django.contrib.auth.models import User

from eventlog.store import read
from tournaments import show_services as ss


def version(show):
    return read(show.stream)[-1].version


def url(show, rest=""):
    return f"/api/shows/{show.pk}/invitations{rest}"


@pytest.fixture
def org(as_user, show_people):
    return as_user(show_people["organizer"])


def invite(post, org, show, entrant="cal"):
    resp = post(org, url(show), {"entrant": entrant})
    assert resp.status_code == 201, resp.content
    return resp.json()


def test_invite_list_accept_with_a_token_then_play_as_the_entrant(
    post, org, staffed_show, token_client, as_user
):
    made = invite(post, org, staffed_show, "ben")  # a bot holds ben: a person takes over
    assert made["entrant"] == "ben" and made["status"] == "open" and made["token"]
    assert "token" not in org.get(url(staffed_show)).json()[0]  # the token is shown once

    newcomer = User.objects.create_user("bea")
    resp = post(token_client(newcomer), "/api/invitations/accept", {"token": made["token"]})
    assert resp.status_code == 200, resp.content
    assert resp.json() == {"show": staffed_show.pk, "entrant": "ben"}
    assert ss.acting_for(staffed_show.stream, newcomer) == ss.Acting("ben", "player")
    assert ss.load(staffed_show.stream)[2]["ben"] == newcomer.pk

    (listed,) = org.get(url(staffed_show)).json()
    assert listed == {
        "id": made["id"],
        "entrant": "ben",
        "status": "accepted",
        "invited_by": "olga",
        "username": "bea",
    }
    page = as_user(newcomer).get(f"/api/shows/{staffed_show.pk}/").json()
    assert page["acting"] == {"role": "player", "name": "ben"}
    # the audit log has both steps, with who did them
    kinds = [r["kind"] for r in org.get(f"/api/shows/{staffed_show.pk}/audit").json()]
    assert "invitation_created" in kinds


def test_an_invitation_is_accepted_once(post, org, staffed_show, as_user):
    made = invite(post, org, staffed_show)
    first, second = User.objects.create_user("bea"), User.objects.create_user("bob")
    assert (
        post(as_user(first), "/api/invitations/accept", {"token": made["token"]}).status_code == 200
    )
    before = version(staffed_show)
    resp = post(as_user(second), "/api/invitations/accept", {"token": made["token"]})
    assert resp.status_code == 422 and "accepted already" in resp.json()["message"]
    assert version(staffed_show) == before
    assert ss.acting_for(staffed_show.stream, second).role == "spectator"


@pytest.mark.parametrize(
    "token, words",
    [
        ("not-a-token", "not valid or has expired"),
        ("x" * 401, "token"),
    ],
)
def test_a_forged_or_oversized_token_is_refused(post, staffed_show, as_user, token, words):
    before = version(staffed_show)
    resp = post(
        as_user(User.objects.create_user("bea")), "/api/invitations/accept", {"token": token}
    )
    assert resp.status_code in (400, 422) and words in resp.json()["message"]
    assert version(staffed_show) == before


def test_a_revoked_invitation_cannot_be_accepted(post, org, staffed_show, as_user):
    made = invite(post, org, staffed_show)
    assert org.delete(url(staffed_show, f"/{made['id']}")).status_code == 204
    assert org.get(url(staffed_show)).json()[0]["status"] == "revoked"
    resp = post(
        as_user(User.objects.create_user("bea")),
        "/api/invitations/accept",
        {"token": made["token"]},
    )
    assert resp.status_code == 422 and "revoked" in resp.json()["message"]
    again = org.delete(url(staffed_show, f"/{made['id']}"))
    assert again.status_code == 422 and again.json()["code"] == "rule"


def test_the_people_who_run_the_show_or_hold_an_entrant_cannot_accept(
    post, org, staffed_show, as_user, show_people
):
    made = invite(post, org, staffed_show)
    before = version(staffed_show)
    for who, words in [
        ("organizer", "runs this show"),
        ("moderator", "runs this show"),
        ("player", "holds an entrant of this show already"),
    ]:
        resp = post(as_user(show_people[who]), "/api/invitations/accept", {"token": made["token"]})
        assert resp.status_code == 422 and words in resp.json()["message"], who
    assert version(staffed_show) == before
    anonymous = post(as_user(None), "/api/invitations/accept", {"token": made["token"]})
    assert anonymous.status_code == 401 and anonymous.json()["code"] == "not_authenticated"


@pytest.mark.parametrize(
    "entrant, words",
    [("ana", "held by an account already"), ("zed", "not an active entrant"), ("", "entrant")],
)
def test_only_an_active_entrant_no_account_holds_is_invited(
    post, org, staffed_show, entrant, words
):
    before = version(staffed_show)
    resp = post(org, url(staffed_show), {"entrant": entrant})
    assert resp.status_code in (400, 422) and words in resp.json()["message"]
    assert version(staffed_show) == before


@pytest.mark.parametrize(
    "caller, code",
    [("anonymous", 401), ("other", 403), ("staff", 403), ("player", 403), ("moderator", 403)],
)
def test_only_the_organizer_invites_lists_and_revokes(
    post, org, staffed_show, as_user, show_people, caller, code
):
    made = invite(post, org, staffed_show)
    client = as_user(show_people[caller])
    before = version(staffed_show)
    for resp in (
        client.get(url(staffed_show)),
        post(client, url(staffed_show), {"entrant": "dee"}),
        client.delete(url(staffed_show, f"/{made['id']}")),
    ):
        assert resp.status_code == code, (caller, resp.content)
        if code == 403:
            assert resp.json()["code"] == "permission_denied"
            assert "only the organizer" in resp.json()["message"]
    assert version(staffed_show) == before
    assert org.get(url(staffed_show)).json()[0]["status"] == "open"


def test_the_show_command_endpoint_refuses_a_forged_acceptance(post, staffed_show, as_user):
    """accept_invitation is the platform's to record: a caller sending it is a 403."""
    bea = User.objects.create_user("bea")
    cmd = {
        "type": "accept_invitation",
        "invitation_id": "invitation-1",
        "user_id": bea.pk,
        "username": "bea",
    }
    resp = post(as_user(bea), f"/api/shows/{staffed_show.pk}/commands", {"command": cmd})
    assert resp.status_code == 403 and resp.json()["code"] == "permission_denied"
