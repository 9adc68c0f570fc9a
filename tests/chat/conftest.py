import random

import pytest
from django.contrib.auth.models import User

from games import services


@pytest.fixture
def people(db):
    """ana and ben (the seats), sam (a spectator), mo (the match's moderator)."""
    return {
        n: User.objects.create_user(n, password="pw-123456") for n in ("ana", "ben", "sam", "mo")
    }


@pytest.fixture
def table(people):
    """A live Love Me Not match of ana and ben, moderated by mo, no delay."""
    return make_table(people, delay=0)


def make_table(people, delay: float = 0):
    return services.create_match(
        "love-me-not",
        ["ana", "ben"],
        holders={"ana": people["ana"].pk, "ben": people["ben"].pk},
        options={"decision_s": 0},
        rng=random.Random(5),
        moderators=[people["mo"].pk],
        spectator_delay_s=delay,
    )
