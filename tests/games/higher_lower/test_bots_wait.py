"""Issue 13 through the services: Higher or Lower bots write no no-op
events; a bot with nothing to do waits and the clock closes the auction."""

from __future__ import annotations

import random

import pytest

from eventlog.store import read
from games import services


@pytest.mark.django_db
@pytest.mark.parametrize("bot", ["bot:random", "bot:heuristic"])
def test_bots_in_an_auction_wait_for_the_clock(bot):
    rng = random.Random(3)
    start = 1_000_000.0
    match = services.create_match(
        "higher-lower", ["ana", "ben"], holders={"ana": bot, "ben": bot}, rng=rng, now=start
    )
    # the bots bid until neither has a bid to make, then play_bots stops
    moves = services.play_bots(match, rng=rng, now=start + 1)
    assert moves <= 1500 // 10
    state = services.load(match).state
    assert state.bout.phase == "auction" and not state.finished
    if bot == "bot:random":  # at the bots' bid ceiling: waiting, it writes nothing
        assert services.play_bots(match, rng=rng, now=start + 2) == 0
    types = [r.type for r in read(match.stream)]
    assert "passed" not in types
    # the clock closes the auction; the bots then play the game to its end
    services.run_bots(match, start=start + 3, rng=rng)
    match.refresh_from_db()
    assert match.status == "finished"
    types = [r.type for r in read(match.stream)]
    assert types.count("auction_closed") == 1 and "passed" not in types
    assert types.count("turn_revealed") == 24
