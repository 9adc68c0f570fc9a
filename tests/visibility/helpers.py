"""Helpers shared by the visibility tests."""

import random

from eventlog.store import read
from games import services


def bot_match(game="love-me-not", seats=("ana", "ben"), seed=1, moves=None, **kw):
    rng = random.Random(seed)
    match = services.create_match(
        game, list(seats), holders={s: "bot:heuristic" for s in seats}, rng=rng, **kw
    )
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


def times(match):
    return [(r.version, r.recorded_at.timestamp()) for r in read(match.stream)]
