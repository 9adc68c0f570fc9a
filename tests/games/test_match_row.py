"""The match row's update (games/match_row.py), both ways: PostgreSQL's one
statement adding a bout's points in SQL, and the ORM's read and write."""

import pytest
from django.contrib.auth.models import User

from games.match_row import update_match
from games.models import Match

HALVES = {"postgresql": update_match.postgresql, "portable": update_match.portable}
CHANGES = [
    ({"version": 7}, None),
    ({"version": 8}, {"ana": 1, "cy": 2}),
    ({"status": "finished", "winners": ["ana"], "scores": {"ana": 4}}, None),
]


@pytest.fixture
def match(seated_match):
    ana, ben = (User.objects.create_user(n) for n in ("ana", "ben"))
    return seated_match(ana, ben, decision_s=0)


def _written_by(update, match, fields, points) -> dict:
    Match.objects.filter(pk=match.pk).update(scores={"ana": 1, "ben": 0}, status="live", winners=[])
    update(match.stream, fields, points)
    return Match.objects.filter(pk=match.pk).values().get()


@pytest.mark.django_db
def test_the_portable_update_adds_the_points_to_the_scores(match):
    row = _written_by(HALVES["portable"], match, {"version": 8}, {"ana": 1, "cy": 2})
    assert row["version"] == 8 and row["scores"] == {"ana": 2, "ben": 0, "cy": 2}


@pytest.mark.postgres
@pytest.mark.django_db
@pytest.mark.parametrize("fields, points", CHANGES)
def test_both_halves_write_the_same_row(match, fields, points):
    written = {name: _written_by(update, match, fields, points) for name, update in HALVES.items()}
    assert written["postgresql"] == written["portable"]
