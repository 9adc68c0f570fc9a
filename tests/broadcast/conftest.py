"""A show with a death match being played, for the broadcast's tests."""

import random

import pytest
from django.contrib.auth.models import User

from games import services, visibility
from games.models import Match
from tournaments import autopilot
from tournaments import show_services as ss
from tournaments.models import ShowRecord

ENTRANTS = ["ana", "ben", "cal", "dee", "eve", "fay"]


@pytest.fixture
def at(monkeypatch):
    """at(t): every read made from now on happens at time t."""

    def set_clock(t):
        monkeypatch.setattr(visibility, "clock", lambda: t)

    return set_clock


@pytest.fixture
def make_live_show(db):
    """``make(delay=60, policy="public", moves=6)``: a show of bots whose first
    death match is open and has had ``moves`` moves, all made now (real time).
    Returns (record, match, organizer, t0)."""

    def make(delay=60, policy="public", moves=6, name="Broadcast night", seed=7):
        olga = User.objects.filter(username="olga").first() or User.objects.create_user(
            "olga", password="pw-123456"
        )
        rng = random.Random(seed)
        t0 = visibility.clock()
        stream = ss.create_show(
            name=name,
            organizer="olga",
            organizer_id=olga.pk,
            entrants=ENTRANTS,
            options={
                "death_match_first_to": 3,
                "final_first_to": 3,
                "game_pool": ["love-me-not"],
                "spectator_delay_s": delay,
                "spectator_policy": policy,
            },
            holders={e: "bot:heuristic" for e in ENTRANTS},
            rng=rng,
        )
        acting = ss.Acting("olga", "organizer")
        ranking = [[e] for e in ENTRANTS]
        ss.command(stream, {"type": "enter_ranking", "ranking": ranking}, acting)
        for _ in range(30):
            if Match.objects.filter(show_stream=stream, kind="death_match").exists():
                break
            if not autopilot.step(stream, rng):
                break
        match = Match.objects.get(show_stream=stream, kind="death_match")
        services.play_bots(match, max_moves=moves, rng=rng)
        match.refresh_from_db()
        return ShowRecord.objects.get(stream=stream), match, olga, t0

    return make
