"""The ratings of a match's seats, as everyone may see them now (TV shows
them beside each seat and picks the site's top-rated match by them), read
through the one source the ratings app registers (``games.player_ratings``)."""

from __future__ import annotations

from games.models import Match
from games.player_ratings import ratings_of


def ratings_for(match: Match) -> dict[str, float]:
    """Each rated seat of ``match`` -> its rating (the ordinal, to a tenth)
    in the match's game."""
    keys: dict[str, str] = {}
    for h in match.holders.all():
        if h.bot:
            keys[h.seat] = f"bot:{h.bot}"
        elif h.user_id is not None:
            keys[h.seat] = f"u:{h.user_id}"
    rated = ratings_of(match.game, set(keys.values()))
    return {seat: round(rated[k].ordinal, 1) for seat, k in keys.items() if k in rated}
