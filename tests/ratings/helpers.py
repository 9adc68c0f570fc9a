"""Playing whole matches for the ratings' tests: every seat, people's too,
moves as a bot would, on a simulated clock."""

from __future__ import annotations

import random

from django.contrib.auth.models import User

from games import services
from games.models import Match
from ratings.demo import DAY, play_out


def accounts(*names: str) -> dict[str, User]:
    return {n: User.objects.create_user(n, password="pw-123456") for n in names}


def rated_match(game: str, holders: dict, *, now: float, rated: bool = True, **kw) -> Match:
    """A match outside any show, counted for the ratings, of ``first_to`` 1."""
    options = {"first_to": 1, **kw.pop("options", {})}
    if game != "bleven":
        options.setdefault("decision_s", 0)
    return services.create_match(
        game,
        list(holders),
        holders=holders,
        options=options,
        rated=rated,
        now=now,
        rng=kw.pop("rng", None) or random.Random(7),
        **kw,
    )


def play_matches(game: str, pairs, users: dict, *, start: float, rng, step: float = DAY):
    """One rated match per pair (seat names = usernames), ``step`` apart."""
    t = start
    out = []
    for pair in pairs:
        m = rated_match(game, {n: users[n].pk for n in pair}, now=t, rng=rng)
        t = play_out(m, rng, now=t) + step
        out.append(m)
    return out, t
