"""What a browser test may meet when its answer to a bot comes late."""

import time

from games import services
from games.core.registry import series_for


def too_late_to_bid(match, response) -> bool:
    """Whether ``response`` refused a Higher or Lower bid that arrived after the
    auction's silence had run out: the rules close the auction first (the
    refusal says so), so on a slow machine a test's answer to the bot's bid
    may come too late. Nothing was written; the bots' next pass closes it."""
    if match.game != "higher-lower" or response.status != 422:
        return False
    state = services.load(match).state
    deadline = series_for(match.game).next_deadline(state)
    return (
        deadline is not None
        and deadline <= time.time()
        and "the auction is over" in response.text()
    )
