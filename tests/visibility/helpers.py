"""Helpers shared by the visibility tests."""

import random

from django.contrib.auth.models import User

from eventlog.store import read
from games import services
from games.core.playout import bot_command
from games.core.registry import series_for

ENTRANTS = ["ana", "ben", "cal", "dee"]


def bot_match(
    game="love-me-not", seats=("ana", "ben"), seed=1, moves=None, bot="bot:heuristic", **kw
):
    """A match of bots on every seat, played on a clock from 1,000,000 s: to its
    end (``moves=None``), for ``moves`` moves, or not at all (0); reloaded."""
    rng = random.Random(seed)
    match = services.create_match(game, list(seats), holders={s: bot for s in seats}, rng=rng, **kw)
    if moves is None:
        services.run_bots(match, start=1_000_000.0, rng=rng)
    elif moves:
        services.run_bots(match, start=1_000_000.0, rng=rng, max_moves=moves)
    match.refresh_from_db()
    return match


def seated_match(users, game="love-me-not", seed=1, **kw):
    """A match whose seats ana and ben are held by the given users."""
    rng = random.Random(seed)
    return services.create_match(
        game, ["ana", "ben"], holders={"ana": users[0].pk, "ben": users[1].pk}, rng=rng, **kw
    )


def play_out(match, seed=2, until=None):
    """Every seat moves (as its holder would) until the match ends, or until
    ``until(state)`` holds."""
    rng = random.Random(seed)
    series = series_for(match.game)
    for _ in range(500):
        state = services.load(match).state
        if state.finished or (until is not None and until(state)):
            break
        seat = series.pending(state)[0].seat
        services.submit(match, seat, bot_command(series, state, seat, "random", rng), actor=seat)
    match.refresh_from_db()
    assert match.status == "finished" or until is not None


def times(match):
    return [(r.version, r.recorded_at.timestamp()) for r in read(match.stream)]


def played_show(t0):
    """A show with a 300 s spectator delay, played by bots to its champion on
    a clock from ``t0``: (olga its organizer, its record, its state, the end)."""
    from tournaments import autopilot
    from tournaments import show_services as ss
    from tournaments.models import ShowRecord

    olga = User.objects.create_user("olga", password="pw-123456")
    rng = random.Random(4)
    stream = ss.create_show(
        name="Friday night",
        organizer="olga",
        entrants=ENTRANTS,
        options={
            "death_match_first_to": 1,
            "final_first_to": 1,
            "step_deadline_s": 0,
            "game_pool": ["love-me-not", "higher-lower"],
            "spectator_delay_s": 300,
        },
        holders={e: "bot:heuristic" for e in ENTRANTS},
        now=t0,
        rng=rng,
    )
    end = autopilot.run(stream, rng, start=t0)
    state = ss.load(stream)[0]
    assert state.champion
    return olga, ShowRecord.objects.get(stream=stream), state, end
