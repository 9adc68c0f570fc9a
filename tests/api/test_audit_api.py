"""The audit log over the API: every organizer and moderator action with
actor, reason and time, filtered by kind and actor, for the organizer and
the show's moderators only."""

import pytest

from tournaments import show_services as ss


@pytest.fixture
def acted(staffed_show):
    """mia grants ben an item; olga adds a round."""
    ss.command(
        staffed_show.stream,
        {
            "type": "grant_item",
            "entrant": "ben",
            "item": "insurance",
            "scope": "any",
            "given_by": "the audience",
            "reason": "best comeback",
        },
        ss.Acting("mia", "moderator"),
    )
    ss.command(
        staffed_show.stream, {"type": "add_round", "title": "R1"}, ss.Acting("olga", "organizer")
    )
    return staffed_show


def audit(client, show, **query):
    return client.get(f"/api/shows/{show.pk}/audit", query)


@pytest.mark.parametrize("caller", ["organizer", "moderator"])
def test_the_organizer_and_moderators_read_every_action(as_user, show_people, acted, caller):
    resp = audit(as_user(show_people[caller]), acted)
    assert resp.status_code == 200
    rows = resp.json()
    assert [r["kind"] for r in rows[:3]] == ["round_added", "item_granted", "moderator_appointed"]
    grant = rows[1]
    assert grant["actor"] == "mia" and grant["role"] == "moderator"
    assert grant["reason"] == "best comeback" and isinstance(grant["at"], float)
    assert "insurance" in grant["text"].lower()


def test_filtered_by_kind_and_actor(as_user, show_people, acted):
    client = as_user(show_people["moderator"])
    assert [r["kind"] for r in audit(client, acted, kind="item_granted").json()] == ["item_granted"]
    by_olga = audit(client, acted, actor="olga").json()
    assert by_olga and {r["actor"] for r in by_olga} == {"olga"}
    assert audit(client, acted, kind="item_granted", actor="olga").json() == []
    too_long = audit(client, acted, kind="k" * 65)
    assert too_long.status_code == 400 and too_long.json()["code"] == "invalid"


@pytest.mark.parametrize(
    "caller, code", [("anonymous", 401), ("other", 403), ("staff", 403), ("player", 403)]
)
def test_everyone_else_is_refused(as_user, show_people, acted, caller, code):
    resp = audit(as_user(show_people[caller]), acted)
    assert resp.status_code == code
    body = resp.json()
    assert body["code"] == ("not_authenticated" if code == 401 else "permission_denied")
    assert "best comeback" not in resp.content.decode()
    if code == 403:
        assert "only the organizer and moderators" in body["message"]


def test_an_unknown_show_is_a_404(as_user, show_people, db):
    resp = as_user(show_people["organizer"]).get("/api/shows/999999/audit")
    assert resp.status_code == 404 and resp.json()["code"] == "not_found"
