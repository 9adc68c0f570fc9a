"""The enforcer's claim on the due matches (clocks/enforce.py), both ways:
PostgreSQL's read with an advisory lock per match, tried, and the ORM's read
(SQLite writes one transaction at a time: nobody to share them with)."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.db import connection

from clocks.enforce import _claim_due, _next_deadline, _release

HALVES = {"postgresql": (_claim_due.postgresql, _release.postgresql)}
HALVES["portable"] = (_claim_due.portable, _release.portable)


@pytest.fixture
def match(seated_match):
    ana, ben = (User.objects.create_user(n) for n in ("ana", "ben"))
    return seated_match(ana, ben, decision_s=30)


def _claims(halves, match) -> list:
    claim, release = halves
    due = match.next_deadline
    found = [
        claim(due, None, 10),
        claim(due - timedelta(seconds=1), None, 10),  # not due yet
        claim(due, (due, match.pk), 10),  # read already
        claim(due, None, 10, match.pk),
        claim(due, None, 10, -1),
    ]
    for claimed in found:
        release([m.pk for m, ours in claimed if ours])
    return [[(m.pk, ours) for m, ours in claimed] for claimed in found]


@pytest.mark.django_db
def test_the_portable_claim_reads_the_due_matches(match):
    mine = [(match.pk, True)]
    assert _claims(HALVES["portable"], match) == [mine, [], [], mine, []]


@pytest.mark.postgres
@pytest.mark.django_db
def test_both_halves_claim_the_same(match):
    claims = {name: _claims(halves, match) for name, halves in HALVES.items()}
    assert claims["postgresql"] == claims["portable"]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_claimed_match_is_skipped_by_another_enforcer_until_given_back(match):
    import psycopg

    claim, release = HALVES["postgresql"]
    due = match.next_deadline
    with psycopg.connect(**connection.get_connection_params()) as other:
        other.autocommit = True
        assert claim(due, None, 10) == [(match, True)]
        held = other.execute(
            "SELECT pg_try_advisory_lock(%s, %s)", [0x636C6B73, match.pk]
        ).fetchone()
        assert held == (False,)  # ours: the other enforcer skips it
        release([match.pk])
        held = other.execute(
            "SELECT pg_try_advisory_lock(%s, %s)", [0x636C6B73, match.pk]
        ).fetchone()
        assert held == (True,)
        # and the other's claim is seen here as not ours
        assert [(m.pk, ours) for m, ours in claim(due, None, 10)] == [(match.pk, False)]


def _next_deadlines(next_deadline, match, other) -> list:
    """What the index's next deadline is seen as, from the two live matches
    ``match`` and ``other`` (30 s apart), before and after either leaves it."""
    due = match.next_deadline
    seen = [next_deadline(None), next_deadline(due), next_deadline(due - timedelta(seconds=1))]
    type(other).objects.filter(pk=other.pk).update(next_deadline=None)  # no clock running
    seen.append(next_deadline(due))
    type(match).objects.filter(pk=match.pk).update(status="finished")
    seen.append(next_deadline(None))
    return seen


@pytest.mark.postgres
@pytest.mark.django_db
@pytest.mark.parametrize("half", ["postgresql", "portable"])
def test_the_next_deadline_is_the_earliest_live_one_after_what_was_asked(half, seated_match):
    ana, ben, cy = (User.objects.create_user(n) for n in ("ana", "ben", "cy"))
    match = seated_match(ana, ben, decision_s=30)
    other = seated_match(ana, cy, decision_s=60)
    due, later = match.next_deadline, other.next_deadline
    assert later - due >= timedelta(seconds=29)
    found = _next_deadlines(getattr(_next_deadline, half), match, other)
    assert found == [due, later, due, None, None]
