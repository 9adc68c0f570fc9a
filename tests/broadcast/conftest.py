"""Fixtures of the broadcast's tests: a show with a death match being played."""

import pytest
from django.contrib.auth.models import User

from games import visibility
from tests.broadcast.helpers import live_show


@pytest.fixture
def at(monkeypatch):
    """at(t): every read made from now on happens at time t."""

    def set_clock(t):
        monkeypatch.setattr(visibility, "clock", lambda: t)

    return set_clock


@pytest.fixture
def make_live_show(db):
    """``make(delay=60, policy="public", moves=6)``: helpers.live_show, organized
    by olga. Returns (record, match, olga, t0)."""

    def make(**kw):
        olga = User.objects.filter(username="olga").first() or User.objects.create_user(
            "olga", password="pw-123456"
        )
        t0 = visibility.clock()
        record, match, _rng = live_show(olga, **kw)
        return record, match, olga, t0

    return make
