import random

import pytest
from django.conf import settings
from django.contrib.auth.models import Permission, User

from tournaments import bracket_services
from tournaments import show_services as ss
from tournaments.models import BracketRecord, ShowRecord


@pytest.fixture
def people(db):
    names = ("olga", "mia", "pat")
    u = {n: User.objects.create_user(n, f"{n}@example.com", "pw-123456") for n in names}
    u["olga"].user_permissions.add(Permission.objects.get(codename="add_match"))
    return u


@pytest.fixture
def show(people):
    """olga organizes (console and dashboard), pat's account holds ana."""
    stream = ss.create_show(
        name="Soirée test",
        organizer="olga",
        organizer_id=people["olga"].pk,
        entrants=["ana", "ben", "cal", "dee"],
        options={"step_deadline_s": 0},
        holders={
            "ana": people["pat"].pk,
            "ben": "bot:heuristic",
            "cal": "bot:heuristic",
            "dee": "bot:heuristic",
        },
        rng=random.Random(1),
    )
    return ShowRecord.objects.get(stream=stream)


@pytest.fixture
def bracket(db):
    stream = bracket_services.create_bracket(
        name="Coupe test",
        game="love-letter",
        format="single",
        entrants=["p1", "p2", "p3", "p4"],
        holders={f"p{i}": "bot:heuristic" for i in range(1, 5)},
        actor="olga",
        rng=random.Random(2),
    )
    return BracketRecord.objects.get(stream=stream)


@pytest.fixture
def french(client):
    """A client that chose French with the switcher (the cookie it sets)."""
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    return client
