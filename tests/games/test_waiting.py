"""The "waiting for you" notes written both ways (games/waiting.py): the
statement PostgreSQL runs on every move and the ORM's rows are the same."""

import pytest
from django.contrib.auth.models import User

from eventlog.readmodels import stable_id
from games.models import Notification
from games.waiting import WAITING, write_notes

HALVES = {"postgresql": write_notes.postgresql, "portable": write_notes.portable}


@pytest.fixture
def match(seated_match):
    ana, ben = (User.objects.create_user(n) for n in ("ana", "ben"))
    return seated_match(ana, ben, decision_s=0)


def _written_by(write, match, saying) -> list[tuple]:
    """The notes ``write`` leaves, from the same notes before it: ana's and
    ben's waiting notes (to rewrite, or delete when no longer waited on) and
    a note of another kind, which stays."""
    Notification.objects.filter(match=match).delete()
    ana, ben = (h.user_id for h in match.holders.order_by("seat"))
    before = [(ana, "waiting", f"{WAITING}old"), (ben, "waiting", f"{WAITING}old")]
    for user, kind, text in [*before, (ben, "opened", "Your match has opened")]:
        Notification.objects.create(
            id=stable_id(kind, match.pk, user),  # as every note is made
            user_id=user,
            match=match,
            text=text,
            created_at=match.created_at,
        )
    write(match, saying)
    return sorted(
        Notification.objects.filter(match=match).values_list("id", "user_id", "text", "created_at")
    )


@pytest.mark.django_db
def test_the_portable_notes_say_the_seats_waited_on_and_keep_stable_ids(match):
    written = _written_by(HALVES["portable"], match, {"ana": "bout 2: play card"})
    ana = match.holders.get(seat="ana").user_id
    waiting = [(i, u, t) for i, u, t, _at in written if t.startswith(WAITING)]
    assert waiting == [
        (
            stable_id("waiting", match.pk, ana),
            ana,
            f"{WAITING}{match} waits for you (ana: bout 2: play card)",
        )
    ]
    assert len(written) == 2  # the opened-match note stays


@pytest.mark.postgres
@pytest.mark.django_db
@pytest.mark.parametrize(
    "saying",
    [{"ana": "bout 2: play card"}, {"ben": "draw", "ana": "x"}, {"nobody": "draw"}],
    ids=["one seat", "both seats", "an unheld seat"],
)
def test_both_halves_write_the_same_notes(match, saying):
    written = {name: _written_by(write, match, saying) for name, write in HALVES.items()}
    assert written["postgresql"] == written["portable"]
