"""Playing whole matches for the ratings' tests: every seat, people's too,
moves as a bot would, on a simulated clock."""

from __future__ import annotations

import random

from django.contrib.auth.models import User

from games import services
from games.core.playout import bot_command
from games.core.registry import series_for
from games.models import Match
from tournaments import bracket_services as bs

DAY = 86_400.0


def accounts(*names: str) -> dict[str, User]:
    return {n: User.objects.create_user(n, password="pw-123456") for n in names}


def play_out(match: Match, rng: random.Random, *, now: float, max_moves: int = 5_000) -> float:
    """Every seat moves (a random bot's choice) until the match ends; time
    passes a second a move, and deadlines fire when nobody can move."""
    series = series_for(match.game)
    t = now
    for _ in range(max_moves):
        state = services.load(match).state
        if state.finished:
            return t
        t += 1.0
        due = series.next_deadline(state)
        if due is not None and due <= t:
            services.submit(match, None, {"type": "timeout"}, role="system", now=t, rng=rng)
            continue
        moved = False
        for d in series.pending(state):
            command = bot_command(series, state, d.seat, "random", rng)
            if command is not None:
                services.submit(match, d.seat, command, now=t, rng=rng)
                moved = True
                break
        if not moved:
            deadline = series.next_deadline(state)
            assert deadline is not None, "nobody can move and no clock runs"
            t = max(t, deadline)
            services.submit(match, None, {"type": "timeout"}, role="system", now=t, rng=rng)
    raise AssertionError("the match did not end")


def live_matches(stream: str) -> list[Match]:
    return list(Match.objects.filter(show_stream=stream, status="live").order_by("id"))


def play_bracket(stream: str, rng: random.Random, *, now: float, step: float = DAY) -> float:
    """Every series of a bracket, played one after another, ``step`` apart."""
    t = now
    for _ in range(200):
        matches = live_matches(stream)
        if not matches:
            return t
        t = play_out(matches[0], rng, now=t) + step
    raise AssertionError("the bracket did not end")


def round_robin(game: str, holders: dict, *, rated: bool = True, rng=None, now: float) -> str:
    return bs.create_bracket(
        name="League",
        game=game,
        format="round_robin",
        entrants=list(holders),
        holders=holders,
        first_to=1,
        match_options={"decision_s": 0},  # series played days apart never time out
        actor="olga",
        rng=rng or random.Random(1),
        now=now,
        rated=rated,
    )


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
