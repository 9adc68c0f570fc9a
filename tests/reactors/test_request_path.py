"""With the reactors in their own processes (production), a move is load,
decide, append, answer: publishing it, its webhooks and arming its clock are
left to the reactors, which follow the log."""

import random

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext

from clocks import arming
from games import services
from games.core.playout import bot_command
from games.core.registry import series_for
from live import publisher
from reactors.follow import Follower

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _match(ana, ben):
    return services.create_match(
        "love-me-not",
        ["ana", "ben"],
        holders={"ana": ana.pk, "ben": ben.pk},
        options={"decision_s": 30, "first_to": 2},
        rng=random.Random(5),
    )


def _move(match) -> list[str]:
    """The queries of one legal move."""
    state = services.load(match).state
    series = series_for(match.game)
    seat = series.pending(state)[0].seat
    command = bot_command(series, state, seat, "random", random.Random(3))
    with CaptureQueriesContext(connection) as seen:
        services.submit(match, seat, command, actor=seat)
    return [q["sql"] for q in seen.captured_queries]


def test_a_move_leaves_the_publish_webhooks_and_clock_to_the_reactors(settings, monkeypatch):
    ana, ben = (User.objects.create_user(n) for n in ("ana", "ben"))
    inline = _move(_match(ana, ben))
    announced, armed = [], []
    monkeypatch.setattr(publisher, "send", lambda layer, sends: announced.extend(sends))
    monkeypatch.setattr(arming, "arm", lambda pk, deadline: armed.append((pk, deadline)))

    settings.REACTORS_INLINE = False
    match = _match(ana, ben)
    request = _move(match)
    assert len(request) < len(inline), (len(request), len(inline))
    assert not [q for q in request if "hooks_" in q]
    assert announced == [] and armed == []  # the request announced and armed nothing

    follower = Follower()
    follower.beat()
    follower.catch_up()
    follower.leave()
    versions = {m["version"] for _group, m in announced}
    assert max(versions) == services.load(match).version
    match.refresh_from_db()
    assert match.next_deadline is not None and (match.pk, match.next_deadline) in armed
