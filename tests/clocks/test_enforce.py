"""The enforcer's claim on a due match (clocks/enforce.py), both ways:
PostgreSQL's advisory lock, tried, and the ORM's check that it is still due."""

import pytest
from django.contrib.auth.models import User

from clocks.enforce import _claim

HALVES = {"postgresql": _claim.postgresql, "portable": _claim.portable}


@pytest.fixture
def match(seated_match):
    ana, ben = (User.objects.create_user(n) for n in ("ana", "ben"))
    return seated_match(ana, ben, decision_s=30)


def _claims(claim, match) -> list[bool]:
    from datetime import timedelta

    due = match.next_deadline
    return [claim(match.pk, due), claim(match.pk, due + timedelta(seconds=1)), claim(-1, due)]


@pytest.mark.django_db
def test_the_portable_claim_holds_only_while_the_match_is_due_at_that_deadline(match):
    assert _claims(HALVES["portable"], match) == [True, False, False]


@pytest.mark.postgres
@pytest.mark.django_db
def test_both_halves_claim_the_same(match):
    claims = {name: _claims(claim, match) for name, claim in HALVES.items()}
    assert claims["postgresql"] == claims["portable"] == [True, False, False]
