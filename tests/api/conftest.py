"""A love-me-not match seated by ana, and the callers the API must tell apart."""

import json
import random

import pytest
from django.contrib.auth.models import User
from django.test import Client

from api.models import ApiToken
from games import services

from .receiver import Receiver


@pytest.fixture
def ana(db):
    return User.objects.create_user("ana_user")


@pytest.fixture
def other(db):
    return User.objects.create_user("olaf")


@pytest.fixture
def staff(db):
    """Staff, and no role in any show."""
    return User.objects.create_user("stan", is_staff=True)


@pytest.fixture
def organizer(db):
    """May create matches (games.add_match) and moderates the match below."""
    from django.contrib.auth.models import Permission

    user = User.objects.create_user("orla")
    user.user_permissions.add(Permission.objects.get(codename="add_match"))
    return user


@pytest.fixture
def match(ana, organizer):
    return services.create_match(
        "love-me-not",
        ["ana", "ben"],
        holders={"ana": ana.pk},
        moderators=[organizer.pk],
        rng=random.Random(4),
    )


@pytest.fixture
def as_user(db):
    """A client logged in as ``user`` (None: anonymous), CSRF checked as in a browser."""

    def make(user):
        client = Client(enforce_csrf_checks=user is None)
        if user is not None:
            client.force_login(user)
        return client

    return make


@pytest.fixture
def token_client(db):
    """A client that sends ``Authorization: Token <secret>`` and no cookie."""

    def make(user, name="bot", keyword="Token"):
        token, secret = ApiToken.issue(user, name)
        client = Client(enforce_csrf_checks=True, HTTP_AUTHORIZATION=f"{keyword} {secret}")
        client.token, client.secret = token, secret
        return client

    return make


@pytest.fixture
def post():
    """POST a JSON body (an object, or raw text sent as it is)."""

    def send(client, url, body):
        data = body if isinstance(body, (str, bytes)) else json.dumps(body)
        return client.post(url, data, content_type="application/json")

    return send


@pytest.fixture
def show_people(db):
    """The roles of ``staffed_show``: its organizer, a moderator, ana's player,
    an account with no role, staff with no role."""
    return {
        "anonymous": None,
        "organizer": User.objects.create_user("olga"),
        "moderator": User.objects.create_user("mia"),
        "player": User.objects.create_user("ana_user"),
        "other": User.objects.create_user("olaf"),
        "staff": User.objects.create_user("stan", is_staff=True, is_superuser=True),
    }


@pytest.fixture
def staffed_show(show_people):
    """olga's show of four: ana held by a person, ben by a bot, cal and dee by
    nobody; mia moderates."""
    from tournaments import show_services as ss
    from tournaments.models import ShowRecord

    stream = ss.create_show(
        name="Invitational",
        organizer="olga",
        entrants=["ana", "ben", "cal", "dee"],
        options={"step_deadline_s": 0},
        holders={"ana": show_people["player"].pk, "ben": "bot:random"},
        rng=random.Random(2),
    )
    ss.command(
        stream, {"type": "appoint_moderator", "username": "mia"}, ss.Acting("olga", "organizer")
    )
    return ShowRecord.objects.get(stream=stream)


@pytest.fixture
def receiver():
    """A webhook receiver on 127.0.0.1 answering 200 (``.status`` may change)."""
    r = Receiver()
    yield r
    r.close()
