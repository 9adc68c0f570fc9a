"""The clock index and the notes a write leaves (games/clock_index.py), both
ways: PostgreSQL's statement that writes and reads the row back, and the ORM's."""

import pytest
from django.contrib.auth.models import User

from games import services
from games.clock_index import match_row_inline, opened_match, set_deadline
from games.models import Match, Notification

SET = {"postgresql": set_deadline.postgresql, "portable": set_deadline.portable}
OPENED = {"postgresql": opened_match.postgresql, "portable": opened_match.portable}
FIELDS = ("version", "updated_at", "status", "next_deadline", "waiting_on", "scores")


@pytest.fixture
def match(seated_match):
    ana, ben = (User.objects.create_user(n) for n in ("ana", "ben"))
    return seated_match(ana, ben, decision_s=30)


def _tables(match) -> tuple:
    row = Match.objects.filter(pk=match.pk).values(*FIELDS).get()
    notes = sorted(Notification.objects.filter(match=match).values_list("id", "user_id", "text"))
    return row, notes


def _written_by(write, match, status: str) -> tuple:
    """What ``write`` leaves from a row whose index is stale, ``match`` read back."""
    state = services.load(match).state
    Match.objects.filter(pk=match.pk).update(status=status, next_deadline=None, waiting_on=["x"])
    Notification.objects.filter(match=match).delete()
    read = Match.objects.get(pk=match.pk)
    read.status = "live"  # as read before the projectors ended it
    write(read, state)
    return _tables(match), {f: getattr(read, f) for f in FIELDS}


@pytest.mark.django_db
@pytest.mark.parametrize("status", ["live", "finished"])
def test_the_portable_index_is_due_while_live_and_empty_once_over(match, status):
    (row, notes), read = _written_by(SET["portable"], match, status)
    assert read == row
    live = status == "live"
    assert (row["next_deadline"] is not None) == live and bool(row["waiting_on"]) == live
    assert bool([n for n in notes if n[2].startswith("Your turn: ")]) == live


@pytest.mark.postgres
@pytest.mark.django_db
@pytest.mark.parametrize("status", ["live", "finished", "void"])
def test_both_halves_write_and_read_back_the_same(match, status):
    written = {name: _written_by(write, match, status) for name, write in SET.items()}
    assert written["postgresql"] == written["portable"]


@pytest.mark.postgres
@pytest.mark.django_db
def test_both_halves_give_a_new_match_its_row(match):
    state = services.load(match).state
    opened = {}
    for name, open_ in OPENED.items():
        Match.objects.filter(pk=match.pk).update(next_deadline=None, waiting_on=[])
        found = open_(match.stream, match.game, state)
        opened[name] = ({f: getattr(found, f) for f in FIELDS}, _tables(match))
    assert opened["postgresql"] == opened["portable"]
    assert opened["portable"][0]["next_deadline"] is not None


@pytest.mark.django_db
def test_only_postgresql_writes_a_move_in_its_append(match):
    from games.clock_index import clock_index

    state = services.load(match).state
    index = clock_index(match.game, state)
    assert match_row_inline.portable(match, state, index) is None
    assert match_row_inline.postgresql(match, state, index).name == "match_row"
    match.status = "finished"
    assert match_row_inline.postgresql(match, state, index) is None
