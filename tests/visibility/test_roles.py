"""Roles that hold: role x action x show, each allowed or refused with a
clear 403 that names the role needed."""

import random

import pytest
from django.contrib.auth.models import Permission, User

from eventlog.store import read
from games import services

pytestmark = pytest.mark.django_db

ROLES = [
    "anonymous",
    "user",
    "staff",
    "superuser",
    "player",
    "match_moderator",
    "organizer",
    "show_moderator",
    "other_show_moderator",
]


@pytest.fixture
def world(fake_shows):
    u = {
        name: User.objects.create_user(
            name, password="pw-123456", is_staff=name == "staff", is_superuser=name == "superuser"
        )
        for name in ROLES[1:]
    }
    show = fake_shows.add(
        "fake-show-a",
        organizer=[u["organizer"].pk],
        moderators=[u["show_moderator"].pk],
        delay=0,
    )
    fake_shows.add("fake-show-b", moderators=[u["other_show_moderator"].pk], delay=0)
    matches = {}
    for where in ("show", "no_show"):
        matches[where] = services.create_match(
            "love-me-not",
            ["ana", "ben"],
            holders={"ana": u["player"].pk, "ben": "bot:random"},
            show_stream=show if where == "show" else "",
            moderators=[u["match_moderator"].pk] if where == "no_show" else None,
            rng=random.Random(1),
        )
    return u, matches


def login(client, u, role):
    client.logout()
    if role != "anonymous":
        client.force_login(u[role])


MODERATES = {
    "show": {"organizer", "show_moderator"},
    "no_show": {"match_moderator"},
}


@pytest.mark.parametrize("where", ["show", "no_show"])
@pytest.mark.parametrize("role", ROLES)
def test_pausing_a_match(client, world, role, where):
    u, matches = world
    match = matches[where]
    login(client, u, role)
    before = len(read(match.stream))
    resp = client.post(
        f"/api/matches/{match.pk}/moderate",
        {"type": "pause", "reason": "stream down"},
        content_type="application/json",
    )
    if role in MODERATES[where]:
        assert resp.status_code == 201, resp.content
        assert read(match.stream)[-1].type == "clock_paused"
    else:
        refused(resp, role, "only a moderator of this match")
        assert len(read(match.stream)) == before


def refused(resp, role, words):
    """Anonymous callers are asked to log in (401); everyone else is told
    which role the action needs (403)."""
    body = resp.json()
    if role == "anonymous":
        assert resp.status_code == 401 and body["code"] == "not_authenticated", resp.content
    else:
        assert resp.status_code == 403 and body["code"] == "permission_denied", resp.content
        assert words in body["message"]


@pytest.mark.parametrize("where", ["show", "no_show"])
@pytest.mark.parametrize("role", ROLES)
def test_sending_a_move(client, world, role, where):
    u, matches = world
    match = matches[where]
    login(client, u, role)
    before = len(read(match.stream))
    resp = client.post(
        f"/api/matches/{match.pk}/commands",
        {"command": {"type": "no_such_move"}},
        content_type="application/json",
    )
    if role == "player":
        assert resp.status_code == 422  # past the role check, refused by the rules
    else:
        refused(resp, role, "seated player")
    assert len(read(match.stream)) == before


@pytest.mark.parametrize("role", ROLES + ["permitted"])
def test_creating_a_match(client, world, role):
    u, _ = world
    if role == "permitted":
        u["permitted"] = User.objects.create_user("permitted", password="pw-123456")
        u["permitted"].user_permissions.add(Permission.objects.get(codename="add_match"))
    login(client, u, role)
    before = services.Match.objects.count()
    resp = client.post(
        "/api/matches/",
        {"game": "love-me-not", "seats": ["ana", "ben"], "spectator_delay_s": 30},
        content_type="application/json",
    )
    if role in ("permitted", "superuser"):
        assert resp.status_code == 201, resp.content
        created = services.Match.objects.get(pk=resp.json()["id"])
        data = read(created.stream)[0].data
        assert data["moderators"] == [u[role].pk] and data["spectator_delay_s"] == 30
        assert services.viewer_for(created, u[role]).kind == "moderator"
    else:
        refused(resp, role, "games.add_match")
        assert services.Match.objects.count() == before
